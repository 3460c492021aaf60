//! Level of detail for zoomed-out views of large graphs: the graph reduced to what the
//! screen's pixels can show, recomputed on the CPU whenever the view or the graph changes.
//!
//! Why: once nodes are a few pixels wide, tens of nodes share a pixel and thousands of
//! edges run along the same pixels (a layered layout seen from afar is almost all long
//! edges on top of each other). Software GL (SwiftShader: headless Chromium, VMs, machines
//! without a usable GPU) pays for every primitive and every pixel it covers, so drawing
//! 50k nodes and 77k edges that way took 150–250 ms a frame, although the picture has
//! only a few thousand distinct dots and lines. Here:
//! - nodes: one per device pixel of their centre (the one drawn last, undimmed before
//!   dimmed, as drawing them all would show); selected, hovered and glowing nodes always
//!   drawn, on top;
//! - edges: each clipped to the view, its ends snapped to device pixels; edges that then
//!   coincide become one line whose colour is theirs composited in drawing order, so it
//!   looks as drawing them all would, to within a pixel;
//! - lines along a few rows (columns) of pixels are then cut into disjoint runs (runs.ts),
//!   so that no pixel is drawn twice where hundreds of them overlap.
//! The result is a list of node records (for the node program) and plain lines with their
//! positions and colours baked into a vertex buffer (no texture reads per vertex; see
//! lines.ts). It costs a few ms of script per changed frame at 50k nodes / 77k edges.
//!
//! Lines are about one CSS px wide at any device pixel ratio, as the shader's edges are:
//! at DPR 2 (HiDPI) and above, the "pixels" lines are snapped to and merged on are cells of
//! round(dpr) x round(dpr) device px, and each line is drawn as a quad one cell thick (two
//! triangles) instead of a one-device-pixel GL line. At DPR 1 (cells of one pixel) the
//! output is plain GL lines, as before.
//!
//! Closer in (nodes 5 px tall or more, edges with heads) the same merged lines carry the
//! bodies of long edges only, and the edge shader draws short edges and long ones' heads
//! (EdgeSplit in lod-cull.ts), so that thousands of long edges across the view cost lines, not
//! screen-wide quads.

import { bodyEnds, bodyLineAlpha } from "./arrows";
import { RunMerger, type RunSink } from "./runs";
import { KeyNumbers, grown, grownCopy, grownInts, meets, to8 } from "./lod-keys";
import { EdgeCandidates, EdgeSplit, KEY_LENGTH, lodWorldRect, stale, type LodView, type WorldRect } from "./lod-cull";
import type { FrameCost } from "./cost";
import { EDGE_STRIDE, EFLAGS, EKIND, Flag, GLOW_SECONDS, NFLAGS, NGLOW, NH, NODE_STRIDE, NPX, NPY, NSHAPE, NW, NX, NY,
  type Scene } from "./scene";

export type { LodView } from "./lod-cull";

/** How plain lines look: RGBA (0..1, straight alpha) by edge kind, and the dimmed opacity. */
export interface LineStyle {
  edge: Float32Array;
  dim: number;
  /** Changes whenever the colours do (theme switch). */
  serial: number;
}

/** Nodes up to this many CSS px wide and tall on screen count as dots: one per device pixel
 *  is drawn; wider ones are all drawn. */
export const DOT_MAX_PX = 4;

/** Opacity of a plain line, and of an emphasised one (highlighted, or the hovered node's). */
export const LINE_ALPHA = 0.55;
export const STRONG_LINE_ALPHA = 1;

/** Bytes per line vertex: x, y (float32, device pixels) and RGBA (unorm8, premultiplied). */
export const LINE_VERTEX_BYTES = 12;

/** Device px per side of the cells lines are merged on and how thick they are drawn at
 *  device pixel ratio `dpr`: round(dpr), at least 1 (so about one CSS px). */
export function lineCell(dpr: number): number {
  return Math.max(1, Math.round(dpr));
}

