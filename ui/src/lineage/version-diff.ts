// What the lineage view's comparison of two prompt versions shows, as data:
// the word diff split into its two sides (A with what was deleted, B with what was
// inserted), and the confidence broken into its weighted parts (docs/FORMATS.md, “Prompt lineage”: Jaccard
// 0.40, semantic 0.35, edit ratio 0.25; without embeddings the two others renormalised to
// their share of 0.65). Pure: the view renders it.

import type { Comparison, DiffOp } from "../api/contract";

export type SegmentKind = "same" | "del" | "ins";

export interface Segment {
  text: string;
  kind: SegmentKind;
}

/** The diff from A to B as two texts: A's (equal and deleted runs) and B's (equal and inserted). */
export function diffSides(ops: readonly DiffOp[]): { left: Segment[]; right: Segment[] } {
  const left: Segment[] = [], right: Segment[] = [];
  const push = (side: Segment[], s: Segment) => {
    const last = side[side.length - 1];
    if (last && last.kind === s.kind) last.text += s.text;
    else if (s.text) side.push({ ...s });
  };
  for (const op of ops) {
    if (op.op === "delete") push(left, { text: op.text, kind: "del" });
    else if (op.op === "insert") push(right, { text: op.text, kind: "ins" });
    else {
      push(left, { text: op.text, kind: "same" });
      push(right, { text: op.text, kind: "same" });
    }
  }
  return { left, right };
}

/** Words deleted and inserted by a diff. */
export function diffCounts(ops: readonly DiffOp[]): { deleted: number; inserted: number } {
  const words = (t: string) => t.split(/\s+/).filter(Boolean).length;
  let deleted = 0, inserted = 0;
  for (const op of ops) {
    if (op.op === "delete") deleted += words(op.text);
    else if (op.op === "insert") inserted += words(op.text);
  }
  return { deleted, inserted };
}

export const WEIGHTS = { jaccard: 0.40, semantic: 0.35, edit_ratio: 0.25 } as const;

export interface Part {
  key: keyof typeof WEIGHTS;
  name: string;
  /** What it measures, for a stranger. */
  what: string;
  /** Null: not available (no embeddings endpoint). */
  value: number | null;
  /** The weight of the formula. */
  weight: number;
  /** The weight used: renormalised when the semantic part is missing; null when unused. */
  used: number | null;
  /** value × used. */
  adds: number | null;
}

/** The confidence's parts: each value, its weight, the weight used, and what it adds. */
export function confidenceParts(c: Pick<Comparison, "jaccard" | "semantic" | "edit_ratio">): { parts: Part[]; renormalised: boolean } {
  const semantic = c.semantic ?? null;
  const renormalised = semantic === null;
  const share = renormalised ? WEIGHTS.jaccard + WEIGHTS.edit_ratio : 1;
  const part = (key: Part["key"], name: string, what: string, value: number | null): Part => {
    const used = value === null ? null : WEIGHTS[key] / share;
    return { key, name, what, value, weight: WEIGHTS[key], used, adds: value === null || used === null ? null : value * used };
  };
  return {
    renormalised,
    parts: [
      part("jaccard", "Jaccard", "shared words", c.jaccard),
      part("semantic", "Semantic", "meaning, from embeddings", semantic),
      part("edit_ratio", "Edit ratio", "characters kept", c.edit_ratio),
    ],
  };
}

/** A similarity as shown: three decimals. */
export function score(n: number): string {
  return n.toFixed(3);
}

/** A weight as shown: "×0.40", or "×0.615" when renormalised. */
export function weight(n: number): string {
  return `×${n.toFixed(Math.abs(n * 100 - Math.round(n * 100)) < 1e-9 ? 2 : 3)}`;
}
