// What the Traces tab's views say and how they order spans, kept apart from the DOM so it is
// tested alone: durations, token counts, a trace's one-line summary, and the waterfall's
// order (each span under its parent, siblings by start; spans whose parent is missing at the
// top), computed without recursion so a deep or cyclic trace cannot overflow the stack.

import type { SpanRow, TraceSummary } from "../api/contract";

/** Labels of the nodes OpenTelemetry spans are stored as (docs/FORMATS.md "OpenTelemetry traces"). */
export const SPAN_LABELS: ReadonlySet<string> = new Set(["LlmCall", "ToolCall", "AgentInvocation", "Retrieval", "Embedding", "Evaluation", "Span"]);

/** Whether a node name is a stored span's (`otel:<trace id>:<span id>`). */
export function isSpanId(id: string): boolean {
  return /^otel:[0-9a-f]+:[0-9a-f]+$/.test(id);
}

/** The trace id of a span's node name. */
export function traceOf(id: string): string | null {
  const m = /^otel:([0-9a-f]+):[0-9a-f]+$/.exec(id);
  return m ? m[1] : null;
}

/** A duration for people: `<1 ms`, `850 ms`, `2.4 s`, `3 min 5 s`. */
export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return "—";
  if (ms < 1) return "<1 ms";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  const min = Math.floor(ms / 60_000);
  return `${min} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** A span's length from its relative nanoseconds. */
export function spanMs(s: Pick<SpanRow, "start_ns" | "end_ns">): number | null {
  return s.start_ns !== null && s.end_ns !== null ? (s.end_ns - s.start_ns) / 1e6 : null;
}

export function count(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString("en")} ${n === 1 ? one : many}`;
}

export function tokens(inp: number | null, out: number | null): string | null {
  if (!inp && !out) return null;
  return `${(inp ?? 0).toLocaleString("en")} in · ${(out ?? 0).toLocaleString("en")} out tokens`;
}

/** When a trace started, in the viewer's time zone (with the date unless it is today). */
export function startedAt(ms: number | null, now = new Date()): string {
  if (ms === null) return "start not recorded";
  const d = new Date(ms);
  const time = d.toLocaleTimeString("en-GB", { hour: "2-digit", minute: "2-digit", second: "2-digit" });
  return d.toDateString() === now.toDateString() ? time : `${d.toISOString().slice(0, 10)} ${time}`;
}

/** A trace's one-line summary under its root's name. */
export function traceMeta(t: TraceSummary): string {
  return [
    duration(t.duration_ms),
    count(t.spans, "span"),
    t.errors ? count(t.errors, "error") : null,
    tokens(t.tokens_in, t.tokens_out),
  ].filter(Boolean).join(" · ");
}

/** A waterfall row: the span and how deep it sits under its ancestors. */
export interface TreeRow {
  span: SpanRow;
  depth: number;
}

/** Spans in waterfall order: depth first from the roots, siblings by start. */
export function treeOrder(spans: readonly SpanRow[]): TreeRow[] {
  const byId = new Map(spans.map((s) => [s.id, s]));
  const children = new Map<string, SpanRow[]>();
  const roots: SpanRow[] = [];
  for (const s of spans) {
    if (s.parent && byId.has(s.parent) && s.parent !== s.id) {
      const list = children.get(s.parent) ?? [];
      list.push(s);
      children.set(s.parent, list);
    } else {
      roots.push(s);
    }
  }
  const byStart = (a: SpanRow, b: SpanRow) => (a.start_ns ?? Infinity) - (b.start_ns ?? Infinity) || a.id.localeCompare(b.id);
  const out: TreeRow[] = [];
  const seen = new Set<string>();
  const stack: TreeRow[] = [...roots].sort(byStart).reverse().map((span) => ({ span, depth: 0 }));
  while (stack.length) {
    const row = stack.pop()!;
    if (seen.has(row.span.id)) continue;
    seen.add(row.span.id);
    out.push(row);
    const kids = [...(children.get(row.span.id) ?? [])].sort(byStart).reverse();
    for (const k of kids) stack.push({ span: k, depth: row.depth + 1 });
  }
  // A cycle of parents reaches no root: show its spans anyway, at the top.
  for (const s of spans) if (!seen.has(s.id)) out.push({ span: s, depth: 0 });
  return out;
}

/** The trace's length in relative nanoseconds (the waterfall's axis). */
export function traceSpanNs(spans: readonly SpanRow[]): number {
  let end = 0;
  for (const s of spans) end = Math.max(end, s.end_ns ?? 0, s.start_ns ?? 0);
  return end || 1;
}

/** Ticks for the time axis: about five round steps from zero to `ns`. */
export function ticks(ns: number): number[] {
  const ms = ns / 1e6;
  const raw = ms / 5;
  const pow = 10 ** Math.floor(Math.log10(Math.max(raw, 1e-6)));
  const step = [1, 2, 5, 10].map((m) => m * pow).find((s) => s >= raw) ?? raw;
  const out: number[] = [];
  for (let t = 0; t <= ms + 1e-9 && out.length < 12; t += step) out.push(t);
  return out;
}

/** A short label for a span's kind. */
export const KIND_TEXT: Record<string, string> = {
  LlmCall: "LLM", ToolCall: "tool", AgentInvocation: "agent", Retrieval: "retrieval", Embedding: "embedding", Evaluation: "evaluation", Span: "span",
};
