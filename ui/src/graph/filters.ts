// Which nodes the canvas draws: the filter menu's choices and the timeline position,
// combined into the one predicate `canvas.setVisible` takes. Pure.

import type { ViewNode } from "../api/contract";

export const DIMENSIONS = ["label", "base_type", "agent", "context", "status"] as const;
export type Dimension = (typeof DIMENSIONS)[number];

export const DIMENSION_TITLES: Record<Dimension, string> = {
  label: "Label",
  base_type: "PROV type",
  agent: "Agent",
  context: "Context",
  status: "Signature",
};

/** The key used for a node without a value in a dimension. */
export const NONE = "";

/** Values hidden per dimension. Exclusion rather than inclusion, so that values arriving
 *  live (a new agent, a new label) are shown until the user hides them. */
export type FilterState = Record<Dimension, Set<string>>;

export function emptyFilters(): FilterState {
  return { label: new Set(), base_type: new Set(), agent: new Set(), context: new Set(), status: new Set() };
}

export function valueOf(n: ViewNode, dim: Dimension): string {
  return n[dim] ?? NONE;
}

export function isFiltering(state: FilterState): boolean {
  return DIMENSIONS.some((d) => state[d].size > 0);
}

/** The canvas predicate: a node is drawn when none of its values is hidden and it arrived
 *  at or before `until` (null: no time limit). Null when everything is drawn. */
export function visibility(state: FilterState, until: number | null): ((n: ViewNode) => boolean) | null {
  const active = DIMENSIONS.filter((d) => state[d].size > 0).map((d) => [d, state[d]] as const);
  if (active.length === 0 && until === null) return null;
  return (n) => {
    if (until !== null && n.arrival > until) return false;
    for (const [d, hidden] of active) if (hidden.has(valueOf(n, d))) return false;
    return true;
  };
}

/** The values present in a dimension with their node counts, most frequent first. */
export function facetValues(nodes: Iterable<ViewNode>, dim: Dimension): Array<[string, number]> {
  const counts = new Map<string, number>();
  for (const n of nodes) {
    const v = valueOf(n, dim);
    counts.set(v, (counts.get(v) ?? 0) + 1);
  }
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}
