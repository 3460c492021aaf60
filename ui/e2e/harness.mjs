// Shared set-up for the end-to-end tests: a real `provex serve` (fresh private FalkorDB in a
// temporary data folder, a free port), Debian's Chromium driven by playwright-core, and a few
// helpers. Builds nothing: `npm run e2e` builds the UI first.
//
//   const h = await start({ token });      // server + browser + page (token: else the one the
//                                          // server makes, read from its token file)
//   await h.open("/?graph=council");       // navigates (with ?token=) and waits for html[data-ready]
//   ...
//   await h.stop();                        // closes the browser, SIGTERMs the server, checks it exited
//
// Environment: PROVEX_BIN (default target/debug/provex), PROVEX_UI (default ui/dist),
// CHROMIUM (default /usr/bin/chromium), E2E_HEADED=1 to watch.

import { spawn, execFile } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import { copyFile, mkdir, mkdtemp, rm } from "node:fs/promises";
import net from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { chromium } from "playwright-core";

const here = dirname(fileURLToPath(import.meta.url));
export const UI_ROOT = resolve(here, "..");
export const ROOT = resolve(UI_ROOT, "..");
export const PROVEX = resolve(process.env.PROVEX_BIN ?? join(ROOT, "target/debug/provex"));
export const UI_DIST = resolve(process.env.PROVEX_UI ?? join(UI_ROOT, "dist"));
export const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
export const ARTIFACTS = join(here, "artifacts");

export const CHROMIUM_ARGS = [
  "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync",
];

const run = promisify(execFile);

/** A TCP port nobody is listening on right now (listen on 0, read it, close). */
export function freePort() {
  return new Promise((resolvePort, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolvePort(port));
    });
  });
}

/** Whether something accepts connections on 127.0.0.1:port. */
export function listening(port) {
  return new Promise((res) => {
    const s = net.connect({ host: "127.0.0.1", port });
    s.once("connect", () => { s.destroy(); res(true); });
    s.once("error", () => res(false));
    s.setTimeout(1000, () => { s.destroy(); res(false); });
  });
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Polls `fn` until it returns something truthy; throws `what` (with the last value) after `ms`. */
export async function until(fn, { ms = 15_000, every = 100, what = "condition" } = {}) {
  const end = Date.now() + ms;
  let last;
  for (;;) {
    try {
      last = await fn();
      if (last) return last;
    } catch (e) {
      if (e?.fatal) throw e;
      last = e;
    }
    if (Date.now() > end) {
      throw new Error(`timed out after ${ms} ms waiting for ${what}; last: ${last instanceof Error ? last.message : JSON.stringify(last)}`);
    }
    await sleep(every);
  }
}

/** The newest modification time of the files under `dir` (0 when there is none). */
function newest(dir) {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) t = Math.max(t, statSync(join(e.parentPath ?? e.path, e.name)).mtimeMs);
  }
  return t;
}

let checked = false;
function checkBuilt() {
  if (!existsSync(PROVEX)) throw new Error(`${PROVEX} does not exist: run \`cargo build\` first`);
  if (!existsSync(join(UI_DIST, "index.html"))) throw new Error(`${UI_DIST}/index.html does not exist: run \`npx vite build\` in ui/ first`);
  if (checked) return;
  checked = true;
  if (!process.env.PROVEX_BIN && statSync(PROVEX).mtimeMs < newest(join(ROOT, "src"))) {
    console.error(`e2e: warning: ${PROVEX} is older than the Rust sources; \`cargo build\` to test the current code`);
  }
  if (!process.env.PROVEX_UI && statSync(join(UI_DIST, "index.html")).mtimeMs < newest(join(UI_ROOT, "src"))) {
    console.error(`e2e: warning: ${UI_DIST} is older than ui/src; \`npm run e2e\` builds it first`);
  }
}

/** Servers still running, killed if this process exits without stopping them. */
const children = new Set();
process.on("exit", () => {
  for (const c of children) c.kill("SIGKILL");
});

/** The file `provex serve` keeps the token it made in (`serve-PORT.token` in its data folder). */
export function tokenFile(dataDir, port) {
  return join(dataDir, `serve-${port}.token`);
}

/** `path` (under `base`) with `token=` added to its query: how the UI is opened. */
export function withToken(base, path, token) {
  const url = new URL(path, base);
  if (token) url.searchParams.set("token", token);
  return url.toString();
}

/**
 * Starts `provex serve` on a free loopback port with a fresh private data folder. Without
 * `token`, the server makes one and this reads it from the server's token file.
 * Returns { base, port, token, auth, url, dataDir, api, cli, logs, stop }.
 */
