// The views a user reaches past the first one (bench/ui/run.mjs `--only views`, after the
// council demo's views.mjs): a trace's waterfall, a prompt lineage's version tree, and a
// graph opened as clusters. Each is timed from asking to the frame that shows it, then
// moved for --seconds the way a user moves it (the waterfall and the tree scrolled every
// frame, the cluster boxes panned and zoomed by the same script as the 50k pass), with the
// frame rate and the longest frame gap.
//
//   trace      one trace of --trace-spans spans (default 2,000: an agent invocation, and
//              model and tool calls nested three deep), written as an OTLP JSON file and
//              ingested; opened from the Traces tab's API (`app.traces.view.open`).
//   lineage    one lineage of 400 versions (the most the tree draws), a fork every tenth;
//              opened as the Lineages tab does (`app.lineages.view.open`).
//   clusters   the 50,000-node synthetic run opened with `?limit=5000`, so as clusters.

import { writeFileSync } from "node:fs";
import { join } from "node:path";

const hex = (n, width) => n.toString(16).padStart(width, "0");

/** One trace of `n` spans as an OTLP JSON export request (docs/FORMATS.md "OpenTelemetry
 *  traces"): span 1 invokes the agent; each later span is a model or tool call under an
 *  earlier one, at most three deep. */
export function traceFile(path, n) {
  const traceId = `ab${hex(1, 30)}`;
  const start = 1_700_000_000_000_000_000n;
  const attr = (key, value) => ({ key, value: { stringValue: value } });
  const spans = [];
  const depth = [0];
  for (let i = 0; i < n; i++) {
    const parent = i === 0 ? null : i < 10 ? 0 : depth[i - 1] < 3 && i % 3 !== 0 ? i - 1 : Math.floor(i / 10);
    depth.push(parent === null ? 0 : depth[parent] + 1);
    const op = i === 0 ? "invoke_agent" : i % 4 === 0 ? "execute_tool" : "chat";
    const t = start + BigInt(i) * 2_000_000n;
    spans.push({
      traceId, spanId: hex(i + 1, 16), ...(parent === null ? {} : { parentSpanId: hex(parent + 1, 16) }), name: `${op} ${i}`, kind: 1,
      startTimeUnixNano: String(t), endTimeUnixNano: String(t + (i === 0 ? BigInt(n) * 2_000_000n : 1_500_000n)),
      attributes: [attr("gen_ai.operation.name", op), attr("gen_ai.agent.name", `agent-${i % 7}`), attr("gen_ai.request.model", "gpt-4o"),
        ...(op === "execute_tool" ? [attr("gen_ai.tool.name", "transcript_search")] : [])],
      status: i % 97 === 0 && i > 0 ? { code: 2, message: "tool failed" } : {},
    });
  }
  writeFileSync(path, JSON.stringify({ resourceSpans: [{ resource: { attributes: [attr("service.name", "bench-agents")] },
    scopeSpans: [{ scope: { name: "bench" }, spans }] }] }) + "\n");
  return traceId;
}

const uuid = (kind, i) => `${hex(kind, 8)}-0000-4000-8000-${hex(i, 12)}`;

/** One prompt lineage of `n` versions as the lineage agent's records (docs/FORMATS.md
 *  "Prompt lineage"): each version refines the one before, every tenth forks from five back. */
function lineageFile(path, n) {
  const lineage = uuid(1, 0), session = uuid(2, 0);
  const lines = [];
  const versions = [];
  for (let i = 0; i < n; i++) {
    const parent = i === 0 ? -1 : i % 10 === 0 && i >= 5 ? i - 5 : i - 1;
    const [a, b, c, pos] = parent < 0 ? [1, 0, 0, 1] : [versions[parent][0], versions[parent][1] + (i % 10 === 0 ? 1 : 0), versions[parent][2] + 1, versions[parent][3] + 1];
    versions.push([a, b, c, pos]);
    const ts = new Date(Date.UTC(2026, 10, 1) + i * 60_000).toISOString().replace(".000", "");
    const rec = {
      lineage_node: { id: uuid(3, i), session_id: session, timestamp: ts, content: `Summarise the council meeting, revision ${i}: cite the minute of every decision.`,
        metadata: { model: "gpt-4o", temperature: 0.2 }, lineage_id: lineage, lineage_version: { major: a, minor: b, patch: c },
        chain_position: pos, is_root: parent < 0, is_head: i === n - 1, lineage_tracked_at: ts },
      lineage_id: lineage, chain_position: pos, chain_depth: pos, confidence: 0.8, constraints_applied: ["no_circular_lineage"], warnings: [], timestamp: ts,
    };
    if (parent >= 0) rec.evolution_edge = { id: uuid(4, i), from: uuid(3, parent), to: uuid(3, i), edge_type: "refines", evolution_type: "refines", similarity_score: 0.8, created_at: ts };
    lines.push(JSON.stringify(rec));
  }
  writeFileSync(path, lines.join("\n") + "\n");
  return `prompt:${uuid(3, 0)}`;
}

