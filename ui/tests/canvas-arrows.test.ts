// Between the levels (nodes 5 px tall or more) on a large graph, long edges are split: the
// shader draws short edges whole and long ones' heads, lod.ts draws long ones' bodies as
// merged lines ending where the shader's body would (arrows.ts has that geometry).

import { describe, expect, it } from "vitest";
import type { ViewEdge, ViewNode } from "../src/api/contract";
import { bodyEnds, bodyLineAlpha, boundary, headLength } from "../src/canvas/arrows";
import { PixelLod, type LineStyle, type LodView } from "../src/canvas/lod";
import { Scene } from "../src/canvas/scene";
import { hexToRgba } from "../src/canvas/style";

function node(id: string, x: number, y: number): ViewNode {
  return { id, label: id, base_type: "ProvEntity", x, y, w: 2, h: 1, layer: 0, arrival: 0, agent: null, context: null, status: null, text: null };
}
const edge = (source: string, target: string): ViewEdge => ({ source, target, type: "USED", prov: null, a2a: null });

function style(): LineStyle {
  const edgeColours = new Float32Array(16);
  ["#8C8C8C", "#2E9E4F", "#D03A3A", "#6D5BD0"].forEach((c, k) => hexToRgba(c, edgeColours, k * 4));
  return { edge: edgeColours, dim: 0.15, serial: 0 };
}

/** 10 px per world unit: world (0, 0)–(20, 10) on a 200 x 100 canvas; nodes 20 x 10 px. */
const VIEW: LodView = { x: 10, y: 5, scale: 10, width: 200, height: 100, dpr: 1 };

describe("edge geometry as the shader has it", () => {
  it("finds outlines of ellipses, boxes and houses", () => {
    expect(boundary(0, 10, 5, 1, 0)).toBeCloseTo(10);
    expect(boundary(0, 10, 5, 0, -1)).toBeCloseTo(5);
    expect(boundary(1, 10, 5, Math.SQRT1_2, Math.SQRT1_2)).toBeCloseTo(5 * Math.SQRT2);
    // A house's roof cuts the top corners: straight up is still the full height.
    expect(boundary(2, 10, 5, 0, -1)).toBeCloseTo(5);
    expect(boundary(2, 10, 5, 0.8, -0.6)).toBeLessThan(boundary(1, 10, 5, 0.8, -0.6));
  });

  it("sizes heads between 4 and 12 CSS px, at most 0.6 of the free length", () => {
    expect(headLength(0.1, 1, 100)).toBe(4);
    expect(headLength(10, 1, 100)).toBe(12);
    expect(headLength(10, 2, 100)).toBe(24);
    expect(headLength(10, 1, 10)).toBe(6);
  });

  it("ends the body at the source's outline and 0.8 of the head before the target's", () => {
    const out = new Float64Array(4);
    expect(bodyEnds(0, 0, 100, 0, 0, 10, 5, 1, 10, 5, 10, 1, out)).toBe(true);
    expect(Array.from(out)).toEqual([10, 0, 100 - 10 - 12 * 0.8, 0]);
    expect(bodyEnds(0, 0, 15, 0, 0, 10, 5, 0, 10, 5, 10, 1, out)).toBe(false); // outlines overlap
    expect(bodyLineAlpha(1)).toBeCloseTo(0.9);
    expect(bodyLineAlpha(2)).toBe(1);
  });
});

describe("splitting long edges into lines and heads", () => {
  function graph() {
    const s = new Scene();
    s.reset([node("a", 2, 5), node("b", 8, 5), node("far", 1000, 5), node("far2", 1000, 500), node("away", -1000, 9)],
      [edge("a", "b"), edge("far", "b"), edge("b", "far2"), edge("far", "far2"), edge("away", "far")]);
    return s;
  }
  const lists = (lod: PixelLod) => ({
    exact: Array.from(lod.split.exact.subarray(0, lod.split.exactCount)),
    heads: Array.from(lod.split.heads.subarray(0, lod.split.headCount)),
  });

  it("draws short edges whole, heads of long ones into the view, their bodies as lines", () => {
    const s = graph();
    const lod = new PixelLod();
    lod.update(s, VIEW, 0, false, true, style(), true);
    // a→b whole; far→b: a head (b is in view) and a body; b→far2: a body only (its head
    // is far off); far→far2 misses the view; away→far crosses it (a body, no head).
    expect(lists(lod)).toEqual({ exact: [0], heads: [1] });
    expect(lod.lineCount).toBeGreaterThanOrEqual(3);
    // far→b's body stops 0.8 of a 12 px head before b's outline (b: 80 ± 10 px).
    let nearest = Infinity;
    for (let l = 0; l < lod.lineCount; l++) {
      const [x0, y0, x1] = lod.lineAt(l);
      if (Math.floor(y0) === 50) nearest = Math.min(nearest, x0, x1);
    }
    expect(nearest).toBe(Math.floor(80 + 10 + 12 * 0.8));
    // With the shader's body's ink: 1.2 px at 0.75 as one pixel at 0.9.
    expect(Math.abs(lod.colorAt(0)[3] - 0.9 * 255)).toBeLessThanOrEqual(1);
  });

  it("draws the bodies one CSS px thick with the same ink at DPR 2 (as the shader's 2.4 device px)", () => {
    const s = graph();
    const lod = new PixelLod();
    lod.update(s, { ...VIEW, dpr: 2 }, 0, false, true, style(), true);
    expect(lists(lod)).toEqual({ exact: [0], heads: [1] });
    expect(lod.lineWidth).toBe(2);
    // far→b's body along row 50 CSS px: a quad over device rows 100 and 101, ending on
    // a cell's edge 0.8 of a 24 device px head before b's outline (b: 160 ± 20 device px).
    let found = false;
    for (let l = 0; l < lod.lineCount; l++) {
      const v = lod.verticesAt(l);
      const ys = v.filter((_, i) => i % 2 === 1), xs = v.filter((_, i) => i % 2 === 0);
      if (Math.min(...ys) !== 100) continue;
      found = true;
      expect(Math.max(...ys)).toBe(102);
      expect(Math.min(...xs)).toBe(2 * Math.floor((160 + 20 + 24 * 0.8) / 2));
    }
    expect(found).toBe(true);
    // Two device px at 0.9 put down the ink of the shader's 2.4 at 0.75 (as at DPR 1).
    expect(Math.abs(lod.colorAt(0)[3] - bodyLineAlpha(1) * 255)).toBeLessThanOrEqual(1);
  });

  it("draws the hovered node's edges whole (they are drawn wider)", () => {
    const s = graph();
    s.setHover(s.index.get("far")!);
    const lod = new PixelLod();
    lod.update(s, VIEW, 0, false, true, style(), true);
    expect(lists(lod)).toEqual({ exact: [0, 1, 4], heads: [] });
  });

  it("recomputes when split is turned on or off", () => {
    const s = graph();
    const lod = new PixelLod();
    const st = style();
    lod.update(s, VIEW, 0, false, true, st, true);
    const serial = lod.lineSerial;
    lod.update(s, VIEW, 0, false, true, st, true);
    expect(lod.lineSerial).toBe(serial);
    lod.update(s, VIEW, 0, false, true, st, false);
    expect(lod.lineSerial).toBe(serial + 1);
    expect(lod.split.exactCount + lod.split.headCount).toBe(0);
  });
});
