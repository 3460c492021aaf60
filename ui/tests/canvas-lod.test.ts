// The zoomed-out level of detail: one node per device pixel (the one that would show),
// edges clipped to the view with their ends snapped to pixels, coinciding edges merged
// into one line that looks like all of them drawn in order, and lines along a row of
// pixels drawn as a run (the cutting of runs is tested in canvas-runs.test.ts).

import { describe, expect, it } from "vitest";
import type { ViewEdge, ViewNode } from "../src/api/contract";
import { LINE_ALPHA, PixelLod, type LineStyle, type LodView } from "../src/canvas/lod";
import { Scene } from "../src/canvas/scene";
import { hexToRgba } from "../src/canvas/style";

function node(id: string, x: number, y: number): ViewNode {
  return { id, label: id, base_type: "ProvEntity", x, y, w: 2, h: 1, layer: 0, arrival: 0, agent: null, context: null, status: null, text: null };
}
const edge = (source: string, target: string, type = "USED"): ViewEdge => ({ source, target, type, prov: null, a2a: null });

/** World units are CSS pixels: the view shows (0, 0)–(100, 100). */
const VIEW: LodView = { x: 50, y: 50, scale: 1, width: 100, height: 100, dpr: 1 };

function style(): LineStyle {
  const edgeColours = new Float32Array(16);
  ["#8C8C8C", "#2E9E4F", "#D03A3A", "#6D5BD0"].forEach((c, k) => hexToRgba(c, edgeColours, k * 4));
  return { edge: edgeColours, dim: 0.15, serial: 0 };
}

function listed(lod: PixelLod): number[] {
  return Array.from(lod.nodes.subarray(0, lod.nodeCount));
}

