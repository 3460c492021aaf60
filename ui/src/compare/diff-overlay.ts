// What a comparison of two graphs marks on the drawing and lists to step through:
// `provex diff A B` as the explorer shows it. Pure: the compare panel renders it.
// Node and edge ids are `name`s, as in the diff; an edge's place on the canvas is its source.

import type { EdgeChange, EdgeItem, GraphDiff, JsonValue, NodeChange, NodeItem } from "../api/contract";
import { STANDING_TEXT, asStanding } from "../trail/standing";

export type Change = "added" | "removed" | "changed";

/** The mark a change gets on the canvas and in the list: a glyph and a word, never colour alone. */
export const CHANGE_GLYPH: Record<Change, string> = { added: "+", removed: "−", changed: "~" };
export const CHANGE_WORD: Record<Change, string> = { added: "Added", removed: "Removed", changed: "Changed" };

/** One step of the list: a node or an edge that differs. */
export interface DiffItem {
  change: Change;
  what: "node" | "edge";
  /** The node's name, or the edge's "source -TYPE-> target". */
  key: string;
  /** The node to select and centre on (an edge's source, or its target when the source is not drawn). */
  focus: string;
  /** Its label (nodes) or relationship type (edges). */
  label: string;
  /** Properties that differ: name → [before, after] (undefined: absent on that side). */
  props: Array<[string, JsonValue | undefined, JsonValue | undefined]>;
  /** How much it matters (the diff's rank): 0, claims, first. */
  rank: number;
}

/** Which side of the diff the open graph is: `a` (the base: removals are drawn), `b` (the
 *  other: additions are drawn), or null when it is neither. */
export function sideOf(graph: string | null, a: string, b: string): "a" | "b" | null {
  if (graph === b) return "b";
  if (graph === a) return "a";
  return null;
}

function edgeKey(e: { source: string, type: string, target: string }): string {
  return `${e.source} -${e.type}-> ${e.target}`;
}

function changedProps(before: Record<string, JsonValue>, after: Record<string, JsonValue>): DiffItem["props"] {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  return keys
    .filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]))
    .map((k) => [k, before[k], after[k]]);
}

function wholeProps(props: Record<string, JsonValue>, change: "added" | "removed"): DiffItem["props"] {
  return Object.keys(props).sort().map((k) => (change === "added" ? [k, undefined, props[k]] : [k, props[k], undefined]));
}

/** Every difference as a list, by how much it matters (claims and verifications first,
 *  runtime message rows last); within a rank, nodes before edges, then added, removed,
 *  changed, each in the diff's order. */
export function diffItems(d: GraphDiff): DiffItem[] {
  const out: DiffItem[] = [];
  const node = (change: Change, n: NodeItem | NodeChange): DiffItem => ({
    change, what: "node", key: n.name, focus: n.name, label: n.label, rank: n.rank,
    props: "props" in n ? wholeProps(n.props, change as "added" | "removed") : changedProps(n.before, n.after),
  });
  const edge = (change: Change, e: EdgeItem | EdgeChange): DiffItem => ({
    change, what: "edge", key: edgeKey(e), focus: e.source, label: e.type, rank: e.rank,
    props: "props" in e ? wholeProps(e.props, change as "added" | "removed") : changedProps(e.before, e.after),
  });
  for (const n of d.nodes.added) out.push(node("added", n));
  for (const n of d.nodes.removed) out.push(node("removed", n));
  for (const n of d.nodes.changed) out.push(node("changed", n));
  for (const e of d.edges.added) out.push(edge("added", e));
  for (const e of d.edges.removed) out.push(edge("removed", e));
  for (const e of d.edges.changed) out.push(edge("changed", e));
  // A stable sort: within a rank the order above is kept.
  return out.sort((x, y) => x.rank - y.rank);
}

/** Whether an item can be seen on the side open: added things live in `b`, removed in `a`,
 *  changed in both. */
export function visibleOn(item: DiffItem, side: "a" | "b" | null): boolean {
  if (side === null) return false;
  return item.change === "changed" || (item.change === "added" ? side === "b" : side === "a");
}

/** The nodes to mark on the open side, each with its strongest change (a node that is itself
 *  added or removed is marked so; one only touched by a changed or new edge is "changed"). */
export function nodeMarks(items: DiffItem[], side: "a" | "b" | null, drawn: (id: string) => boolean): Map<string, Change> {
  const marks = new Map<string, Change>();
  for (const it of items) {
    if (!visibleOn(it, side)) continue;
    if (it.what === "node") {
      if (drawn(it.key)) marks.set(it.key, it.change);
    } else {
      const [source, target] = edgeEnds(it.key);
      for (const id of [source, target]) if (drawn(id) && !marks.has(id)) marks.set(id, "changed");
    }
  }
  return marks;
}

