// UI benchmarks in headless Chromium against `provex serve` (see bench/ui/run.sh):
//
//   first paint   navigation start → the canvas has drawn the whole 1,000-node graph
//   pan / zoom    frames per second while panning and zooming a 50,000-node graph for ~5 s
//                 (whole graph, ×24, mid zoom where nodes are 6-10 px tall, and a mouse
//                 drag), with each frame's cost by layer (script, draw calls, vertices,
//                 uploads: nodes, edges, badges, labels, picture, minimap, overlays; see
//                 ui/src/canvas/cost.ts), and first paint at 50k cold and warm
//   big           the same whole-graph pass on --big-nodes (default 200,000) nodes drawn node
//                 by node (the view limit raised with ?limit=), not as clusters
//   event→pixels  p95 from a line appended to a followed file (1,000 events/s) to its node
//                 drawn on the canvas
//   explain       p95 from an explain message pushed to `POST /api/graphs/{g}/events` (one
//                 chunked body, 200 messages/s, a TrustGraph ReAct shape) to its step drawn
//   spans         p95 from an OpenTelemetry span exported over OTLP/HTTP (2,000 spans/s) to
//                 its node drawn (spans.mjs)
//   views         the council demo fitted whole, and "Show on graph" on a chain and a trail:
//                 time to the first frame, pan/zoom fps and frame cost (views.mjs)
//   clusters      a graph of --cluster-nodes (default 1,000,000) nodes opened as clusters
//                 (semantic zoom): first paint, and pan/zoom fps over the boxes; beside it the
//                 neighbourhood view of 100,000 nodes that large graphs opened as before
//
// The graphs are synthetic A2A runs (the task shape of examples/bench_ingest.rs) written to a
// temporary folder and ingested with `provex ingest`; the live one is followed by a job
// (`POST /api/graphs/{g}/follow`) while this script appends to it.
//
//   node bench/ui/run.mjs [--only first-paint,pan-zoom,stream] [--runs 5] [--seconds 5]
//                         [--rate 1000] [--stream-seconds 10] [--json out.json]
//
// Environment: PROVEX_BIN (default target/release/provex when it exists, else
// target/debug/provex), PROVEX_UI (default ui/dist), CHROMIUM (default /usr/bin/chromium),
// BENCH_MESSAGES=1 to include MessageReceived/MessageSent events (list-valued content).

import { closeSync, mkdirSync, openSync, readFileSync, writeFileSync, writeSync, existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { cpus, totalmem, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const here = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(here, "../..");
if (!process.env.PROVEX_BIN) {
  const release = join(ROOT, "target/release/provex");
  process.env.PROVEX_BIN = existsSync(release) ? release : join(ROOT, "target/debug/provex");
}
const { startServer, launchBrowser, newPage, until, sleep, runDemo, PROVEX, CHROMIUM } = await import("../../ui/e2e/harness.mjs");
const { delays, hookDrawn, watchGraph } = await import("./drawn.mjs");
const { spanStream } = await import("./spans.mjs");
const { STEPS_LOG, parseSteps, logsSince, summariseSteps } = await import("./stream-steps.mjs");
const { cpuBySide, cpuSpent, cpuLine } = await import("./cpu.mjs");
const { councilViews } = await import("./views.mjs");
const { AGENTS, NODES_PER_TASK, counter, taskEvents, tasksFor, writeRun } = await import("./synthetic.mjs");
const { openAndTimeFirstPaint } = await import("./first-paint.mjs");
const { deepViews } = await import("./deep-views.mjs");
const { summariseProfile } = await import("./profile.mjs");

const { values: opt } = parseArgs({
  options: {
    only: { type: "string", default: "first-paint,pan-zoom,stream" },
    runs: { type: "string", default: "5" },
    seconds: { type: "string", default: "5" },
    rate: { type: "string", default: "1000" },
    "stream-seconds": { type: "string", default: "10" },
    "explain-rate": { type: "string", default: "200" },
    "span-rate": { type: "string", default: "2000" },
    json: { type: "string", default: join(ROOT, "bench/out/ui.json") },
    "cluster-nodes": { type: "string", default: "1000000" },
    "big-nodes": { type: "string", default: "200000" },
  },
});
const ONLY = new Set(opt.only.split(","));
const RUNS = Number(opt.runs);
const PAN_SECONDS = Number(opt.seconds);
const PROFILE_DIR = process.env.BENCH_PROFILE ? resolve(process.env.BENCH_PROFILE) : null;
if (PROFILE_DIR) mkdirSync(PROFILE_DIR, { recursive: true });
const RATE = Number(opt.rate);
const STREAM_SECONDS = Number(opt["stream-seconds"]);
const EXPLAIN_RATE = Number(opt["explain-rate"]);
const SPAN_RATE = Number(opt["span-rate"]);
const MESSAGES = process.env.BENCH_MESSAGES === "1";
const { VIEWPORT } = await import("./first-paint.mjs");
/** The pan/zoom pass between the pixel level of detail and close-up (see panZoom): zoomed
 *  in from the fitted view until the tallest nodes are this tall (CSS px), breathing down to
 *  0.6 of it. (It was a fixed ×800, which made nodes 6-10 px on the drawing of the time;
 *  packed to the canvas's shape, ×800 made them 350-580 px.) */
const MID_NODE_PX = 10;

const log = (...a) => console.error("[bench]", ...a);
const nowMs = () => performance.timeOrigin + performance.now();

// ------------------------------------------------------------------ statistics

function quantile(sorted, q) {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i];
}
function summary(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return { n: s.length, min: s[0], p50: quantile(s, 0.5), p95: quantile(s, 0.95), p99: quantile(s, 0.99), max: s[s.length - 1],
    mean: s.reduce((a, b) => a + b, 0) / (s.length || 1) };
}
const f1 = (x) => (Number.isFinite(x) ? x.toFixed(1) : "–");
const f0 = (x) => (Number.isFinite(x) ? Math.round(x).toLocaleString("en") : "–");

// ------------------------------------------------------------------ page helpers

// ------------------------------------------------------------------ benchmarks

async function firstPaint(browser, server, dir) {
  const tasks = tasksFor(1000);
  const file = join(dir, "run-1k.jsonl");
  const events = writeRun(file, tasks);
  await server.cli("ingest", "-g", "bench1k", "--format", "a2a", file);
  const stats = await server.api("/api/graphs/bench1k/stats");
  log(`first paint: ${stats.nodes} nodes, ${stats.edges} edges (${events} events)`);
  const runs = [];
  for (let i = 0; i < RUNS + 1; i++) {
    const r = await openAndTimeFirstPaint(browser, server, "bench1k", stats.nodes);
    await r.context.close();
    delete r.page;
    delete r.context;
    runs.push(r);
    log(`  run ${i}${i === 0 ? " (cold: server lays the view out)" : ""}: ${f1(r.firstPaint)} ms (html ${f1(r.html)}, view ${f1(r.viewStart)}–${f1(r.viewEnd)}, setGraph ${f1(r.setGraph)})`);
  }
  const warm = runs.slice(1);
  return { nodes: stats.nodes, edges: stats.edges, cold: runs[0], warm: summary(warm.map((r) => r.firstPaint)),
    warmView: summary(warm.map((r) => r.viewEnd - r.viewStart)), warmSetGraph: summary(warm.map((r) => r.setGraph)), runs };
}

/** Frames drawn per second while panning and zooming for `ms` (the fitted view breathing). */
async function breathe(page, ms) {
  return page.evaluate(async (ms) => {
    const c = window.provex.canvas;
    c.fit();
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    const before = c.stats().frames, t0 = performance.now();
    let zf = 1;
    await new Promise((resolve) => {
      const step = () => {
        const t = performance.now() - t0;
        const z = Math.exp(Math.log(0.6) * (1 - Math.cos(t / 700)) / 2);
        c.zoomBy(z / zf);
        c.panBy(Math.sin(t / 600), Math.cos(t / 600));
        zf = z;
        if (t < ms) requestAnimationFrame(step);
        else resolve();
      };
      requestAnimationFrame(step);
    });
    return ((c.stats().frames - before) * 1000) / (performance.now() - t0);
  }, ms);
}

async function clusters(browser, server, dir) {
  const wanted = Number(opt["cluster-nodes"]);
  const file = join(dir, "run-big.jsonl");
  const events = writeRun(file, tasksFor(wanted));
  const t0 = Date.now();
  await server.cli("ingest", "-g", "benchbig", "--format", "a2a", "--bulk-max-rows", "8000000", file);
  const stats = await server.api("/api/graphs/benchbig/stats");
  log(`clusters: ${stats.nodes} nodes, ${stats.edges} edges (${events} events ingested in ${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  const runs = [];
  for (let i = 0; i < 4; i++) {
    const r = await openAndTimeFirstPaint(browser, server, "benchbig", null);
    const boxes = await r.page.evaluate(() => window.provex.model.nodes.size);
    const fps = i === 0 ? await breathe(r.page, PAN_SECONDS * 1000) : null;
    await r.context.close();
    log(`  run ${i}: first paint ${f1(r.firstPaint)} ms (view ${f1(r.viewStart)}–${f1(r.viewEnd)}), ${boxes} boxes${fps ? `, pan/zoom ${f1(fps)} fps` : ""}`);
    runs.push({ firstPaint: r.firstPaint, view: r.viewEnd - r.viewStart, boxes, fps });
  }
  // The live clusters' index (semantic zoom stays live): read in the background after the
  // first view; how long it took, and the server's memory once it is held.
  const indexLine = await until(() => server.logs.join("").match(/cluster index of benchbig: (\d+) nodes, (\d+) edges read in (\d+) ms/),
    { ms: 300_000, every: 500, what: "the cluster index read" });
  const rssMb = (() => {
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${server.child.pid}/status`, "utf8"));
      return m ? Number(m[1]) / 1024 : null;
    } catch { return null; }
  })();
  const index = { nodes: Number(indexLine[1]), edges: Number(indexLine[2]), ms: Number(indexLine[3]), rssMb };
  log(`  live cluster index: ${index.nodes} nodes, ${index.edges} edges read in ${index.ms} ms; server RSS ${rssMb?.toFixed(0)} MB`);
  // As large graphs opened before: the neighbourhood of the node created last, at 100,000 nodes.
  const hundred = join(dir, "run-100k.jsonl");
  writeRun(hundred, tasksFor(100_000));
  await server.cli("ingest", "-g", "bench100k", "--format", "a2a", hundred);
  const s100 = await server.api("/api/graphs/bench100k/stats");
  const nb = [];
  for (let i = 0; i < 3; i++) {
    const t = performance.now();
    const last = await server.api(`/api/graphs/bench100k/query`, { method: "POST", json: { cypher: "MATCH (n) RETURN n.name ORDER BY id(n) DESC LIMIT 1" } });
    const v = await server.api(`/api/graphs/bench100k/view?root=${encodeURIComponent(last.rows[0][0])}&depth=2`);
    nb.push({ ms: performance.now() - t, nodes: v.nodes.length });
  }
  const c100 = [];
  for (let i = 0; i < 3; i++) {
    const t = performance.now();
    const v = await server.api(`/api/graphs/bench100k/view`);
    c100.push({ ms: performance.now() - t, boxes: v.nodes.length, mode: v.mode });
  }
  log(`  100k: neighbourhood view ${nb.map((x) => f0(x.ms)).join(", ")} ms (${nb[0].nodes} nodes); cluster view ${c100.map((x) => f0(x.ms)).join(", ")} ms (${c100[0].boxes} boxes, ${c100[0].mode})`);
  return { nodes: stats.nodes, edges: stats.edges, runs, index, firstPaint: summary(runs.map((r) => r.firstPaint)),
    fps: runs[0].fps, hundred: { nodes: s100.nodes, neighbourhood: summary(nb.map((x) => x.ms)), neighbourhoodNodes: nb[0].nodes,
      clusters: summary(c100.map((x) => x.ms)), boxes: c100[0].boxes } };
}

