// Desktop benchmarks (docs/BENCHMARKS.md, "Desktop app"): cold start to a drawn council graph, and resident memory of
// the app and its FalkorDB with a 100,000-node graph open. Drives the built app
// (target/<profile>/provex-desktop) through tauri-driver under Xvfb, in a fresh home.
//
//   xvfb-run -a -s "-screen 0 1400x900x24" node bench/desktop/run.mjs [--nodes 100000] [--runs 3]
//
// Memory is read from /proc: RSS and PSS (shared pages split between the processes that
// map them, so the sum is not inflated) of the app, its WebKit web and network processes,
// and the FalkorDB server.

import { spawn, execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort, runIn, wd } from "../../src-tauri/e2e/driver.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(here, "../..");
const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const NODES = arg("nodes", 100_000);
const RUNS = arg("runs", 3);
const release = join(ROOT, "target/release/provex-desktop");
const APP = process.env.PROVEX_DESKTOP_BIN ?? (existsSync(release) ? release : join(ROOT, "target/debug/provex-desktop"));
const CLI = process.env.PROVEX_BIN ?? (existsSync(join(ROOT, "target/release/provex")) ? join(ROOT, "target/release/provex") : join(ROOT, "target/debug/provex"));
const DRIVER = process.env.TAURI_DRIVER ?? join(homedir(), ".cargo/bin/tauri-driver");
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const log = (...a) => console.error("[bench]", ...a);



function envFor(home) {
  return {
    ...process.env,
    HOME: home,
    XDG_DATA_HOME: join(home, "data"),
    XDG_CONFIG_HOME: join(home, "config"),
    XDG_CACHE_HOME: join(home, "cache"),
    PROVEX_DATA_DIR: join(home, "provex"),
  };
}

/** Starts tauri-driver, opens a session on the app; returns helpers. */
async function launch(home) {
  const port = await freePort();
  const nativePort = await freePort();
  const driver = spawn(DRIVER, ["--port", String(port), "--native-port", String(nativePort)], { env: envFor(home), stdio: "ignore" });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    try {
      await fetch(base + "/status");
      break;
    } catch {
      await sleep(50);
    }
  }
  const t0 = performance.now();
  const { sessionId } = await wd(base, "POST", "/session", { capabilities: { alwaysMatch: { "tauri:options": { application: APP } } } });
  const run = (fn, ...args) => runIn(base, sessionId, fn, ...args);
  const close = async () => {
    await wd(base, "DELETE", `/session/${sessionId}`).catch(() => {});
    driver.kill("SIGTERM");
    await sleep(500);
  };
  return { t0, run, close };
}