/** Screen coordinates are kept in this range (device px) for the keys; far beyond any canvas. */
const COORD_OFFSET = 1024;
const COORD_RANGE = 32768;
/** Node centres this far outside the canvas (device px, beyond their own half size) still count. */
const NODE_MARGIN = 8;

export class PixelLod {
  /** Node records to draw, in drawing order (floats: the shaders read them from a float
   *  texture), and how many. */
  nodes = new Float32Array(4096);
  nodeCount = 0;
  /** Line vertices (LINE_VERTEX_BYTES each, `lineVertices` per line), and how many lines. */
  lineBytes = new Uint8Array(4096 * 2 * LINE_VERTEX_BYTES);
  lineCount = 0;
  /** How thick lines are, in device px (lineCell of the view's DPR), and the vertices per
   *  line: 2 (drawn as gl.LINES) when 1 px thick, else 6 (a quad as two gl.TRIANGLES). */
  lineWidth = 1;
  lineVertices = 2;
  /** Bumped whenever the node list or the lines change (the GPU copies follow it). */
  nodeSerial = 0;
  lineSerial = 0;

  private lineFloats = new Float32Array(this.lineBytes.buffer);
  private sx = new Float32Array(0);
  private sy = new Float32Array(0);
  private readonly nodeTable = new KeyNumbers();
  private readonly edgeTable = new KeyNumbers();
  /** Per merged line: premultiplied colour and alpha composited so far. */
  private acc = new Float32Array(4 * 4096);
  /** Per merged line: its end pixels x0, y0, x1, y1. */
  private ends = new Int32Array(4 * 4096);
  private readonly runs = new RunMerger();
  /** Per pixel (numbered by nodeTable): the node shown there. */
  private shown = new Int32Array(4096);
  private special: number[] = [];
  private wide: number[] = [];
  private readonly nodeKey = new Float64Array(KEY_LENGTH).fill(NaN);
  private readonly edgeKey = new Float64Array(KEY_LENGTH).fill(NaN);
  /** Merged lines so far in the current merge. */
  private merged = 0;
  private readonly bodyAt = new Float64Array(4);
  /** With `split`: the edges the shader draws whole, and those it draws only the heads of. */
  readonly split = new EdgeSplit();
  /** The first `plainCount` of `nodes` are the ordinary ones (in drawing order); after them
   *  come the selected, hovered and glowing ones, drawn on top. */
  plainCount = 0;
  /** The edges that can meet a zoomed-in view (lod-cull.ts). */
  private readonly candidates = new EdgeCandidates();
  private readonly worldRect: WorldRect = { minX: 0, minY: 0, maxX: 0, maxY: 0 };
  /** Work of the last recomputation: nodes projected to the screen and edges looked at
   *  (those the candidate lists were made from included). */
  nodesProjected = 0;
  edgesVisited = 0;
  /** Whether a zoomed-in frame looks only at the edges that can meet the view (off: at
   *  every edge, for measuring and comparing; the picture is the same). */
  cull = true;

  /** `ignoreHover`: the hovered node and its edges are drawn as if not hovered (and hover
   *  changes recompute nothing), for a drawing that shows hover separately. */
  constructor(private readonly ignoreHover = false) {}

