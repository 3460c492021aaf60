// How a TrustGraph reasoning chain reads: what kind each step is, which of its
// recorded properties a reader wants (tool, arguments, durations, tokens, model, grounding
// concepts, explored edges, selected edges and chunks) as labelled facts, which dialog lines
// (thought, observation, answer) belong to which step, and the session's status as words.
// Pure, so the view (reasoning-view.ts) only lays it out and the tests read it directly.

import type { DialogLine, JsonValue, ReasoningChain, ReasoningStep, SessionSummary } from "../api/contract";

/** What a step is, most telling type first. */
export type StepKind =
  | "question" | "error" | "tool" | "observation" | "grounding" | "exploration" | "focus"
  | "synthesis" | "answer" | "thought" | "step";

const KINDS: Array<[StepKind, string[]]> = [
  ["question", ["Question", "AgentQuestion", "GraphRagQuestion", "DocRagQuestion"]],
  ["error", ["Error"]],
  ["answer", ["Answer", "Conclusion"]],
  ["synthesis", ["Synthesis"]],
  ["tool", ["ToolUse", "Analysis"]],
  ["observation", ["Observation"]],
  ["grounding", ["Grounding"]],
  ["exploration", ["Exploration"]],
  ["focus", ["Focus", "EdgeSelection", "ChunkSelection"]],
  ["thought", ["Thought", "Reflection"]],
];

export const KIND_TITLE: Record<StepKind, string> = {
  question: "Question", error: "Error", tool: "Tool use", observation: "Observation", grounding: "Grounding",
  exploration: "Exploration", focus: "Focus", synthesis: "Synthesis", answer: "Answer", thought: "Thought", step: "Step",
};

export function stepKind(step: Pick<ReasoningStep, "types" | "failed">): StepKind {
  for (const [kind, types] of KINDS) if (types.some((t) => step.types.includes(t))) return kind;
  return step.failed ? "error" : "step";
}

/** A property as text ("" when absent); lists joined with ", ". */
/** The steps of a chain after its question: how the session list, the chain's header and
 *  the walkthrough all count a session's reasoning. */
export function stepsAfterQuestion(chain: readonly Pick<ReasoningStep, "types" | "failed">[]): number {
  return chain.filter((s) => stepKind(s) !== "question").length;
}

/** "3 steps after the question". */
export function stepsText(n: number): string {
  return `${n} step${n === 1 ? "" : "s"} after the question`;
}

export function prop(step: Pick<ReasoningStep, "properties">, key: string): string {
  return textOf(step.properties[key]);
}

