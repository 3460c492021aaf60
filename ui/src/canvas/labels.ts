//! Text the GPU does not draw, on a 2D canvas over the WebGL one: node labels once nodes
//! are large enough to read (only nodes on screen, capped), the relation names of the
//! hovered node's edges, and the glyph inside large status badges.

import type { Camera } from "./camera";
import { EFLAGS, EDGE_STRIDE, Flag, NFLAGS, NH, NODE_STRIDE, NSHAPE, NSTATUS, NW, type Scene } from "./scene";
import { BADGE_RADIUS, HOUSE_ROOF, STATUS_GLYPH, Shape, type Palette } from "./style";

/** Node labels appear when a node is at least this tall on screen (CSS px). */
export const LABEL_MIN_HEIGHT = 16;
/** Smallest font of a node label (CSS px). */
export const MIN_FONT = 10;
/** Most node labels drawn in one frame. */
export const MAX_LABELS = 600;
/** Most edge labels drawn for the hovered node. */
export const MAX_EDGE_LABELS = 60;

const FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif";

/** The usable text width inside a shape, as a fraction of its box width. */
function textWidthFraction(shape: number): number {
  return shape === Shape.Ellipse ? 0.78 : shape === Shape.House ? 0.88 : 0.9;
}

export class LabelLayer {
  /** Truncated strings by node index, with the key they were made for. */
  private fitCache = new Map<number, { key: number, label: string, text: string }>();
  private generation = -1;
  private readonly viewRect = { minX: 0, minY: 0, maxX: 0, maxY: 0 };
  /** The node labels of the last frame: node index, font size (CSS px), first line. */
  drawn: { index: number, font: number, text: string }[] = [];

  /** Call when the scene was replaced, so cached strings are not reused. */
  reset(generation: number): void {
    if (generation !== this.generation) {
      this.generation = generation;
      this.fitCache.clear();
    }
  }

  /** Forgets a node's cached strings (its data changed). */
  invalidate(i: number): void {
    this.fitCache.delete(i);
  }

  /** Whether a draw at this zoom would put anything on the overlay. */
  wouldDraw(cam: Camera, scene: Scene): boolean {
    return scene.nodeCount > 0 && (scene.hovered >= 0 || scene.maxNodeHeight * cam.scale >= LABEL_MIN_HEIGHT);
  }

  draw(ctx: CanvasRenderingContext2D, cam: Camera, scene: Scene, now: number, pal: Palette): void {
    ctx.clearRect(0, 0, cam.width, cam.height);
    this.drawn = [];
    if (scene.nodeCount === 0) return;
    if (scene.maxNodeHeight * cam.scale >= LABEL_MIN_HEIGHT) this.drawNodeLabels(ctx, cam, scene, now, pal);
    if (scene.hovered >= 0 && scene.hovered < scene.nodeCount) this.drawEdgeLabels(ctx, cam, scene, now, pal);
  }

  private drawNodeLabels(ctx: CanvasRenderingContext2D, cam: Camera, scene: Scene, now: number, pal: Palette): void {
    const nd = scene.nodes.data;
    const scale = cam.scale;
    const vb = cam.visibleBounds(this.viewRect);
    let drawn = 0;
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    let font = -1;
    scene.grid.visit(vb.minX, vb.minY, vb.maxX, vb.maxY, (i) => {
      const o = i * NODE_STRIDE;
      const hS = nd[o + NH] * scale, wS = nd[o + NW] * scale;
      if (hS < LABEL_MIN_HEIGHT || wS < 24) return;
      const shape = nd[o + NSHAPE];
      const sx = cam.worldToScreenX(scene.positionX(i, now));
      const sy = cam.worldToScreenY(scene.positionY(i, now));
      // One size for all nodes at a zoom (12 px at 1:1), never below a readable 10 px.
      const size = Math.min(13, Math.max(MIN_FONT, Math.min(12 * scale, hS * 0.45)));
      if (size !== font) {
        font = size;
        ctx.font = `${size.toFixed(1)}px ${FONT}`;
      }
      const view = scene.views[i];
      const maxW = wS * textWidthFraction(shape) - 6;
      const twoLines = hS >= size * 3 && !!view.text;
      // On one line, what the node says (a claim's text) tells more than its type, which its
      // shape and colour show already.
      const first = twoLines ? view.label || view.id : view.text || view.label || view.id;
      // A cluster's box: its title over its count (on one line, the count first).
      const c = view.cluster;
      const fit = c
        ? this.fitted(ctx, i, size, maxW, twoLines ? c.title : first, twoLines ? `${c.members.toLocaleString("en")} node${c.members === 1 ? "" : "s"}` : "")
        : this.fitted(ctx, i, size, maxW, first, twoLines ? view.text ?? "" : "");
      const dim = (nd[o + NFLAGS] & Flag.Dim) !== 0;
      ctx.globalAlpha = dim ? pal.dimAlpha + 0.1 : 1;
      ctx.fillStyle = pal.nodeText;
      // The house's roof pushes its text down a little.
      const dy = shape === Shape.House ? hS * HOUSE_ROOF * 0.25 : 0;
      if (fit.label) this.drawn.push({ index: i, font: size, text: fit.label });
      if (twoLines) {
        ctx.fillText(fit.label, sx, sy + dy - size * 0.6);
        ctx.globalAlpha *= 0.75;
        ctx.fillText(fit.text, sx, sy + dy + size * 0.7);
      } else {
        ctx.fillText(fit.label, sx, sy + dy);
      }
      this.drawGlyph(ctx, nd[o + NSTATUS], shape, sx, sy, wS / 2, hS / 2, pal);
      return ++drawn < MAX_LABELS;
    });
    ctx.globalAlpha = 1;
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
    const edges = scene.adj[scene.hovered];
    ctx.font = `10.5px ${FONT}`;
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    let drawn = 0;
    for (const ei of edges) {
      if (ed[ei * EDGE_STRIDE + EFLAGS] & Flag.Hidden) continue;
      const s = scene.edgeSrc[ei], t = scene.edgeTgt[ei];
      if (s === t) continue;
      const x = cam.worldToScreenX((scene.positionX(s, now) + scene.positionX(t, now)) / 2);
      const y = cam.worldToScreenY((scene.positionY(s, now) + scene.positionY(t, now)) / 2);
      if (x < -50 || y < -20 || x > cam.width + 50 || y > cam.height + 20) continue;
      const label = scene.edgeViews[ei].type;
      const w = ctx.measureText(label).width + 8;
      ctx.fillStyle = pal.labelBackground;
      ctx.fillRect(x - w / 2, y - 8, w, 16);
      ctx.fillStyle = pal.text;
      ctx.fillText(label, x, y);
      if (++drawn >= MAX_EDGE_LABELS) break;
    }
  }
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
