// The Runs view's rows without the DOM: the sources' names, what a row's problems add up
// to, the filter (text in the graph's or an agent's name, a source, "has problems") and the
// sort (any column, either way; rows without a value last, ties by graph name).

import type { RunRow, RunSource } from "../api/contract";

/** Each source as the explorer names it (docs/FORMATS.md describes each). */
export const SOURCE_NAMES: Record<RunSource, string> = {
  runtime_events: "Runtime events",
  signed_statements: "Signed statements",
  reasoning_traces: "Reasoning traces",
  prompt_lineage: "Prompt lineage",
  prov: "PROV",
  knowledge_graph: "Knowledge graph",
  open_telemetry: "OpenTelemetry",
};

export const SOURCES = Object.keys(SOURCE_NAMES) as RunSource[];

/** The columns a list can be sorted by. */
export type SortKey =
  | "graph" | "sources" | "nodes" | "edges" | "first" | "span" | "agents"
  | "invalid_signatures" | "challenged_claims" | "failed_tools";

export type SortDir = "asc" | "desc";

export interface RunSort {
  key: SortKey;
  dir: SortDir;
}

export interface RunFilter {
  /** Text found in the graph's name or in one of its agents' names (any case). */
  text: string;
  /** Only graphs holding this source ("" for any). */
  source: RunSource | "";
  /** Only graphs with at least one problem. */
  problems: boolean;
}

export const NO_FILTER: RunFilter = { text: "", source: "", problems: false };

/** The default order: the most recent run first. */
export const DEFAULT_SORT: RunSort = { key: "first", dir: "desc" };

/** Invalid signatures, challenged claims and failed tools together. */
export function problemCount(r: RunRow): number {
  return r.invalid_signatures + r.challenged_claims + r.failed_tools;
}

/** How long the run spans (ms), when it carries times. */
export function spanMs(r: RunRow): number | null {
  return r.first_ms !== null && r.last_ms !== null ? r.last_ms - r.first_ms : null;
}

export function isFiltering(f: RunFilter): boolean {
  return f.text.trim() !== "" || f.source !== "" || f.problems;
}

export function filterRows(rows: readonly RunRow[], f: RunFilter): RunRow[] {
  const text = f.text.trim().toLowerCase();
  return rows.filter((r) =>
    (!text || r.graph.toLowerCase().includes(text) || r.agent_names.some((a) => a.toLowerCase().includes(text)))
    && (!f.source || r.sources.includes(f.source))
    && (!f.problems || problemCount(r) > 0));
}

function value(r: RunRow, key: SortKey): number | string | null {
  switch (key) {
    case "graph": return r.graph.toLowerCase();
    case "sources": return r.sources.length === 0 ? null : r.sources.map((s) => SOURCE_NAMES[s]).join(", ").toLowerCase();
    case "first": return r.first_ms;
    case "span": return spanMs(r);
    case "nodes": case "edges": case "agents": case "invalid_signatures": case "challenged_claims": case "failed_tools":
      return r[key];
  }
}

/** The rows in the order asked for; rows without a value for the column come last either
 *  way, and equal rows go by graph name. */
export function sortRows(rows: readonly RunRow[], sort: RunSort): RunRow[] {
  const sign = sort.dir === "asc" ? 1 : -1;
  return [...rows].sort((a, b) => {
    const va = value(a, sort.key);
    const vb = value(b, sort.key);
    if (va === null || vb === null) {
      if (va !== vb) return va === null ? 1 : -1;
    } else if (va !== vb) {
      return (va < vb ? -1 : 1) * sign;
    }
    return a.graph.localeCompare(b.graph);
  });
}

/** The sort after a click on `key`'s header: the other way on the sorted column, else the
 *  column's natural first direction (names A to Z, figures and times largest first). */
export function nextSort(current: RunSort, key: SortKey): RunSort {
  if (current.key === key) return { key, dir: current.dir === "asc" ? "desc" : "asc" };
  return { key, dir: key === "graph" || key === "sources" ? "asc" : "desc" };
}

/** A duration in words: "850 ms", "19.5 s", "4 min 10 s", "2 h 5 min", "3 d 4 h". */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 59.95) return `${Math.round(s * 10) / 10} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min${Math.round(s % 60) ? ` ${Math.round(s % 60)} s` : ""}`;
  const hrs = Math.floor(m / 60);
  if (hrs < 48) return `${hrs} h${m % 60 ? ` ${m % 60} min` : ""}`;
  const d = Math.floor(hrs / 24);
  return `${d} d${hrs % 24 ? ` ${hrs % 24} h` : ""}`;
}

/** A time as "2025-10-15 09:00" (UTC, as the files give them). */
export function when(ms: number): string {
  return new Date(ms).toISOString().slice(0, 16).replace("T", " ");
}
