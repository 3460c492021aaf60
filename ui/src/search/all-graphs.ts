// The search box's "all graphs" mode: what is typed is searched in every graph through the
// backend's index (`searchAll`: ids matched exactly, a claim's, quote's, prompt's or agent's
// words by full text); the hits are listed under their graph, and picking one opens that graph
// with the node selected.

import type { GraphHit, SearchHit } from "../api/contract";
import { h } from "../shared/dom";

/** A hit of either mode, as the list shows it and as picking it acts. */
export interface ListedHit {
  /** The graph to open first (all-graphs mode), or null for the open graph. */
  graph: string | null;
  id: string;
  label: string;
  /** The matched field (one graph), or what kind of node it is (all graphs). */
  note: string;
  snippet: string;
}

export function fromGraphHit(hit: SearchHit): ListedHit {
  return { graph: null, id: hit.id, label: hit.label, note: hit.field, snippet: hit.snippet };
}

export function fromAllHit(hit: GraphHit): ListedHit {
  return { graph: hit.graph, id: hit.id, label: hit.label, note: hit.matched === "id" ? `${hit.kind} · id` : hit.kind, snippet: hit.snippet };
}

/** The hits grouped by graph, the graphs in the order of their best hit; the hits keep their order. */
export function byGraph(hits: readonly ListedHit[]): Array<{ graph: string; hits: ListedHit[] }> {
  const groups = new Map<string, ListedHit[]>();
  for (const hit of hits) {
    const g = hit.graph ?? "";
    const list = groups.get(g);
    if (list) list.push(hit);
    else groups.set(g, [hit]);
  }
  return [...groups].map(([graph, list]) => ({ graph, hits: list }));
}

/** The heading of one graph's hits in the list: not an option, so the arrow keys pass over it. */
export function groupHeading(graph: string, count: number, current: boolean): HTMLLIElement {
  return h("li", { class: "search-group", role: "presentation", testid: "search-group", "data-graph": graph },
    h("span", { class: "search-group-name" }, graph),
    h("span", { class: "search-group-count" }, `${count} ${count === 1 ? "hit" : "hits"}${current ? " · open now" : ""}`));
}