/**
 * Frames per second while the camera pans and zooms for `ms`, from the fitted view zoomed
 * by `zoom` (or, with `nodePx`, until the tallest nodes are that tall), with the mean cost
 * of a frame by layer when the canvas reports it (GraphCanvas.frameCost).
 */
async function scriptedPass(page, ms, zoom, nodePx = null) {
  return page.evaluate(async ({ ms, zoom, nodePx }) => {
    const c = window.provex.canvas;
    c.fit();
    if (nodePx !== null && c.scene && c.camera) zoom = nodePx / (c.scene.maxNodeHeight * c.camera.scale);
    if (zoom !== 1) c.zoomBy(zoom);
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    // JS time spent in the canvas's draw (culling, uniforms, draw calls issued; the GPU
    // process rasterises after), to tell script cost from GL cost.
    const proto = Object.getPrototypeOf(c);
    let jsMs = 0, draws = 0;
    const costs = [];
    c.draw = function (time) {
      const a = performance.now();
      proto.draw.call(this, time);
      jsMs += performance.now() - a;
      draws++;
    };
    // Node heights on screen at the start (the motion breathes down to 0.6 of them);
    // read from the canvas's internals when it has them (a bench probe, not an API).
    const px = c.scene && c.camera ? c.scene.maxNodeHeight * c.camera.scale : NaN;
    const before = c.stats();
    const t0 = performance.now();
    const stamps = [];
    // Every frame: drift in a circle of DRIFT px and breathe the zoom between the
    // starting view and ZOOM_OUT of it, as functions of time (not steps per frame, which
    // would carry the view off the graph the faster frames come). From the fitted view
    // the whole graph stays in view (the circle is inside fit()'s 32 px margin).
    const DRIFT = 24, ZOOM_OUT = 0.6;
    const zoomAt = (t) => Math.exp(Math.log(ZOOM_OUT) * (1 - Math.cos(t / 700)) / 2);
    let zf = 1, ox = 0, oy = 0, seen = before.frames;
    await new Promise((resolve) => {
      const step = (ts) => {
        const t = performance.now() - t0;
        stamps.push(ts);
        // The cost of the frame drawn since the last step (each frame once).
        if (typeof c.frameCost === "function" && c.stats().frames > seen) {
          seen = c.stats().frames;
          costs.push(c.frameCost());
        }
        const z = zoomAt(t), nx = DRIFT * Math.sin(t / 600), ny = DRIFT * (1 - Math.cos(t / 600));
        // zoomBy scales about the canvas centre, so the drift so far scales with it.
        c.zoomBy(z / zf);
        c.panBy(nx - ox * (z / zf), ny - oy * (z / zf));
        zf = z;
        ox = nx;
        oy = ny;
        if (t < ms) requestAnimationFrame(step);
        else resolve();
      };
      requestAnimationFrame(step);
    });
    const elapsed = performance.now() - t0;
    const after = c.stats();
    // What the level of detail drew in the last frame, when the canvas has one (internals).
    // (Since the split of the renderer they live in its GL half, `glf`.)
    const cl = c.glf?.lod ?? c.lod, cv = c.glf?.visible ?? c.visible;
    const lod = cl ? { lines: cl.lineCount, nodes: cl.nodeCount, exactEdges: cl.split?.exactCount,
      headEdges: cl.split?.headCount, culledEdges: cv?.active ? cv.edgeCount : null } : null;
    delete c.draw;
    const gaps = stamps.slice(1).map((s, i) => s - stamps[i]);
    return { frames: after.frames - before.frames, seconds: elapsed / 1000, fps: (after.frames - before.frames) / (elapsed / 1000),
      msPerFrame: after.msPerFrame, gaps, jsMsPerDraw: jsMs / Math.max(1, draws), nodePx: px, zoom, lod, costs };
  }, { ms, zoom, nodePx }).then((r) => ({ ...r, cost: meanCost(r.costs), costs: undefined }));
}

