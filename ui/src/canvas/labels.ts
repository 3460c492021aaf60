//! Text the GPU does not draw, on a 2D canvas over the WebGL one: node labels once nodes
//! are large enough to read (only nodes on screen, capped; each node's whole caption wrapped
//! to a few lines, on a plate where it outgrows the node, never over another label), the relation names of the
//! hovered node's edges, and the glyph inside large status badges.

import type { Camera } from "./camera";
import { EFLAGS, EDGE_STRIDE, Flag, NFLAGS, NH, NODE_STRIDE, NSHAPE, NSTATUS, NW, type Scene } from "./scene";
import { nodeCaption } from "./captions";
import { balancedWrap, PlacedRects, type Wrapped } from "./wrap";
import { BADGE_RADIUS, HOUSE_ROOF, STATUS_GLYPH, Shape, type Palette } from "./style";

/** Node labels appear when a node is at least this tall on screen (CSS px). */
export const LABEL_MIN_HEIGHT = 16;
/** Smallest font of a node label (CSS px). */
export const MIN_FONT = 10;
/** Most node labels drawn in one frame. */
export const MAX_LABELS = 600;
/** Most lines of a node label; past them it ends with "…" (the hover card has it all). */
export const MAX_LINES = 3;
/** Line height of a node label, in font sizes. */
const LINE_HEIGHT = 1.25;
/** Room around a label's text on its plate (CSS px). */
const PLATE_PAD = 4;
/** Opacity of a label's plate (over its background colour's own). */
const PLATE_ALPHA = 0.85;
/** Most edge labels drawn for the hovered node. */
export const MAX_EDGE_LABELS = 60;

/** A node label as drawn (node index, font in CSS px, text, lines, whether whole). */
export interface DrawnLabel {
  index: number;
  font: number;
  text: string;
  lines: number;
  whole: boolean;
}

const FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif";

/** The usable text width inside a shape, as a fraction of its box width. */
function textWidthFraction(shape: number): number {
  return shape === Shape.Ellipse ? 0.78 : shape === Shape.House ? 0.88 : 0.9;
}

export class LabelLayer {
  /** Truncated strings by node index, with the key they were made for. */
  private fitCache = new Map<number, { key: number, label: string, text: string }>();
  /** Wrapped captions by node index, with the key they were made for. */
  private wrapCache = new Map<number, { key: string, wrap: Wrapped }>();
  private readonly placed = new PlacedRects();
  /** The hovered node's edge labels drawn so far this frame. */
  private readonly edgePlaced = new PlacedRects();
  /** Nodes looked at for labels in the last frame. */
  visited = 0;
  private readonly cands: number[] = [];
  private generation = -1;
  private readonly viewRect = { minX: 0, minY: 0, maxX: 0, maxY: 0 };
  /** The node labels of the last frame: node index, font size (CSS px), its text (lines
   *  joined), how many lines, and whether that is the whole caption. */
  drawn: DrawnLabel[] = [];

  /** Call when the scene was replaced, so cached strings are not reused. */
  reset(generation: number): void {
    if (generation !== this.generation) {
      this.generation = generation;
      this.fitCache.clear();
      this.wrapCache.clear();
    }
  }

  /** Forgets a node's cached strings (its data changed). */
  invalidate(i: number): void {
    this.fitCache.delete(i);
    this.wrapCache.delete(i);
  }

  /** Whether a draw at this zoom would put anything on the overlay. */
  wouldDraw(cam: Camera, scene: Scene): boolean {
    return scene.nodeCount > 0 && (scene.hovered >= 0 || scene.maxNodeHeight * cam.scale >= LABEL_MIN_HEIGHT);
  }

  draw(ctx: CanvasRenderingContext2D, cam: Camera, scene: Scene, now: number, pal: Palette): void {
    ctx.clearRect(0, 0, cam.width, cam.height);
    this.drawn = [];
    this.visited = 0;
    if (scene.nodeCount === 0) return;
    if (scene.maxNodeHeight * cam.scale >= LABEL_MIN_HEIGHT) this.drawNodeLabels(ctx, cam, scene, now, pal);
    if (scene.hovered >= 0 && scene.hovered < scene.nodeCount) this.drawEdgeLabels(ctx, cam, scene, now, pal);
  }