const waitDrawn = async () => {
  for (let i = 0; i < 3000; i++) {
    const p = window.provex;
    if (document.documentElement.dataset.ready === "true" && p && p.canvas && p.canvas.stats().nodes > 0 && p.canvas.stats().frames > 0) {
      return p.canvas.stats().nodes;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error("nothing drawn in 60 s");
};

/** The pid of the FalkorDB server of a data folder (from its `server.port` file). */
function falkordbPid(home) {
  try {
    const port = readFileSync(join(home, "provex/falkordb/server.port"), "utf8").trim();
    const out = execFileSync("ss", ["-Hltnp", `sport = :${port}`], { encoding: "utf8" });
    return /pid=(\d+)/.exec(out)?.[1] ?? null;
  } catch {
    return null;
  }
}

function memory(home) {
  const rows = [];
  const server = falkordbPid(home);
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    let comm, cmd, env;
    try {
      comm = readFileSync(`/proc/${pid}/comm`, "utf8").trim();
      cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ");
      env = readFileSync(`/proc/${pid}/environ`, "utf8");
    } catch {
      continue;
    }
    const ours = env.includes(`HOME=${home}`) || cmd.includes(home) || pid === server;
    const kind = comm.startsWith("provex-desktop") ? "app"
      : comm.startsWith("WebKitWebProces") ? "webkit web"
      : comm.startsWith("WebKitNetworkPr") ? "webkit network"
      : pid === server || comm.startsWith("redis-server") ? "FalkorDB"
      : null;
    if (!kind || !ours) continue;
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const rss = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    let pss = rss;
    try {
      pss = Number(/Pss:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"))?.[1] ?? rss);
    } catch {}
    rows.push({ kind, pid, rssMb: rss / 1024, pssMb: pss / 1024 });
  }
  return rows;
}

function syntheticRun(path, nodes) {
  // A2A task runs: each task adds 13 nodes (task, states, LLM and tool calls with their
  // prompts and args, artifact) over 50 agents.
  const tasks = Math.round((nodes - 51) / 13);
  const lines = [];
  let n = 0;
  for (let t = 0; t < tasks; t++) {
    const task = `task-${t}`;
    const agent = `5f0c1a2e-8d4b-4c1e-9a77-${String(t % 50).padStart(12, "0")}`;
    const scope = { Task: { task_id: task } };
    const metadata = { agent_id: agent };
    const prompt = { system: "You summarise council meetings.", user: `Item ${t}` };
    const ev = (data) => lines.push(JSON.stringify({ Task: { id: `e${++n}`, context_id: "ctx-bench", task_id: task, timestamp_ms: 1_700_000_000_000 + n, data } }));
    ev({ TaskCreated: { task_id: task, agent_id: agent } });
    ev({ LlmCallStarted: { scope, client: "anthropic", model: "claude-sonnet-4", function_name: "Summarise", prompt, metadata } });
    ev({ LlmCallCompleted: { scope, client: "anthropic", model: "claude-sonnet-4", function_name: "Summarise", prompt, metadata, usage: { Known: { prompt_tokens: 812, completion_tokens: 240, total_tokens: 1052 } }, duration_ms: 2210, success: true } });
    ev({ ToolCallStarted: { scope, tool_name: "transcript_search", function_name: "search", args: { q: `item ${t}` }, metadata } });
    ev({ ToolCallCompleted: { scope, tool_name: "transcript_search", function_name: "search", args: { q: `item ${t}` }, metadata, duration_ms: 120, success: true } });
    ev({ TaskStatusChanged: { task_id: task, old_status: "working", new_status: "completed" } });
    ev({ TaskArtifactGenerated: { task_id: task, artifact_id: `summary-${t}`, artifact_type: "text/markdown" } });
  }
  writeFileSync(path, lines.join("\n") + "\n");
  return lines.length;
}

async function main() {
  if (!process.env.DISPLAY) throw new Error("run under xvfb-run");
  log(`app ${APP}`);
  const results = {};

  // Cold start: a fresh home each run (the app starts FalkorDB, loads the demo, lays it out, draws).
  const cold = [];
  const warm = [];
  for (let r = 0; r < RUNS; r++) {
    const home = mkdtempSync(join(tmpdir(), "provex-bench-"));
    let a = await launch(home);
    const drawn = await a.run(waitDrawn);
    cold.push(performance.now() - a.t0);
    await a.close();
    a = await launch(home);
    await a.run(waitDrawn);
    warm.push(performance.now() - a.t0);
    await a.close();
    log(`  start ${r + 1}: cold ${cold.at(-1).toFixed(0)} ms, warm ${warm.at(-1).toFixed(0)} ms (${drawn} nodes)`);
  }
  const med = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
  results.coldStartMs = med(cold);
  results.warmStartMs = med(warm);

  // Memory with a large graph open.
  const home = mkdtempSync(join(tmpdir(), "provex-bench-mem-"));
  const file = join(home, "run.jsonl");
  const events = syntheticRun(file, NODES);
  log(`ingesting ${events} events`);
  execFileSync(CLI, ["--data-dir", join(home, "provex"), "ingest", "-g", "big", "--format", "a2a", file], { env: envFor(home), stdio: "ignore" });
  const a = await launch(home);
  await a.run(waitDrawn);
  const idle = memory(home);
  // What the app does by default with a graph over its 50,000-node limit: a neighbourhood.
  const neighbourhood = await a.run(async () => {
    const p = window.provex;
    await p.app.openGraph("big");
    for (let i = 0; i < 500 && p.model.graph !== "big"; i++) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 500));
    return { mode: p.model.mode, nodes: p.canvas.stats().nodes };
  });
  await sleep(1000);
  const small = memory(home);
  const opened = await a.run(async () => {
    const p = window.provex;
    const t = performance.now();
    const v = await p.backend.view({ graph: "big", limit: 200000 });
    p.canvas.setGraph(v.nodes, v.edges);
    for (let i = 0; i < 500 && p.canvas.stats().nodes !== v.nodes.length; i++) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    return { nodes: v.nodes.length, edges: v.edges.length, ms: performance.now() - t };
  });
  await sleep(1000);
  const big = memory(home);
  await a.close();
  const sum = (rows, k) => rows.reduce((s, r) => s + r[k], 0);
  results.memory = { opened, idle, big, neighbourhood, small, idlePss: sum(idle, "pssMb"), smallPss: sum(small, "pssMb"), bigPss: sum(big, "pssMb"), bigRss: sum(big, "rssMb") };

  const fmt = (x) => x.toFixed(0);
  const line = (rows) => rows.map((r) => `${r.kind} ${fmt(r.pssMb)}`).join(", ");
  console.log(`| measure | result | target |
|---|---|---|
| cold start → council graph drawn (fresh home: FalkorDB start, demo ingest, layout, draw; median of ${RUNS}) | **${fmt(results.coldStartMs)} ms** (${cold.map(fmt).join(", ")}) | – |
| warm start → council graph drawn (data kept; median of ${RUNS}) | ${fmt(results.warmStartMs)} ms (${warm.map(fmt).join(", ")}) | – |
| memory, council graph open: PSS of app + WebKit + FalkorDB | ${fmt(results.memory.idlePss)} MB (${line(idle)}) | |
| memory, the ${opened.nodes.toLocaleString("en")}-node graph opened as the app does (${neighbourhood.mode}, ${neighbourhood.nodes} nodes drawn): PSS | **${fmt(results.memory.smallPss)} MB** (${line(small)}) | < 500 MB |
| memory, the same graph forced open whole (${opened.edges.toLocaleString("en")} edges; opened in ${fmt(opened.ms)} ms): PSS | **${fmt(results.memory.bigPss)} MB** (${line(big)}); RSS sum ${fmt(results.memory.bigRss)} MB | < 500 MB |

Command: \`xvfb-run -a -s "-screen 0 1400x900x24" node bench/desktop/run.mjs --nodes ${NODES} --runs ${RUNS}\`; app: \`${APP.replace(ROOT + "/", "")}\`.`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
