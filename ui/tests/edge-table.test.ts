// The model's edge table: edges keyed by their ends' numbers and their type's number hold
// exactly what a table keyed by `source\0type\0target` strings held, in the same order.

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ViewEdge } from "../src/api/contract";
import { EdgeTable } from "../src/graph/edge-table";
import { edge } from "./helpers";

const TYPES = ["USED", "WAS_GENERATED_BY", "DERIVED"];
const e = (s: number, t: number, k: number): ViewEdge => edge(`n${s}`, `n${t}`, TYPES[k]);

describe("EdgeTable", () => {
  it("keeps one edge per ends and type, in the order added", () => {
    const t = new EdgeTable();
    expect(t.add(0, 1, 0, e(0, 1, 0))).toBe(true);
    expect(t.add(1, 0, 0, e(1, 0, 0))).toBe(true);
    expect(t.add(0, 1, 1, e(0, 1, 1))).toBe(true);
    // The same ends and type again: not added.
    expect(t.add(0, 1, 0, edge("n0", "n1", "USED"))).toBe(false);
    expect(t.size).toBe(3);
    expect([...t.values()]).toEqual([e(0, 1, 0), e(1, 0, 0), e(0, 1, 1)]);
    expect(t.find(0, 1, 1)).toBe(2);
    expect(t.find(1, 1, 0)).toBe(-1);
    expect(t.ends()).toEqual({ source: Int32Array.from([0, 1, 0]), target: Int32Array.from([1, 0, 1]) });
  });

  it("grows past its first room and finds every edge again", () => {
    const t = new EdgeTable();
    const added = Array.from({ length: 5000 }, (_, i) => t.add(i, (i * 7) % 5000, i % 3, e(i, (i * 7) % 5000, i % 3)));
    expect(added.every(Boolean)).toBe(true);
    expect(t.size).toBe(5000);
    const found = Array.from({ length: 5000 }, (_, i) => t.find(i, (i * 7) % 5000, i % 3));
    expect(found).toEqual(Array.from({ length: 5000 }, (_, i) => i));
    expect(t.list()).toHaveLength(5000);
  });

  it("removes the edges between two nodes, whatever their type, and closes up its holes", () => {
    const t = new EdgeTable();
    for (let i = 0; i < 200; i++) t.add(i, i + 1, 0, e(i, i + 1, 0));
    t.add(5, 6, 1, e(5, 6, 1));
    t.removeBetween(5, 6);
    expect(t.size).toBe(199);
    expect(t.find(5, 6, 0)).toBe(-1);
    expect(t.find(5, 6, 1)).toBe(-1);
    // Added again after removal: it comes last.
    expect(t.add(5, 6, 0, e(5, 6, 0))).toBe(true);
    expect(t.list().at(-1)).toEqual(e(5, 6, 0));
    // Most removed: the rest keep their order and are found.
    for (let i = 0; i < 150; i++) t.removeBetween(i, i + 1);
    expect(t.list().map((x) => x.source)).toEqual([...Array.from({ length: 50 }, (_, i) => `n${150 + i}`)]);
    for (let i = 150; i < 200; i++) expect(t.find(i, i + 1, 0)).toBeGreaterThanOrEqual(0);
    expect(t.ends().source).toEqual(Int32Array.from({ length: 50 }, (_, i) => 150 + i));
  });

  it("holds what a table keyed by strings holds, in its order, under any adds and removals", () => {
    const op = fc.oneof(
      fc.record({ add: fc.constant(true), s: fc.nat(30), t: fc.nat(30), k: fc.nat(2) }),
      fc.record({ add: fc.constant(false), s: fc.nat(30), t: fc.nat(30), k: fc.constant(0) }),
    );
    fc.assert(fc.property(fc.array(op, { maxLength: 400 }), (ops) => {
      const t = new EdgeTable();
      const ref = new Map<string, ViewEdge>();
      for (const o of ops) {
        if (o.add) {
          const key = `n${o.s}\u0000${TYPES[o.k]}\u0000n${o.t}`;
          const added = t.add(o.s, o.t, o.k, e(o.s, o.t, o.k));
          expect(added).toBe(!ref.has(key));
          if (added) ref.set(key, e(o.s, o.t, o.k));
        } else {
          t.removeBetween(o.s, o.t);
          for (const [key, x] of ref) if (x.source === `n${o.s}` && x.target === `n${o.t}`) ref.delete(key);
        }
      }
      expect(t.size).toBe(ref.size);
      expect(t.list()).toEqual([...ref.values()]);
      const ends = t.ends();
      expect([...ends.source].map((s) => `n${s}`)).toEqual([...ref.values()].map((x) => x.source));
      expect([...ends.target].map((s) => `n${s}`)).toEqual([...ref.values()].map((x) => x.target));
    }), { numRuns: 200 });
  });
});