function textOf(v: JsonValue | undefined): string {
  if (v === undefined || v === null) return "";
  if (Array.isArray(v)) return v.map(textOf).filter(Boolean).join(", ");
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

/** A property as a list (a single value is a list of one). */
export function props(step: Pick<ReasoningStep, "properties">, key: string): string[] {
  const v = step.properties[key];
  if (v === undefined || v === null) return [];
  return (Array.isArray(v) ? v : [v]).map(textOf).filter(Boolean);
}

/** A tool's arguments: JSON pretty-printed, anything else as it came. */
export function prettyArguments(raw: string): string {
  if (!raw) return "";
  try {
    return JSON.stringify(JSON.parse(raw), null, 2);
  } catch {
    return raw;
  }
}

function num(s: string): number | null {
  if (!s) return null;
  const n = Number(s);
  return Number.isFinite(n) ? n : null;
}

/** 640 → "640 ms", 2150 → "2.15 s". */
export function duration(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${Math.round(ms)} ms`;
}

/** The labelled facts of a step worth reading, in reading order. */
export function facts(step: ReasoningStep): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const add = (label: string, value: string) => { if (value) out.push([label, value]); };
  const llm = num(prop(step, "tg:llmDurationMs"));
  const tool = num(prop(step, "tg:toolDurationMs"));
  if (llm !== null) add("LLM time", duration(llm));
  if (tool !== null) add("Tool time", duration(tool));
  const inT = num(prop(step, "tg:inToken")), outT = num(prop(step, "tg:outToken"));
  if (inT !== null || outT !== null) add("Tokens", `${inT?.toLocaleString("en") ?? "?"} in · ${outT?.toLocaleString("en") ?? "?"} out`);
  add("Model", prop(step, "tg:llmModel"));
  const edges = num(prop(step, "tg:edgeCount"));
  if (edges !== null) add("Edges explored", edges.toLocaleString("en"));
  add("Ended because", prop(step, "tg:terminationReason"));
  return out;
}

/** The tool a step used, the ones it chose from, and its arguments (pretty). */
export function toolOf(step: ReasoningStep): { action: string; candidates: string[]; args: string } | null {
  const action = prop(step, "tg:action");
  const args = prettyArguments(prop(step, "tg:arguments"));
  if (!action && !args) return null;
  return { action, candidates: props(step, "tg:toolCandidate"), args };
}

/** A selected edge of a Focus step: subject, predicate, object, why and how well. */
export interface SelectedEdge { s: string; p: string; o: string; reasoning: string; score: number | null }

export function selectedEdges(step: ReasoningStep): SelectedEdge[] {
  return step.parts.filter((p) => prop(p, "tg:edge_s") || prop(p, "tg:edge_p") || prop(p, "tg:edge_o")).map((p) => ({
    s: prop(p, "tg:edge_s"), p: prop(p, "tg:edge_p"), o: prop(p, "tg:edge_o"),
    reasoning: prop(p, "tg:reasoning"), score: num(prop(p, "tg:score")),
  }));
}

/** A selected chunk of a step: its id (or label) and score. */
export function selectedChunks(step: ReasoningStep): Array<{ id: string; label: string; score: number | null }> {
  return step.parts
    .filter((p) => p.types.includes("ChunkSelection") || (!p.types.includes("EdgeSelection") && !prop(p, "tg:edge_s") && prop(p, "tg:score")))
    .map((p) => ({ id: p.id, label: prop(p, "tg:chunk") || prop(p, "rdfs:label") || p.id, score: num(prop(p, "tg:score")) }));
}

/** Text a step or its thought part carries itself (TrustGraph may record it inline). */
export function inlineText(step: ReasoningStep, keys = ["tg:content", "tg:thought", "tg:observation", "tg:answer", "tg:document"]): string {
  for (const k of keys) {
    const v = prop(step, k);
    if (v && !/^urn:|^https?:/.test(v)) return v;
  }
  return "";
}

/** The dialog lines of each step: the n-th thought goes to the n-th step that thinks (a tool
 *  use or a step with a thought), the n-th observation to the n-th observation, the answer
 *  to the answer (or synthesis); an error to the n-th failed step. Lines left over (a step
 *  not recorded yet) are only in the dialog beside the chain. */
export function dialogByStep(chain: readonly ReasoningStep[], dialog: readonly DialogLine[]): Map<string, DialogLine[]> {
  const out = new Map<string, DialogLine[]>();
  const slots: Record<string, string[]> = { thought: [], observation: [], answer: [], error: [] };
  for (const s of chain) {
    const k = stepKind(s);
    if (k === "tool" || (k !== "question" && s.parts.some((p) => stepKind(p) === "thought"))) slots.thought.push(s.id);
    if (k === "observation") slots.observation.push(s.id);
    if (k === "answer" || k === "synthesis") slots.answer.push(s.id);
    if (s.failed) slots.error.push(s.id);
  }
  const taken: Record<string, number> = {};
  for (const line of dialog) {
    const list = slots[line.kind];
    if (!list) continue;
    const i = taken[line.kind] ?? 0;
    const id = line.kind === "answer" ? list[list.length - 1] : list[i];
    taken[line.kind] = i + 1;
    if (!id) continue;
    const have = out.get(id) ?? [];
    have.push(line);
    out.set(id, have);
  }
  return out;
}

/** A session's status as shown: a symbol and a word, so it does not rest on colour. */
export const STATUS_TEXT: Record<string, string> = { running: "● running", answered: "✓ answered", failed: "✗ failed" };

export function statusText(status: string): string {
  return STATUS_TEXT[status] ?? status;
}

export function statusTone(status: string): "positive" | "negative" | "neutral" {
  return status === "answered" ? "positive" : status === "failed" ? "negative" : "neutral";
}

export const KIND_NAME: Record<string, string> = { agent: "ReAct agent", graphrag: "GraphRAG", docrag: "Document RAG", seed: "TrustGraph" };

/** "2025-10-15T09:01:19Z" → "09:01:19 UTC, 15 Oct 2025"; other text unchanged. */
export function when(iso: string | null): string {
  if (!iso) return "";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const p = (n: number) => String(n).padStart(2, "0");
  const months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
  return `${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())} UTC, ${d.getUTCDate()} ${months[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
}

/** One line for a session in the list: "4 steps · ReAct agent · 09:01:19 UTC, 15 Oct 2025". */
export function sessionMeta(s: SessionSummary): string {
  return [`${s.steps} step${s.steps === 1 ? "" : "s"}`, KIND_NAME[s.kind] ?? s.kind, when(s.started)].filter(Boolean).join(" · ");
}

/** A step's heading: its kind, and what it did ("Tool use: knowledge-query"). */
export function stepTitle(step: ReasoningStep): string {
  const kind = stepKind(step);
  const action = prop(step, "tg:action");
  if (step.placeholder) return "Not recorded yet";
  if (kind === "tool" && action) return `${step.failed ? "Failed tool" : "Tool use"}: ${action}`;
  if (kind === "step" && step.label) return step.label;
  return KIND_TITLE[kind];
}

/** The linked nodes of other sources (statements…) each step names, in chain order. */
export function linksByStep(c: Pick<ReasoningChain, "links">): Map<string, ReasoningChain["links"]> {
  const out = new Map<string, ReasoningChain["links"]>();
  for (const l of c.links) {
    const have = out.get(l.from) ?? [];
    if (!have.some((x) => x.id === l.id)) have.push(l);
    out.set(l.from, have);
  }
  return out;
}