  /** Recomputes what changed since the last call: the node list when `nodes`, the lines
   *  when `edges` (with `split`, only the bodies of long edges, see EdgeSplit). Nothing is recomputed while neither the view, the graph nor the style
   *  changed (but always while nodes move, since they are drawn between two places). */
  update(scene: Scene, view: LodView, time: number, nodes: boolean, edges: boolean, style: LineStyle, split = false,
    cost: FrameCost | null = null): void {
    const moving = time < scene.moveUntil;
    this.nodesProjected = this.edgesVisited = 0;
    const looks = this.ignoreHover ? scene.stableLooks : scene.looks;
    const redoNodes = nodes && (stale(this.nodeKey, view, scene, looks, 0) || moving);
    const redoEdges = edges && (stale(this.edgeKey, view, scene, looks, style.serial * 2 + (split ? 1 : 0)) || moving);
    if (!redoNodes && !redoEdges) return;
    const t0 = now();
    // Edges: only those that can meet the view, while nodes are where they are drawn.
    const cands = this.candidates;
    const rect = redoEdges && !moving && this.cull ? lodWorldRect(scene, view, this.reach(scene, view), this.worldRect) : null;
    if (rect) cands.cover(scene, rect);
    else cands.clear();
    this.nodesProjected = this.project(scene, view, scene.moveProgress(time), redoNodes || cands.all ? null : cands);
    this.edgesVisited = cands.scanned;
    if (redoNodes) this.pickNodes(scene, view, time);
    const t1 = now();
    if (redoEdges) this.mergeEdges(scene, view, style, split);
    if (cost) {
      cost.layers.nodes.ms += t1 - t0;
      cost.layers.nodes.visited += this.nodesProjected + (redoNodes ? scene.nodeCount : 0);
      cost.layers.edges.ms += now() - t1;
      cost.layers.edges.visited += this.edgesVisited;
    }
  }

  /** How far past the canvas (device px) an edge the split draws may end: the largest
   *  node's half size and an arrow head (see mergeEdges). */
  private reach(scene: Scene, v: LodView): number {
    return Math.max(scene.maxNodeWidth, scene.maxNodeHeight) * v.scale * v.dpr / 2 + 12 * v.dpr + NODE_MARGIN;
  }

  /** Device-pixel centres of all nodes (or of the candidate edges' ends), where they are
   *  drawn at move progress `p`; returns how many. */
  private project(scene: Scene, v: LodView, p: number, only: EdgeCandidates | null): number {
    const n = scene.nodeCount;
    if (this.sx.length < n) {
      this.sx = new Float32Array(scene.nodes.capacity);
      this.sy = new Float32Array(scene.nodes.capacity);
    }
    const d = scene.nodes.data, sx = this.sx, sy = this.sy;
    const k = v.scale * v.dpr, ox = v.width / 2 * v.dpr - v.x * k, oy = v.height / 2 * v.dpr - v.y * k;
    const count = only ? only.nodeCount : n, list = only?.nodes;
    for (let j = 0; j < count; j++) {
      const i = list ? list[j] : j, o = i * NODE_STRIDE;
      const x = p >= 1 ? d[o + NX] : d[o + NPX] + (d[o + NX] - d[o + NPX]) * p;
      const y = p >= 1 ? d[o + NY] : d[o + NPY] + (d[o + NY] - d[o + NPY]) * p;
      sx[i] = x * k + ox;
      sy[i] = y * k + oy;
    }
    return count;
  }

