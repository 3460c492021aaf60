// The whole view's rule for long edges (canvas/long-edges.ts): an edge longer than the cut
// is drawn only while an end is hovered or selected, or while it is highlighted; hidden
// edges never; short ones always.

import { describe, expect, it } from "vitest";
import type { ViewEdge, ViewNode } from "../src/api/contract";
import { wholeViewEdges } from "../src/canvas/long-edges";
import { Scene } from "../src/canvas/scene";

const node = (id: string, x: number, y: number): ViewNode =>
  ({ id, label: id, base_type: "ProvEntity", x, y, w: 40, h: 20, layer: 0, arrival: 0, agent: null, context: null, status: null, text: null });
const edge = (source: string, target: string): ViewEdge => ({ source, target, type: "USED", prov: null, a2a: null });

function scene(): Scene {
  const s = new Scene();
  // a–b short (100), hub–a and hub–b long (1,000 and more), c–d short.
  s.reset([node("a", 0, 0), node("b", 100, 0), node("hub", 0, 1000), node("c", 500, 500), node("d", 560, 500)],
    [edge("a", "b"), edge("hub", "a"), edge("hub", "b"), edge("c", "d")]);
  return s;
}

function drawn(s: Scene, maxLen: number): string[] {
  const out: number[] = [];
  const n = wholeViewEdges(s, maxLen, out);
  return out.slice(0, n).map((e) => `${s.views[s.edgeSrc[e]].id}-${s.views[s.edgeTgt[e]].id}`);
}

describe("the whole view's long edges", () => {
  it("draws the short edges and leaves the long ones out", () => {
    expect(drawn(scene(), 200)).toEqual(["a-b", "c-d"]);
    // The cut is inclusive, and a long cut keeps everything.
    expect(drawn(scene(), 100)).toEqual(["a-b", "c-d"]);
    expect(drawn(scene(), 99)).toEqual(["c-d"]);
    expect(drawn(scene(), 5000)).toEqual(["a-b", "hub-a", "hub-b", "c-d"]);
  });

  it("draws a long edge while an end is hovered or selected, or it is highlighted", () => {
    const s = scene();
    s.setHover(s.index.get("hub")!);
    expect(drawn(s, 200)).toEqual(["a-b", "hub-a", "hub-b", "c-d"]);
    s.setHover(-1);
    s.setSelection(["b"]);
    expect(drawn(s, 200)).toEqual(["a-b", "hub-b", "c-d"]);
    s.setSelection([]);
    s.setHighlight(new Set(["hub", "a"]));
    expect(drawn(s, 200)).toEqual(["a-b", "hub-a", "c-d"]);
  });

  it("never draws an edge whose end is filtered out, however short or selected", () => {
    const s = scene();
    s.setSelection(["hub"]);
    s.setVisible((n) => n.id !== "d" && n.id !== "a");
    expect(drawn(s, 200)).toEqual(["hub-b"]);
  });
});