export async function startServer({ token, env = {}, args = [] } = {}) {
  checkBuilt();
  const dir = await mkdtemp(join(tmpdir(), "provex-e2e-"));
  const dataDir = join(dir, "data");
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const argv = ["--data-dir", dataDir, "serve", "--bind", `127.0.0.1:${port}`, "--ui", UI_DIST, ...args];
  if (token) argv.push("--token", token);
  const childEnv = { ...process.env, ...env };
  for (const k of ["PROVEX_TOKEN", "PROVEX_FALKORDB_URL", "PROVEX_DATA_DIR", "PROVEX_UI_DIR"]) if (!(k in env)) delete childEnv[k];
  const child = spawn(PROVEX, argv, {
    cwd: ROOT, // provex finds the FalkorDB binaries in the .venv near the working folder
    env: childEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.add(child);
  const logs = [];
  child.stdout.on("data", (d) => logs.push(String(d)));
  child.stderr.on("data", (d) => logs.push(String(d)));
  let exited = null;
  const exitPromise = new Promise((res) => child.once("exit", (code, signal) => {
    exited = { code, signal };
    children.delete(child);
    res(exited);
  }));

  /** The `Authorization` header every API request carries (set once the token is known). */
  const auth = {};
  const setToken = (t) => {
    token = t;
    auth.Authorization = `Bearer ${t}`;
  };
  if (token) setToken(token);
  /** Calls the API; returns the parsed JSON (or throws with the status and body). */
  async function api(path, { method = "GET", json, headers = {}, raw = false } = {}) {
    const init = { method, headers: { ...auth, ...headers } };
    if (json !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(json);
    }
    const res = await fetch(`${base}${path}`, init);
    if (raw) return res;
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status} ${text}`);
    return text ? JSON.parse(text) : undefined;
  }

  const started = Date.now();
  let health;
  try {
    health = await until(async () => {
      if (exited) throw Object.assign(new Error(`provex serve exited early (${JSON.stringify(exited)})`), { fatal: true });
      if (!token) {
        if (!existsSync(tokenFile(dataDir, port))) return null;
        setToken(readFileSync(tokenFile(dataDir, port), "utf8").trim());
      }
      const res = await fetch(`${base}/api/health`, { headers: auth }).catch(() => null);
      return res?.ok ? res.json() : null;
    }, { ms: 60_000, every: 150, what: "GET /api/health" });
  } catch (e) {
    child.kill("SIGKILL");
    await exitPromise;
    await rm(dir, { recursive: true, force: true });
    throw new Error(`${e.message}\n--- provex serve output ---\n${logs.join("")}`);
  }
  const dbPort = Number(/:(\d+)\/?$/.exec(health.database)?.[1]);

  /** Runs the provex CLI against the same data folder (it attaches to the running FalkorDB). */
  async function cli(...cliArgs) {
    const { stdout } = await run(PROVEX, ["--data-dir", dataDir, ...cliArgs], { cwd: ROOT, maxBuffer: 64 << 20 });
    return stdout;
  }

  let stopped = false;
  /** SIGTERM, then checks the server exited (cleanly) and its FalkorDB is gone. */
  async function stop() {
    if (stopped) return;
    stopped = true;
    if (!exited) child.kill("SIGTERM");
    let timer;
    const result = await Promise.race([exitPromise, new Promise((r) => { timer = setTimeout(() => r(null), 20_000); })]);
    clearTimeout(timer);
    if (!result) {
      child.kill("SIGKILL");
      await exitPromise;
      throw new Error(`provex serve did not exit within 20 s of SIGTERM\n${logs.join("")}`);
    }
    if (result.code !== 0) throw new Error(`provex serve exited with ${JSON.stringify(result)}\n${logs.join("")}`);
    if (dbPort) {
      await until(async () => !(await listening(dbPort)), { ms: 10_000, what: `FalkorDB on port ${dbPort} to stop` });
    }
    await rm(dir, { recursive: true, force: true });
  }

  /** The address of `path` on this server, with the token: what opens the UI. */
  const url = (path = "/") => withToken(base, path, token);

  return { base, port, token, auth, url, dataDir, dbPort, health, startMs: Date.now() - started, api, cli, logs, child, stop };
}

/** Launches Chromium with a fresh profile (Playwright makes a temporary one). */
export async function launchBrowser() {
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}`);
  const headed = process.env.E2E_HEADED === "1";
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: !headed,
    args: headed ? CHROMIUM_ARGS.filter((a) => a !== "--headless") : CHROMIUM_ARGS,
  });
}

/** A new page (1400×900 CSS px, light colour scheme, downloads on) that records its errors. */
export async function newPage(browser, { viewport = { width: 1400, height: 900 }, colorScheme = "light" } = {}) {
  const context = await browser.newContext({ viewport, deviceScaleFactor: 1, colorScheme, acceptDownloads: true });
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(`pageerror: ${e.message}`));
  page.on("console", (m) => {
    // Failed requests are reported below with their URL.
    if (m.type() === "error" && !/^Failed to load resource/.test(m.text())) errors.push(`console: ${m.text()}`);
  });
  page.on("response", (r) => {
    // Chromium asks for /favicon.ico on its own; the UI links none.
    if (r.status() >= 400 && new URL(r.url()).pathname !== "/favicon.ico") errors.push(`HTTP ${r.status()} ${r.request().method()} ${r.url()}`);
  });
  page.on("crash", () => errors.push("page crashed"));
  return { context, page, errors };
}

