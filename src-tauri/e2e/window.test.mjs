// The real-window test of the desktop app: tauri-driver (with Debian's WebKitWebDriver)
// starts the built app (target/debug/provex-desktop) in a fresh home under Xvfb, and this
// test drives it over plain WebDriver: the first start loads the council demo into the
// app's own private FalkorDB and draws it; a real click on a statement shows its
// verification trail with the statuses the core computes; a screenshot is saved; closing
// the app leaves no FalkorDB behind. Along the way, the Reasoning tab and the Ask box (a
// stand-in chat endpoint named in the app's settings answers canned Cypher) are clicked for real.
//
// Run: xvfb-run -a node --test src-tauri/e2e/   (scripts/test.sh does)

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFileSync } from "node:child_process";
import http from "node:http";
import { mkdtempSync, mkdirSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir, homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort, runIn, wd } from "./driver.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(here, "../..");
const APP = resolve(process.env.PROVEX_DESKTOP_BIN ?? join(ROOT, "target/debug/provex-desktop"));
const DRIVER = process.env.TAURI_DRIVER ?? join(homedir(), ".cargo/bin/tauri-driver");
const ARTIFACTS = join(here, "artifacts");


const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const ASK_CYPHER = "MATCH (a:Agent)-[:GENERATED]->(s:Statement) RETURN a.name AS agent, count(s) AS statements ORDER BY agent";

/** A chat endpoint that answers every question with ASK_CYPHER. */
function standIn() {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ choices: [{ message: { role: "assistant", content: "```cypher\n" + ASK_CYPHER + "\n```" } }] }));
    });
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}


/** FalkorDB servers whose command line or working folder is under `dir`. */
function serversUnder(dir) {
  let out = "";
  try {
    out = execFileSync("ps", ["-eo", "pid=,args="], { encoding: "utf8" });
  } catch {
    return [];
  }
  return out
    .split("\n")
    .filter((l) => l.includes("redis-server"))
    .filter((l) => {
      const pid = l.trim().split(/\s+/)[0];
      try {
        const cwd = execFileSync("readlink", [`/proc/${pid}/cwd`], { encoding: "utf8" }).trim();
        return cwd.startsWith(dir) || l.includes(dir);
      } catch {
        return l.includes(dir);
      }
    });
}