describe("pixel level of detail", () => {
  it("keeps one node per pixel, the one drawn last, undimmed before dimmed", () => {
    const s = new Scene();
    s.reset([
      node("a", 10.2, 10.2), node("b", 10.7, 10.9), // one pixel: b is drawn over a
      node("c", 20.5, 20.5), node("d", 20.2, 20.6), // one pixel: d is drawn later but dimmed
      node("far", 500, 500), node("hidden", 30.5, 30.5), node("e", 5.5, 90.5),
    ], []);
    s.setHighlight(new Set(["c"]));
    s.setVisible((n) => n.id !== "hidden");
    const lod = new PixelLod();
    lod.update(s, VIEW, 0, true, false, style());
    const id = (i: number) => s.views[i].id;
    expect(listed(lod).map(id)).toEqual(["b", "c", "e"]);
  });

  it("always draws selected, hovered and glowing nodes, on top", () => {
    const s = new Scene();
    s.reset([node("a", 10.2, 10.2), node("sel", 10.3, 10.3), node("b", 10.4, 10.4), node("hov", 60, 60)], []);
    s.add([node("new", 10.5, 10.5)], [], 5); // glows from t = 5 s
    s.setSelection(["sel"]);
    s.setHover(s.index.get("hov")!);
    const lod = new PixelLod();
    lod.update(s, VIEW, 5.5, true, false, style());
    const id = (i: number) => s.views[i].id;
    expect(listed(lod).map(id)).toEqual(["b", "sel", "hov", "new"]);
    // Its glow over, the new node is an ordinary one: drawn over b in their pixel.
    lod.update(s, { ...VIEW, x: 50.001 }, 60, true, false, style());
    expect(listed(lod).map(id)).toEqual(["new", "sel", "hov"]);
  });

  it("merges edges whose ends share pixels into one line coloured as all of them", () => {
    const s = new Scene();
    s.reset([node("a", 10.5, 10.5), node("b", 60.5, 10.5), node("a2", 10.7, 10.2), node("b2", 60.2, 10.8)],
      [edge("a", "b"), edge("b2", "a2"), edge("a", "a2")]);
    const lod = new PixelLod();
    const st = style();
    lod.update(s, VIEW, 0, false, true, st);
    // a–a2 lies inside one pixel (under the node's dot) and is left out.
    expect(lod.lineCount).toBe(1);
    // Horizontal: the run of pixels 10..60 on row 10.
    expect(lod.lineAt(0)).toEqual([10, 10.5, 61, 10.5]);
    // Two plain lines over each other: alpha 1 - (1 - 0.55)^2, colour premultiplied.
    const alpha = 1 - (1 - LINE_ALPHA) ** 2;
    const grey = Math.round(st.edge[0] * alpha * 255);
    expect(lod.colorAt(0)).toEqual([grey, grey, grey, Math.round(alpha * 255)]);
  });

  it("clips edges to the view and leaves out those that miss it", () => {
    const s = new Scene();
    s.reset([node("w", -1000, 50.5), node("e", 1000, 50.5), node("sw", -1000, 900), node("in", 40.5, 40.5)],
      [edge("w", "e", "CITES"), edge("w", "sw"), edge("in", "sw")]);
    s.setHover(s.index.get("in")!);
    const lod = new PixelLod();
    const st = style();
    lod.update(s, VIEW, 0, false, true, st);
    expect(lod.lineCount).toBe(2);
    // The hovered node's edge is drawn strong (opaque); it leaves the view on the left,
    // at y = 40.5 + 40.5 * 859.5 / 1040.5.
    expect(lod.lineAt(0)).toEqual([40.5, 40.5, 0.5, 73.5]);
    expect(lod.colorAt(0)[3]).toBe(255);
    // Across the whole view, both ends far outside: only the part on the canvas (a run).
    expect(lod.lineAt(1)).toEqual([0, 50.5, 101, 50.5]);
    const [r, g, b, a] = lod.colorAt(1);
    expect([r, g, b]).toEqual([0, 1, 2].map((k) => Math.round(st.edge[12 + k] * LINE_ALPHA * 255)));
    expect(a).toBe(Math.round(LINE_ALPHA * 255));
  });

  it("works in device pixels", () => {
    const s = new Scene();
    s.reset([node("a", 10.2, 10.2), node("b", 10.4, 10.4), node("c", 30, 10.2)], [edge("a", "c")]);
    const lod = new PixelLod();
    lod.update(s, { ...VIEW, dpr: 2 }, 0, true, true, style());
    // 20.4 and 20.8 device px: still one pixel; the line runs 60 device px, on cells of
    // 2 x 2 device px (one CSS px): from cell 10 to cell 30 inclusive, along row 10.
    expect(lod.nodeCount).toBe(2);
    expect(lod.lineAt(0)).toEqual([20, 21, 62, 21]);
  });

  it("draws lines about one CSS px thick at any device pixel ratio", () => {
    const s = new Scene();
    // A horizontal edge (a run), a vertical one (a run), a steep one (a line), and two
    // edges whose ends share 2 x 2 device px cells at DPR 2 (merged into one).
    s.reset([node("a", 10.2, 10.2), node("b", 80.3, 10.2), node("c", 90.1, 20.3), node("d", 90.1, 85.2),
      node("e", 20.5, 30.5), node("f", 60.5, 80.5), node("g", 5.1, 60.1), node("h", 5.2, 95.1)],
    [edge("a", "b"), edge("c", "d"), edge("e", "f"), edge("g", "h")]);
    const lod = new PixelLod();
    const st = style();
    lod.update(s, VIEW, 0, false, true, st);
    expect(lod.lineWidth).toBe(1);
    expect(lod.lineVertices).toBe(2);
    const dpr1 = lod.lineCount;
    for (const dpr of [2, 3]) {
      lod.update(s, { ...VIEW, dpr }, 0, false, true, st);
      expect(lod.lineWidth).toBe(dpr);
      expect(lod.lineVertices).toBe(6);
      expect(lod.lineCount).toBe(dpr1);
      const cover = covered(lod, 100 * dpr, 100 * dpr);
      // Across each line, `dpr` device px (the shader's edges are about one CSS px wide).
      const across = (x: number, y0: number, y1: number) => {
        let n = 0;
        for (let y = y0; y < y1; y++) n += cover[y * 100 * dpr + x];
        return n;
      };
      const alongRow = (y: number, x0: number, x1: number) => {
        let n = 0;
        for (let x = x0; x < x1; x++) n += cover[y * 100 * dpr + x];
        return n;
      };
      expect(across(45 * dpr, 0, 20 * dpr)).toBe(dpr); // a–b, horizontal
      expect(alongRow(50 * dpr, 85 * dpr, 100 * dpr)).toBe(dpr); // c–d, vertical
      expect(alongRow(60 * dpr, 20 * dpr, 80 * dpr)).toBe(dpr); // e–f, steep: dpr px per row
      expect(across(40 * dpr, 20 * dpr, 80 * dpr)).toBeGreaterThanOrEqual(dpr);
      // No pixel is covered twice (runs and lines do not overlap here).
      expect(Math.max(...cover)).toBe(1);
    }
  });

  it("merges edges whose ends share a cell of round(dpr) device px", () => {
    const s = new Scene();
    // At DPR 2, 10.2 and 10.7 CSS px are device px 20.4 and 21.4 (rows 20 and 21), but one
    // cell (20..22): one line, as at DPR 1.
    s.reset([node("a", 10.2, 10.2), node("b", 60.2, 10.3), node("a2", 10.7, 10.6), node("b2", 60.6, 10.9)],
      [edge("a", "b"), edge("a2", "b2")]);
    const lod = new PixelLod();
    lod.update(s, VIEW, 0, false, true, style());
    expect(lod.lineCount).toBe(1);
    lod.update(s, { ...VIEW, dpr: 2 }, 0, false, true, style());
    expect(lod.lineCount).toBe(1);
    expect(lod.lineAt(0)).toEqual([20, 21, 122, 21]);
    expect(lod.colorAt(0)[3]).toBe(Math.round((1 - (1 - LINE_ALPHA) ** 2) * 255));
  });

  it("recomputes only when the view, the graph or the colours change, or nodes move", () => {
    const s = new Scene();
    s.reset([node("a", 10, 10), node("b", 60, 60)], [edge("a", "b")]);
    const lod = new PixelLod();
    const st = style();
    lod.update(s, VIEW, 0, true, true, st);
    const serials = () => [lod.nodeSerial, lod.lineSerial];
    let before = serials();
    lod.update(s, { ...VIEW }, 1, true, true, st);
    expect(serials()).toEqual(before);
    lod.update(s, { ...VIEW, x: 49 }, 1, true, true, st);
    expect(serials()).toEqual([before[0] + 1, before[1] + 1]);
    before = serials();
    s.setSelection(["a"]);
    lod.update(s, { ...VIEW, x: 49 }, 1, true, true, st);
    expect(serials()).toEqual([before[0] + 1, before[1] + 1]);
    before = serials();
    st.serial++;
    lod.update(s, { ...VIEW, x: 49 }, 1, true, true, st);
    expect(serials()[1]).toBe(before[1] + 1);
    // While nodes move, every frame: they are drawn part of the way.
    s.applyMoves([{ id: "b", x: 80, y: 60 }], 1, 10);
    lod.update(s, VIEW, 10.5, false, true, st);
    expect(lod.lineAt(0)[2]).toBe(70.5); // (10, 10) to (70, 60): still a line
    lod.update(s, VIEW, 10.75, false, true, st);
    expect(lod.lineAt(0)[2]).toBeGreaterThan(75);
  });
});

/** How many of `lod`'s quads (triangles) cover each device pixel's centre of a `w` x `h`
 *  canvas (centres nudged a hair so that none lies on a shared edge). */
function covered(lod: PixelLod, w: number, h: number): Int32Array {
  const out = new Int32Array(w * h);
  const side = (ax: number, ay: number, bx: number, by: number, px: number, py: number) => (bx - ax) * (py - ay) - (by - ay) * (px - ax);
  for (let l = 0; l < lod.lineCount; l++) {
    const v = lod.verticesAt(l);
    for (let t = 0; t < v.length; t += 6) {
      const [ax, ay, bx, by, cx, cy] = v.slice(t, t + 6);
      const sign = Math.sign(side(ax, ay, bx, by, cx, cy));
      if (sign === 0) continue;
      for (let y = 0; y < h; y++) {
        for (let x = 0; x < w; x++) {
          const px = x + 0.5 + 1.3e-6, py = y + 0.5 + 0.7e-6;
          if (sign * side(ax, ay, bx, by, px, py) > 0 && sign * side(bx, by, cx, cy, px, py) > 0
            && sign * side(cx, cy, ax, ay, px, py) > 0) out[y * w + x]++;
        }
      }
    }
  }
  return out;
}
