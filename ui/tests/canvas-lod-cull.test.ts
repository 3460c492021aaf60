// Zoomed in, the level of detail looks only at the edges that can meet the view and their
// ends (lod-cull.ts): what it draws must be what a pass over every edge draws, frame after
// frame of a moving camera, in both of its edge modes (plain lines, and long edges' bodies
// with the shader's heads), and the lists must follow the graph when it changes.

import { describe, expect, it } from "vitest";
import type { ViewEdge, ViewNode } from "../src/api/contract";
import { LINE_VERTEX_BYTES, PixelLod, type LineStyle, type LodView } from "../src/canvas/lod";
import { EdgeCandidates } from "../src/canvas/lod-cull";
import { Scene } from "../src/canvas/scene";
import { hexToRgba } from "../src/canvas/style";

function style(): LineStyle {
  const edge = new Float32Array(16);
  ["#8C8C8C", "#2E9E4F", "#D03A3A", "#6D5BD0"].forEach((c, k) => hexToRgba(c, edge, k * 4));
  return { edge, dim: 0.15, serial: 0 };
}

/** A 60 x 50 grid of nodes 40 x 20 at 100 x 60 apart (times `spread`); each to its right
 *  and lower neighbours, and every seventh to one of 12 far hubs (edges across any view). */
function grid(spread = 1): { nodes: ViewNode[], edges: ViewEdge[] } {
  const COLS = 60, ROWS = 50, types = ["USED", "WAS_GENERATED_BY", "WAS_ASSOCIATED_WITH", "WAS_DERIVED_FROM"];
  const nodes: ViewNode[] = [];
  for (let r = 0; r < ROWS; r++) {
    for (let c = 0; c < COLS; c++) {
      const i = r * COLS + c;
      nodes.push({ id: `n${i}`, label: `n${i}`, base_type: i % 3 ? "ProvEntity" : "ProvActivity", x: c * 100 * spread, y: r * 60 * spread,
        w: 40, h: 20, layer: r, arrival: i, agent: null, context: null, status: null, text: null });
    }
  }
  const edges: ViewEdge[] = [];
  const e = (s: number, t: number, k: number) => edges.push({ source: `n${s}`, target: `n${t}`, type: types[k % 4], prov: null, a2a: null });
  for (let i = 0; i < nodes.length; i++) {
    if ((i + 1) % COLS) e(i, i + 1, i);
    if (i + COLS < nodes.length) e(i, i + COLS, i + 1);
    if (i % 7 === 0) e(i, ((i * 2654435761) >>> 0) % 12 * 250, i + 2);
  }
  return { nodes, edges };
}

/** What a level of detail drew: its lines' vertex bytes and the shader's edge lists. */
function drawn(lod: PixelLod): { lines: number[], exact: number[], heads: number[] } {
  return {
    lines: Array.from(lod.lineBytes.subarray(0, lod.lineCount * lod.lineVertices * LINE_VERTEX_BYTES)),
    exact: Array.from(lod.split.exact.subarray(0, lod.split.exactCount)),
    heads: Array.from(lod.split.heads.subarray(0, lod.split.headCount)),
  };
}

/** Frames of a camera that drifts and breathes about (x, y) at `scale`, as the benchmark's. */
function frames(x: number, y: number, scale: number, dpr = 1): LodView[] {
  const out: LodView[] = [];
  for (let k = 0; k < 40; k++) {
    const z = Math.exp(Math.log(0.6) * (1 - Math.cos(k / 4)) / 2);
    out.push({ x: x + 60 * Math.sin(k / 5) / scale, y: y + 40 * (1 - Math.cos(k / 5)) / scale, scale: scale * z, width: 1400, height: 900, dpr });
  }
  return out;
}

