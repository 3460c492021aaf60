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

/** What `mainThreadCpu` needs of a trace: the scheduler's tasks with their thread times. */
export const CPU_CATEGORIES = ["toplevel", "v8", "devtools.timeline"];

/**
 * The CPU time (ms) of a traced page's renderer main thread: the thread time (`tdur`) of its
 * outermost events (the scheduler's tasks and microtask checkpoints), summed, as `cpuMs`;
 * `gcMs`, the thread time of its garbage collections; `wallMs`, those events' wall time.
 * The page's thread is the renderer main thread that spent the most. Thread time leaves
 * out the time the thread waited for a core, so it holds on a loaded machine.
 */
export function mainThreadCpu(trace) {
  const events = Array.isArray(trace) ? trace : trace.traceEvents ?? [];
  let best = { cpuMs: 0, gcMs: 0, wallMs: 0 };
  for (const m of events.filter((e) => e.name === "thread_name" && e.args?.name === "CrRendererMain")) {
    const mine = events.filter((e) => e.pid === m.pid && e.tid === m.tid && e.ph === "X").sort((a, b) => a.ts - b.ts || b.dur - a.dur);
    let end = -Infinity, cpu = 0, wall = 0, gc = 0;
    for (const e of mine) {
      if (e.name === "MinorGC" || e.name === "MajorGC") gc += e.tdur ?? 0;
      if (e.ts < end) continue;
      end = e.ts + e.dur;
      cpu += e.tdur ?? 0;
      wall += e.dur;
    }
    if (cpu / 1000 > best.cpuMs) best = { cpuMs: cpu / 1000, gcMs: gc / 1000, wallMs: wall / 1000 };
  }
  return best;
}

/**
 * The `top` functions by self time and by total time (ms) of the V8 profiles in a trace
 * (`ProfileChunk` events: nodes with their call frames and parents, samples with their time
 * deltas), as `summariseProfile` counts them.
 */
export function summariseTrace(trace, top = 25) {
  const events = Array.isArray(trace) ? trace : trace.traceEvents ?? [];
  const profile = { nodes: [], samples: [], timeDeltas: [] };
  for (const e of events) {
    if (e.name !== "ProfileChunk") continue;
    const p = e.args?.data?.cpuProfile;
    profile.nodes.push(...(p?.nodes ?? []));
    profile.samples.push(...(p?.samples ?? []));
    profile.timeDeltas.push(...(e.args.data.timeDeltas ?? []));
  }
  return summariseProfile(profile, top);
}

/**
 * The `top` functions by self time and by total time (ms) of a V8 CPU profile (what CDP's
 * `Profiler.stop` returns: nodes with call frames and children or parents, samples, time
 * deltas in µs). Functions are named `name file:line`; idle, program and root time are left
 * out; a function that calls itself again is counted once in its total.
 */
export function summariseProfile(profile, top = 25) {
  const nodes = new Map(); // id → { frame, parent }
  for (const n of profile.nodes) nodes.set(n.id, { frame: n.callFrame, parent: n.parent });
  for (const n of profile.nodes) for (const c of n.children ?? []) if (nodes.has(c)) nodes.get(c).parent = n.id;
  const name = (f) => `${f.functionName || "(anonymous)"} ${(f.url ?? "").split("/").pop()}:${(f.lineNumber ?? 0) + 1}`;
  const skip = new Set(["(idle)", "(program)", "(root)"]);
  const self = new Map(), total = new Map();
  let all = 0;
  // A sample's time belongs to the sample before it (its delta is the gap since that one).
  const { samples, timeDeltas } = profile;
  for (let i = 0; i + 1 < samples.length; i++) {
    const ms = (timeDeltas[i + 1] ?? 0) / 1000;
    const n = nodes.get(samples[i]);
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