  private pickNodes(scene: Scene, v: LodView, time: number): void {
    const n = scene.nodeCount, d = scene.nodes.data, sx = this.sx, sy = this.sy;
    const table = this.nodeTable;
    table.reset();
    const k = v.scale * v.dpr;
    const margin = Math.max(scene.maxNodeWidth, scene.maxNodeHeight) * k / 2 + NODE_MARGIN;
    // Nodes wider than a dot on screen (a few wide ones among many small) are all drawn.
    const big = DOT_MAX_PX * v.dpr / k, wide = this.wide;
    wide.length = 0;
    const stand = this.ignoreHover ? Flag.Selected : Flag.Selected | Flag.Hover;
    const maxX = v.width * v.dpr + margin, maxY = v.height * v.dpr + margin;
    const special = this.special;
    special.length = 0;
    if (this.shown.length < n) this.shown = new Int32Array(scene.nodes.capacity);
    const shown = this.shown;
    for (let i = 0, o = 0; i < n; i++, o += NODE_STRIDE) {
      const flags = d[o + NFLAGS];
      if (flags & Flag.Hidden) continue;
      const age = time - d[o + NGLOW];
      if (flags & stand || (age >= 0 && age < GLOW_SECONDS)) {
        special.push(i);
        continue;
      }
      const x = sx[i], y = sy[i];
      if (!(x >= -margin && y >= -margin && x <= maxX && y <= maxY)) continue;
      if (d[o + NW] > big || d[o + NH] > big) {
        wide.push(i);
        continue;
      }
      const pixel = table.lookup((coord(x) + COORD_OFFSET) * COORD_RANGE + coord(y) + COORD_OFFSET, 0);
      // Drawn later covers it, unless only the earlier one stands out of a highlight.
      if (table.added || !(flags & Flag.Dim) || d[shown[pixel] * NODE_STRIDE + NFLAGS] & Flag.Dim) shown[pixel] = i;
    }
    table.settle();
    const used = table.count + wide.length, count = used + special.length;
    if (this.nodes.length < count) this.nodes = new Float32Array(grown(this.nodes.length, count));
    const out = this.nodes;
    for (let j = 0; j < table.count; j++) out[j] = shown[j];
    for (let j = 0; j < wide.length; j++) out[table.count + j] = wide[j];
    out.subarray(0, used).sort();
    for (let j = 0; j < special.length; j++) out[used + j] = special[j];
    this.plainCount = used;
    this.nodeCount = count;
    this.nodeSerial++;
  }

  private mergeEdges(scene: Scene, v: LodView, style: LineStyle, split: boolean): void {
    const m = scene.edgeCount, ed = scene.edges.data, nd = scene.nodes.data, src = scene.edgeSrc, tgt = scene.edgeTgt;
    const sx = this.sx, sy = this.sy;
    this.edgeTable.reset();
    this.merged = 0;
    const W = v.width * v.dpr, H = v.height * v.dpr;
    // Lines are merged on cells of `cell` device px (1 at DPR 1: pixels).
    const cell = lineCell(v.dpr), inv = 1 / cell;
    const maxX = Math.min(W * inv, COORD_RANGE - COORD_OFFSET - 1), maxY = Math.min(H * inv, COORD_RANGE - COORD_OFFSET - 1);
    const dim = style.dim;
    // Split (nodes 5 px tall or more): which edges the shader draws whole, whose heads it
    // draws, and whose bodies become lines here (see the class comment of EdgeSplit).
    const k = v.scale * v.dpr, dpr = v.dpr;
    const reach = this.reach(scene, v);
    const bodyAlpha = bodyLineAlpha(dpr / cell), ends = this.bodyAt, minPx = 1.5;
    let exact = 0, heads = 0;
    const strongFlags = this.ignoreHover ? Flag.Highlight : Flag.Highlight | Flag.Hover;
    // Every edge, or only those that can meet the view (in the same order).
    const cands = this.candidates, list = cands.all ? null : cands.edges, count = list ? cands.edgeCount : m;
    this.edgesVisited += count;
    for (let j = 0; j < count; j++) {
      const e = list ? list[j] : j, o = e * EDGE_STRIDE;
      const flags = ed[o + EFLAGS];
      if (flags & Flag.Hidden) continue;
      const a = src[e], b = tgt[e];
      let x0 = sx[a], y0 = sy[a], x1 = sx[b], y1 = sy[b];
      let alpha: number;
      if (split) {
        const inA = x0 >= 0 && x0 <= W && y0 >= 0 && y0 <= H, inB = x1 >= 0 && x1 <= W && y1 >= 0 && y1 <= H;
        if ((inA && inB) || (flags & strongFlags && meets(x0, y0, x1, y1, -reach, -reach, W + reach, H + reach))) {
          exact = this.split.pushExact(exact, e);
          continue;
        }
        if (!meets(x0, y0, x1, y1, -reach, -reach, W + reach, H + reach)) continue;
        if (x1 >= -reach && x1 <= W + reach && y1 >= -reach && y1 <= H + reach) heads = this.split.pushHead(heads, e);
        const so = a * NODE_STRIDE, to = b * NODE_STRIDE;
        if (!bodyEnds(x0, y0, x1, y1,
          nd[so + NSHAPE], Math.max(nd[so + NW] * 0.5 * k, minPx), Math.max(nd[so + NH] * 0.5 * k, minPx),
          nd[to + NSHAPE], Math.max(nd[to + NW] * 0.5 * k, minPx), Math.max(nd[to + NH] * 0.5 * k, minPx), k, dpr, ends)) continue;
        x0 = ends[0]; y0 = ends[1]; x1 = ends[2]; y1 = ends[3];
        alpha = bodyAlpha * (flags & Flag.Dim ? dim : 1);
      } else {
        const strong = flags & strongFlags;
        alpha = (strong ? STRONG_LINE_ALPHA : LINE_ALPHA) * (flags & Flag.Dim ? dim : 1);
      }
      if (cell !== 1) {
        x0 *= inv; y0 *= inv; x1 *= inv; y1 *= inv;
      }
      this.mergeSegment(x0, y0, x1, y1, maxX, maxY, ed[o + EKIND] * 4, alpha, style.edge);
    }
    this.edgeTable.settle();
    this.split.exactCount = split ? exact : 0;
    this.split.headCount = split ? heads : 0;
    this.split.serial++;
    this.emitLines(this.merged, cell);
  }

