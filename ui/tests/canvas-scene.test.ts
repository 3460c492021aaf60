// The canvas scene: batches that never move drawn nodes, edges waiting for their nodes,
// GPU uploads limited to what changed, filters, highlights, hover, and animated moves.

import { describe, expect, it } from "vitest";
import type { ViewEdge, ViewNode } from "../src/api/contract";
import { InstanceArray } from "../src/canvas/buffers";
import {
  EDGE_STRIDE, EFLAGS, ESRC, ETGT, Flag, GLOW_SECONDS, NFLAGS, NGLOW, NODE_STRIDE, NO_GLOW, NSHAPE, NSTATUS, NX, NY, Scene,
} from "../src/canvas/scene";
import { Shape, Status } from "../src/canvas/style";

function node(id: string, x: number, y: number, extra: Partial<ViewNode> = {}): ViewNode {
  return {
    id, label: id, base_type: "ProvEntity", x, y, w: 100, h: 40, layer: 0, arrival: 0,
    agent: null, context: null, status: null, text: null, ...extra,
  };
}
const edge = (source: string, target: string, type = "USED"): ViewEdge => ({ source, target, type, prov: null, a2a: null });

function grid(n: number): ViewNode[] {
  return Array.from({ length: n }, (_, i) => node(`n${i}`, (i % 200) * 150, Math.floor(i / 200) * 100));
}

const flags = (s: Scene, id: string) => s.nodes.data[s.index.get(id)! * NODE_STRIDE + NFLAGS];
const edgeFlags = (s: Scene, ei: number) => s.edges.data[ei * EDGE_STRIDE + EFLAGS];

