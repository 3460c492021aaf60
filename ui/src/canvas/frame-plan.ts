//! What a frame draws how, decided from the zoom and the graph's size before drawing: nodes
//! as points or shapes, edges as plain lines or with heads, and what the level of detail
//! (lod.ts) takes over. Also the view's own questions of the scene (the node nearest the
//! centre, the keyboard's way in).

import type { Camera } from "./camera";
import { DOT_MAX_PX } from "./lod";
import type { FrameUniforms, LodPlan } from "./programs";
import type { Scene } from "./scene";

/** Nodes are drawn as points while no node is wider than this on screen (CSS px). */
export const POINTS_BELOW_PX = 12;
/** Edges are drawn as plain lines, without heads, while nodes are shorter than this. */
export const LINES_BELOW_PX = 5;
/** One node per device pixel is drawn while most nodes (LOD_SHARE of them) are no wider
 *  than DOT_MAX_PX CSS px (wider ones are drawn each), and plain lines are merged where
 *  they coincide (lod.ts), in graphs with at least LOD_MIN_RECORDS nodes and edges (below
 *  that, drawing them all is cheap anyway). */
export const LOD_SHARE = 0.9;
export const LOD_MIN_RECORDS = 2000;

/** Sets the uniforms' point and line modes and the level of detail's plan for a frame at
 *  `scale` (CSS px per world unit) and device pixel ratio `dpr`. */
export function planFrame(scene: Scene, scale: number, dpr: number, maxPointSize: number, splitEdges: boolean,
  u: FrameUniforms, plan: LodPlan): void {
  // Level of detail: once nodes are a few pixels, a point per node and a line per edge
  // look the same and cost a third of the primitives (which is what software GL pays for).
  const maxSide = Math.max(scene.maxNodeWidth, scene.maxNodeHeight) * scale;
  u.nodePoints = maxSide <= POINTS_BELOW_PX && 2 * (maxSide + 24) * dpr < maxPointSize;
  u.edgeLines = scene.maxNodeHeight * scale < LINES_BELOW_PX;
  // Zoomed far out on a large graph: what the pixels can show (see lod.ts).
  const large = scene.nodeCount + scene.edgeCount >= LOD_MIN_RECORDS;
  plan.nodes = large && u.nodePoints && scene.sideAtShare(LOD_SHARE) * scale <= DOT_MAX_PX;
  // Nodes 5 px tall or more: long edges' bodies as lines, their heads and short edges by
  // the shader (EdgeSplit in lod.ts); at any zoom, since long edges cross every view.
  plan.split = large && !u.edgeLines && splitEdges;
  plan.edges = large && (u.edgeLines || plan.split);
  plan.plainOnly = false;
}

/** Seen whole, edges longer than this share of the canvas's smaller side wait for an end
 *  to be pointed at (long-edges.ts). */
export const LONG_EDGE_SHARE = 0.25;
/** Fewer edges than this never tangle: all are drawn (a small graph, or what "Show on
 *  graph" shows alone). */
export const LONG_EDGE_MIN_EDGES = 100;

/** The length (CSS px) beyond which edges are left out of this frame, or 0 for none: while
 *  the view spans at least half the drawing both ways (the whole graph, or most of it),
 *  edges longer than LONG_EDGE_SHARE of the canvas's smaller side, which agents and
 *  documents pull across everything, are drawn only while an end is hovered or selected
 *  (long-edges.ts), in a drawing of `edges` shown edges, LONG_EDGE_MIN_EDGES or more.
 *  Closer in, every edge is drawn (an edge leaving the view is how one finds where it goes). */
export function longEdgePx(drawing: { minX: number, minY: number, maxX: number, maxY: number } | null,
  view: { minX: number, minY: number, maxX: number, maxY: number }, width: number, height: number, edges: number): number {
  if (!drawing || !(width > 0) || !(height > 0) || edges < LONG_EDGE_MIN_EDGES) return 0;
  const dw = drawing.maxX - drawing.minX, dh = drawing.maxY - drawing.minY;
  const vw = view.maxX - view.minX, vh = view.maxY - view.minY;
  if (vw < 0.5 * dw || vh < 0.5 * dh) return 0;
  return LONG_EDGE_SHARE * Math.min(width, height);
}

/** The shown node nearest the centre of the view at time `t`, or null. */
export function nearestToCentre(scene: Scene, cam: Camera, t: number,
  rect: { minX: number, minY: number, maxX: number, maxY: number }): string | null {
  const cx = cam.screenToWorldX(cam.width / 2), cy = cam.screenToWorldY(cam.height / 2);
  const vb = cam.visibleBounds(rect);
  let best = -1, bestD = Infinity;
  scene.grid.visit(vb.minX, vb.minY, vb.maxX, vb.maxY, (i) => {
    if (!scene.isShown(i)) return;
    const d = Math.hypot(scene.positionX(i, t) - cx, scene.positionY(i, t) - cy);
    if (d < bestD) {
      bestD = d;
      best = i;
    }
  });
  return best >= 0 ? scene.views[best].id : null;
}