  /** Adds the segment (in cells: device px at DPR 1) clipped to the canvas (0..maxX,
   *  0..maxY), its ends snapped to cells, to the merged line on the same cells (drawn over
   *  those before it), in colour `c` of `colors` at opacity `alpha`. */
  private mergeSegment(x0: number, y0: number, x1: number, y1: number, maxX: number, maxY: number,
    c: number, alpha: number, colors: Float32Array): void {
    let X0: number, Y0: number, X1: number, Y1: number;
    if (x0 >= 0 && x0 <= maxX && y0 >= 0 && y0 <= maxY && x1 >= 0 && x1 <= maxX && y1 >= 0 && y1 <= maxY) {
      X0 = Math.floor(x0); Y0 = Math.floor(y0); X1 = Math.floor(x1); Y1 = Math.floor(y1);
    } else {
      // Clip to the canvas (Liang–Barsky): the part from t0 to t1 is on it.
      const dx = x1 - x0, dy = y1 - y0;
      let t0 = 0, t1 = 1;
      if (dx === 0) {
        if (x0 < 0 || x0 > maxX) return;
      } else {
        let ta = -x0 / dx, tb = (maxX - x0) / dx;
        if (ta > tb) { const t = ta; ta = tb; tb = t; }
        if (ta > t0) t0 = ta;
        if (tb < t1) t1 = tb;
      }
      if (dy === 0) {
        if (y0 < 0 || y0 > maxY) return;
      } else {
        let ta = -y0 / dy, tb = (maxY - y0) / dy;
        if (ta > tb) { const t = ta; ta = tb; tb = t; }
        if (ta > t0) t0 = ta;
        if (tb < t1) t1 = tb;
      }
      if (!(t0 <= t1)) return;
      X0 = Math.floor(x0 + dx * t0); Y0 = Math.floor(y0 + dy * t0);
      X1 = Math.floor(x0 + dx * t1); Y1 = Math.floor(y0 + dy * t1);
    }
    if (X0 === X1 && Y0 === Y1) return; // inside one pixel: under the node's dot
    const p = (X0 + COORD_OFFSET) * COORD_RANGE + Y0 + COORD_OFFSET;
    const q = (X1 + COORD_OFFSET) * COORD_RANGE + Y1 + COORD_OFFSET;
    const table = this.edgeTable;
    const at = 4 * table.lookup(p < q ? p : q, p < q ? q : p);
    let acc = this.acc;
    if (table.added) {
      const lines = this.merged;
      if (acc.length < 4 * (lines + 1)) {
        acc = this.acc = grownCopy(acc, 4 * (lines + 1));
        this.ends = grownInts(this.ends, acc.length);
      }
      this.merged++;
      const ends = this.ends;
      ends[at] = X0;
      ends[at + 1] = Y0;
      ends[at + 2] = X1;
      ends[at + 3] = Y1;
      acc[at] = acc[at + 1] = acc[at + 2] = acc[at + 3] = 0;
    }
    // This edge drawn over those before it on the same pixels.
    const keep = 1 - alpha;
    acc[at] = colors[c] * alpha + acc[at] * keep;
    acc[at + 1] = colors[c + 1] * alpha + acc[at + 1] * keep;
    acc[at + 2] = colors[c + 2] * alpha + acc[at + 2] * keep;
    acc[at + 3] = alpha + acc[at + 3] * keep;
  }

