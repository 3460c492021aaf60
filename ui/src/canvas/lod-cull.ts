//! Which edges a frame of the level of detail (lod.ts) looks at and how it hands them on:
//! none when the view, the graph and the style are those of the last result (`stale`);
//! zoomed in, only those that can meet the view and their ends, not every edge and node of
//! the graph; and, with edges split, which the shader draws whole or by their heads
//! (EdgeSplit).
//!
//! Why: from nodes 5 px tall on (edges with heads), the level of detail sorts the edges
//! that meet the view into those the shader draws and those it merges into lines; zoomed in
//! on a large graph, a few thousand of 77,000 edges meet the view, yet each frame of a pan
//! or zoom projected all 50,000 nodes and clipped all 77,000 edges to find them. Here the
//! edges whose ends' box meets a rectangle around the view (the view grown by half its size
//! each way) are listed once, in drawing order, and the list serves every frame whose view
//! stays inside that rectangle: a segment that meets the view has a box that meets it, so
//! the frames draw exactly what a pass over every edge would.

import { doubled, grownInts } from "./lod-keys";
import { NODE_STRIDE, NX, NY, type Scene } from "./scene";

/** The rectangle listed is the view grown by this share of its width and height each way. */
export const CULL_GUARD = 0.5;
/** Lists are only kept while they hold less than this share of the edges (past it, a pass
 *  over all of them costs the same). */
export const CULL_MAX_SHARE = 0.5;

/** A rectangle in world units. */
export interface WorldRect {
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
}

/** Between the levels (nodes 5 px tall or more, edges with heads) on a large graph, edges
 *  are split three ways so that long ones cost lines, not screen-wide quads:
 *  - short ones (both ends' centres on the canvas) and strong ones (highlighted, or the
 *    hovered node's) that meet the view: drawn whole by the edge shader (`exact`);
 *  - the others that meet the view: their bodies become merged one-pixel lines (from the
 *    source's outline to under the head, with the ink of the shader's 1.2 px body), and
 *    the shader draws their heads when the target is near the view (`heads`).
 *  Record numbers as floats (the shaders read them from a float texture); the arrays'
 *  lengths are powers of two of at least 4096, as ListTexture wants. */
export class EdgeSplit {
  exact: Float32Array = new Float32Array(4096);
  exactCount = 0;
  heads: Float32Array = new Float32Array(4096);
  headCount = 0;
  /** Bumped whenever the lists change. */
  serial = 0;

  pushExact(n: number, e: number): number {
    if (n === this.exact.length) this.exact = doubled(this.exact);
    this.exact[n] = e;
    return n + 1;
  }

  pushHead(n: number, e: number): number {
    if (n === this.heads.length) this.heads = doubled(this.heads);
    this.heads[n] = e;
    return n + 1;
  }
}

export class EdgeCandidates {
  /** Whether every edge is a candidate (the lists are not in use). */
  all = true;
  /** The candidate edges, ascending (so in drawing order), and how many. */
  edges: Int32Array = new Int32Array(4096);
  edgeCount = 0;
  /** Their ends, each once, and how many. */
  nodes: Int32Array = new Int32Array(4096);
  nodeCount = 0;
  /** How many edges the last `cover` looked at to make the lists (0 when they stood). */
  scanned = 0;
  private readonly outer: WorldRect = { minX: 0, minY: 0, maxX: 0, maxY: 0 };
  /** Scene version, node and edge counts the lists were made for (NaN: none). */
  private readonly key = new Float64Array(3).fill(NaN);
  private mark = new Uint32Array(0);
  private stamp = 0;

  /** Forgets the lists (every edge is a candidate until the next `cover`). */
  clear(): void {
    this.all = true;
    this.scanned = 0;
    this.key[0] = NaN;
  }

  /** Makes the lists hold at least every edge whose ends' box meets `view` (at the nodes'
   *  target positions: not for a frame drawn while nodes move); keeps the last lists while
   *  they do and the view is not far smaller than what they were made for. */
  cover(scene: Scene, view: WorldRect): void {
    this.scanned = 0;
    const k = this.key, o = this.outer;
    const w = view.maxX - view.minX, h = view.maxY - view.minY;
    if (!(w > 0 && h > 0 && Number.isFinite(w) && Number.isFinite(h))) {
      this.clear();
      return;
    }
    const same = k[0] === scene.version && k[1] === scene.nodeCount && k[2] === scene.edgeCount;
    const inside = view.minX >= o.minX && view.minY >= o.minY && view.maxX <= o.maxX && view.maxY <= o.maxY;
    // Zoomed in well past what the lists were made for: made again, tighter.
    const tight = w * h * 16 >= (o.maxX - o.minX) * (o.maxY - o.minY);
    if (same && inside && tight) return;
    k[0] = scene.version;
    k[1] = scene.nodeCount;
    k[2] = scene.edgeCount;
    o.minX = view.minX - CULL_GUARD * w;
    o.minY = view.minY - CULL_GUARD * h;
    o.maxX = view.maxX + CULL_GUARD * w;
    o.maxY = view.maxY + CULL_GUARD * h;
    this.list(scene);
  }

