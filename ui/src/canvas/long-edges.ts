//! The whole graph seen at once: which edges are drawn. Agents, tasks and documents have
//! edges to nodes all over the drawing; seen whole, those long edges cross everything and
//! hide the structure (the layers, the claims under their sources). So in the whole view
//! (frame-plan.ts, longEdgePx) of a graph small enough to be drawn edge by edge, an edge
//! longer than the cut is drawn only while one of its ends is hovered or selected (or it is
//! highlighted): point at an agent and its edges appear. Closer in, every edge is drawn.

import { EDGE_STRIDE, EFLAGS, Flag, NFLAGS, NODE_STRIDE, NX, NY, type Scene } from "./scene";

/** Writes into `out` the record numbers of the edges the whole view draws, and returns how
 *  many: every shown edge no longer than `maxLen` (world units, between the nodes' centres
 *  where they are going), and longer ones with an end hovered or selected, or highlighted. */
export function wholeViewEdges(scene: Scene, maxLen: number, out: number[]): number {
  const nd = scene.nodes.data, ed = scene.edges.data, src = scene.edgeSrc, tgt = scene.edgeTgt;
  const max2 = maxLen * maxLen;
  let n = 0;
  for (let e = 0; e < scene.edgeCount; e++) {
    const f = ed[e * EDGE_STRIDE + EFLAGS];
    if (f & Flag.Hidden) continue;
    const s = src[e] * NODE_STRIDE, t = tgt[e] * NODE_STRIDE;
    const dx = nd[t + NX] - nd[s + NX], dy = nd[t + NY] - nd[s + NY];
    if (dx * dx + dy * dy <= max2 || f & (Flag.Hover | Flag.Highlight) || (nd[s + NFLAGS] | nd[t + NFLAGS]) & (Flag.Selected | Flag.Hover)) {
      out[n++] = e;
    }
  }
  return n;
}