/**
 * Server + browser + page. `open(path)` navigates to `base + path` (with the token, which the
 * UI takes out of the address and keeps for the tab) and waits until the app is ready
 * (html[data-ready="true"]).
 */
export async function start({ token, serverArgs, env } = {}) {
  const server = await startServer({ token, args: serverArgs, env });
  let browser;
  try {
    browser = await launchBrowser();
  } catch (e) {
    await server.stop().catch(() => {});
    throw e;
  }
  const { context, page, errors } = await newPage(browser);
  async function open(path = "/") {
    await page.goto(server.url(path));
    await ready(page, errors);
  }
  async function stop() {
    await browser.close().catch(() => {});
    await server.stop();
  }
  return { ...server, server, browser, context, page, errors, open, stop };
}

/** Waits for html[data-ready="true"]; on time-out, says what the page reported. */
export async function ready(page, errors = [], ms = 15_000) {
  try {
    await page.waitForSelector('html[data-ready="true"]', { timeout: ms });
  } catch (e) {
    throw new Error(`the app did not start within ${ms} ms; the page reported:\n${errors.join("\n") || "(nothing)"}`, { cause: e });
  }
}

/** Saves a screenshot (of the page, or of `locator`) under e2e/artifacts/. Returns the path. */
export async function artifact(page, name, locator) {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, name);
  if (locator) await locator.screenshot({ path });
  else await page.screenshot({ path });
  return path;
}

/** Saves a page screenshot under e2e/artifacts/ and docs/screenshots/. */
export async function screenshot(page, name) {
  const path = await artifact(page, name);
  await mkdir(join(ROOT, "docs/screenshots"), { recursive: true });
  await copyFile(path, join(ROOT, "docs/screenshots", name));
}

/** Opens `graph` and waits until the status bar counts all its nodes and the canvas has
 *  drawn a frame. Returns the graph's stats as the API gives them. */
export async function openDrawn(h, graph) {
  const stats = await h.api(`/api/graphs/${graph}/stats`);
  await h.open(`/?graph=${graph}`);
  await until(async () => (await statusCounts(h.page)).nodes === stats.nodes, { what: `${stats.nodes} nodes drawn` });
  await until(() => h.page.evaluate(() => window.provex.canvas.stats().frames > 0), { what: "a frame drawn" });
  return stats;
}

/** The graph's view as the API gives it: node id → view node. */
export async function viewNodes(h, graph) {
  const view = await h.api(`/api/graphs/${graph}/view`);
  return new Map(view.nodes.map((n) => [n.id, n]));
}

/** Whether two page rectangles ({x, y, width, height}) overlap. */
export const overlaps = (a, b) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

/** Starts the council demo through the API and waits for its job to finish. */
export async function runDemo(h, graph, paceMs = null) {
  const job = await h.api(`/api/graphs/${encodeURIComponent(graph)}/demo`, { method: "POST", json: { pace_ms: paceMs } });
  const done = await until(async () => {
    const jobs = await h.api("/api/jobs");
    const j = jobs.find((x) => x.id === job.id);
    return j && j.state !== "running" ? j : null;
  }, { ms: 60_000, every: 200, what: `demo job ${job.id}` });
  if (done.state !== "done") throw new Error(`demo job ended ${done.state}: ${done.detail}`);
  return done;
}

/** The status bar's counts: "1,234 nodes · 56 edges · seq 7" → { nodes, edges, seq }. */
export async function statusCounts(page) {
  const text = (await page.getByTestId("status").textContent()) ?? "";
  const m = /^([\d,]+) nodes · ([\d,]+) edges · seq (\d+)$/.exec(text.trim());
  if (!m) return { text };
  const n = (s) => Number(s.replace(/,/g, ""));
  return { text, nodes: n(m[1]), edges: n(m[2]), seq: Number(m[3]) };
}

/** Error toasts on the page, as "code: message". */
export async function errorToasts(page) {
  return page.$$eval('[data-testid="toast"].toast-error', (ts) => ts.map((t) => `${t.dataset.code}: ${t.textContent}`));
}

/** The CSS-pixel box of the WebGL canvas (screenPosition is relative to it). */
export async function canvasBox(page) {
  const box = await page.locator("canvas.provex-graph-canvas").boundingBox();
  if (!box) throw new Error("no graph canvas on the page");
  return box;
}

/** Where node `id` is on the page (CSS px), or null when it is not drawn. */
export async function nodeOnPage(page, id) {
  const box = await canvasBox(page);
  const p = await page.evaluate((nid) => window.provex.canvas.screenPosition(nid), id);
  return p ? { x: box.x + p.x, y: box.y + p.y, box } : null;
}