  private list(scene: Scene): void {
    const m = scene.edgeCount, n = scene.nodeCount, nd = scene.nodes.data;
    const src = scene.edgeSrc, tgt = scene.edgeTgt, o = this.outer;
    const most = Math.floor(m * CULL_MAX_SHARE);
    if (this.mark.length < n) this.mark = new Uint32Array(scene.nodes.capacity);
    if (++this.stamp === 0xffffffff) {
      this.mark.fill(0);
      this.stamp = 1;
    }
    const mark = this.mark, stamp = this.stamp;
    let edges = this.edges, nodes = this.nodes, count = 0, ends = 0;
    this.scanned = m;
    this.all = true;
    for (let e = 0; e < m; e++) {
      const a = src[e], b = tgt[e];
      const x0 = nd[a * NODE_STRIDE + NX], y0 = nd[a * NODE_STRIDE + NY];
      const x1 = nd[b * NODE_STRIDE + NX], y1 = nd[b * NODE_STRIDE + NY];
      if ((x0 < x1 ? x0 : x1) > o.maxX || (x0 > x1 ? x0 : x1) < o.minX) continue;
      if ((y0 < y1 ? y0 : y1) > o.maxY || (y0 > y1 ? y0 : y1) < o.minY) continue;
      if (count === most) return; // too many to be worth listing
      if (count === edges.length) edges = this.edges = grownInts(edges, edges.length * 2);
      edges[count++] = e;
      if (ends + 2 > nodes.length) nodes = this.nodes = grownInts(nodes, nodes.length * 2);
      if (mark[a] !== stamp) {
        mark[a] = stamp;
        nodes[ends++] = a;
      }
      if (mark[b] !== stamp) {
        mark[b] = stamp;
        nodes[ends++] = b;
      }
    }
    this.edgeCount = count;
    this.nodeCount = ends;
    this.all = false;
  }
}

/** The view in CSS pixels (as the camera has it) and the device pixel ratio. */
export interface LodView {
  x: number;
  y: number;
  scale: number;
  width: number;
  height: number;
  dpr: number;
}

/** What a result was computed for: the view, the graph's state and the line colours. */
export const KEY_LENGTH = 11;

/** Whether what `k` was computed for differs from this view, graph and style (and
 *  records them in `k`). */
export function stale(k: Float64Array, v: LodView, scene: Scene, looks: number, style: number): boolean {
  const same = k[0] === v.x && k[1] === v.y && k[2] === v.scale && k[3] === v.width && k[4] === v.height
    && k[5] === v.dpr && k[6] === scene.version && k[7] === looks && k[8] === scene.nodeCount
    && k[9] === scene.edgeCount && k[10] === style;
  if (same) return false;
  k[0] = v.x; k[1] = v.y; k[2] = v.scale; k[3] = v.width; k[4] = v.height; k[5] = v.dpr;
  k[6] = scene.version; k[7] = looks; k[8] = scene.nodeCount; k[9] = scene.edgeCount; k[10] = style;
  return true;
}

/** The world rectangle that every edge a frame of `v` draws meets: the canvas grown by
 *  `reach` device px each way (lod.ts's widest test, with the largest node's half size and
 *  an arrow head), and by a margin for the rounding of screen positions to 32-bit floats
 *  (those of far-off ends included). Null without nodes. */
export function lodWorldRect(scene: Scene, v: LodView, reach: number, out: WorldRect): WorldRect | null {
  const b = scene.bounds();
  if (!b) return null;
  const k = v.scale * v.dpr;
  const far = Math.max(Math.abs(b.minX), Math.abs(b.maxX), Math.abs(b.minY), Math.abs(b.maxY), Math.abs(v.x), Math.abs(v.y));
  const halfW = (v.width * v.dpr) / 2 + reach, halfH = (v.height * v.dpr) / 2 + reach;
  const pad = 4 / k + 1e-6 * (far + (halfW + halfH) / k);
  out.minX = v.x - halfW / k - pad;
  out.maxX = v.x + halfW / k + pad;
  out.minY = v.y - halfH / k - pad;
  out.maxY = v.y + halfH / k + pad;
  return out;
}
