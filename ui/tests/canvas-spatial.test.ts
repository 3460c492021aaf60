// The canvas's spatial grid: the right node at a point among many, nothing on empty space,
// hit regions that follow the drawn shapes, and rectangle queries without duplicates.

import { describe, expect, it } from "vitest";
import { SpatialGrid } from "../src/canvas/spatial";
import { Shape } from "../src/canvas/style";

/** A layered layout like the core's: `perRow` nodes a row, 180 x 110 apart. */
function layered(grid: SpatialGrid, n: number, perRow: number, shapeOf: (i: number) => number = (i) => i % 4) {
  const at: Array<{ x: number, y: number, w: number, h: number, shape: number }> = [];
  for (let i = 0; i < n; i++) {
    const x = (i % perRow) * 180, y = Math.floor(i / perRow) * 110;
    const w = 140 + (i % 3) * 5, h = 40 + (i % 2) * 10, shape = shapeOf(i);
    grid.set(i, x, y, w, h, shape);
    at.push({ x, y, w, h, shape });
  }
  return at;
}

describe("canvas spatial grid", () => {
  it("finds each node at its centre among 50,000", () => {
    const grid = new SpatialGrid(300);
    const at = layered(grid, 50_000, 250);
    for (let i = 0; i < 50_000; i += 997) {
      expect(grid.hit(at[i].x, at[i].y)).toBe(i);
      // Just inside the right end of the box's middle row is still this node.
      expect(grid.hit(at[i].x + at[i].w / 2 - 1, at[i].y)).toBe(i);
    }
  });

  it("returns -1 on empty space and between nodes", () => {
    const grid = new SpatialGrid(300);
    layered(grid, 1000, 20);
    expect(grid.hit(-500, -500)).toBe(-1);
    expect(grid.hit(90, 0)).toBe(-1); // the gap between two nodes of a row
    expect(grid.hit(0, 55)).toBe(-1); // the gap between two rows
    expect(new SpatialGrid().hit(0, 0)).toBe(-1);
  });

  it("does not count an ellipse's or a house's box corners as hits, but a box's", () => {
    const grid = new SpatialGrid(100);
    grid.set(0, 0, 0, 100, 40, Shape.Ellipse);
    grid.set(1, 1000, 0, 100, 40, Shape.Box);
    grid.set(2, 2000, 0, 100, 40, Shape.House);
    grid.set(3, 3000, 0, 100, 40, Shape.Rounded);
    // Top-left corner, 2 units in.
    expect(grid.hit(-48, -18)).toBe(-1);
    expect(grid.hit(1000 - 48, -18)).toBe(1);
    expect(grid.hit(2000 - 48, -18)).toBe(-1); // beside the roof
    expect(grid.hit(3000 - 48, -18)).toBe(-1); // the rounded corner
    // The house's apex and its walls below the roof are hits.
    expect(grid.hit(2000, -19)).toBe(2);
    expect(grid.hit(2000 - 48, 18)).toBe(2);
    // Along the ellipse's axes, up to its edge.
    expect(grid.hit(49, 0)).toBe(0);
    expect(grid.hit(0, 19)).toBe(0);
  });

  it("prefers the node drawn on top where boxes overlap", () => {
    const grid = new SpatialGrid(64);
    grid.set(0, 0, 0, 100, 100, Shape.Box);
    grid.set(1, 10, 10, 100, 100, Shape.Box);
    grid.set(2, 500, 500, 10, 10, Shape.Box);
    expect(grid.hit(5, 5)).toBe(1);
    expect(grid.hit(-45, -45)).toBe(0);
  });

  it("skips hidden nodes, and finds moved nodes only where they are now", () => {
    const grid = new SpatialGrid(64);
    grid.set(0, 0, 0, 50, 50, Shape.Box);
    grid.set(1, 0, 0, 50, 50, Shape.Box);
    grid.setHidden(1, true);
    expect(grid.hit(0, 0)).toBe(0);
    grid.setHidden(0, true);
    expect(grid.hit(0, 0)).toBe(-1);
    grid.setHidden(1, false);
    grid.set(1, 1000, 1000, 50, 50, Shape.Box);
    expect(grid.hit(0, 0)).toBe(-1);
    expect(grid.hit(1010, 990)).toBe(1);
  });

  it("with a tolerance, picks the nearest node within it", () => {
    const grid = new SpatialGrid(64);
    grid.set(0, 0, 0, 10, 10, Shape.Box);
    grid.set(1, 30, 0, 10, 10, Shape.Box);
    // (12, 0) is 7 from node 0's edge and 13 from node 1's.
    expect(grid.hit(12, 0)).toBe(-1);
    expect(grid.hit(12, 0, 4)).toBe(-1);
    expect(grid.hit(12, 0, 8)).toBe(0);
    expect(grid.hit(21, 0, 8)).toBe(1);
  });

  it("visits exactly the boxes meeting a rectangle, once each", () => {
    const grid = new SpatialGrid(50); // smaller than the boxes: each spans several cells
    const at = layered(grid, 5000, 50);
    grid.setHidden(7, true);
    const rects = [[100, 100, 900, 700], [-1e6, -1e6, 1e6, 1e6], [5000, 5000, 5001, 5001], [171, 0, 171, 0]];
    for (const [x0, y0, x1, y1] of rects) {
      const seen: number[] = [];
      grid.visit(x0, y0, x1, y1, (i) => { seen.push(i); });
      const expected = at.map((b, i) => ({ b, i }))
        .filter(({ b, i }) => i !== 7 && b.x + b.w / 2 >= x0 && b.x - b.w / 2 <= x1 && b.y + b.h / 2 >= y0 && b.y - b.h / 2 <= y1)
        .map(({ i }) => i);
      expect(seen.length).toBe(new Set(seen).size);
      expect(seen.sort((a, b) => a - b)).toEqual(expected);
    }
  });

  it("stops visiting when the visitor says so, and bounds cover the visible nodes", () => {
    const grid = new SpatialGrid(100);
    const at = layered(grid, 100, 10);
    let n = 0;
    grid.visit(-1e9, -1e9, 1e9, 1e9, () => ++n < 5);
    expect(n).toBe(5);
    grid.setHidden(99, true);
    const brute = (boxes: typeof at) => ({
      minX: Math.min(...boxes.map((b) => b.x - b.w / 2)),
      minY: Math.min(...boxes.map((b) => b.y - b.h / 2)),
      maxX: Math.max(...boxes.map((b) => b.x + b.w / 2)),
      maxY: Math.max(...boxes.map((b) => b.y + b.h / 2)),
    });
    expect(grid.bounds()).toEqual(brute(at.slice(0, 99)));
    for (let i = 10; i < 100; i++) grid.setHidden(i, true);
    expect(grid.bounds()).toEqual(brute(at.slice(0, 10)));
  });

  it("finds, moves and removes nodes on both sides of the cells kept as small keys", () => {
    // Cells of 10 units: the small keys cover cells -16,384 to 16,383, so x = ±163,840 is
    // where the wide keys begin; node 1 spans cells of both kinds.
    const grid = new SpatialGrid(10);
    const places = [
      [0, 0], [163_825, 0], [163_865, 0], [-163_845, 5], [0, -163_845], [163_845, 163_845], [-5e6, 3e6], [4e7, -4e7],
    ];
    places.forEach(([x, y], i) => grid.set(i, x, y, 30, 30, Shape.Box));
    places.forEach(([x, y], i) => {
      expect(grid.hit(x, y)).toBe(i);
      expect(grid.hit(x + 14, y - 14)).toBe(i);
      const seen: number[] = [];
      grid.visit(x - 1, y - 1, x + 1, y + 1, (j) => { seen.push(j); });
      expect(seen).toEqual([i]);
    });
    // Moved across the boundary and back, then removed: found where it is, nowhere else.
    grid.set(1, 163_900, 0, 30, 30, Shape.Box);
    expect(grid.hit(163_825, 0)).toBe(-1);
    expect(grid.hit(163_900, 0)).toBe(1);
    grid.set(1, 163_825, 0, 30, 30, Shape.Box);
    expect(grid.hit(163_839, 0)).toBe(1);
    expect(grid.hit(163_900, 0)).toBe(-1);
    grid.remove(2);
    expect(grid.hit(163_865, 0)).toBe(-1);
    grid.remove(1);
    expect(grid.hit(163_825, 0)).toBe(-1);
    const all: number[] = [];
    grid.visit(-1e9, -1e9, 1e9, 1e9, (j) => { all.push(j); });
    expect(all.sort((a, b) => a - b)).toEqual([0, 3, 4, 5, 6, 7]);
  });
});