  /** Turns the merged lines (in cells of `cell` device px) into the vertex data: lines
   *  along a few rows or columns of cells as disjoint runs, the others as they are. */
  private emitLines(lines: number, cell: number): void {
    const runs = this.runs, acc = this.acc, ends = this.ends;
    runs.reset();
    this.lineCount = 0;
    this.lineWidth = cell;
    this.lineVertices = cell === 1 ? 2 : 6;
    for (let l = 0, at = 0; l < lines; l++, at += 4) {
      const x0 = ends[at], y0 = ends[at + 1], x1 = ends[at + 2], y1 = ends[at + 3];
      const r = acc[at], g = acc[at + 1], b = acc[at + 2], a = acc[at + 3];
      if (runs.addLine(x0, y0, x1, y1, r, g, b, a)) continue;
      if (cell === 1) {
        this.putLine(this.lineCount++, x0 + 0.5, y0 + 0.5, x1 + 0.5, y1 + 0.5, to8(r), to8(g), to8(b), to8(a));
      } else {
        // From cell centre to cell centre, one cell thick across the major axis (as a
        // one-pixel GL line covers one pixel per step along it).
        this.putQuad(this.lineCount++, (x0 + 0.5) * cell, (y0 + 0.5) * cell, (x1 + 0.5) * cell, (y1 + 0.5) * cell,
          Math.abs(y1 - y0) > Math.abs(x1 - x0), cell, to8(r), to8(g), to8(b), to8(a));
      }
    }
    runs.merge(this.putRun);
    this.lineSerial++;
  }

  private readonly putRun: RunSink = (vertical, line, a, b, r, g, bl, al) => {
    const cell = this.lineWidth;
    if (cell !== 1) {
      // The cells' whole area: `cell` device px thick.
      const mid = (line + 0.5) * cell;
      if (vertical) this.putQuad(this.lineCount++, mid, a * cell, mid, b * cell, true, cell, r, g, bl, al);
      else this.putQuad(this.lineCount++, a * cell, mid, b * cell, mid, false, cell, r, g, bl, al);
    } else if (vertical) this.putLine(this.lineCount++, line + 0.5, a, line + 0.5, b, r, g, bl, al);
    else this.putLine(this.lineCount++, a, line + 0.5, b, line + 0.5, r, g, bl, al);
  };

  /** Makes room for `lines` lines of `lineVertices` vertices. */
  private reserve(lines: number): void {
    const need = lines * this.lineVertices * LINE_VERTEX_BYTES;
    if (this.lineBytes.length < need) {
      const next = new Uint8Array(grown(this.lineBytes.length, need));
      next.set(this.lineBytes);
      this.lineBytes = next;
      this.lineFloats = new Float32Array(next.buffer);
    }
  }