  private drawNodeLabels(ctx: CanvasRenderingContext2D, cam: Camera, scene: Scene, now: number, pal: Palette): void {
    const nd = scene.nodes.data;
    const scale = cam.scale;
    const vb = cam.visibleBounds(this.viewRect);
    // The nodes large enough to label, then placed most telling first (the selected and
    // hovered, claims, verifications, nodes with text), so that where two labels would
    // cover each other the more telling one is whole.
    const cands = this.cands;
    cands.length = 0;
    scene.grid.visit(vb.minX, vb.minY, vb.maxX, vb.maxY, (i) => {
      this.visited++;
      const o = i * NODE_STRIDE;
      if (nd[o + NH] * scale < LABEL_MIN_HEIGHT || nd[o + NW] * scale < 24) return;
      cands.push(i);
      return cands.length < MAX_LABELS;
    });
    const rank = (i: number) => {
      const f = nd[i * NODE_STRIDE + NFLAGS];
      if (f & (Flag.Selected | Flag.Hover)) return 0;
      if (f & Flag.Dim) return 5;
      const v = scene.views[i];
      return v.label === "Statement" ? 1 : v.label === "Verification" ? 2 : v.text ? 3 : 4;
    };
    cands.sort((a, b) => rank(a) - rank(b) || a - b);
    this.placed.clear();
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    let font = -1;
    for (const i of cands) {
      const o = i * NODE_STRIDE;
      const hS = nd[o + NH] * scale, wS = nd[o + NW] * scale;
      const shape = nd[o + NSHAPE];
      const nx = cam.worldToScreenX(scene.positionX(i, now));
      const sy = cam.worldToScreenY(scene.positionY(i, now));
      let sx = nx;
      // One size for all nodes at a zoom (12 px at 1:1), never below a readable 10 px.
      const size = Math.min(13, Math.max(MIN_FONT, Math.min(12 * scale, hS * 0.45)));
      if (size !== font) {
        font = size;
        ctx.font = `${size.toFixed(1)}px ${FONT}`;
      }
      const inner = wS * textWidthFraction(shape) - 6;
      const dim = (nd[o + NFLAGS] & Flag.Dim) !== 0;
      // The house's roof pushes its text down a little.
      let cy = sy + (shape === Shape.House ? hS * HOUSE_ROOF * 0.25 : 0);
      const view = scene.views[i];
      let lines: string[];
      let plate = false;
      let whole = true;
      const c = view.cluster;
      if (c) {
        // A cluster's box: its title over its count (on one line, the count first).
        const two = hS >= size * 3;
        const fit = this.fitted(ctx, i, size, inner, two ? c.title : `${c.members.toLocaleString("en")} · ${c.title}`,
          two ? `${c.members.toLocaleString("en")} node${c.members === 1 ? "" : "s"}` : "");
        lines = fit.text ? [fit.label, fit.text] : [fit.label];
        if (!this.placed.take(sx, cy, wS / 2, hS / 2)) continue;
      } else {
        const lineH = size * LINE_HEIGHT;
        // From the node's own width (at least eight font sizes), as wide as the whole text
        // needs in three lines, up to 24 font sizes (or a little wider than a wide node).
        const minW = Math.max(inner, 8 * size);
        const wrap = this.wrapped(ctx, i, scene, size, minW, Math.max(minW, Math.min(wS * 1.3, 24 * size)));
        lines = wrap.lines;
        whole = wrap.whole;
        plate = lines.length * lineH > hS - 2 || wrap.width > inner;
        const hw = wrap.width / 2 + PLATE_PAD, hh = (lines.length * lineH) / 2 + PLATE_PAD / 2;
        if (plate) {
          // A node at the canvas's edge keeps its whole label on the canvas.
          sx = inside(sx, hw, cam.width);
          cy = inside(cy, hh, cam.height);
        }
        if (plate && !this.placed.take(sx, cy, hw, hh)) {
          // No room for the whole text: what fits inside the node, on one line.
          const fit = this.fitted(ctx, i, size, inner, lines.join(" "), "");
          lines = fit.label ? [fit.label] : [];
          whole = false;
          plate = false;
          if (!this.placed.take(sx, cy, inner / 2, lineH / 2)) continue;
        } else if (!plate) {
          this.placed.take(sx, cy, wS / 2, hS / 2);
        }
      }
      if (lines.length === 0) continue;
      ctx.globalAlpha = dim ? pal.dimAlpha + 0.1 : 1;
      const lineH = size * LINE_HEIGHT;
      const top = cy - ((lines.length - 1) * lineH) / 2;
      if (plate) {
        let w = 0;
        for (const l of lines) w = Math.max(w, ctx.measureText(l).width);
        // See-through enough that the node's colour and shape still show under it.
        const a = ctx.globalAlpha;
        ctx.globalAlpha = a * PLATE_ALPHA;
        ctx.fillStyle = pal.labelBackground;
        ctx.beginPath();
        ctx.roundRect(sx - w / 2 - PLATE_PAD, top - lineH / 2 - PLATE_PAD / 2, w + 2 * PLATE_PAD, lines.length * lineH + PLATE_PAD, 4);
        ctx.fill();
        ctx.globalAlpha = a;
      }
      // On a plate, the text colour that goes with the plate (light on dark in the dark theme).
      ctx.fillStyle = plate ? pal.text : pal.nodeText;
      for (let k = 0; k < lines.length; k++) {
        if (c && k === 1) ctx.globalAlpha *= 0.75;
        ctx.fillText(lines[k], sx, top + k * lineH);
      }
      this.drawn.push({ index: i, font: size, text: lines.join(" "), lines: lines.length, whole });
      this.drawGlyph(ctx, nd[o + NSTATUS], shape, nx, sy, wS / 2, hS / 2, pal);
    }
    ctx.globalAlpha = 1;
  }

