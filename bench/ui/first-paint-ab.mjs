//! First paint of the synthetic 50,000-node run, warm, compared between two builds of the UI
//! on one `provex serve`: pages alternate between the builds (A B B A …, each a fresh browser
//! context; the server's `--ui` is a link switched before each page), so both sides share the
//! machine's load. Prints each side's median and its breakdown (see first-paint.mjs); with
//! `--profile DIR`, one more page a side under the CPU profiler, saved as DIR/A.cpuprofile and
//! DIR/B.cpuprofile, with the functions that took the most time printed (build the UI with
//! `npx vite build --minify false` for readable names). With `--cpu`, every timed page is
//! traced and its renderer main thread's CPU time (navigation → first frame) is reported
//! too: unlike wall time it does not grow when other processes share the cores.
//!
//!   node bench/ui/first-paint-ab.mjs --a DIST_A --b DIST_B [--pages 7] [--nodes 50000] [--profile DIR] [--cpu]
//!
//! PROVEX_BIN as for run.mjs (default target/release/provex when built).

import { existsSync, mkdirSync, readFileSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const here = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(here, "../..");
const { values: opt } = parseArgs({
  options: {
    a: { type: "string" },
    b: { type: "string" },
    pages: { type: "string", default: "7" },
    nodes: { type: "string", default: "50000" },
    profile: { type: "string" },
    cpu: { type: "boolean", default: false },
  },
});
if (!opt.a || !opt.b) throw new Error("--a and --b name the two built UIs (folders with index.html)");
if (!process.env.PROVEX_BIN) {
  const release = join(ROOT, "target/release/provex");
  process.env.PROVEX_BIN = existsSync(release) ? release : join(ROOT, "target/debug/provex");
}
const scratch = await mkdtemp(join(tmpdir(), "provex-fp-ab-"));
const link = join(scratch, "ui");
const sides = { A: resolve(opt.a), B: resolve(opt.b) };
const use = (side) => {
  try {
    unlinkSync(link);
  } catch {
    // not there yet
  }
  symlinkSync(sides[side], link);
};
use("A");
process.env.PROVEX_UI = link;
const { startServer, launchBrowser, newPage, until } = await import("../../ui/e2e/harness.mjs");
const { openAndTimeFirstPaint, firstPaintProbe, VIEWPORT } = await import("./first-paint.mjs");
const { tasksFor, writeRun } = await import("./synthetic.mjs");
const { summariseProfile, mainThreadCpu } = await import("./profile.mjs");

const log = (...a) => console.error("[first-paint-ab]", ...a);
const median = (xs) => {
  const s = xs.filter(Number.isFinite).sort((x, y) => x - y);
  return s.length ? s[Math.floor((s.length - 1) / 2)] : NaN;
};
const f0 = (x) => (Number.isFinite(x) ? Math.round(x).toLocaleString("en") : "–");

const server = await startServer();
const browser = await launchBrowser();
try {
  const file = join(scratch, "run.jsonl");
  writeRun(file, tasksFor(Number(opt.nodes)));
  await server.cli("ingest", "-g", "fpab", "--format", "a2a", file);
  const stats = await server.api("/api/graphs/fpab/stats");
  log(`${stats.nodes} nodes, ${stats.edges} edges; A = ${sides.A}, B = ${sides.B}`);
  // The first open lays the view out: not timed.
  const cold = await openAndTimeFirstPaint(browser, server, "fpab", stats.nodes);
  await cold.context.close();

  const runs = { A: [], B: [] };
  const pages = Number(opt.pages);
  for (let i = 0; i < pages; i++) {
    for (const side of i % 2 === 0 ? ["A", "B"] : ["B", "A"]) {
      use(side);
      const trace = opt.cpu ? join(scratch, "trace.json") : null;
      const r = await openAndTimeFirstPaint(browser, server, "fpab", stats.nodes, null, 120_000, null, trace);
      await r.context.close();
      delete r.page;
      delete r.context;
      if (trace) Object.assign(r, mainThreadCpu(JSON.parse(readFileSync(trace, "utf8"))));
      runs[side].push(r);
      log(`${side} page ${i + 1}: ${f0(r.firstPaint)} ms${trace ? `, main thread CPU ${f0(r.cpuMs)} ms (GC ${f0(r.gcMs)})` : ""}`);
    }
  }
  for (const side of ["A", "B"]) {
    const r = runs[side];
    const m = (f) => f0(median(r.map(f)));
    console.log(`${side} (${basename(dirname(sides[side]))}/${basename(sides[side])}): first paint median ${m((x) => x.firstPaint)} ms `
      + `(${r.map((x) => f0(x.firstPaint)).join(", ")}) | view asked ${m((x) => x.viewStart)}, received ${m((x) => x.viewEnd)} `
      + `| received → model ${m((x) => x.modelStart - x.viewEnd)} | model ${m((x) => x.modelEnd - x.modelStart)} `
      + `| → setGraph ${m((x) => x.setGraphStart - x.modelEnd)} | setGraph ${m((x) => x.setGraph - x.setGraphStart)} `
      + `| → first frame ${m((x) => x.firstPaint - x.setGraph)} ms`
      + (opt.cpu ? ` | main thread CPU ${m((x) => x.cpuMs)} ms (${r.map((x) => f0(x.cpuMs)).join(", ")}), GC ${m((x) => x.gcMs)} ms` : ""));
  }
  if (opt.profile) {
    mkdirSync(opt.profile, { recursive: true });
    for (const side of ["A", "B"]) {
      use(side);
      const profile = await profiled(server, stats.nodes);
      writeFileSync(join(opt.profile, `${side}.cpuprofile`), JSON.stringify(profile));
      console.log(`\n${side}: where the first paint's main thread went (CPU profile, navigation → first frame)`);
      for (const line of summarise(profile)) console.log(line);
    }
  }
} finally {
  await browser.close().catch(() => {});
  await server.stop();
  await rm(scratch, { recursive: true, force: true });
}

/** One page under the CPU profiler: started on the app's own origin, then the graph's page
 *  opened in the same tab (the same renderer), stopped at its first frame. */
async function profiled(server, nodes) {
  const { context, page } = await newPage(browser, { viewport: VIEWPORT });
  try {
    await page.addInitScript(firstPaintProbe);
    await page.goto(server.url("/"));
    const cdp = await context.newCDPSession(page);
    await cdp.send("Profiler.enable");
    await cdp.send("Profiler.setSamplingInterval", { interval: 250 });
    await cdp.send("Profiler.start");
    await page.goto(server.url("/?graph=fpab"));
    await until(() => page.evaluate((n) => window.__paint.setGraph.some((r) => r.n === n && r.drawnAt !== null), nodes),
      { ms: 120_000, every: 50, what: "the graph drawn" });
    const { profile } = await cdp.send("Profiler.stop");
    return profile;
  } finally {
    await context.close();
  }
}

/** The functions that took the most time: with what they called, and by their own samples. */
function summarise(profile, top = 25) {
  const { self, total } = summariseProfile(profile, top);
  const out = ["  with what they called (ms):"];
  for (const { fn, ms } of total) out.push(`    ${ms.toFixed(1).padStart(8)}  ${fn}`);
  out.push("  their own time (ms):");
  for (const { fn, ms } of self) out.push(`    ${ms.toFixed(1).padStart(8)}  ${fn}`);
  return out;
}
