// The layered drawing "Show on graph" gives what it shows alone (canvas-area/layered.ts):
// layers by longest path, several nodes side by side where the DAG branches, no two boxes
// overlapping, the direction that fits the canvas larger; cycles and unknown ends never
// loop or lose a node.

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { assignLayers, bestDrawing, layeredDrawing, orderLayers, type LayeredEdge, type LayeredNode } from "../src/canvas-area/layered";

const node = (id: string, w = 192, h = 36): LayeredNode => ({ id, w, h });

/** A claim's trail: its maker, the claim, two quotes and two verifications, their verifiers. */
const TRAIL_NODES = [node("maker"), node("claim", 320), node("q1"), node("q2"), node("v1"), node("v2"), node("checker"), node("gpt")];
const TRAIL_EDGES: LayeredEdge[] = [
  { from: "maker", to: "claim" }, { from: "claim", to: "q1" }, { from: "claim", to: "q2" },
  { from: "claim", to: "v1" }, { from: "v1", to: "checker" }, { from: "claim", to: "v2" }, { from: "v2", to: "gpt" },
];

function boxesOverlap(d: ReturnType<typeof layeredDrawing>, nodes: readonly LayeredNode[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < nodes.length; i++) {
    for (let j = i + 1; j < nodes.length; j++) {
      const a = nodes[i], b = nodes[j], pa = d.at.get(a.id)!, pb = d.at.get(b.id)!;
      if (Math.abs(pa.x - pb.x) < (a.w + b.w) / 2 && Math.abs(pa.y - pb.y) < (a.h + b.h) / 2) out.push(`${a.id}/${b.id}`);
    }
  }
  return out;
}

describe("layered drawing of a subject", () => {
  it("a trail reads maker → claim → quotes and verifications side by side → verifiers", () => {
    const d = layeredDrawing(TRAIL_NODES, TRAIL_EDGES, "down");
    expect(d.layers.map((r) => [...r].sort())).toEqual([["maker"], ["claim"], ["q1", "q2", "v1", "v2"], ["checker", "gpt"]]);
    const y = (id: string) => d.at.get(id)!.y;
    expect(y("maker")).toBeLessThan(y("claim"));
    expect(new Set(["q1", "q2", "v1", "v2"].map(y)).size).toBe(1);
    expect(y("claim")).toBeLessThan(y("v1"));
    expect(y("v1")).toBeLessThan(y("gpt"));
    expect(boxesOverlap(d, TRAIL_NODES)).toEqual([]);
    // Each verifier sits on the same side as its verification (no crossing); the quotes
    // stay together, beside the verifications.
    const x = (id: string) => d.at.get(id)!.x;
    expect(d.layers[2].slice(0, 2).sort()).toEqual(["q1", "q2"]);
    expect(Math.sign(x("v2") - x("v1"))).toBe(Math.sign(x("gpt") - x("checker")));
    // Centred on the origin.
    expect(Math.abs(Math.min(...TRAIL_NODES.map((n) => x(n.id) - n.w / 2)) + Math.max(...TRAIL_NODES.map((n) => x(n.id) + n.w / 2)))).toBeLessThan(1e-6);
  });

  it("left to right, the layers are columns in the same order", () => {
    const d = layeredDrawing(TRAIL_NODES, TRAIL_EDGES, "right");
    const x = (id: string) => d.at.get(id)!.x;
    expect(x("maker")).toBeLessThan(x("claim"));
    expect(x("claim")).toBeLessThan(x("q1"));
    expect(x("q1")).toBe(x("v2"));
    expect(x("v2")).toBeLessThan(x("gpt"));
    expect(boxesOverlap(d, TRAIL_NODES)).toEqual([]);
  });

  it("a cited claim goes one layer past the last step that cites it", () => {
    const layer = assignLayers(["q", "i1", "obs", "final", "s1", "s2"], [
      { from: "q", to: "i1" }, { from: "i1", to: "obs" }, { from: "obs", to: "final" },
      { from: "obs", to: "s1" }, { from: "obs", to: "s2" }, { from: "final", to: "s1" }, { from: "final", to: "s2" },
    ]);
    expect(Object.fromEntries(layer)).toEqual({ q: 0, i1: 1, obs: 2, final: 3, s1: 4, s2: 4 });
  });

  it("a cycle (the maker also verifies its claim) and unknown ends lose no node and end", () => {
    const layer = assignLayers(["maker", "claim", "v1"], [
      { from: "maker", to: "claim" }, { from: "claim", to: "v1" }, { from: "v1", to: "maker" }, { from: "v1", to: "ghost" }, { from: "v1", to: "v1" },
    ]);
    expect(Object.fromEntries(layer)).toEqual({ maker: 0, claim: 1, v1: 2 });
  });

  it("orders a layer by where its neighbours are, so edges do not cross", () => {
    // a → y and b → x, with x listed before y: sweeping puts y under a, x under b.
    const ids = ["a", "b", "x", "y"];
    const edges = [{ from: "a", to: "y" }, { from: "b", to: "x" }];
    expect(orderLayers(ids, edges, assignLayers(ids, edges))).toEqual([["a", "b"], ["y", "x"]]);
  });

  it("chooses the direction that shows the nodes larger", () => {
    // A long chain: a column in a tall view, a row of columns in a wide one.
    const chain = Array.from({ length: 9 }, (_, i) => node(`s${i}`, 120));
    const edges = chain.slice(1).map((n, i) => ({ from: chain[i].id, to: n.id }));
    expect(bestDrawing(chain, edges, { width: 2400, height: 500 }).direction).toBe("right");
    expect(bestDrawing(chain, edges, { width: 500, height: 2400 }).direction).toBe("down");
    // The trail in the canvas beside the side panel (900 × 780): top-down.
    expect(bestDrawing(TRAIL_NODES, TRAIL_EDGES, { width: 900, height: 780 }).direction).toBe("down");
  });

  it("any graph: every node placed once, no boxes overlap, every kept edge runs forward", () => {
    const arb = fc.integer({ min: 1, max: 30 }).chain((n) => fc.record({
      sizes: fc.array(fc.record({ w: fc.integer({ min: 20, max: 320 }), h: fc.integer({ min: 20, max: 60 }) }), { minLength: n, maxLength: n }),
      edges: fc.array(fc.tuple(fc.nat(n - 1), fc.nat(n - 1)), { maxLength: 3 * n }),
      down: fc.boolean(),
    }));
    fc.assert(fc.property(arb, ({ sizes, edges, down }) => {
      const nodes = sizes.map((s, i) => node(`n${i}`, s.w, s.h));
      const es = edges.map(([a, b]) => ({ from: `n${a}`, to: `n${b}` }));
      const d = layeredDrawing(nodes, es, down ? "down" : "right");
      expect(d.at.size).toBe(nodes.length);
      expect(d.layers.flat().sort()).toEqual(nodes.map((n) => n.id).sort());
      expect(boxesOverlap(d, nodes)).toEqual([]);
      const layer = assignLayers(nodes.map((n) => n.id), es);
      // An edge between layers always runs forward unless it closes a cycle; acyclic inputs never go back.
      const acyclic = es.every(({ from, to }) => Number(from.slice(1)) < Number(to.slice(1)));
      if (acyclic) for (const e of es) expect(layer.get(e.from)!).toBeLessThan(layer.get(e.to)!);
    }), { numRuns: 300 });
  });
});
