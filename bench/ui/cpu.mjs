// CPU time spent by each side of a live pass (run.mjs's event → pixels, spans.mjs): `provex
// serve`, its FalkorDB, the browser (its page's renderer, its GPU process, the rest) and this script, read from
// /proc for the processes this script started (and theirs). Unlike the latencies, CPU time
// per event hardly moves when other work shares the cores, so it says which side a change
// made cheaper or dearer on a loaded machine too. Linux only (empty elsewhere).

import { readdirSync, readFileSync } from "node:fs";

const TICK_MS = 10; // USER_HZ is 100 on Linux

/** Which side a process is on, by its command name (a Chromium process by its `--type`:
 *  the page's renderer, the GPU process that rasterises with SwiftShader, the rest). */
function side(pid, comm) {
  // Any binary named provex… (an A/B run's `provex-old`, `provex-new`), its comm cut at 15.
  if (comm.startsWith("provex")) return "server";
  if (comm.startsWith("redis-server")) return "database";
  if (!/^(chrom|headless_shell|Chrome)/.test(comm)) return null;
  let cmdline = "";
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8");
  } catch {
    // Gone meanwhile.
  }
  if (cmdline.includes("--type=renderer")) return "page";
  if (cmdline.includes("--type=gpu-process")) return "gpu";
  return "browser";
}

/** CPU ms (user + system, all threads) of this script's descendants, summed by side. */
export function cpuBySide() {
  const procs = new Map();
  let entries;
  try {
    entries = readdirSync("/proc");
  } catch {
    return {};
  }
  for (const e of entries) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = readFileSync(`/proc/${e}/stat`, "utf8");
      // The command name is in parentheses and may hold spaces.
      const close = stat.lastIndexOf(")");
      const comm = stat.slice(stat.indexOf("(") + 1, close);
      const f = stat.slice(close + 2).split(" ");
      procs.set(Number(e), { comm, ppid: Number(f[1]), ms: (Number(f[11]) + Number(f[12])) * TICK_MS });
    } catch {
      // Gone meanwhile.
    }
  }
  const mine = (pid) => {
    for (let p = pid, hops = 0; p > 1 && hops < 64; p = procs.get(p)?.ppid ?? 0, hops++) {
      if (p === process.pid) return true;
    }
    return false;
  };
  const out = { server: 0, database: 0, page: 0, gpu: 0, browser: 0 };
  for (const [pid, p] of procs) {
    if (pid === process.pid || !mine(pid)) continue;
    const s = side(pid, p.comm);
    if (s) out[s] += p.ms;
  }
  const self = process.cpuUsage();
  out.bench = (self.user + self.system) / 1000;
  return out;
}

/** What each side spent between two readings of `cpuBySide`, in ms and per 1,000 `events`. */
export function cpuSpent(before, after, events) {
  const out = {};
  for (const k of Object.keys(after)) {
    const ms = after[k] - (before[k] ?? 0);
    out[k] = { ms, per1000: events > 0 ? (ms * 1000) / events : NaN };
  }
  return out;
}

/** "server 1,234 ms (123 a 1,000 events), …" */
export function cpuLine(spent) {
  return Object.entries(spent)
    .map(([k, v]) => `${k} ${Math.round(v.ms).toLocaleString("en")} ms (${v.per1000.toFixed(0)} per 1,000)`)
    .join(", ");
}