/**
 * BENCH_PROFILE=DIR: runs `pass` under the page's CPU profiler (CDP `Profiler`, sampling
 * every 200 µs), keeps the profile as DIR/pan-NAME.cpuprofile (opens in DevTools) and prints
 * its heaviest functions with their share of the sampled script, which survives a loaded
 * machine where the wall time does not. Without BENCH_PROFILE (or a name), just runs it.
 */
async function profiledPass(context, page, name, pass) {
  if (!PROFILE_DIR || !name) return pass();
  const cdp = await context.newCDPSession(page);
  await cdp.send("Profiler.enable");
  await cdp.send("Profiler.setSamplingInterval", { interval: 200 });
  await cdp.send("Profiler.start");
  const out = await pass();
  const { profile } = await cdp.send("Profiler.stop");
  await cdp.detach();
  const file = join(PROFILE_DIR, `pan-${name}.cpuprofile`);
  writeFileSync(file, JSON.stringify(profile));
  const top = summariseProfile(profile, 20);
  const pct = (ms) => `${((100 * ms) / Math.max(1, top.scriptMs)).toFixed(1)}%`;
  log(`  profile of the ${name} pass: ${top.scriptMs} ms of script sampled (${file})`);
  for (const { fn, ms } of top.self) log(`    self ${pct(ms)} ${f1(ms)} ms  ${fn}`);
  for (const { fn, ms } of top.total) log(`    total ${pct(ms)} ${f1(ms)} ms  ${fn}`);
  return out;
}

/** The mean of frame cost records (see ui/src/canvas/cost.ts), and the worst frame's
 *  vertices and uploads; null without records. */
function meanCost(costs) {
  if (!costs || costs.length === 0) return null;
  const out = { frames: costs.length, scriptMs: 0, layers: {}, worst: { vertices: 0, uploadBytes: 0, drawCalls: 0 } };
  for (const c of costs) {
    out.scriptMs += c.scriptMs / costs.length;
    let v = 0, b = 0, d = 0;
    for (const [name, l] of Object.entries(c)) {
      if (name === "scriptMs") continue;
      const o = out.layers[name] ??= { ms: 0, drawCalls: 0, vertices: 0, uploads: 0, uploadBytes: 0, visited: 0 };
      // (`visited`, records looked at, is reported by canvases since the level of detail's culling.)
      for (const k of Object.keys(o)) o[k] += (l[k] ?? 0) / costs.length;
      v += l.vertices;
      b += l.uploadBytes;
      d += l.drawCalls;
    }
    out.worst.vertices = Math.max(out.worst.vertices, v);
    out.worst.uploadBytes = Math.max(out.worst.uploadBytes, b);
    out.worst.drawCalls = Math.max(out.worst.drawCalls, d);
  }
  return out;
}