/** In the page: scrolls `selector` every frame for `ms` (down and back), and counts frames. */
async function scrollPass(page, selector, ms) {
  return page.evaluate(async ({ selector, ms }) => {
    const el = document.querySelector(selector);
    const range = Math.max(0, el.scrollHeight - el.clientHeight);
    const stamps = [];
    const t0 = performance.now();
    await new Promise((resolve) => {
      const tick = (now) => {
        stamps.push(now);
        const t = now - t0;
        el.scrollTop = range * (1 - Math.cos(t / 900)) / 2;
        if (t < ms) requestAnimationFrame(tick);
        else resolve();
      };
      requestAnimationFrame(tick);
    });
    const gaps = stamps.slice(1).map((s, i) => s - stamps[i]);
    return { frames: stamps.length, seconds: (stamps.at(-1) - stamps[0]) / 1000, fps: (stamps.length - 1) / ((stamps.at(-1) - stamps[0]) / 1000),
      gaps, range };
  }, { selector, ms });
}

/** In the page: calls `open` and waits for `count` elements matching `selector`, then for the
 *  frame that draws them; returns ms from the call. */
async function timeOpen(page, open, arg, selector, count) {
  return page.evaluate(async ({ open, arg, selector, count }) => {
    const app = window.provex.app;
    const t0 = performance.now();
    const target = open === "trace" ? app.traces.view : app.lineages.view;
    const done = target.open(arg);
    await new Promise((resolve) => {
      const tick = () => (document.querySelectorAll(selector).length >= count ? resolve() : requestAnimationFrame(tick));
      tick();
    });
    const shown = performance.now() - t0;
    await new Promise((r) => requestAnimationFrame(() => r()));
    const drawn = performance.now() - t0;
    await done;
    return { shown, drawn, count: document.querySelectorAll(selector).length };
  }, { open, arg, selector, count });
}

/** `h` gives run.mjs's helpers: newPage, until, log, f1, summary, viewport, seconds,
 *  writeRun, tasksFor, openAndTimeFirstPaint, scriptedPass; `dir` a scratch folder. */
export async function deepViews(browser, server, dir, h, spans = 2000) {
  const ms = h.seconds * 1000;
  const out = {};

  // A trace's waterfall.
  const traceGraph = "waterfall";
  const traceId = traceFile(join(dir, "trace.json"), spans);
  await server.cli("ingest", "-g", traceGraph, "--format", "otlp", join(dir, "trace.json"));
  // A lineage's version tree, in the same page's other graph.
  const lineageGraph = "lineage";
  const root = lineageFile(join(dir, "lineage.jsonl"), 400);
  await server.cli("ingest", "-g", lineageGraph, join(dir, "lineage.jsonl"));

  for (const [name, graph, open, arg, selector, count, scroller] of [
    // A large trace draws only the rows in sight: timed to its first row drawn.
    ["trace", traceGraph, "trace", traceId, `.waterfall[data-rows="${spans}"] [data-testid="wf-row"]`, 1, ".trace-main"],
    ["lineage", lineageGraph, "lineage", root, '[data-testid="lineage-box"]', 400, ".lineage-tree-wrap"],
  ]) {
    const { context, page } = await h.newPage(browser, { viewport: h.viewport });
    try {
      const stats = await server.api(`/api/graphs/${graph}/stats`);
      await page.goto(server.url(`/?graph=${graph}`));
      await page.waitForSelector('html[data-ready="true"]');
      await h.until(() => page.evaluate((n) => window.provex.canvas.stats().nodes === n, stats.nodes), { what: `${graph} drawn` });
      const opened = await timeOpen(page, open, arg, selector, count);
      const sel = await page.evaluate((list) => list.split(", ").find((s) => {
        const el = document.querySelector(s);
        return el && el.scrollHeight > el.clientHeight;
      }) ?? list.split(", ").at(-1), scroller);
      const pass = await scrollPass(page, sel, ms);
      out[name] = { nodes: stats.nodes, ...opened, ...pass, gaps: h.summary(pass.gaps) };
      h.log(`  ${name === "trace" ? `a trace's waterfall (${spans} spans)` : "a lineage's version tree (400 versions)"}: ${opened.count} rows in the page ${h.f1(opened.drawn)} ms after asking; scrolled every frame (${sel}, ${Math.round(pass.range)} px) ${h.f1(pass.fps)} fps, gap p95 ${h.f1(out[name].gaps.p95)} ms, max ${h.f1(out[name].gaps.max)} ms`);
    } finally {
      await context.close();
    }
  }

  // Clusters: the 50k run opened above the view limit.
  const file = join(dir, "clusters-50k.jsonl");
  h.writeRun(file, h.tasksFor(50_000));
  await server.cli("ingest", "-g", "clusters50k", "--format", "a2a", file);
  const stats = await server.api("/api/graphs/clusters50k/stats");
  const cold = await h.openAndTimeFirstPaint(browser, server, "clusters50k", null, 5000);
  await cold.context.close();
  const warm = await h.openAndTimeFirstPaint(browser, server, "clusters50k", null, 5000);
  try {
    const boxes = await warm.page.evaluate(() => window.provex.canvas.stats().nodes);
    const pass = await h.scriptedPass(warm.page, ms, 1);
    out.clusters = { nodes: stats.nodes, edges: stats.edges, boxes, firstPaintCold: cold.firstPaint, firstPaintWarm: warm.firstPaint, ...pass };
    h.log(`  clusters of ${stats.nodes} nodes (limit 5,000): ${boxes} boxes, first paint cold ${h.f1(cold.firstPaint)} ms, warm ${h.f1(warm.firstPaint)} ms; pan + zoom ${h.f1(pass.fps)} fps`);
  } finally {
    await warm.context.close();
  }
  return out;
}