test("the desktop app opens on the council demo, shows a statement's trail, and leaves no FalkorDB", { timeout: 240_000 }, async (t) => {
  assert.ok(existsSync(APP), `${APP} is built by cargo test --workspace`);
  assert.ok(existsSync(DRIVER), `${DRIVER}: cargo install tauri-driver --version ^2 --locked`);
  assert.ok(process.env.DISPLAY, "run under xvfb-run");
  mkdirSync(ARTIFACTS, { recursive: true });

  const home = mkdtempSync(join(tmpdir(), "provex-window-"));
  // The app's settings name the stand-in chat endpoint (what a user sets in Settings).
  const llm = await standIn();
  t.after(() => llm.close());
  mkdirSync(join(home, "config", "dev.provex.desktop"), { recursive: true });
  writeFileSync(join(home, "config", "dev.provex.desktop", "settings.json"),
    JSON.stringify({ llm_url: `http://127.0.0.1:${llm.address().port}`, llm_model: "stand-in" }));
  const env = {
    ...process.env,
    HOME: home,
    XDG_DATA_HOME: join(home, "data"),
    XDG_CONFIG_HOME: join(home, "config"),
    XDG_CACHE_HOME: join(home, "cache"),
    PROVEX_DATA_DIR: join(home, "provex"),
  };
  const port = await freePort();
  const nativePort = await freePort();
  const driver = spawn(DRIVER, ["--port", String(port), "--native-port", String(nativePort)], { env, stdio: ["ignore", "pipe", "pipe"] });
  let driverLog = "";
  driver.stdout.on("data", (d) => (driverLog += d));
  driver.stderr.on("data", (d) => (driverLog += d));
  t.after(() => driver.kill("SIGTERM"));
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    try {
      await fetch(base + "/status");
      break;
    } catch {
      await sleep(100);
    }
  }

  const session = await wd(base, "POST", "/session", {
    capabilities: { alwaysMatch: { "tauri:options": { application: APP } } },
  });
  const sid = session.sessionId;
  const s = (path) => `/session/${sid}${path}`;
  // A real mouse click at a point of the window.
  const click = (x, y) => wd(base, "POST", s("/actions"), {
    actions: [
      {
        type: "pointer",
        id: "mouse",
        parameters: { pointerType: "mouse" },
        actions: [
          { type: "pointerMove", origin: "viewport", x, y, duration: 0 },
          { type: "pointerDown", button: 0 },
          { type: "pointerUp", button: 0 },
        ],
      },
    ],
  });
  const run = (fn, ...args) => runIn(base, sid, fn, ...args);
  const shot = async (name) => {
    const png = await wd(base, "GET", s("/screenshot"));
    writeFileSync(join(ARTIFACTS, name), Buffer.from(png, "base64"));
  };

  try {
    // First start: the app runs the council demo into its own FalkorDB and draws it.
    const drawn = await run(async () => {
      for (let i = 0; i < 600; i++) {
        const p = window.provex;
        if (document.documentElement.dataset.ready === "true" && p && p.canvas && p.canvas.stats().nodes > 0) {
          const graphs = await p.backend.graphs();
          if (graphs.includes("council")) {
            const stats = await p.backend.stats({ graph: "council" });
            if (p.canvas.stats().nodes === stats.nodes) {
              return {
                kind: p.backend.kind,
                drawn: p.canvas.stats().nodes,
                stats,
                status: document.querySelector("[data-testid=status]")?.textContent ?? "",
              };
            }
          }
        }
        await new Promise((r) => setTimeout(r, 200));
      }
      throw new Error("the council graph was not drawn in 120 s");
    });
    assert.equal(drawn.kind, "tauri", "the window talks to the core over Tauri IPC");
    assert.ok(drawn.stats.nodes > 100, JSON.stringify(drawn.stats));
    assert.match(drawn.status, new RegExp(`${drawn.stats.nodes} nodes`));
    await shot("window-council.png");

    // The first run shows the welcome screen over the demo; a real click on "Explore on my
    // own" closes it.
    const close = await run(async () => {
      const w = document.querySelector("[data-testid=welcome]");
      if (!w || w.hidden) return null;
      const b = document.querySelector("[data-testid=welcome-close]").getBoundingClientRect();
      return { x: Math.round(b.left + b.width / 2), y: Math.round(b.top + b.height / 2) };
    });
    assert.ok(close, "the first run shows the welcome screen");
    await click(close.x, close.y);
    await run(async () => {
      for (let i = 0; i < 50; i++) {
        if (document.querySelector("[data-testid=welcome]").hidden) return;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error("the welcome screen stayed open after the click");
    });

    // A statement whose trail has verifications; what the core says of it.
    const target = await run(async () => {
      const p = window.provex;
      const view = await p.backend.view({ graph: "council" });
      for (const n of view.nodes.filter((n) => n.label === "Statement")) {
        const trail = await p.backend.trail({ graph: "council", statement: n.id });
        if (trail.verifications.length >= 2) {
          p.canvas.focus(n.id, 0);
          await new Promise((r) => setTimeout(r, 300));
          const at = p.canvas.screenPosition(n.id);
          const box = document.querySelector("[data-testid=canvas]").getBoundingClientRect();
          return {
            id: n.id,
            x: Math.round(box.left + at.x),
            y: Math.round(box.top + at.y),
            signatures: trail.verifications.map((v) => v.signature).sort(),
            consensus: trail.consensus.toFixed(2),
            verified: trail.verified,
          };
        }
      }
      throw new Error("no statement with two verifications");
    });

    // A real click on it.
    await click(target.x, target.y);
    const shown = await run(async (id) => {
      for (let i = 0; i < 100; i++) {
        const rows = [...document.querySelectorAll("[data-testid=verification]")];
        const consensus = document.querySelector("[data-testid=consensus]");
        if (rows.length > 0 && consensus && window.provex.app.selection.includes(id)) {
          return {
            signatures: rows.map((r) => r.dataset.signature).sort(),
            consensus: consensus.textContent,
            verified: consensus.dataset.verified,
          };
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error("no trail shown after the click");
    }, target.id);
    assert.deepEqual(shown.signatures, target.signatures);
    assert.ok(shown.consensus.includes(target.consensus), `${shown.consensus} vs ${target.consensus}`);
    assert.equal(shown.verified, String(target.verified));
    await shot("window-trail.png");

    // The researcher's question (issue 12): a real click on the Reasoning tab, then on the
    // zoning session, shows its chain as the core returns it.
    const at = (sel) => run(async (q) => {
      for (let i = 0; i < 100; i++) {
        const e = document.querySelector(q);
        if (e && e.getBoundingClientRect().width > 0) {
          const b = e.getBoundingClientRect();
          return { x: Math.round(b.left + b.width / 2), y: Math.round(b.top + b.height / 2) };
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`${q} not shown`);
    }, sel);
    const tab = await at("[data-testid=tab-reasoning]");
    await click(tab.x, tab.y);
    const row = await at("[data-testid=session-row]");
    await click(row.x, row.y);
    const chain = await run(async () => {
      const p = window.provex;
      const [session] = await p.backend.sessions({ graph: "council" });
      const want = await p.backend.reasoning({ graph: "council", id: session.answer });
      for (let i = 0; i < 100; i++) {
        const shown = [...document.querySelectorAll("[data-testid=reasoning-step]")].map((s) => s.dataset.id);
        if (shown.length === want.chain.length) return { shown, want: want.chain.map((s) => s.id), question: want.question };
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error("the reasoning chain was not shown");
    });
    assert.deepEqual(chain.shown, chain.want);
    assert.equal(chain.question, "What did they say about zoning?");
    await shot("window-reasoning.png");

    // A question in plain words: real clicks on the Console tab and on Ask; the window shows
    // the Cypher the endpoint wrote and the rows the core's `ask` returns.
    const consoleTab = await at("[data-testid=tab-console]");
    await click(consoleTab.x, consoleTab.y);
    await run(async () => {
      for (let i = 0; i < 100; i++) {
        const input = document.querySelector("[data-testid=ask-input]");
        if (input && input.getBoundingClientRect().width > 0) {
          input.value = "How many statements did each agent make?";
          input.dispatchEvent(new Event("input", { bubbles: true }));
          return;
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error("no Ask box");
    });
    const ask = await at("[data-testid=ask-run]");
    await click(ask.x, ask.y);
    const answer = await run(async () => {
      const want = await window.provex.backend.ask({ graph: "council", question: "How many statements did each agent make?" });
      for (let i = 0; i < 100; i++) {
        const cypher = document.querySelector("[data-testid=ask-cypher]");
        const rows = [...document.querySelectorAll("[data-testid=console-result] tbody tr")].map((tr) => [...tr.children].map((td) => td.textContent));
        if (cypher && rows.length > 0) return { cypher: cypher.textContent, rows, want: want.rows.map((r) => r.map(String)), wantCypher: want.cypher };
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`no answer shown: ${document.querySelector("[data-testid=console-result]")?.textContent ?? "no result"}`);
    });
    assert.equal(answer.wantCypher, `${ASK_CYPHER} LIMIT 1001`, "the row limit written into the query");
    assert.match(answer.cypher, /stand-in/);
    assert.ok(answer.cypher.includes("GENERATED"), answer.cypher);
    assert.ok(answer.want.length >= 2, "statements by at least two agents");
    assert.deepEqual(answer.rows, answer.want);
    await sleep(500); // WebKitGTK paints the answer's table a moment after it is in the DOM
    await shot("window-ask.png");
  } finally {
    // Closing the window ends the app, which stops its FalkorDB.
    await wd(base, "DELETE", s("")).catch(() => {});
  }

  let left = [];
  for (let i = 0; i < 100; i++) {
    left = serversUnder(home);
    if (left.length === 0) break;
    await sleep(100);
  }
  assert.deepEqual(left, [], `FalkorDB left running after the app closed:\n${left.join("\n")}\n${driverLog}`);
});