/** The ends of an edge key made by diffItems. */
export function edgeEnds(key: string): [string, string] {
  const m = /^(.*) -([^ ]*)-> (.*)$/.exec(key);
  return m ? [m[1], m[3]] : [key, key];
}

/** Counts per change, nodes and edges apart: for the panel's summary line. */
export function counts(d: GraphDiff): { nodes: Record<Change, number>, edges: Record<Change, number> } {
  return {
    nodes: { added: d.nodes.added.length, removed: d.nodes.removed.length, changed: d.nodes.changed.length },
    edges: { added: d.edges.added.length, removed: d.edges.removed.length, changed: d.edges.changed.length },
  };
}

/** A property value in a line: strings as they are (clipped), others as JSON; absent as "—". */
export function showValue(v: JsonValue | undefined, max = 120): string {
  if (v === undefined) return "—";
  const text = typeof v === "string" ? v : JSON.stringify(v);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** Before and after in a line each: long texts are cut around where they start to differ,
 *  so a changed quote inside a long document shows its change, not their common start. */
export function showChange(before: JsonValue | undefined, after: JsonValue | undefined, max = 120): [string, string] {
  if (before === undefined || after === undefined) return [showValue(before, max), showValue(after, max)];
  const a = typeof before === "string" ? before : JSON.stringify(before);
  const b = typeof after === "string" ? after : JSON.stringify(after);
  if (a.length <= max && b.length <= max) return [a, b];
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const from = Math.max(0, i - Math.floor(max / 3));
  const cut = (t: string) => `${from > 0 ? "…" : ""}${t.slice(from, from + max)}${from + max < t.length ? "…" : ""}`;
  return [cut(a), cut(b)];
}

/** What a changed value is called in the claims summary. */
const WHAT: Record<string, string> = {
  claim: "Claim text", standing: "Standing", verified: "Verified", consensus: "Consensus",
  signature: "Signature", evidence: "Evidence", quote: "Quote", verdict: "Verdict", counted: "Counted in consensus",
};

/** One line of the claims summary. */
export interface ClaimLine {
  change: Change;
  /** `claim-added`, `claim-removed`, `verification-added`, `verification-removed`, or what changed. */
  what: string;
  text: string;
  before?: JsonValue;
  after?: JsonValue;
}

/** The lines about one claim (or about none, `claim` null). */
export interface ClaimGroup {
  claim: string | null;
  /** The claim's text, when the diff knows it. */
  claimText: string | null;
  lines: ClaimLine[];
}

/** The diff's summary grouped by claim, claims in the order they first come: claims added
 *  and removed, verifications added and removed, then each changed verdict, consensus,
 *  status and quote (the diff's order). */
export function claimGroups(d: GraphDiff): ClaimGroup[] {
  const s = d.summary;
  const by = (agent: string | null) => (agent ? ` by ${agent}` : "");
  const groups = new Map<string | null, ClaimGroup>();
  const add = (claim: string | null, claimText: string | null, line: ClaimLine) => {
    let g = groups.get(claim);
    if (!g) groups.set(claim, g = { claim, claimText, lines: [] });
    g.claimText ??= claimText;
    g.lines.push(line);
  };
  for (const c of s.claims_added) add(c.name, c.text, { change: "added", what: "claim-added", text: `New claim${by(c.agent)}` });
  for (const c of s.claims_removed) add(c.name, c.text, { change: "removed", what: "claim-removed", text: `Claim removed${by(c.agent)}` });
  for (const v of s.verifications_added) add(v.claim, v.claim_text, { change: "added", what: "verification-added", text: `Verification added: ${v.text ?? "no verdict"}${by(v.agent)}` });
  for (const v of s.verifications_removed) add(v.claim, v.claim_text, { change: "removed", what: "verification-removed", text: `Verification removed: ${v.text ?? "no verdict"}${by(v.agent)}` });
  for (const c of s.changes) {
    const text = c.label === "CITES" ? (c.what === "quote" ? "Quote" : "Evidence of its quote")
      : c.label === "Verification" ? `${WHAT[c.what] ?? c.what} of verification ${c.name}` : (WHAT[c.what] ?? c.what);
    // A standing is said in the words the trail uses ("Invalid signature"), not its code.
    const said = (v: JsonValue | null | undefined): JsonValue | undefined => {
      const st = c.what === "standing" && typeof v === "string" ? asStanding(v) : null;
      return st ? STANDING_TEXT[st] : v ?? undefined;
    };
    add(c.claim, c.claim_text, { change: "changed", what: c.what, text, before: said(c.before), after: said(c.after) });
  }
  return [...groups.values()];
}
