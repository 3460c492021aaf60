// span → pixels (bench/ui/run.mjs `--only spans`): OpenTelemetry spans exported to `provex
// serve` over OTLP/HTTP (OTLP JSON, `POST /otlp/{graph}/v1/traces`, as an SDK's exporter
// pointed at OTEL_EXPORTER_OTLP_ENDPOINT=…/otlp/{graph} sends) at --span-rate spans a
// second (default 2,000) for --stream-seconds, in 10 ms slices of one request each (at most
// 8 in flight, as several exporters would), while a page watches the graph. Each span is
// timed from its request being sent to the frame that drew its node (`otel:<trace>:<span>`,
// docs/FORMATS.md "OpenTelemetry traces"), split at the server's batch time and the page's
// receipt as the other live passes are. Target: p95 under 100 ms at 2,000 spans/s.

import { cpuBySide, cpuLine, cpuSpent } from "./cpu.mjs";
import { delays, hookDrawn, watchGraph } from "./drawn.mjs";
import { logsSince, parseSteps, summariseSteps } from "./stream-steps.mjs";

/** Spans in one trace: an agent invocation and its calls (chat, and every third a tool). */
const SPANS_PER_TRACE = 10;
const IN_FLIGHT = 8;

const hex = (n, width) => n.toString(16).padStart(width, "0");

/** Span `i` (0-based, over the whole run) as OTLP JSON, and its node's id. */
function span(i) {
  const trace = Math.floor(i / SPANS_PER_TRACE), k = i % SPANS_PER_TRACE;
  // Never all zero (an invalid id, which the receiver refuses).
  const traceId = `be${hex(trace + 1, 30)}`, spanId = hex(k + 1, 16);
  const op = k === 0 ? "invoke_agent" : k % 3 === 0 ? "execute_tool" : "chat";
  const start = BigInt(1_700_000_000_000_000_000) + BigInt(i) * 1_000_000n;
  const attr = (key, value) => ({ key, value: { stringValue: value } });
  return [{
    traceId, spanId, ...(k === 0 ? {} : { parentSpanId: hex(1, 16) }), name: `${op} ${k}`, kind: 1,
    startTimeUnixNano: String(start), endTimeUnixNano: String(start + 500_000n),
    attributes: [attr("gen_ai.operation.name", op), attr("gen_ai.agent.name", `agent-${trace % 20}`),
      attr("gen_ai.request.model", "gpt-4o"), attr("gen_ai.provider.name", "openai")],
  }, `otel:${traceId}:${spanId}`];
}

/** One OTLP/HTTP JSON export request of these spans. */
function request(spans) {
  return JSON.stringify({ resourceSpans: [{
    resource: { attributes: [{ key: "service.name", value: { stringValue: "bench-agents" } }] },
    scopeSpans: [{ scope: { name: "bench" }, spans }],
  }] });
}

/**
 * Runs the pass. `h` gives run.mjs's helpers: until, sleep, summary, log, nowMs, f1,
 * viewport, rate, seconds.
 */
export async function spanStream(browser, server, h) {
  const graph = "spans";
  const url = `${server.base}/otlp/${graph}/v1/traces`;
  const headers = { "content-type": "application/json", ...(server.token ? { authorization: `Bearer ${server.token}` } : {}) };
  let next = 0;
  const post = async (count) => {
    const batch = [];
    for (let k = 0; k < count; k++) batch.push(span(next++));
    const at = h.nowMs();
    const res = await fetch(url, { method: "POST", headers, body: request(batch.map(([s]) => s)) });
    const body = await res.text();
    return { status: res.status, body, at, ids: batch.map(([, id]) => id), acked: h.nowMs() };
  };
  // One trace before the page opens, so that the graph exists.
  const first = await post(SPANS_PER_TRACE);
  if (first.status !== 200) throw new Error(`OTLP export answered ${first.status}: ${first.body.slice(0, 200)}`);
  await h.until(async () => (await server.api(`/api/graphs/${graph}/stats`).catch(() => null))?.nodes > 0, { ms: 30_000, what: "the span graph" });
  const { context, page, errors } = await watchGraph(browser, server, graph, h.viewport);
  try {
    await hookDrawn(page);
    const total = h.rate * h.seconds;
    const written = new Map();
    const acks = [];
    const refused = [];
    const inFlight = new Set();
    let sent = 0;
    const logsFrom = server.logs.length;
    const cpu0 = cpuBySide();
    const t0 = h.nowMs();
    h.log(`span→pixels: exporting ${total} spans at ${h.rate}/s over OTLP/HTTP JSON`);
    while (sent < total) {
      const due = Math.min(total, Math.floor(((h.nowMs() - t0) / 1000) * h.rate));
      if (due > sent && inFlight.size < IN_FLIGHT) {
        const n = due - sent;
        sent += n;
        const p = post(n).then((r) => {
          if (r.status === 200) for (const id of r.ids) written.set(id, r.at);
          acks.push(r.acked - r.at);
          if (r.status !== 200) refused.push(`${r.status} ${r.body.slice(0, 120)}`);
        }, (e) => refused.push(String(e))).finally(() => inFlight.delete(p));
        inFlight.add(p);
      }
      await h.sleep(10);
    }
    await Promise.all(inFlight);
    const elapsed = (h.nowMs() - t0) / 1000;
    h.log(`  exported ${sent} spans in ${elapsed.toFixed(2)} s (${Math.round(sent / elapsed)}/s); ${refused.length} requests refused; waiting for the page`);
    const expected = [...written.keys()];
    await h.until(() => page.evaluate((ids) => ids.every((id) => window.__seen.has(id)), expected),
      { ms: 60_000, every: 250, what: "every exported span on the canvas" }).catch((e) => h.log(`  ${e.message.slice(0, 200)}`));
    const cpu = cpuSpent(cpu0, cpuBySide(), sent);
    const steps = summariseSteps(parseSteps(logsSince(server.logs, logsFrom), graph), h.summary);
    const seen = new Map(await page.evaluate(() => [...window.__seen.entries()]));
    const { lat, toServer, toPage, toDraw, missing } = delays(written, seen);
    if (errors.length) h.log(`  page errors: ${errors.join("; ")}`);
    const stats = await server.api(`/api/graphs/${graph}/stats`);
    const r = { rate: h.rate, seconds: h.seconds, spans: sent, achievedRate: sent / elapsed, probes: written.size, missing,
      refused: refused.length, refusedSample: refused.slice(0, 3), acked: h.summary(acks),
      latency: h.summary(lat), toServer: h.summary(toServer), serverToPage: h.summary(toPage), pageToDrawn: h.summary(toDraw),
      graphNodes: stats.nodes, cpu, steps };
    if (steps.batches) {
      h.log(`  server, per group write (${steps.batches}, ${h.f1(steps.events.p50)} spans p50): write ${h.f1(steps.write.p50)} / ${h.f1(steps.write.p95)} ms, ` +
        `publish ${h.f1(steps.publish.p50)} / ${h.f1(steps.publish.p95)} ms, whole ${h.f1(steps.total.p50)} / ${h.f1(steps.total.p95)} ms (p50 / p95)`);
    }
    h.log(`  CPU from the first export to the last span drawn: ${cpuLine(cpu)}`);
    h.log(`  p50 ${h.f1(r.latency.p50)} ms, p95 ${h.f1(r.latency.p95)} ms, p99 ${h.f1(r.latency.p99)} ms (${r.probes - missing}/${r.probes} spans drawn)`);
    return r;
  } finally {
    await context.close();
  }
}
