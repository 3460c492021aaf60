// When each record of a graph happened, for the Timeline to list them in time order rather
// than in the order they were loaded. A node's own time is the first of its time properties
// (runtime events carry milliseconds since 1970, A2AP documents and PROV records ISO 8601
// text; docs/FORMATS.md); a node without one (a message, a quote) takes the earliest time of
// the nodes one edge away, and failing that the time of the node loaded before it. Pure.

import type { JsonValue, ViewEdge } from "../api/contract";

/** Properties that say when a record happened, in order of preference. */
export const TIME_KEYS = [
  "prov:startTime", "prov:startedAtTime", "generated_at", "verified_at", "a2a:task_state_time",
  "prov:endTime", "prov:endedAtTime", "prov:atTime", "timestamp",
];

/** Read-only Cypher that lists every node with a time and that time. */
export function timesQuery(): string {
  const keys = TIME_KEYS.map((k) => `n.\`${k}\``).join(", ");
  return `MATCH (n) WITH n, coalesce(${keys}) AS t WHERE t IS NOT NULL RETURN n.name AS id, t AS time`;
}

/** A stored time as milliseconds since 1970, or null: a number (seconds when it is too
 *  small to be milliseconds) or ISO 8601 text. */
export function toMs(v: JsonValue | undefined): number | null {
  if (typeof v === "number" && Number.isFinite(v)) return v < 1e11 ? v * 1000 : v;
  if (typeof v === "string") {
    const t = Date.parse(v);
    return Number.isFinite(t) ? t : null;
  }
  return null;
}

/** Each node's time (own, else its neighbours' earliest, else the one loaded before it's);
 *  `nodes` in load order. Nodes before the first time have none. */
export function effectiveTimes(
  nodes: readonly { id: string }[], edges: readonly Pick<ViewEdge, "source" | "target">[], own: ReadonlyMap<string, number>,
): Map<string, number> {
  const near = new Map<string, number>();
  const note = (id: string, t: number | undefined) => {
    if (t === undefined) return;
    const was = near.get(id);
    if (was === undefined || t < was) near.set(id, t);
  };
  for (const e of edges) {
    note(e.source, own.get(e.target));
    note(e.target, own.get(e.source));
  }
  const out = new Map<string, number>();
  let previous: number | undefined;
  for (const n of nodes) {
    const t = own.get(n.id) ?? near.get(n.id) ?? previous;
    if (t !== undefined) {
      out.set(n.id, t);
      previous = t;
    }
  }
  return out;
}

/** `nodes` (in load order) sorted by time, those without one first; equal times keep load
 *  order. */
export function inTimeOrder<T extends { id: string }>(nodes: readonly T[], times: ReadonlyMap<string, number>): T[] {
  const keyed = nodes.map((n, i) => ({ n, i, t: times.get(n.id) ?? -Infinity }));
  keyed.sort((a, b) => (a.t === b.t ? a.i - b.i : a.t < b.t ? -1 : 1));
  return keyed.map((k) => k.n);
}

/** "09:01:12" (UTC), for a row. */
export function clock(ms: number): string {
  return new Date(ms).toISOString().slice(11, 19);
}
