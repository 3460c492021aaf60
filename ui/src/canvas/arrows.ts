//! Where the edge shader puts an edge's body and arrow head, computed on the CPU in device
//! pixels (the same formulas as EDGE_VS in programs.ts).
//!
//! Why: between the pixel level of detail and close-ups (nodes 5 px tall or more), a
//! layered layout of 50k nodes has thousands of long edges crossing any view, each a
//! screen-wide quad that software GL rasterises pixel by pixel (5-6 fps). lod.ts draws
//! those edges' bodies as merged one-pixel lines instead and leaves only their heads (and
//! the short edges) to the shader; for the merged body to end where the shader's quad
//! would (at the source's outline and under the head), it needs these numbers.

import { HOUSE_ROOF } from "./style";

/** Opacity of an edge body drawn by the shader (EDGE_VS, not strong, not dimmed), and its
 *  half width in CSS px. */
export const BODY_ALPHA = 0.75;
export const BODY_HALF_WIDTH = 0.6;

/** The opacity of a one-device-pixel line that puts down as much ink as the shader's
 *  body (1.2 CSS px wide at BODY_ALPHA), at device pixel ratio `dpr`. */
export function bodyLineAlpha(dpr: number): number {
  return Math.min(1, BODY_ALPHA * 2 * BODY_HALF_WIDTH * dpr);
}

/** Distance from a node's centre to its outline along the unit direction (ux, uy), for
 *  shape code `shape` (0 ellipse, 1 box, 2 house, 3 rounded box, as in style.ts) and half
 *  size (hx, hy). As the shader's `boundary` (rounded corners count as square). */
export function boundary(shape: number, hx: number, hy: number, ux: number, uy: number): number {
  if (shape < 0.5) {
    const qx = ux / hx, qy = uy / hy;
    return 1 / Math.sqrt(qx * qx + qy * qy);
  }
  const ax = Math.abs(ux), ay = Math.abs(uy);
  let t = Math.min(ax > 1e-6 ? hx / ax : 1e9, ay > 1e-6 ? hy / ay : 1e9);
  if (shape > 1.5 && shape < 2.5 && uy < 0) {
    const nx = 2 * hy * HOUSE_ROOF, ny = -hx;
    const den = ax * nx + uy * ny;
    if (den > 1e-9) t = Math.min(t, (-hy * ny) / den);
  }
  return t;
}

/** Length of a plain (not strong) edge's arrow head in device px, at `k` device px per
 *  world unit and device pixel ratio `dpr`, for `avail` device px between the outlines. */
export function headLength(k: number, dpr: number, avail: number): number {
  const h = Math.min(Math.max(9 * k, 4 * dpr), 12 * dpr);
  return Math.min(h, avail * 0.6);
}

/** Where the shader's body of an edge from (x0, y0) to (x1, y1) (node centres, device px)
 *  starts and ends: from the source's outline to 0.8 of the head back from the target's
 *  outline (the body runs a little under the head). Written to `out` as x0, y0, x1, y1;
 *  false when the outlines overlap (the shader then draws nothing). `s` and `t` are the
 *  ends' shape codes and half sizes in device px. */
export function bodyEnds(x0: number, y0: number, x1: number, y1: number,
  s: number, shx: number, shy: number, t: number, thx: number, thy: number,
  k: number, dpr: number, out: Float64Array): boolean {
  const dx = x1 - x0, dy = y1 - y0;
  const len = Math.sqrt(dx * dx + dy * dy);
  const ux = len > 0 ? dx / len : 1, uy = len > 0 ? dy / len : 0;
  const rs = boundary(s, shx, shy, ux, uy);
  const rt = boundary(t, thx, thy, -ux, -uy);
  const avail = len - rs - rt;
  if (!(avail > 0)) return false;
  const back = rt + headLength(k, dpr, avail) * 0.8;
  out[0] = x0 + ux * rs;
  out[1] = y0 + uy * rs;
  out[2] = x1 - ux * back;
  out[3] = y1 - uy * back;
  return true;
}