describe("canvas scene", () => {
  it("adds batches without moving drawn nodes, updating their data, and makes new ones glow", () => {
    const s = new Scene();
    s.reset([node("a", 0, 0), node("b", 200, 0)], [edge("a", "b")]);
    expect(s.nodes.data[NGLOW]).toBe(NO_GLOW);
    const added = s.add([node("a", 999, 999, { status: "invalid", base_type: "ProvAgent" }), node("c", 400, 0)], [], 5);
    expect(added).toBe(1);
    const a = s.index.get("a")! * NODE_STRIDE, c = s.index.get("c")! * NODE_STRIDE;
    expect([s.nodes.data[a + NX], s.nodes.data[a + NY]]).toEqual([0, 0]);
    expect(s.nodes.data[a + NSTATUS]).toBe(Status.Bad);
    expect(s.nodes.data[a + NSHAPE]).toBe(Shape.House);
    expect(s.views[0].status).toBe("invalid");
    expect(s.nodes.data[a + NGLOW]).toBe(NO_GLOW);
    expect(s.nodes.data[c + NGLOW]).toBe(5);
    expect(s.glowUntil).toBeCloseTo(5 + GLOW_SECONDS, 9);
  });

  it("keeps edges until both ends arrive, and ignores repeated edges", () => {
    const s = new Scene();
    s.reset([node("a", 0, 0)], [edge("a", "b"), edge("b", "c")]);
    expect(s.edgeCount).toBe(0);
    expect(s.pending).toHaveLength(2);
    s.add([node("b", 100, 0)], [edge("a", "b")], 1);
    expect(s.edgeCount).toBe(1);
    expect(s.pending).toHaveLength(1);
    s.add([node("c", 200, 0)], [], 2);
    expect(s.edgeCount).toBe(2);
    expect(s.pending).toHaveLength(0);
    const e1 = EDGE_STRIDE;
    expect([s.edges.data[e1 + ESRC], s.edges.data[e1 + ETGT]]).toEqual([s.index.get("b"), s.index.get("c")]);
    expect([...s.edgesOf(s.index.get("b")!)]).toEqual([0, 1]);
    expect(s.visibleEdges).toBe(2);
  });

  it("takes a list with an id twice as one node, the later copy's data over the earlier", () => {
    const s = new Scene();
    // Drawn before, so the reset also forgets what was there.
    s.reset(grid(50), []);
    s.reset([node("a", 0, 0), node("b", 200, 0), node("a", 0, 0, { base_type: "ProvActivity", h: 60 }), node("c", 400, 0)],
      [edge("a", "b"), edge("b", "c")]);
    expect(s.nodeCount).toBe(3);
    expect(s.views.map((v) => v.id)).toEqual(["a", "b", "c"]);
    expect([...s.index.entries()]).toEqual([["a", 0], ["b", 1], ["c", 2]]);
    expect(s.nodes.data[NSHAPE]).toBe(Shape.Box);
    expect(s.views[0].h).toBe(60);
    expect(s.edgeCount).toBe(2);
    expect([...s.edgesOf(2)]).toEqual([1]);
    expect(s.visibleNodes).toBe(3);
    expect(s.grid.hit(400, 0)).toBe(2);
    expect(s.grid.hit(150 * 20, 100)).toBe(-1); // a node of the first drawing
  });

  it("takes edges with their ends as node places (the model's numbers) as it takes them by id", () => {
    const nodes = [node("a", 0, 0), node("b", 100, 0), node("c", 200, 0)];
    const edges = [edge("a", "b"), edge("b", "c"), edge("a", "b"), edge("c", "a", "DERIVED"), edge("c", "d")];
    const byId = new Scene(), byNumber = new Scene();
    byId.reset(nodes, edges);
    // Wrong numbers (the fourth) and one past the nodes (the fifth) are looked up by id.
    byNumber.reset(nodes, edges, { source: [0, 1, 0, 0, 2], target: [1, 2, 1, 0, 9] });
    for (const s of [byId, byNumber]) {
      expect(s.edgeCount).toBe(3);
      expect(s.pending).toEqual([edge("c", "d")]);
      expect([0, 1, 2].map((i) => [...s.edgesOf(i)])).toEqual([[0, 2], [0, 1], [1, 2]]);
    }
    expect(byNumber.edges.data.slice(0, 3 * EDGE_STRIDE)).toEqual(byId.edges.data.slice(0, 3 * EDGE_STRIDE));
    // Later batches are keyed the same way: a repeated edge is not drawn twice.
    byNumber.add([], [edge("b", "c"), edge("c", "a", "DERIVED")], 1);
    expect(byNumber.edgeCount).toBe(3);
  });

  it("draws a view without listing each node's edges; lists them when asked and keeps them current", () => {
    const s = new Scene();
    s.reset([node("a", 0, 0), node("b", 100, 0), node("c", 200, 0)], [edge("a", "b"), edge("b", "c"), edge("c", "c")]);
    expect(s.adjacency.built).toBe(false);
    // Hovering is the first use: the hovered node's edges are lit.
    s.setHover(s.index.get("b")!);
    expect(s.adjacency.built).toBe(true);
    const all = () => Array.from({ length: s.nodeCount }, (_, i) => [...s.edgesOf(i)]);
    expect(all()).toEqual([[0], [0, 1], [1, 2]]);
    expect(s.edges.data[EDGE_STRIDE + EFLAGS] & Flag.Hover).toBe(Flag.Hover);
    // Nodes and edges added afterwards join the built lists.
    s.add([node("d", 300, 0)], [edge("d", "a"), edge("b", "d")], 1);
    expect(all()).toEqual([[0, 3], [0, 1, 4], [1, 2], [3, 4]]);
    // A new view forgets them.
    s.reset([node("a", 0, 0)], []);
    expect(s.adjacency.built).toBe(false);
    expect(all()).toEqual([[]]);
  });

  it("uploads only the appended records when a small batch joins 50,000 nodes", () => {
    const s = new Scene();
    const nodes = grid(50_000);
    s.reset(nodes, nodes.slice(1).map((n, i) => edge(n.id, nodes[i].id)));
    expect(s.nodes.takeUpload().kind).toBe("all");
    expect(s.edges.takeUpload().kind).toBe("all");
    s.add([node("x1", -500, 0), node("x2", -500, 100), node("x3", -500, 200)], [edge("x1", "n0"), edge("x2", "x1")], 10);
    expect(s.nodes.takeUpload()).toEqual({ kind: "ranges", ranges: [[50_000, 50_003]] });
    expect(s.edges.takeUpload()).toEqual({ kind: "ranges", ranges: [[49_999, 50_001]] });
    // Selecting two far-apart nodes sends just those two records.
    s.setSelection(["n5", "n40000"]);
    expect(s.nodes.takeUpload()).toEqual({ kind: "ranges", ranges: [[5, 6], [40_000, 40_001]] });
    expect(s.nodes.takeUpload().kind).toBe("none");
  });

  it("uploads nothing when a new view is shown whole: no filter change, no highlight to clear", () => {
    const s = new Scene();
    const nodes = grid(50_000);
    s.reset(nodes, nodes.slice(1).map((n, i) => edge(n.id, nodes[i].id)));
    s.nodes.takeUpload();
    s.edges.takeUpload();
    // What the explorer does after every view: its filters (keeping every node), no highlight.
    s.setVisible(() => true);
    s.setVisible(null);
    s.setHighlight(null);
    expect([s.nodes.takeUpload().kind, s.edges.takeUpload().kind]).toEqual(["none", "none"]);
    expect([s.visibleNodes, s.visibleEdges]).toEqual([50_000, 49_999]);
    // A filter that hides one node sends every record again, and counts what it hides.
    s.setVisible((n) => n.id !== "n7");
    expect(flags(s, "n7") & Flag.Hidden).toBeTruthy();
    expect([s.nodes.takeUpload().kind, s.visibleNodes, s.visibleEdges]).toEqual(["ranges", 49_999, 49_997]);
  });

  it("hides nodes failing the filter and every edge touching them", () => {
    const s = new Scene();
    s.reset([node("a", 0, 0), node("b", 200, 0, { base_type: "ProvActivity" }), node("c", 400, 0)],
      [edge("a", "b"), edge("b", "c"), edge("c", "a")]);
    s.setVisible((n) => n.base_type === "ProvEntity");
    expect(flags(s, "b") & Flag.Hidden).toBeTruthy();
    expect(flags(s, "a") & Flag.Hidden).toBeFalsy();
    expect([0, 1, 2].map((e) => (edgeFlags(s, e) & Flag.Hidden) !== 0)).toEqual([true, true, false]);
    expect([s.visibleNodes, s.visibleEdges]).toEqual([2, 1]);
    expect(s.grid.hit(200, 0)).toBe(-1);
    expect(s.bounds()).toEqual({ minX: -50, minY: -20, maxX: 450, maxY: 20 });
    // New nodes meet the same filter.
    s.add([node("d", 600, 0, { base_type: "ProvAgent" })], [edge("d", "a")], 1);
    expect(flags(s, "d") & Flag.Hidden).toBeTruthy();
    expect(s.visibleEdges).toBe(1);
    s.setVisible(null);
    expect([s.visibleNodes, s.visibleEdges]).toEqual([4, 4]);
  });

  it("dims all but the highlighted nodes and the edges between them", () => {
    const s = new Scene();
    s.reset([node("a", 0, 0), node("b", 200, 0), node("c", 400, 0)], [edge("a", "b"), edge("b", "c")]);
    s.setHighlight(new Set(["a", "b"]));
    expect(flags(s, "a") & (Flag.Highlight | Flag.Dim)).toBe(Flag.Highlight);
    expect(flags(s, "c") & (Flag.Highlight | Flag.Dim)).toBe(Flag.Dim);
    expect(edgeFlags(s, 0) & (Flag.Highlight | Flag.Dim)).toBe(Flag.Highlight);
    expect(edgeFlags(s, 1) & (Flag.Highlight | Flag.Dim)).toBe(Flag.Dim);
    s.setHighlight(null);
    expect(flags(s, "c") & (Flag.Highlight | Flag.Dim)).toBe(0);
  });

  it("marks the hovered node and its edges, and clears them when hover leaves", () => {
    const s = new Scene();
    s.reset([node("a", 0, 0), node("b", 200, 0), node("c", 400, 0)], [edge("a", "b"), edge("b", "c")]);
    s.setHover(s.index.get("a")!);
    expect(flags(s, "a") & Flag.Hover).toBeTruthy();
    expect([edgeFlags(s, 0) & Flag.Hover, edgeFlags(s, 1) & Flag.Hover]).toEqual([Flag.Hover, 0]);
    expect(s.setHover(s.index.get("a")!)).toBe(false);
    s.setHover(-1);
    expect(flags(s, "a") & Flag.Hover).toBe(0);
    expect(edgeFlags(s, 0) & Flag.Hover).toBe(0);
  });

  it("animates moves, and a move arriving mid-way continues from where nodes are drawn", () => {
    const s = new Scene();
    s.reset([node("a", 0, 0), node("b", 100, 0)], []);
    const a = s.index.get("a")!;
    s.applyMoves([{ id: "a", x: 1000, y: 0 }, { id: "zzz", x: 1, y: 1 }], 1, 10);
    expect(s.positionX(a, 10)).toBe(0);
    expect(s.positionX(a, 10.5)).toBeCloseTo(500, 6); // eased, symmetric about the middle
    expect(s.positionX(a, 10.25)).toBeLessThan(250);
    expect(s.positionX(a, 11)).toBe(1000);
    expect(s.moveUntil).toBe(11);
    // The hit test already answers at the destination.
    expect(s.grid.hit(1000, 0)).toBe(a);
    // Half-way, a new move of b alone: a carries on from where it is drawn, without a jump.
    const drawn = s.positionX(a, 10.5);
    s.applyMoves([{ id: "b", x: 100, y: 500 }], 1, 10.5);
    expect(s.positionX(a, 10.5)).toBeCloseTo(drawn, 3);
    expect(s.positionX(a, 11.5)).toBe(1000);
    expect(s.positionY(s.index.get("b")!, 11.5)).toBe(500);
    // A later move at once (0 ms) settles everything where it belongs.
    s.applyMoves([{ id: "a", x: -5, y: -5 }], 0, 12);
    expect([s.positionX(a, 12), s.positionY(a, 12)]).toEqual([-5, -5]);
    expect(s.positionY(s.index.get("b")!, 12)).toBe(500);
  });
});

describe("canvas instance array", () => {
  it("doubles its capacity, keeps the data, and then asks for a full upload", () => {
    const arr = new InstanceArray(4, 2);
    expect(arr.takeUpload()).toEqual({ kind: "all", capacity: 2, count: 0 });
    for (let i = 0; i < 3; i++) {
      const at = arr.push();
      arr.data[at * 4] = i + 1;
    }
    expect(arr.capacity).toBe(4);
    expect([arr.data[0], arr.data[4], arr.data[8]]).toEqual([1, 2, 3]);
    expect(arr.takeUpload()).toEqual({ kind: "all", capacity: 4, count: 3 });
    arr.markDirty(1);
    arr.markDirty(2);
    arr.markDirty(0);
    expect(arr.takeUpload()).toEqual({ kind: "ranges", ranges: [[0, 3]] });
  });

  it("merges many scattered changes into one span", () => {
    const arr = new InstanceArray(4, 1024);
    for (let i = 0; i < 1000; i++) arr.push();
    arr.takeUpload();
    for (let i = 10; i < 900; i += 20) arr.markDirty(i);
    expect(arr.takeUpload()).toEqual({ kind: "ranges", ranges: [[10, 891]] });
  });
});