/** Records each frame's cost in the page until `stopCostLog` (for passes driven from outside). */
async function startCostLog(page) {
  await page.evaluate(() => {
    const c = window.provex.canvas;
    window.__costs = [];
    window.__costOn = typeof c.frameCost === "function";
    let seen = c.stats().frames;
    const tick = () => {
      if (!window.__costOn) return;
      if (c.stats().frames > seen) {
        seen = c.stats().frames;
        window.__costs.push(c.frameCost());
      }
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
}
async function stopCostLog(page) {
  return meanCost(await page.evaluate(() => {
    window.__costOn = false;
    return window.__costs;
  }));
}

async function panZoom(browser, server, dir) {
  const tasks = tasksFor(50_000);
  const file = join(dir, "run-50k.jsonl");
  const events = writeRun(file, tasks);
  const t0 = Date.now();
  await server.cli("ingest", "-g", "bench50k", "--format", "a2a", file);
  const stats = await server.api("/api/graphs/bench50k/stats");
  log(`pan/zoom: ${stats.nodes} nodes, ${stats.edges} edges (${events} events ingested in ${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  if (stats.nodes > 50_000) throw new Error("more nodes than the default view limit");
  const fp = await openAndTimeFirstPaint(browser, server, "bench50k", stats.nodes);
  const { page, context } = fp;
  log(`  first paint at 50k (cold): ${f1(fp.firstPaint)} ms`);
  try {
    const scripted = async (zoom, nodePx = null, name = null) =>
      profiledPass(context, page, name, () => scriptedPass(page, PAN_SECONDS * 1000, zoom, nodePx));

    // A mouse that moves every 8 ms (125 Hz, as a common mouse reports), dragging on an
    // ellipse about the centre at 1.25 rad/s, with a wheel notch (in, then out) every 10th
    // move. Inputs go to CDP without waiting for each to be handled (at most 4 in flight,
    // so a page that falls behind slows the input down instead of queueing it): the frame
    // rate is then the renderer's, not CDP's round trip.
    const mouse = async () => {
      const box = await page.locator("canvas.provex-graph-canvas").boundingBox();
      await page.evaluate(() => window.provex.canvas.fit());
      const cdp = await context.newCDPSession(page);
      const cx = box.x + box.width / 2, cy = box.y + box.height / 2;
      const input = (type, x, y, extra = {}) => cdp.send("Input.dispatchMouseEvent", { type, x, y, ...extra });
      const left = { button: "left", buttons: 1, clickCount: 1 };
      await startCostLog(page);
      const before = await page.evaluate(() => window.provex.canvas.stats().frames);
      const t0 = Date.now();
      const inflight = [];
      let moves = 0, wheels = 0, due = t0;
      await input("mouseMoved", cx, cy, { button: "none", buttons: 0 });
      await input("mousePressed", cx, cy, left);
      let x = cx, y = cy;
      while (Date.now() - t0 < PAN_SECONDS * 1000) {
        const a = ((Date.now() - t0) / 1000) * 1.25;
        x = cx + Math.cos(a) * 150 - 150;
        y = cy + Math.sin(a) * 100;
        inflight.push(input("mouseMoved", x, y, { button: "left", buttons: 1 }));
        moves++;
        if (inflight.length >= 4) await inflight.shift();
        if (moves % 10 === 0) {
          await Promise.all(inflight.splice(0));
          await input("mouseReleased", x, y, left);
          await input("mouseWheel", x, y, { button: "none", buttons: 0, deltaX: 0, deltaY: wheels % 2 === 0 ? -120 : 120 });
          wheels++;
          await input("mousePressed", x, y, left);
        }
        due += 8;
        const wait = due - Date.now();
        if (wait > 0) await sleep(wait);
        else due = Date.now();
      }
      await Promise.all(inflight.splice(0));
      await input("mouseReleased", x, y, left);
      const seconds = (Date.now() - t0) / 1000;
      const s = await page.evaluate(() => window.provex.canvas.stats());
      const cost = await stopCostLog(page);
      await cdp.detach();
      return { frames: s.frames - before, seconds, fps: (s.frames - before) / seconds, msPerFrame: s.msPerFrame, inputs: moves, wheels,
        inputsPerSecond: (moves + wheels) / seconds, cost };
    };

    // Warm: the same graph opened again (the server's view is cached).
    const warm = [];
    for (let i = 0; i < Math.max(1, Math.min(RUNS, 3)); i++) {
      // BENCH_PROFILE=DIR: the last warm open is traced, and its heaviest functions printed.
      const profile = PROFILE_DIR && i === Math.max(1, Math.min(RUNS, 3)) - 1 ? join(PROFILE_DIR, "first-paint-50k.trace.json") : null;
      const w = await openAndTimeFirstPaint(browser, server, "bench50k", stats.nodes, null, 120_000, profile);
      await w.context.close();
      warm.push(w);
      if (w.profiled) {
        log(`  first paint at 50k (warm, traced: ${f0(w.firstPaint)} ms, ${w.profiled.scriptMs} ms of script sampled; trace ${profile}):`);
        for (const { fn, ms } of w.profiled.self.slice(0, 15)) log(`    self ${f1(ms)} ms  ${fn}`);
        for (const { fn, ms } of w.profiled.total.slice(0, 15)) log(`    total ${f1(ms)} ms  ${fn}`);
      }
    }
    log(`  first paint at 50k (warm): ${warm.map((w) => `${f0(w.firstPaint)} ms (view ${f0(w.viewStart)}–${f0(w.viewEnd)}, server ${f0(w.viewServer)}, setGraph ${f0(w.setGraph)})`).join(", ")}`);
    const overview = await scripted(1, null, "whole");
    log(`  scripted pan+zoom, whole graph in view: ${f1(overview.fps)} fps (${overview.frames} frames in ${overview.seconds.toFixed(1)} s, ${f1(overview.msPerFrame)} ms/frame, ${f1(overview.jsMsPerDraw)} ms of script per draw)`);
    const close = await scripted(24, null, "x24");
    log(`  scripted pan+zoom, zoomed ×24: ${f1(close.fps)} fps (${f1(close.jsMsPerDraw)} ms of script per draw)`);
    // Mid zoom: nodes about 5-12 px tall (×400 makes them 5 px on this graph; from ×800
    // the motion breathes between about 10 and 6 px), where edges have arrow heads and
    // thousands of long edges cross the view.
    if (process.env.BENCH_SHOTS) {
      // The whole graph, at rest (a cached picture is drawn again pixel for pixel then).
      await page.evaluate(async () => { window.provex.canvas.fit(); await new Promise((r) => setTimeout(r, 800)); });
      mkdirSync(process.env.BENCH_SHOTS, { recursive: true });
      await page.screenshot({ path: join(process.env.BENCH_SHOTS, "whole-50k.png") });
      await shots(page, process.env.BENCH_SHOTS);
    }
    const middle = await scripted(1, MID_NODE_PX, "mid");
    log(`  scripted pan+zoom, zoomed ×${f0(middle.zoom)} (nodes ${f1(middle.nodePx * 0.6)}–${f1(middle.nodePx)} px tall): ${f1(middle.fps)} fps (${f1(middle.jsMsPerDraw)} ms of script per draw)${middle.lod ? `; last frame: ${JSON.stringify(middle.lod)}` : ""}`);
    const m = await profiledPass(context, page, "mouse", mouse);
    log(`  mouse drag + wheel: ${f1(m.fps)} fps (${m.inputs} moves and ${m.wheels} wheel notches: ${f1(m.inputsPerSecond)} inputs/s)`);
    const gapStats = (g) => summary(g.gaps);
    return { nodes: stats.nodes, edges: stats.edges, firstPaintCold: fp.firstPaint, firstPaintView: fp.viewEnd - fp.viewStart,
      firstPaintSetGraph: fp.setGraph, firstPaintWarm: summary(warm.map((w) => w.firstPaint)),
      firstPaintWarmView: summary(warm.map((w) => w.viewEnd - w.viewStart)), firstPaintWarmSetGraph: summary(warm.map((w) => w.setGraph)), overview: { ...overview, gaps: gapStats(overview) },
      zoomed: { ...close, gaps: gapStats(close) }, middle: { ...middle, gaps: gapStats(middle) }, mouse: m };
  } finally {
    await context.close();
  }
}

/** The whole-graph pass on a graph of --big-nodes drawn node by node (?limit= above it). */
async function big(browser, server, dir) {
  const wanted = Number(opt["big-nodes"]);
  const file = join(dir, "run-big-nodes.jsonl");
  // At most `wanted` nodes (the view limit goes up to 200,000; above it, clusters).
  const events = writeRun(file, Math.floor((wanted - AGENTS - 1) / NODES_PER_TASK));
  const t0 = Date.now();
  await server.cli("ingest", "-g", "benchnodes", "--format", "a2a", "--bulk-max-rows", "8000000", file);
  const stats = await server.api("/api/graphs/benchnodes/stats");
  log(`big: ${stats.nodes} nodes, ${stats.edges} edges (${events} events ingested in ${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  const limit = stats.nodes;
  const fp = await openAndTimeFirstPaint(browser, server, "benchnodes", stats.nodes, limit, 900_000);
  const warm = await openAndTimeFirstPaint(browser, server, "benchnodes", stats.nodes, limit, 900_000);
  await fp.context.close();
  const { page, context } = warm;
  try {
    const mode = await page.evaluate(() => window.provex.model.mode);
    log(`  first paint (cold ${f0(fp.firstPaint)} ms, warm ${f0(warm.firstPaint)} ms), view mode ${mode}`);
    const overview = await scriptedPass(page, PAN_SECONDS * 1000, 1);
    log(`  scripted pan+zoom, whole graph in view: ${f1(overview.fps)} fps (${f1(overview.jsMsPerDraw)} ms of script per draw)`);
    if (process.env.BENCH_SHOTS) {
      await page.evaluate(async () => { window.provex.canvas.fit(); await new Promise((r) => setTimeout(r, 800)); });
      await page.screenshot({ path: join(process.env.BENCH_SHOTS, `whole-${stats.nodes}.png`) });
    }
    return { nodes: stats.nodes, edges: stats.edges, mode, firstPaintCold: fp.firstPaint, firstPaintWarm: warm.firstPaint,
      overview: { ...overview, gaps: summary(overview.gaps) } };
  } finally {
    await context.close();
  }
}

/** BENCH_SHOTS=DIR: screenshots of the mid-zoom view (nodes MID_NODE_PX tall and ×4 that), long edges
 *  split into lines and heads (the canvas's default) and all drawn by the shader, to
 *  compare the two by eye. */
async function shots(page, dir) {
  mkdirSync(dir, { recursive: true });
  const mid = await page.evaluate((px) => { const c = window.provex.canvas; c.fit(); return px / (c.scene.maxNodeHeight * c.camera.scale); }, MID_NODE_PX);
  for (const zoom of [mid, mid * 4]) {
    for (const split of [true, false]) {
      await page.evaluate(async ({ zoom, split }) => {
        const c = window.provex.canvas;
        c.splitEdges = split;
        c.fit();
        c.zoomBy(zoom);
        await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      }, { zoom, split });
      await page.locator("canvas.provex-graph-canvas").screenshot({ path: join(dir, `x${Math.round(zoom)}-${split ? "split" : "shader"}.png`) });
    }
  }
  await page.evaluate(() => { window.provex.canvas.splitEdges = true; });
}

async function stream(browser, server, dir) {
  const file = join(dir, "live.jsonl");
  const next = counter();
  let task = 0;
  // A few tasks before the follow starts, so that the graph exists when the page opens.
  const seed = [];
  for (; task < 5; task++) for (const [line] of taskEvents(task, next)) seed.push(line);
  writeFileSync(file, seed.join("\n") + "\n");
  const job = await server.api("/api/graphs/live/follow", { method: "POST", json: { path: file, format: "a2a" } });
  await until(async () => (await server.api("/api/graphs/live/stats").catch(() => null))?.nodes > 0, { ms: 30_000, what: "the followed graph" });
  const { context, page, errors } = await watchGraph(browser, server, "live", VIEWPORT);
  try {
    // Clock check: the page's epoch clock against this process's.
    const offsets = [];
    for (let i = 0; i < 5; i++) {
      const a = nowMs();
      const p = await page.evaluate(() => performance.timeOrigin + performance.now());
      const b = nowMs();
      offsets.push({ offset: p - (a + b) / 2, rtt: b - a });
    }
    const clock = offsets.sort((x, y) => x.rtt - y.rtt)[0];
    await hookDrawn(page);
    // Append RATE events per second for STREAM_SECONDS, in 10 ms slices.
    const fd = openSync(file, "a");
    const logsFrom = server.logs.length;
    const written = new Map();
    const pending = [];
    const total = RATE * STREAM_SECONDS;
    let sent = 0;
    const [frames0, still0] = await page.evaluate(() => [window.provex.canvas.stats().frames, window.provex.canvas.stats().stillFrames ?? 0]);
    await startCostLog(page);
    const cpu0 = cpuBySide();
    const t0 = nowMs();
    log(`event→pixels: appending ${total} events at ${RATE}/s`);
    while (sent < total) {
      const due = Math.min(total, Math.floor(((nowMs() - t0) / 1000) * RATE));
      if (due > sent) {
        const chunk = [];
        const probes = [];
        while (sent < due) {
          if (pending.length === 0) pending.push(...taskEvents(task++, next));
          const [line, probe] = pending.shift();
          chunk.push(line);
          if (probe) probes.push(probe);
          sent++;
        }
        writeSync(fd, chunk.join("\n") + "\n");
        const at = nowMs();
        for (const p of probes) written.set(p, at);
      }
      await sleep(10);
    }
    closeSync(fd);
    const elapsed = (nowMs() - t0) / 1000;
    log(`  wrote ${sent} events in ${elapsed.toFixed(2)} s (${f0(sent / elapsed)}/s); waiting for the page`);
    const expected = [...written.keys()];
    await until(() => page.evaluate((ids) => ids.every((id) => window.__seen.has(id)), expected),
      { ms: 60_000, every: 250, what: "every appended node on the canvas" }).catch((e) => log(`  ${e.message.slice(0, 200)}`));
    const cpu = cpuSpent(cpu0, cpuBySide(), sent);
    const [frames1, still1] = await page.evaluate(() => [window.provex.canvas.stats().frames, window.provex.canvas.stats().stillFrames ?? 0]);
    // Frames that found nothing in view changed leave the canvas as it was (stillFrames).
    const frames = frames1 - frames0, keptFrames = still1 - still0;
    const frameCost = await stopCostLog(page);
    const seen = new Map(await page.evaluate(() => [...window.__seen.entries()]));
    const messages = await page.evaluate(() => window.__messages);
    const { lat, toServer, toPage, toDraw, missing } = delays(written, seen);
    await server.api(`/api/jobs/${job.id}`, { method: "DELETE" });
    const stats = await server.api("/api/graphs/live/stats");
    const drawnNow = await page.evaluate(() => window.provex.canvas.stats());
    if (errors.length) log(`  page errors: ${errors.join("; ")}`);
    const steps = summariseSteps(parseSteps(logsSince(server.logs, logsFrom), "live"), summary);
    const r = { rate: RATE, seconds: STREAM_SECONDS, events: sent, achievedRate: sent / elapsed, probes: written.size, missing,
      messages, latency: summary(lat), toServer: summary(toServer), serverToPage: summary(toPage), pageToDrawn: summary(toDraw),
      clock, graphNodes: stats.nodes, drawnNodes: drawnNow.nodes, steps, cpu, frames, keptFrames, frameCost };
    if (steps.batches) {
      log(`  server, per batch (${steps.batches} batches, ${f1(steps.events.p50)} events p50): log append ${f1(steps.log.p50)} / ${f1(steps.log.p95)} ms, ` +
        `write ${f1(steps.write.p50)} / ${f1(steps.write.p95)} ms, publish ${f1(steps.publish.p50)} / ${f1(steps.publish.p95)} ms, whole ${f1(steps.total.p50)} / ${f1(steps.total.p95)} ms (p50 / p95)`);
    }
    log(`  CPU from the first line to the last node drawn: ${cpuLine(cpu)}; ${frames} frames, ${frames - keptFrames} of them drawn (the others left the picture as it was)`);
    if (frameCost) log(`  a frame while streaming (mean): script ${frameCost.scriptMs.toFixed(2)} ms; ${Object.entries(frameCost.layers).filter(([, l]) => l.drawCalls > 0 || l.ms > 0.01)
      .map(([n, l]) => `${n} ${l.ms.toFixed(2)} ms ${l.drawCalls.toFixed(1)} calls ${f0(l.vertices)} vertices ${(l.uploadBytes / 1024).toFixed(1)} KB`).join(", ")}`);
    log(`  p50 ${f1(r.latency.p50)} ms, p95 ${f1(r.latency.p95)} ms, p99 ${f1(r.latency.p99)} ms (${r.probes - missing}/${r.probes} nodes, ${messages} messages)`);
    return r;
  } finally {
    await context.close();
  }
}

/** One ReAct step as TrustGraph's gateway sends it: an explain message whose subject (the
 *  probe) is a new `Explain` node derived from the previous step. */
function explainMessage(session, step) {
  const q = `urn:trustgraph:agent:bench-${session}`;
  const id = step === 0 ? q : `${q}/i${step}`;
  const iri = (i) => ({ t: "i", i });
  const lit = (v) => ({ t: "l", v });
  const TG = "https://trustgraph.ai/ns/";
  const t = (p, o) => ({ s: iri(id), p: iri(p), o, g: "urn:graph:retrieval" });
  const triples = [t("http://www.w3.org/1999/02/22-rdf-syntax-ns#type", iri("http://www.w3.org/ns/prov#Entity"))];
  if (step === 0) {
    triples.push(t("http://www.w3.org/1999/02/22-rdf-syntax-ns#type", iri(`${TG}AgentQuestion`)), t(`${TG}query`, lit(`question ${session}`)));
  } else {
    triples.push(t("http://www.w3.org/1999/02/22-rdf-syntax-ns#type", iri(`${TG}Analysis`)), t(`${TG}action`, lit("knowledge-query")),
      t(`${TG}arguments`, lit(JSON.stringify({ q: `step ${step}` }))), t(`${TG}llmDurationMs`, lit("420")),
      t("http://www.w3.org/ns/prov#wasDerivedFrom", iri(step === 1 ? q : `${q}/i${step - 1}`)));
  }
  return [JSON.stringify({ message_type: "explain", explain_id: id, explain_graph: "urn:graph:retrieval", explain_triples: triples }), id];
}

/** event→pixels for a session pushed to `POST /api/graphs/{g}/events` (one chunked body) at
 *  EXPLAIN_RATE explain messages a second while the page watches. */
async function explainStream(browser, server) {
  const { request } = await import("node:http");
  const url = new URL(`${server.base}/api/graphs/explain/events`);
  const req = request({ host: url.hostname, port: url.port, path: url.pathname, method: "POST",
    headers: { "content-type": "application/x-ndjson", "transfer-encoding": "chunked", ...(server.token ? { authorization: `Bearer ${server.token}` } : {}) } });
  const answer = new Promise((resolve, reject) => {
    req.on("response", (res) => { let b = ""; res.on("data", (d) => { b += d; }); res.on("end", () => resolve(b)); });
    req.on("error", reject);
  });
  let session = 0, step = 0;
  const next = () => {
    const m = explainMessage(session, step++);
    if (step > 8) { session++; step = 0; }
    return m;
  };
  req.write(next()[0] + "\n");
  await until(async () => (await server.api("/api/graphs/explain/stats").catch(() => null))?.nodes > 0, { ms: 30_000, what: "the pushed graph" });
  const { context, page, errors } = await watchGraph(browser, server, "explain", VIEWPORT);
  try {
    await hookDrawn(page);
    const written = new Map();
    const total = EXPLAIN_RATE * STREAM_SECONDS;
    let sent = 0;
    const t0 = nowMs();
    log(`explain event→pixels: pushing ${total} explain messages at ${EXPLAIN_RATE}/s`);
    while (sent < total) {
      const due = Math.min(total, Math.floor(((nowMs() - t0) / 1000) * EXPLAIN_RATE));
      const lines = [];
      const probes = [];
      for (; sent < due; sent++) {
        const [line, id] = next();
        lines.push(line);
        probes.push(id);
      }
      if (lines.length) {
        req.write(lines.join("\n") + "\n");
        const at = nowMs();
        for (const p of probes) written.set(p, at);
      }
      await sleep(5);
    }
    const elapsed = (nowMs() - t0) / 1000;
    req.end();
    const report = JSON.parse(await answer);
    log(`  pushed ${sent} messages in ${elapsed.toFixed(2)} s; the server ingested ${report.events}, rejected ${report.rejected}`);
    await until(() => page.evaluate((ids) => ids.every((id) => window.__seen.has(id)), [...written.keys()]),
      { ms: 60_000, every: 250, what: "every pushed step on the canvas" }).catch((e) => log(`  ${e.message.slice(0, 200)}`));
    const seen = new Map(await page.evaluate(() => [...window.__seen.entries()]));
    const { lat, toServer, toPage, toDraw, missing } = delays(written, seen);
    if (errors.length) log(`  page errors: ${errors.join("; ")}`);
    const r = { rate: EXPLAIN_RATE, seconds: STREAM_SECONDS, messages: sent, achievedRate: sent / elapsed, probes: written.size, missing,
      latency: summary(lat), toServer: summary(toServer), serverToPage: summary(toPage), pageToDrawn: summary(toDraw) };
    log(`  p50 ${f1(r.latency.p50)} ms, p95 ${f1(r.latency.p95)} ms, p99 ${f1(r.latency.p99)} ms (${r.probes - missing}/${r.probes} steps)`);
    return r;
  } finally {
    await context.close();
  }
}

// ------------------------------------------------------------------ main

const dir = await mkdtemp(join(tmpdir(), "provex-ui-bench-"));
// The cluster feed's index read is logged at info level (the clusters measure reads it).
const server = await startServer({ env: { PROVEX_LOG: `warn,provex::facade::live::clusters=info,${STEPS_LOG}`, ...(process.env.BENCH_DB ? { PROVEX_FALKORDB_URL: process.env.BENCH_DB } : {}) } });
const browser = await launchBrowser();
const results = { date: new Date().toISOString(), provex: PROVEX, chromium: CHROMIUM, viewport: VIEWPORT, messages: MESSAGES };
try {
  results.chromiumVersion = browser.version();
  const gl = await (async () => {
    const { context, page } = await newPage(browser);
    const info = await page.evaluate(() => {
      const c = document.createElement("canvas");
      const g = c.getContext("webgl2");
      if (!g) return "no WebGL2";
      const ext = g.getExtension("WEBGL_debug_renderer_info");
      return ext ? g.getParameter(ext.UNMASKED_RENDERER_WEBGL) : g.getParameter(g.RENDERER);
    });
    await context.close();
    return info;
  })();
  results.renderer = gl;
  log(`Chromium ${results.chromiumVersion}, WebGL renderer: ${gl}; provex ${PROVEX}`);
  // A pass that fails is reported and the others still run.
  const pass = async (name, fn) => {
    if (!ONLY.has(name)) return undefined;
    try {
      return await fn();
    } catch (e) {
      log(`${name} failed: ${e.message}`);
      results.failed = [...(results.failed ?? []), `${name}: ${e.message}`];
      return undefined;
    }
  };
  results.firstPaint = await pass("first-paint", () => firstPaint(browser, server, dir));
  results.panZoom = await pass("pan-zoom", () => panZoom(browser, server, dir));
  results.stream = await pass("stream", () => stream(browser, server, dir));
  results.explain = await pass("explain", () => explainStream(browser, server));
  results.spans = await pass("spans", () => spanStream(browser, server, { until, sleep, summary, log, nowMs, f1,
    viewport: VIEWPORT, rate: SPAN_RATE, seconds: STREAM_SECONDS }));
  results.views = await pass("views", () => councilViews(browser, server, { newPage, until, log, f1, runDemo, viewport: VIEWPORT, seconds: PAN_SECONDS,
    scriptedPass: (page, ms, zoom) => scriptedPass(page, ms, zoom).then((r) => ({ ...r, gaps: summary(r.gaps) })) }));
  if (ONLY.has("views")) {
    results.deepViews = await pass("views", () => deepViews(browser, server, dir, { newPage, until, log, f1, summary, viewport: VIEWPORT, seconds: PAN_SECONDS,
      writeRun, tasksFor, openAndTimeFirstPaint, scriptedPass: (page, ms, zoom) => scriptedPass(page, ms, zoom).then((r) => ({ ...r, gaps: summary(r.gaps) })) }));
  }
  results.clusters = await pass("clusters", () => clusters(browser, server, dir));
  results.big = await pass("big", () => big(browser, server, dir));
} finally {
  await browser.close().catch(() => {});
  await server.stop().catch((e) => log(`stopping the server: ${e.message}`));
  await rm(dir, { recursive: true, force: true });
}

mkdirSync(dirname(opt.json), { recursive: true });
writeFileSync(opt.json, JSON.stringify(results, null, 2));

// ------------------------------------------------------------------ report

const rows = [];
const fp = results.firstPaint;
if (fp) {
  rows.push([`first paint, ${fp.nodes.toLocaleString("en")} nodes / ${fp.edges.toLocaleString("en")} edges: navigation start → graph drawn (median of ${RUNS}; server view cached)`,
    `**${f0(fp.warm.p50)} ms** (min ${f0(fp.warm.min)}, max ${f0(fp.warm.max)})`, "< 1 s"]);
  rows.push(["  of which: page loaded (HTML + JS) / view API call / handed to the canvas (medians)",
    `${f0(median(fp.runs.slice(1).map((r) => r.domReady)))} / ${f0(fp.warmView.p50)} / ${f0(fp.warmSetGraph.p50)} ms`, ""]);
  rows.push(["first paint, cold (first open after `serve`: the server reads and lays the graph out)", `${f0(fp.cold.firstPaint)} ms`, "< 1 s"]);
}
const pz = results.panZoom;
if (pz) {
  rows.push([`pan + zoom every frame, ${pz.nodes.toLocaleString("en")} nodes / ${pz.edges.toLocaleString("en")} edges, whole graph in view (${PAN_SECONDS} s)`,
    `**${f1(pz.overview.fps)} fps** (frame gap p50 ${f1(pz.overview.gaps.p50)} ms, p95 ${f1(pz.overview.gaps.p95)} ms; script ${f1(pz.overview.jsMsPerDraw)} ms per draw)`, "≥ 30 fps"]);
  rows.push(["pan + zoom every frame, zoomed in ×24 (most of the graph culled)",
    `${f1(pz.zoomed.fps)} fps (gap p50 ${f1(pz.zoomed.gaps.p50)} ms, p95 ${f1(pz.zoomed.gaps.p95)} ms; script ${f1(pz.zoomed.jsMsPerDraw)} ms per draw)`, "≥ 30 fps"]);
  rows.push([`pan + zoom every frame, zoomed in ×${f0(pz.middle.zoom)} (nodes ${f1(pz.middle.nodePx * 0.6)}–${f1(pz.middle.nodePx)} px tall, arrow heads, long edges across the view)`,
    `${f1(pz.middle.fps)} fps (gap p50 ${f1(pz.middle.gaps.p50)} ms, p95 ${f1(pz.middle.gaps.p95)} ms; script ${f1(pz.middle.jsMsPerDraw)} ms per draw)`, "≥ 30 fps"]);
  rows.push([`mouse drag + wheel through CDP (${pz.mouse.inputs} moves in ${pz.mouse.seconds.toFixed(1)} s)`,
    `${f1(pz.mouse.fps)} fps (${f1(pz.mouse.inputsPerSecond)} moves and wheel notches a second sent)`, "≥ 30 fps"]);
  rows.push([`first paint at ${pz.nodes.toLocaleString("en")} nodes, cold`,
    `${f0(pz.firstPaintCold)} ms (view API call ${f0(pz.firstPaintView)} ms, handed to the canvas at ${f0(pz.firstPaintSetGraph)} ms)`, "(no target)"]);
  if (pz.firstPaintWarm) rows.push([`first paint at ${pz.nodes.toLocaleString("en")} nodes, warm (server view cached; median of ${pz.firstPaintWarm.n})`,
    `**${f0(pz.firstPaintWarm.p50)} ms** (min ${f0(pz.firstPaintWarm.min)}, max ${f0(pz.firstPaintWarm.max)}; view API call ${f0(pz.firstPaintWarmView.p50)} ms, handed to the canvas at ${f0(pz.firstPaintWarmSetGraph.p50)} ms)`, "< 1 s"]);
}
const bg = results.big;
if (bg) {
  rows.push([`pan + zoom every frame, ${bg.nodes.toLocaleString("en")} nodes / ${bg.edges.toLocaleString("en")} edges drawn node by node (view: ${bg.mode}), whole graph in view`,
    `**${f1(bg.overview.fps)} fps** (gap p50 ${f1(bg.overview.gaps.p50)} ms, p95 ${f1(bg.overview.gaps.p95)} ms; script ${f1(bg.overview.jsMsPerDraw)} ms per draw)`, "≥ 30 fps"]);
  rows.push([`first paint at ${bg.nodes.toLocaleString("en")} nodes, cold / warm`, `${f0(bg.firstPaintCold)} / ${f0(bg.firstPaintWarm)} ms`, ""]);
}
const st = results.stream;
if (st) {
  rows.push([`event → pixels at ${f0(st.achievedRate)} events/s for ${st.seconds} s (${st.probes.toLocaleString("en")} timed nodes${st.missing ? `, ${st.missing} never drawn` : ""})`,
    `**p95 ${f0(st.latency.p95)} ms** (p50 ${f0(st.latency.p50)}, p99 ${f0(st.latency.p99)}, max ${f0(st.latency.max)})`, "p95 < 100 ms"]);
  rows.push(["  of which: line written → server batch out (follow poll + ingest + layout), p50 / p95",
    `${f0(st.toServer.p50)} / ${f0(st.toServer.p95)} ms`, ""]);
  rows.push(["  server batch out → page received (SSE), p50 / p95", `${f0(st.serverToPage.p50)} / ${f0(st.serverToPage.p95)} ms`, ""]);
  rows.push(["  page received → drawn (model, canvas, next frame), p50 / p95", `${f0(st.pageToDrawn.p50)} / ${f0(st.pageToDrawn.p95)} ms`, ""]);
  const sp = st.steps;
  if (sp?.batches) {
    rows.push([`  the server's batches (${sp.batches}, ${f1(sp.events.p50)} events p50): log append on its own / graph write (with the append when pipelined) / publish and layout / whole batch, p50 / p95`,
      `${f1(sp.log.p50)} / ${f1(sp.log.p95)}; ${f1(sp.write.p50)} / ${f1(sp.write.p95)}; ${f1(sp.publish.p50)} / ${f1(sp.publish.p95)}; ${f1(sp.total.p50)} / ${f1(sp.total.p95)} ms`, ""]);
  }
  if (st.cpu) rows.push(["  CPU ms per 1,000 events (first line → last node drawn): server / FalkorDB / page (renderer) / GPU process / rest of the browser / this script",
    ["server", "database", "page", "gpu", "browser", "bench"].map((k) => f0(st.cpu[k]?.per1000)).join(" / "), ""]);
}

const ex = results.explain;
if (ex) {
  rows.push([`explain message pushed to POST …/events → step drawn, at ${f0(ex.achievedRate)} messages/s for ${ex.seconds} s (${ex.probes.toLocaleString("en")} timed steps${ex.missing ? `, ${ex.missing} never drawn` : ""})`,
    `**p95 ${f0(ex.latency.p95)} ms** (p50 ${f0(ex.latency.p50)}, p99 ${f0(ex.latency.p99)}, max ${f0(ex.latency.max)})`, "p95 < 100 ms"]);
  rows.push(["  of which: message written → server batch out, p50 / p95", `${f0(ex.toServer.p50)} / ${f0(ex.toServer.p95)} ms`, ""]);
  rows.push(["  server batch out → page received (SSE), p50 / p95", `${f0(ex.serverToPage.p50)} / ${f0(ex.serverToPage.p95)} ms`, ""]);
  rows.push(["  page received → drawn, p50 / p95", `${f0(ex.pageToDrawn.p50)} / ${f0(ex.pageToDrawn.p95)} ms`, ""]);
}

const sp = results.spans;
if (sp) {
  rows.push([`span → pixels: OTLP/HTTP JSON export sent → span drawn, at ${f0(sp.achievedRate)} spans/s for ${sp.seconds} s (${sp.probes.toLocaleString("en")} timed spans${sp.missing ? `, ${sp.missing} never drawn` : ""}${sp.refused ? `, ${sp.refused} requests refused` : ""})`,
    `**p95 ${f0(sp.latency.p95)} ms** (p50 ${f0(sp.latency.p50)}, p99 ${f0(sp.latency.p99)}, max ${f0(sp.latency.max)})`, "p95 < 100 ms"]);
  rows.push(["  of which: export sent → server batch out, p50 / p95", `${f0(sp.toServer.p50)} / ${f0(sp.toServer.p95)} ms`, ""]);
  rows.push(["  server batch out → page received (SSE), p50 / p95", `${f0(sp.serverToPage.p50)} / ${f0(sp.serverToPage.p95)} ms`, ""]);
  rows.push(["  page received → drawn, p50 / p95", `${f0(sp.pageToDrawn.p50)} / ${f0(sp.pageToDrawn.p95)} ms`, ""]);
  rows.push(["  export sent → its 200, p50 / p95", `${f0(sp.acked.p50)} / ${f0(sp.acked.p95)} ms`, ""]);
  if (sp.steps?.batches) rows.push([`  the server's group writes (${sp.steps.batches}, ${f1(sp.steps.events.p50)} spans p50): graph write / publish and layout / whole, p50 / p95`,
    `${f1(sp.steps.write.p50)} / ${f1(sp.steps.write.p95)}; ${f1(sp.steps.publish.p50)} / ${f1(sp.steps.publish.p95)}; ${f1(sp.steps.total.p50)} / ${f1(sp.steps.total.p95)} ms`, ""]);
  if (sp.cpu) rows.push(["  CPU ms per 1,000 spans (first export → last span drawn): server / FalkorDB / page (renderer) / GPU process / rest of the browser / this script",
    ["server", "database", "page", "gpu", "browser", "bench"].map((k) => f0(sp.cpu[k]?.per1000)).join(" / "), ""]);
}

const vw = results.views;
if (vw) {
  const fpsOf = (p) => `${f1(p.fps)} fps (gap p50 ${f1(p.gaps.p50)} ms, p95 ${f1(p.gaps.p95)} ms; script ${p.cost ? p.cost.scriptMs.toFixed(2) : "–"} ms a frame)`;
  rows.push([`council demo (${vw.nodes} nodes / ${vw.edges} edges) fitted whole, pan + zoom every frame (${vw.whole.leftOut ?? "no"} long edges left out)`, fpsOf(vw.whole), "≥ 55 fps"]);
  for (const [name, what] of [["chain", "the zoning chain"], ["trail", "a claim's trail"]]) {
    const s = vw[name];
    if (!s) continue;
    rows.push([`Show on graph, ${what} (${s.nodes} nodes, ${s.direction}): asked → first frame alone`, `${f0(s.drawn)} ms (${f1(s.asked)} ms in the call)`, ""]);
    rows.push([`  pan + zoom every frame while it is shown`, fpsOf(s), "≥ 55 fps"]);
  }
}

const dv = results.deepViews;
if (dv) {
  const scrolled = (p) => `${f1(p.fps)} fps (gap p95 ${f1(p.gaps.p95)} ms, max ${f1(p.gaps.max)} ms)`;
  if (dv.trace) {
    rows.push([`a trace's waterfall, 2,000 spans (${f0(dv.trace.count)} rows in the page): asked → drawn`, `${f0(dv.trace.drawn)} ms`, ""]);
    rows.push(["  scrolled every frame", scrolled(dv.trace), "≥ 55 fps"]);
  }
  if (dv.lineage) {
    rows.push([`a lineage's version tree, ${f0(dv.lineage.count)} versions: asked → drawn`, `${f0(dv.lineage.drawn)} ms`, ""]);
    rows.push(["  scrolled every frame", scrolled(dv.lineage), "≥ 55 fps"]);
  }
  if (dv.clusters) {
    rows.push([`clusters of ${f0(dv.clusters.nodes)} nodes (\`?limit=5000\`, ${dv.clusters.boxes} boxes): first paint cold / warm`, `${f0(dv.clusters.firstPaintCold)} / ${f0(dv.clusters.firstPaintWarm)} ms`, ""]);
    rows.push(["  pan + zoom every frame", `${f1(dv.clusters.fps)} fps (gap p95 ${f1(dv.clusters.gaps.p95)} ms)`, "≥ 55 fps"]);
  }
}

const cl = results.clusters;
if (cl) {
  rows.push([`clusters (semantic zoom), ${cl.nodes.toLocaleString("en")} nodes / ${cl.edges.toLocaleString("en")} edges: navigation start → boxes drawn (median of ${cl.runs.length}, first cold)`,
    `**${f0(cl.firstPaint.p50)} ms** (min ${f0(cl.firstPaint.min)}, max ${f0(cl.firstPaint.max)}; ${cl.runs[0].boxes} boxes; view API call ${f0(cl.runs[0].view)} ms cold)`, "< 3 s"]);
  rows.push(["pan + zoom over the cluster boxes (while the live clusters' index is read)", `**${f1(cl.fps)} fps**`, "≥ 30 fps"]);
  rows.push(["live clusters: the index of every node and edge, read in the background after the first view",
    `${(cl.index.ms / 1000).toFixed(1)} s (${cl.index.nodes.toLocaleString("en")} nodes, ${cl.index.edges.toLocaleString("en")} edges); server RSS then ${cl.index.rssMb?.toFixed(0)} MB`, ""]);
  rows.push([`beside it, ${cl.hundred.nodes.toLocaleString("en")} nodes: the neighbourhood view large graphs opened as before / the cluster view (API call, median of 3)`,
    `${f0(cl.hundred.neighbourhood.p50)} ms (${cl.hundred.neighbourhoodNodes} nodes) / ${f0(cl.hundred.clusters.p50)} ms (${cl.hundred.boxes} boxes)`, ""]);
}

function median(xs) {
  return summary(xs).p50;
}

const cpu = cpus()[0]?.model ?? "?";
console.log(`\n| measure | result | target |\n|---|---|---|`);
for (const r of rows) console.log(`| ${r.join(" | ")} |`);
console.log(`\nCommand: \`bash bench/ui/run.sh${process.argv.slice(2).length ? " " + process.argv.slice(2).join(" ") : ""}\``);
console.log(`Machine: ${cpus().length} cores (${cpu.trim()}), ${Math.round(totalmem() / 2 ** 30)} GiB; Chromium ${results.chromiumVersion} headless, WebGL: ${results.renderer}; viewport ${VIEWPORT.width}×${VIEWPORT.height} at DPR 1; provex: ${PROVEX.replace(ROOT + "/", "")}; node ${process.version}.`);
// Frame cost by layer (ui/src/canvas/cost.ts): means per frame drawn in each pass.
const passes = [["whole graph", pz?.overview], ["×24", pz?.zoomed], ["mid zoom", pz?.middle], ["mouse", pz?.mouse], [`${bg?.nodes?.toLocaleString("en")} nodes`, bg?.overview]]
  .filter(([, p]) => p?.cost);
if (passes.length) {
  const layers = Object.keys(passes[0][1].cost.layers);
  console.log(`\nFrame cost, mean per frame (script ms / draw calls / vertices / uploads, KB):\n`);
  console.log(`| layer | ${passes.map(([n]) => n).join(" | ")} |\n|---|${passes.map(() => "---").join("|")}|`);
  console.log(`| script (whole frame) | ${passes.map(([, p]) => `${p.cost.scriptMs.toFixed(2)} ms`).join(" | ")} |`);
  for (const l of layers) {
    console.log(`| ${l} | ${passes.map(([, p]) => {
      const c = p.cost.layers[l];
      return `${c.ms.toFixed(2)} / ${c.drawCalls.toFixed(1)} / ${f0(c.vertices)} / ${c.uploads.toFixed(2)}, ${(c.uploadBytes / 1024).toFixed(1)}`;
    }).join(" | ")} |`);
  }
  console.log(`| records looked at: nodes / edges / label candidates | ${passes.map(([, p]) => ["nodes", "edges", "labels"].map((l) => f0(p.cost.layers[l]?.visited)).join(" / ")).join(" | ")} |`);
  console.log(`| worst frame: draw calls / vertices / KB uploaded | ${passes.map(([, p]) => `${p.cost.worst.drawCalls} / ${f0(p.cost.worst.vertices)} / ${(p.cost.worst.uploadBytes / 1024).toFixed(0)}`).join(" | ")} |`);
}
if (st) console.log(`Clocks: page − node = ${st.clock.offset.toFixed(2)} ms (round trip ${st.clock.rtt.toFixed(2)} ms).`);
console.log(`Results: ${opt.json.replace(ROOT + "/", "")}`);
if (results.failed) console.log(`Failed: ${results.failed.join("; ")}`);
