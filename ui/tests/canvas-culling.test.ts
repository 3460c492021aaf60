// Culling for zoomed-in views of big graphs: the lists of records to draw hold every node
// and edge that can show (including edges crossing the view with both ends outside) and
// are not used when most of the graph is in view anyway.

import { describe, expect, it } from "vitest";
import type { ViewEdge, ViewNode } from "../src/api/contract";
import { VisibleSet, segmentNearRect } from "../src/canvas/culling";
import { Scene } from "../src/canvas/scene";

function scene(n: number, perRow: number): Scene {
  const nodes: ViewNode[] = [];
  for (let i = 0; i < n; i++) {
    nodes.push({ id: `n${i}`, label: "", base_type: "ProvEntity", x: (i % perRow) * 200, y: Math.floor(i / perRow) * 100,
      w: 100, h: 40, layer: 0, arrival: i, agent: null, context: null, status: null, text: null });
  }
  const edges: ViewEdge[] = [];
  for (let i = perRow; i < n; i++) {
    const t = Math.max(0, i - perRow + ((i * 7) % 3) - 1); // a node of the row above
    edges.push({ source: `n${i}`, target: `n${t}`, type: "USED", prov: null, a2a: null });
  }
  // One long edge from corner to corner, across the whole drawing.
  edges.push({ source: `n0`, target: `n${n - 1}`, type: "CITES", prov: null, a2a: null });
  const s = new Scene();
  s.reset(nodes, edges);
  return s;
}

describe("canvas culling", () => {
  it("lists exactly the nodes in view and the edges that can cross it", () => {
    const s = scene(10_000, 100); // 19,800 x 9,900 world units
    // The corner-to-corner edge crosses this view at y = 2500..3000.
    const view = { minX: 5000, minY: 2400, maxX: 6000, maxY: 3000 };
    const vis = new VisibleSet();
    vis.update(s, s.bounds(), view, 0, false);
    expect(vis.active).toBe(true);
    const listed = new Set(Array.from(vis.nodes.subarray(0, vis.nodeCount)));
    for (let i = 0; i < s.nodeCount; i++) {
      const x = (i % 100) * 200, y = Math.floor(i / 100) * 100;
      const inView = x + 50 >= view.minX && x - 50 <= view.maxX && y + 20 >= view.minY && y - 20 <= view.maxY;
      expect(listed.has(i)).toBe(inView);
    }
    const edges = new Set(Array.from(vis.edges.subarray(0, vis.edgeCount)));
    // The long diagonal edge (the last one) passes through the view with both ends far off.
    expect(edges.has(s.edgeCount - 1)).toBe(true);
    // Every edge touching a listed node is listed; none is listed twice.
    expect(edges.size).toBe(vis.edgeCount);
    for (let e = 0; e < s.edgeCount; e++) {
      if (listed.has(s.edgeSrc[e]) || listed.has(s.edgeTgt[e])) expect(edges.has(e)).toBe(true);
    }
    // And it is a small share of the whole.
    expect(vis.edgeCount).toBeLessThan(s.edgeCount / 20);
  });

  it("does not cull when most of the graph is in view, while nodes move, or for small graphs", () => {
    const s = scene(10_000, 100);
    const vis = new VisibleSet();
    vis.update(s, s.bounds(), { minX: -100, minY: -100, maxX: 15_000, maxY: 9000 }, 0, false);
    expect(vis.active).toBe(false);
    vis.update(s, s.bounds(), { minX: 0, minY: 0, maxX: 100, maxY: 100 }, 0, true);
    expect(vis.active).toBe(false);
    const small = scene(500, 50);
    vis.update(small, small.bounds(), { minX: 0, minY: 0, maxX: 100, maxY: 100 }, 0, false);
    expect(vis.active).toBe(false);
  });

  it("keeps its lists while neither the view nor the graph changes", () => {
    const s = scene(10_000, 100);
    const vis = new VisibleSet();
    const view = { minX: 5000, minY: 2400, maxX: 6000, maxY: 3000 };
    vis.update(s, s.bounds(), view, 10, false);
    expect(vis.changed).toBe(true);
    vis.changed = false; // taken by the GPU
    vis.update(s, s.bounds(), { ...view }, 10, false);
    expect(vis.changed).toBe(false);
    vis.update(s, s.bounds(), { ...view, maxX: 6001 }, 10, false);
    expect(vis.changed).toBe(true);
    vis.changed = false;
    s.applyMoves([{ id: "n2527", x: 0, y: 0 }], 0, 0); // a node in view leaves it
    const before = vis.nodeCount;
    vis.update(s, s.bounds(), { ...view, maxX: 6001 }, 10, false);
    expect(vis.changed).toBe(true);
    expect(vis.nodeCount).toBe(before - 1);
  });

  it("can be turned off until the next update", () => {
    const s = scene(10_000, 100);
    const vis = new VisibleSet();
    const view = { minX: 5000, minY: 2400, maxX: 6000, maxY: 3000 };
    vis.update(s, s.bounds(), view, 0, false);
    vis.changed = false;
    vis.off();
    expect([vis.active, vis.changed]).toEqual([false, true]);
    vis.update(s, s.bounds(), view, 0, false);
    expect(vis.active).toBe(true);
  });

  it("leaves hidden edges out", () => {
    const s = scene(10_000, 100);
    s.setVisible((n) => n.id !== "n0");
    const vis = new VisibleSet();
    vis.update(s, s.bounds(), { minX: 5000, minY: 2400, maxX: 6000, maxY: 3000 }, 0, false);
    expect(vis.active).toBe(true);
    expect(Array.from(vis.edges.subarray(0, vis.edgeCount))).not.toContain(s.edgeCount - 1);
    s.setVisible(null);
    vis.update(s, s.bounds(), { minX: 5000, minY: 2400, maxX: 6000, maxY: 3000 }, 0, false);
    expect(Array.from(vis.edges.subarray(0, vis.edgeCount))).toContain(s.edgeCount - 1);
  });

  it("tells segments crossing a rectangle from segments passing beside it", () => {
    // Cutting across the rectangle's corner with both ends outside it.
    expect(segmentNearRect(-10, 5, 5, -10, -4, -4, 10, 10)).toBe(true);
    // Its box covers the rectangle's corner, but the segment passes beside it.
    expect(segmentNearRect(-10, 5, 5, -10, -2, -2, 10, 10)).toBe(false);
    expect(segmentNearRect(-100, 50, 100, 50, 0, 0, 10, 100)).toBe(true);
  });
});