  /** The node's caption wrapped at this font and widths (cached until they change). */
  private wrapped(ctx: CanvasRenderingContext2D, i: number, scene: Scene, size: number, minW: number, maxW: number): Wrapped {
    const key = `${Math.round(size * 10)}:${Math.round(minW)}:${Math.round(maxW)}`;
    const hit = this.wrapCache.get(i);
    if (hit && hit.key === key) return hit.wrap;
    const caption = nodeCaption(scene.views[i], (id) => {
      const a = scene.index.get(id);
      const text = a === undefined ? null : scene.views[a]?.text;
      return text ?? undefined;
    });
    const wrap = balancedWrap(ctx, caption, minW, maxW, MAX_LINES);
    if (this.wrapCache.size > 20000) this.wrapCache.clear();
    this.wrapCache.set(i, { key, wrap });
    return wrap;
  }

  /** The status glyph inside the badge the node shader draws, when it is big enough. */
  private drawGlyph(ctx: CanvasRenderingContext2D, status: number, shape: number, sx: number, sy: number,
    hw: number, hh: number, pal: Palette): void {
    if (status <= 0) return;
    const br = Math.min(Math.min(hw, hh) * BADGE_RADIUS, 8);
    if (br < 5.5) return;
    let bx: number, by: number;
    if (shape === Shape.Ellipse) {
      bx = hw * 0.7071;
      by = -hh * 0.7071;
    } else if (shape === Shape.House) {
      bx = hw - 0.5 * br;
      by = -hh + 2 * hh * HOUSE_ROOF;
    } else {
      bx = hw - 0.5 * br;
      by = -hh + 0.5 * br;
    }
    const saved = ctx.font;
    ctx.font = `bold ${(br * 1.35).toFixed(1)}px ${FONT}`;
    ctx.fillStyle = pal.background;
    ctx.fillText(STATUS_GLYPH[status] ?? "", sx + bx, sy + by + br * 0.05);
    ctx.font = saved;
    ctx.fillStyle = pal.nodeText;
  }

  private fitted(ctx: CanvasRenderingContext2D, i: number, size: number, maxW: number, label: string, text: string) {
    const key = Math.round(size * 10) * 100000 + Math.max(0, Math.round(maxW)) * 2 + (text ? 1 : 0);
    const hit = this.fitCache.get(i);
    if (hit && hit.key === key) return hit;
    const entry = { key, label: fitText(ctx, label, maxW), text: text ? fitText(ctx, text, maxW) : "" };
    if (this.fitCache.size > 20000) this.fitCache.clear();
    this.fitCache.set(i, entry);
    return entry;
  }

  private drawEdgeLabels(ctx: CanvasRenderingContext2D, cam: Camera, scene: Scene, now: number, pal: Palette): void {
    const ed = scene.edges.data;
    const edges = scene.edgesOf(scene.hovered);
    ctx.font = `10.5px ${FONT}`;
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    let drawn = 0;
    this.edgePlaced.clear();
    for (const ei of edges) {
      if (ed[ei * EDGE_STRIDE + EFLAGS] & Flag.Hidden) continue;
      const s = scene.edgeSrc[ei], t = scene.edgeTgt[ei];
      if (s === t) continue;
      const x = cam.worldToScreenX((scene.positionX(s, now) + scene.positionX(t, now)) / 2);
      const y = cam.worldToScreenY((scene.positionY(s, now) + scene.positionY(t, now)) / 2);
      if (x < -50 || y < -20 || x > cam.width + 50 || y > cam.height + 20) continue;
      const label = scene.edgeViews[ei].type;
      const w = ctx.measureText(label).width + 8;
      // An agent's dozens of edges meet around it: a label over another is left out (both
      // would be unreadable).
      if (!this.edgePlaced.take(x, y, w / 2 + 1, EDGE_LABEL_H / 2 + 1)) continue;
      ctx.fillStyle = pal.labelBackground;
      ctx.fillRect(x - w / 2, y - EDGE_LABEL_H / 2, w, EDGE_LABEL_H);
      ctx.fillStyle = pal.text;
      ctx.fillText(label, x, y);
      if (++drawn >= MAX_EDGE_LABELS) break;
    }
  }
}

/** An edge label's height on screen (CSS px). */
const EDGE_LABEL_H = 16;

/** `c` moved so that `c ± half` stays within 0..size (when it was inside at all). */
function inside(c: number, half: number, size: number): number {
  if (c < 0 || c > size || 2 * half + 4 > size) return c;
  return Math.min(Math.max(c, half + 2), size - half - 2);
}

/** The longest prefix of `text` (plus "…") that fits in `maxW` pixels. */
export function fitText(ctx: { measureText(t: string): { width: number } }, text: string, maxW: number): string {
  const clean = text.replace(/\s+/g, " ").trim();
  if (maxW <= 0 || !clean) return "";
  if (ctx.measureText(clean).width <= maxW) return clean;
  const chars = Array.from(clean);
  let lo = 0, hi = chars.length;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (ctx.measureText(chars.slice(0, mid).join("") + "…").width <= maxW) lo = mid;
    else hi = mid - 1;
  }
  return lo === 0 ? "" : chars.slice(0, lo).join("").trimEnd() + "…";
}
