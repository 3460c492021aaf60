//! When zoomed in on a large graph, most nodes and edges are off screen, yet a vertex
//! shader would still run for every one of them. This picks the ones that can show: the
//! nodes the spatial grid finds in the view and the edges whose box meets it, as lists of
//! record numbers the shaders draw instead of the whole tables.

import type { Bounds } from "./camera";
import { EDGE_STRIDE, EFLAGS, Flag, NH, NODE_STRIDE, NW, NX, NY, type Scene } from "./scene";

/** Lists are only worth it while the view shows less than this share of the graph. */
export const CULL_BELOW_SHARE = 0.5;

export class VisibleSet {
  /** Record numbers to draw (as floats, the shaders read them from a float texture). */
  nodes: Float32Array = new Float32Array(4096);
  edges: Float32Array = new Float32Array(4096);
  nodeCount = 0;
  edgeCount = 0;
  /** False: draw every record (the lists are not in use). */
  active = false;
  /** Whether the lists changed since the GPU last took them. */
  changed = false;
  /** Whether the lists are onlyEdges' (every node), not a culled view's. */
  private edgesOnly = false;
  private readonly key = new Float64Array(9);

  private readonly pushNode = (i: number): void => {
    if (this.nodeCount === this.nodes.length) this.nodes = grow(this.nodes);
    this.nodes[this.nodeCount++] = i;
  };

  /** Stops using the lists (something else decides what is drawn). */
  off(): void {
    if (!this.active) return;
    this.active = false;
    this.changed = true;
  }

  /** Lists every node record and only the first `count` edges of `edges` (the whole
   *  view's rule for long edges, long-edges.ts); the GPU takes them again only when they
   *  differ from the last ones listed so. */
  onlyEdges(nodeCount: number, edges: readonly number[], count: number): void {
    let same = this.active && this.edgesOnly && this.nodeCount === nodeCount && this.edgeCount === count;
    while (this.nodes.length < nodeCount) this.nodes = grow(this.nodes);
    while (this.edges.length < count) this.edges = grow(this.edges);
    if (!same) for (let i = 0; i < nodeCount; i++) this.nodes[i] = i;
    for (let k = 0; k < count; k++) {
      if (this.edges[k] !== edges[k]) {
        same = false;
        this.edges[k] = edges[k];
      }
    }
    this.nodeCount = nodeCount;
    this.edgeCount = count;
    this.active = true;
    this.edgesOnly = true;
    this.key[0] = NaN; // update() computes its lists again
    if (!same) this.changed = true;
  }

  /** Recomputes the lists for the view rectangle `view` (world units), widened by
   *  `margin`; the edge list stays empty unless `edges` (something else draws them).
   *  Leaves them inactive when most of `graph` is in view anyway, or while nodes are
   *  moving (their drawn place is between two positions). */
  update(scene: Scene, graph: Bounds | null, view: Bounds, margin: number, moving: boolean, edges = true): void {
    const k = this.key;
    if (this.active && !moving && k[0] === view.minX && k[1] === view.minY && k[2] === view.maxX && k[3] === view.maxY
      && k[4] === margin && k[5] === scene.version && k[6] === scene.edgeCount && k[7] === scene.nodeCount
      && k[8] === (edges ? 1 : 0)) {
      return; // same view of the same graph: the lists stand
    }
    this.active = false;
    this.edgesOnly = false;
    this.changed = true;
    if (!graph || moving || scene.nodeCount < 2000) return;
    k[0] = view.minX; k[1] = view.minY; k[2] = view.maxX; k[3] = view.maxY;
    k[4] = margin; k[5] = scene.version; k[6] = scene.edgeCount; k[7] = scene.nodeCount; k[8] = edges ? 1 : 0;
    const minX = view.minX - margin, minY = view.minY - margin, maxX = view.maxX + margin, maxY = view.maxY + margin;
    const gw = Math.max(graph.maxX - graph.minX, 1e-9), gh = Math.max(graph.maxY - graph.minY, 1e-9);
    const ix = Math.max(0, Math.min(maxX, graph.maxX) - Math.max(minX, graph.minX));
    const iy = Math.max(0, Math.min(maxY, graph.maxY) - Math.max(minY, graph.minY));
    if ((ix * iy) / (gw * gh) >= CULL_BELOW_SHARE) return;

    this.nodeCount = 0;
    scene.grid.visit(minX, minY, maxX, maxY, this.pushNode);

    const nd = scene.nodes.data, ed = scene.edges.data, src = scene.edgeSrc, tgt = scene.edgeTgt;
    let m = 0;
    for (let e = 0; edges && e < scene.edgeCount; e++) {
      if (ed[e * EDGE_STRIDE + EFLAGS] & Flag.Hidden) continue;
      const s = src[e] * NODE_STRIDE, t = tgt[e] * NODE_STRIDE;
      const sx = nd[s + NX], sy = nd[s + NY], tx = nd[t + NX], ty = nd[t + NY];
      const rx = Math.max(nd[s + NW], nd[t + NW]) / 2, ry = Math.max(nd[s + NH], nd[t + NH]) / 2;
      if ((sx < tx ? sx : tx) - rx > maxX || (sx > tx ? sx : tx) + rx < minX) continue;
      if ((sy < ty ? sy : ty) - ry > maxY || (sy > ty ? sy : ty) + ry < minY) continue;
      if (!segmentNearRect(sx, sy, tx, ty, minX - rx, minY - ry, maxX + rx, maxY + ry)) continue;
      if (m === this.edges.length) this.edges = grow(this.edges);
      this.edges[m++] = e;
    }
    this.edgeCount = m;
    this.active = true;
  }
}

function grow(a: Float32Array): Float32Array {
  const b = new Float32Array(a.length * 2);
  b.set(a);
  return b;
}

/** Whether the segment meets the rectangle (its box is already known to). A long edge
 *  passing beside the view fails this even though its box covers the view. */
export function segmentNearRect(x0: number, y0: number, x1: number, y1: number,
  minX: number, minY: number, maxX: number, maxY: number): boolean {
  if (x0 >= minX && x0 <= maxX && y0 >= minY && y0 <= maxY) return true;
  // The rectangle's corners must not all lie on one side of the segment's line.
  const dx = x1 - x0, dy = y1 - y0;
  const c1 = dx * (minY - y0) - dy * (minX - x0);
  const c2 = dx * (minY - y0) - dy * (maxX - x0);
  const c3 = dx * (maxY - y0) - dy * (minX - x0);
  const c4 = dx * (maxY - y0) - dy * (maxX - x0);
  return !((c1 > 0 && c2 > 0 && c3 > 0 && c4 > 0) || (c1 < 0 && c2 < 0 && c3 < 0 && c4 < 0));
}
