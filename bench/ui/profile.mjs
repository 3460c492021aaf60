// Where a page's time goes: records a Chromium trace (with the V8 sampling profiler) around
// an action and sums the samples by function, so a benchmark can print the functions that
// took the most time themselves ("self") and with what they called ("total").
//
//   const stop = await startProfile(browser, page, file);  ...  const top = await stop();
//
// Used by run.mjs when BENCH_PROFILE=DIR is set (the warm first paint at 50k); the raw trace
// is kept in DIR and opens in Chromium's DevTools (Performance, "Load profile").

import { readFileSync } from "node:fs";

const CATEGORIES = ["disabled-by-default-v8.cpu_profiler", "v8.execute", "devtools.timeline", "blink.user_timing"];

/** Starts tracing `page`; the returned function stops, saves `file` and summarises it. */
export async function startProfile(browser, page, file) {
  await browser.startTracing(page, { path: file, categories: CATEGORIES });
  return async (top = 25) => {
    await browser.stopTracing();
    return summariseTrace(JSON.parse(readFileSync(file, "utf8")), top);
  };
}

/**
 * The `top` functions by self time and by total time (ms) of the V8 profiles in a trace
 * (`Profile` + `ProfileChunk` events: nodes with their call frames and parents, samples with
 * their time deltas). Functions are named `name url:line`; idle and program time are left out.
 */
export function summariseTrace(trace, top = 25) {
  const events = Array.isArray(trace) ? trace : trace.traceEvents ?? [];
  const nodes = new Map(); // id → { frame, parent }
  const samples = [];
  for (const e of events) {
    if (e.name !== "ProfileChunk") continue;
    const p = e.args?.data?.cpuProfile;
    for (const n of p?.nodes ?? []) nodes.set(n.id, { frame: n.callFrame, parent: n.parent });
    const deltas = e.args.data.timeDeltas ?? [];
    (p?.samples ?? []).forEach((id, i) => samples.push([id, (deltas[i] ?? 0) / 1000]));
  }
  const name = (f) => `${f.functionName || "(anonymous)"} ${(f.url ?? "").split("/").pop()}:${(f.lineNumber ?? 0) + 1}`;
  const skip = new Set(["(idle)", "(program)", "(root)"]);
  const self = new Map(), total = new Map();
  let all = 0;
  // A sample's time belongs to the sample before it (its delta is the gap since that one).
  for (let i = 0; i + 1 < samples.length; i++) {
    const [id] = samples[i];
    const ms = samples[i + 1][1];
    const n = nodes.get(id);
    if (!n || skip.has(n.frame.functionName)) continue;
    all += ms;
    const key = name(n.frame);
    self.set(key, (self.get(key) ?? 0) + ms);
    const seen = new Set();
    for (let cur = n, depth = 0; cur && depth < 500; cur = nodes.get(cur.parent), depth++) {
      if (skip.has(cur.frame.functionName)) continue;
      const k = name(cur.frame);
      if (seen.has(k)) continue;
      seen.add(k);
      total.set(k, (total.get(k) ?? 0) + ms);
    }
  }
  const head = (m) => [...m].sort((a, b) => b[1] - a[1]).slice(0, top).map(([fn, ms]) => ({ fn, ms: Math.round(ms * 10) / 10 }));
  return { scriptMs: Math.round(all), self: head(self), total: head(total) };
}
