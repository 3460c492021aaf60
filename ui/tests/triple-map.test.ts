// The triple map the model and the canvas key edges with: what a Map keyed by strings holds,
// under any adds and removals, whatever the numbers.

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TripleMap } from "../src/shared/triple-map";

describe("TripleMap", () => {
  it("adds once, finds, removes, and adds again", () => {
    const m = new TripleMap();
    expect(m.add(1, 2, 0, 7)).toBe(true);
    expect(m.add(1, 2, 0, 8)).toBe(false);
    expect(m.get(1, 2, 0)).toBe(7);
    expect(m.get(2, 1, 0)).toBe(-1);
    expect(m.has(1, 2, 1)).toBe(false);
    expect(m.delete(1, 2, 0)).toBe(true);
    expect(m.delete(1, 2, 0)).toBe(false);
    expect(m.size).toBe(0);
    expect(m.add(1, 2, 0, 9)).toBe(true);
    expect(m.get(1, 2, 0)).toBe(9);
  });

  it("holds what a Map keyed by strings holds, numbers past 2^20 and negative ones too", () => {
    const n = fc.oneof(fc.integer({ min: 0, max: 40 }), fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }));
    const op = fc.record({ add: fc.boolean(), x: n, y: n, z: fc.integer({ min: 0, max: 3 }), v: fc.nat() });
    fc.assert(fc.property(fc.array(op, { maxLength: 600 }), (ops) => {
      const m = new TripleMap();
      const ref = new Map<string, number>();
      for (const o of ops) {
        const key = `${o.x},${o.y},${o.z}`;
        if (o.add) {
          expect(m.add(o.x, o.y, o.z, o.v)).toBe(!ref.has(key));
          if (!ref.has(key)) ref.set(key, o.v);
        } else {
          expect(m.delete(o.x, o.y, o.z)).toBe(ref.delete(key));
        }
      }
      expect(m.size).toBe(ref.size);
      for (const [key, v] of ref) {
        const [x, y, z] = key.split(",").map(Number);
        expect(m.get(x, y, z)).toBe(v);
      }
    }), { numRuns: 200 });
  });

  it("keeps 200,000 entries after growing, and rids itself of removed marks", () => {
    const m = new TripleMap();
    for (let i = 0; i < 200_000; i++) m.add(i, i * 3, i % 5, i);
    let found = 0;
    for (let i = 0; i < 200_000; i++) if (m.get(i, i * 3, i % 5) === i) found++;
    expect(found).toBe(200_000);
    // Adds and removals forever at a steady size: the table does not fill with removed marks.
    const churn = new TripleMap();
    for (let i = 0; i < 100_000; i++) {
      churn.add(i, 0, 0, i);
      if (i >= 10) churn.delete(i - 10, 0, 0);
    }
    expect(churn.size).toBe(10);
    expect(churn.get(99_999, 0, 0)).toBe(99_999);
  });
});
