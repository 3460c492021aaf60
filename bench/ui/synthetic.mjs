//! The benchmarks' synthetic A2A runs, in the task shape of examples/bench_ingest.rs: each
//! task a TaskCreated, LLM call started/completed, tool call started/completed, status
//! change and artifact (13 nodes), over 50 agent instances; `BENCH_MESSAGES=1` adds
//! MessageReceived/MessageSent events (list-valued content). Used by run.mjs and
//! first-paint-ab.mjs.

import { writeFileSync } from "node:fs";

const MESSAGES = process.env.BENCH_MESSAGES === "1";

/** Nodes one task adds (see the labels `provex stats` reports), and the shared agent nodes. */
export const NODES_PER_TASK = MESSAGES ? 17 : 13;
export const AGENTS = 50;
export const tasksFor = (nodes) => Math.max(AGENTS, Math.round((nodes - AGENTS - 1) / NODES_PER_TASK));

/**
 * The events of task `t` as [line, probe] pairs: each line with the id of a node it creates
 * (the node whose arrival on the canvas is timed).
 */
export function taskEvents(t, next) {
  const task = `task-${t}`;
  const agent = `5f0c1a2e-8d4b-4c1e-9a77-${String(t % AGENTS).padStart(12, "0")}`;
  const scope = { Task: { task_id: task } };
  const metadata = { agent_id: agent };
  const prompt = { system: "You summarise council meetings.", user: "Summarise the attached transcript segment." };
  const out = [];
  const ev = (data, probe) => {
    const n = next();
    const ts = 1_700_000_000_000 + n;
    out.push([JSON.stringify({ Task: { id: `e${n}`, context_id: "ctx-bench", task_id: task, timestamp_ms: ts, data } }), probe(n, ts)]);
  };
  ev({ TaskCreated: { task_id: task, agent_id: agent } }, () => `task:${task}`);
  if (MESSAGES) ev({ MessageReceived: { id: `in-${t}`, role: "user", content: [`Summarise item ${t} of the agenda`], metadata } }, () => null);
  ev({ LlmCallStarted: { scope, client: "anthropic", model: "claude-sonnet-4", function_name: "Summarise", prompt, metadata } }, (n) => `llm_call:e${n}`);
  ev({ LlmCallCompleted: { scope, client: "anthropic", model: "claude-sonnet-4", function_name: "Summarise", prompt, metadata,
    usage: { Known: { prompt_tokens: 812, completion_tokens: 240, total_tokens: 1052 } }, duration_ms: 2210, success: true } }, (n) => `llm_call:e${n}`);
  ev({ ToolCallStarted: { scope, tool_name: "transcript_search", function_name: "search", args: { q: `item ${t}` }, metadata } }, (n) => `tool_call:e${n}`);
  ev({ ToolCallCompleted: { scope, tool_name: "transcript_search", function_name: "search", args: { q: `item ${t}` }, metadata, duration_ms: 120, success: true } }, (n) => `tool_call:e${n}`);
  ev({ TaskStatusChanged: { task_id: task, old_status: "working", new_status: "completed" } }, (_n, ts) => `task_state:${task}:${ts}`);
  ev({ TaskArtifactGenerated: { task_id: task, artifact_id: `summary-${t}`, artifact_type: "text/markdown" } }, () => `artifact:summary-${t}`);
  if (MESSAGES) ev({ MessageSent: { id: `out-${t}`, role: "agent", content: [`Summary of item ${t}`], metadata } }, () => null);
  return out;
}

export function counter() {
  let n = 0;
  return () => ++n;
}

export function writeRun(path, tasks) {
  const next = counter();
  const lines = [];
  for (let t = 0; t < tasks; t++) for (const [line] of taskEvents(t, next)) lines.push(line);
  writeFileSync(path, lines.join("\n") + "\n");
  return lines.length;
}