describe("level of detail culled to the view", () => {
  for (const [name, scale, split, dpr, spread] of [
    ["edges with heads (split), zoomed in", 2, true, 1, 1],
    ["edges with heads (split), closer, DPR 2", 4, true, 2, 1],
    ["plain lines, zoomed in", 0.2, false, 1, 10],
  ] as const) {
    it(`draws what a pass over every edge draws: ${name}`, () => {
      const s = new Scene();
      const { nodes, edges } = grid(spread);
      s.reset(nodes, edges);
      s.setHighlight(new Set(["n1830", "n1831"]));
      const culled = new PixelLod(), whole = new PixelLod();
      whole.cull = false;
      let looked = 0;
      for (const v of frames(3000 * spread, 1500 * spread, scale, dpr)) {
        culled.update(s, v, 0, false, true, style(), split);
        whole.update(s, v, 0, false, true, style(), split);
        expect(drawn(culled)).toEqual(drawn(whole));
        expect(whole.edgesVisited).toBe(edges.length);
        looked += culled.edgesVisited;
      }
      expect(culled.lineCount + culled.split.exactCount).toBeGreaterThan(0);
      // Lists made once or twice, then the few edges in them each frame.
      expect(looked).toBeLessThan(edges.length * 40 / 4);
    });
  }

  it("follows the graph: nodes moved, added or hidden are drawn as a full pass draws them", () => {
    const s = new Scene();
    const { nodes, edges } = grid();
    s.reset(nodes, edges);
    const culled = new PixelLod(), whole = new PixelLod();
    whole.cull = false;
    const v: LodView = { x: 3000, y: 1500, scale: 0.5, width: 1400, height: 900, dpr: 1 };
    const both = (view: LodView, time = 0) => {
      culled.update(s, view, time, false, true, style(), true);
      whole.update(s, view, time, false, true, style(), true);
      expect(drawn(culled)).toEqual(drawn(whole));
    };
    both(v);
    // A far node moved into the view: its edges now cross it.
    s.applyMoves([{ id: "n0", x: 3010, y: 1490 }], 0, 0);
    both({ ...v, x: 3000.5 });
    // Moving nodes (animated): every edge looked at, drawn between the two places.
    s.applyMoves([{ id: "n59", x: 2900, y: 1400 }], 1, 10);
    both({ ...v, x: 3001 }, 10.5);
    both({ ...v, x: 3001.5 }, 12);
    // A node and an edge added in view, then a filter hiding a node there.
    s.add([{ ...nodes[0], id: "extra", x: 3050, y: 1520 }], [{ source: "extra", target: "n2999", type: "USED", prov: null, a2a: null }], 0);
    both({ ...v, x: 3002 });
    s.setVisible((n) => n.id !== "n1530");
    both({ ...v, x: 3002.5 });
  });

  it("lists the edges whose ends' box meets the view grown by half, in order, each end once", () => {
    const s = new Scene();
    const { nodes, edges } = grid();
    s.reset(nodes, edges);
    const c = new EdgeCandidates();
    c.cover(s, { minX: 2000, minY: 1000, maxX: 2400, maxY: 1200 });
    expect(c.all).toBe(false);
    expect(c.scanned).toBe(edges.length);
    const listed = Array.from(c.edges.subarray(0, c.edgeCount));
    const want: number[] = [];
    for (let e = 0; e < s.edgeCount; e++) {
      const a = s.views[s.edgeSrc[e]], b = s.views[s.edgeTgt[e]];
      if (Math.max(a.x, b.x) >= 1800 && Math.min(a.x, b.x) <= 2600 && Math.max(a.y, b.y) >= 900 && Math.min(a.y, b.y) <= 1300) want.push(e);
    }
    expect(listed).toEqual(want);
    const ends = Array.from(c.nodes.subarray(0, c.nodeCount));
    expect(new Set(ends).size).toBe(ends.length);
    expect(new Set(ends)).toEqual(new Set(want.flatMap((e) => [s.edgeSrc[e], s.edgeTgt[e]])));
    // A view inside those bounds keeps the lists; one past them, or most of the graph, does not.
    c.cover(s, { minX: 2100, minY: 1050, maxX: 2500, maxY: 1250 });
    expect(c.scanned).toBe(0);
    c.cover(s, { minX: 2700, minY: 1000, maxX: 3100, maxY: 1200 });
    expect(c.scanned).toBe(edges.length);
    c.cover(s, { minX: -100, minY: -100, maxX: 6000, maxY: 3000 });
    expect(c.all).toBe(true);
  });
});