  /** Writes line `l` as a quad (6 vertices: two triangles) from (x0, y0) to (x1, y1)
   *  (device px), `width` thick across its major axis (x, or y when `vertical`), with its
   *  premultiplied colour (0..255). Vertices: A-, A+, B-, B-, A+, B+. */
  private putQuad(l: number, x0: number, y0: number, x1: number, y1: number, vertical: boolean, width: number,
    r: number, g: number, b: number, a: number): void {
    this.reserve(l + 1);
    const h = width / 2, hx = vertical ? h : 0, hy = vertical ? 0 : h;
    const f = this.lineFloats, bytes = this.lineBytes, per = LINE_VERTEX_BYTES / 4;
    const o = l * 6 * per;
    f[o] = x0 - hx; f[o + 1] = y0 - hy;
    f[o + per] = x0 + hx; f[o + per + 1] = y0 + hy;
    f[o + 2 * per] = x1 - hx; f[o + 2 * per + 1] = y1 - hy;
    f[o + 3 * per] = x1 - hx; f[o + 3 * per + 1] = y1 - hy;
    f[o + 4 * per] = x0 + hx; f[o + 4 * per + 1] = y0 + hy;
    f[o + 5 * per] = x1 + hx; f[o + 5 * per + 1] = y1 + hy;
    for (let v = 0, k = l * 6 * LINE_VERTEX_BYTES + 8; v < 6; v++, k += LINE_VERTEX_BYTES) {
      bytes[k] = r;
      bytes[k + 1] = g;
      bytes[k + 2] = b;
      bytes[k + 3] = a;
    }
  }

  /** Writes line `l`: its ends (device px) and its premultiplied colour (0..255). */
  private putLine(l: number, x0: number, y0: number, x1: number, y1: number, r: number, g: number, b: number, a: number): void {
    this.reserve(l + 1);
    const f = this.lineFloats, bytes = this.lineBytes, o = l * 2 * (LINE_VERTEX_BYTES / 4);
    f[o] = x0;
    f[o + 1] = y0;
    f[o + 3] = x1;
    f[o + 4] = y1;
    const k = l * 2 * LINE_VERTEX_BYTES + 8;
    bytes[k] = bytes[k + LINE_VERTEX_BYTES] = r;
    bytes[k + 1] = bytes[k + 1 + LINE_VERTEX_BYTES] = g;
    bytes[k + 2] = bytes[k + 2 + LINE_VERTEX_BYTES] = b;
    bytes[k + 3] = bytes[k + 3 + LINE_VERTEX_BYTES] = a;
  }

  /** The ends of line `l` in device pixels (of its middle, for a quad) (for tests). */
  lineAt(l: number): [number, number, number, number] {
    const f = this.lineFloats, per = LINE_VERTEX_BYTES / 4, o = l * this.lineVertices * per;
    if (this.lineVertices === 2) return [f[o], f[o + 1], f[o + per], f[o + per + 1]];
    const mid = (i: number, j: number) => (f[o + i * per + j] + f[o + (i + 1) * per + j]) / 2;
    return [mid(0, 0), mid(0, 1), (f[o + 2 * per] + f[o + 5 * per]) / 2, (f[o + 2 * per + 1] + f[o + 5 * per + 1]) / 2];
  }

  /** Line `l`'s vertices as x, y pairs in device pixels (for tests). */
  verticesAt(l: number): number[] {
    const f = this.lineFloats, per = LINE_VERTEX_BYTES / 4, n = this.lineVertices, out: number[] = [];
    for (let v = 0, o = l * n * per; v < n; v++, o += per) out.push(f[o], f[o + 1]);
    return out;
  }

  /** Line `l`'s premultiplied RGBA, 0..255 (for tests). */
  colorAt(l: number): [number, number, number, number] {
    const o = l * this.lineVertices * LINE_VERTEX_BYTES + 8, b = this.lineBytes;
    return [b[o], b[o + 1], b[o + 2], b[o + 3]];
  }
}

/** A device-pixel coordinate as a whole pixel within the key range. */
function coord(x: number): number {
  const c = Math.floor(x);
  return c < -COORD_OFFSET ? -COORD_OFFSET : c > COORD_RANGE - COORD_OFFSET - 1 ? COORD_RANGE - COORD_OFFSET - 1 : c;
}

function now(): number {
  return typeof performance !== "undefined" ? performance.now() : Date.now();
}
