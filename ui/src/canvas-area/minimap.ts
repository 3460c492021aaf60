// The minimap: the whole drawing small in the canvas's corner, with the part on
// screen outlined; a click or drag there moves the view to that place.
//
// The nodes are drawn once per graph change into a bitmap of their own (counted into
// pixels, not drawn one by one: 50,000 fillRects took 55-80 ms), and each move of the view
// only puts that bitmap back and outlines the view: a constant cost whatever the graph's size.

import type { ViewNode } from "../api/contract";
import type { Bounds } from "../canvas/camera";
import { palette } from "../canvas/style";
import type { Theme } from "../canvas/types";
import { h } from "../shared/dom";

/** The minimap's size in CSS px. */
export const MINI_W = 200, MINI_H = 130;
const PAD = 6;

/** What the minimap needs of the app. */
export interface MinimapHost {
  /** Moves the view so that the world point (x, y) is at its centre. */
  centerOn(x: number, y: number): void;
}

export class Minimap {
  readonly el = h("canvas", {
    class: "minimap", testid: "minimap", width: MINI_W, height: MINI_H,
    role: "img", "aria-label": "Minimap of the whole graph; click to move the view there", hidden: true,
  });
  private world: Bounds | null = null;
  private points: Float32Array = new Float32Array(0);
  /** Each node's half width and half height (world px), beside `points`. */
  private halves: Float32Array = new Float32Array(0);
  private view: Bounds | null = null;
  private dragging = false;
  /** The nodes drawn once (see paintNodes), and whether they need drawing again. */
  private nodesLayer: HTMLCanvasElement | null = null;
  private nodesStale = true;
  /** Told when the nodes drawn change (the dock places the minimap again). */
  onNodes: (() => void) | null = null;
  /** Drawing operations the last draw made, and pixels it sent (for the frame cost). */
  lastOps = 0;
  lastUploadBytes = 0;

  constructor(private readonly host: MinimapHost, private colours = { node: "#7a8599", view: "#d6336c", background: "#ffffffcc" }) {
    const go = (ev: PointerEvent) => {
      const r = this.el.getBoundingClientRect();
      const w = this.toWorld(ev.clientX - r.left, ev.clientY - r.top);
      if (w) this.host.centerOn(w.x, w.y);
    };
    this.el.addEventListener("pointerdown", (ev) => {
      this.dragging = true;
      this.el.setPointerCapture?.(ev.pointerId);
      go(ev);
    });
    this.el.addEventListener("pointermove", (ev) => { if (this.dragging) go(ev); });
    this.el.addEventListener("pointerup", () => { this.dragging = false; });
  }

  setColours(colours: { node: string, view: string, background: string }): void {
    this.colours = colours;
    this.nodesStale = true;
    this.draw();
  }

  /** The drawing to show: node centres (all nodes, kept until the next call). */
  setNodes(nodes: Iterable<ViewNode>): void {
    // Written straight into typed arrays: no list of 100,000 boxed numbers to collect.
    const list = Array.isArray(nodes) ? nodes as readonly ViewNode[] : [...nodes];
    const pts = new Float32Array(list.length * 2), halves = new Float32Array(list.length * 2);
    let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
    for (let i = 0; i < list.length; i++) {
      const n = list[i], hw = n.w / 2, hh = n.h / 2;
      pts[2 * i] = n.x;
      pts[2 * i + 1] = n.y;
      halves[2 * i] = hw;
      halves[2 * i + 1] = hh;
      if (n.x - hw < minX) minX = n.x - hw;
      if (n.x + hw > maxX) maxX = n.x + hw;
      if (n.y - hh < minY) minY = n.y - hh;
      if (n.y + hh > maxY) maxY = n.y + hh;
    }
    this.points = pts;
    this.halves = halves;
    this.world = list.length ? { minX, minY, maxX, maxY } : null;
    this.el.hidden = !this.world;
    this.nodesStale = true;
    this.draw();
    this.onNodes?.();
  }

  /** How many nodes' boxes reach into the world rectangle `r` (to place the minimap where
   *  it covers none). */
  countIn(r: Bounds): number {
    const pts = this.points, hv = this.halves;
    let n = 0;
    for (let i = 0; i < pts.length; i += 2) {
      const x = pts[i], y = pts[i + 1], hw = hv[i], hh = hv[i + 1];
      if (x + hw >= r.minX && x - hw <= r.maxX && y + hh >= r.minY && y - hh <= r.maxY) n++;
    }
    return n;
  }

  /** The world rectangle on screen now (nothing is drawn when it is the same as before). */
  setView(view: Bounds): void {
    const v = this.view;
    this.lastOps = 0;
    this.lastUploadBytes = 0;
    if (v && v.minX === view.minX && v.minY === view.minY && v.maxX === view.maxX && v.maxY === view.maxY) return;
    this.view = { ...view };
    this.draw();
  }

  private scale(): { s: number, ox: number, oy: number } | null {
    const b = this.world;
    if (!b) return null;
    const s = Math.min((MINI_W - 2 * PAD) / Math.max(b.maxX - b.minX, 1), (MINI_H - 2 * PAD) / Math.max(b.maxY - b.minY, 1));
    const ox = PAD + ((MINI_W - 2 * PAD) - (b.maxX - b.minX) * s) / 2 - b.minX * s;
    const oy = PAD + ((MINI_H - 2 * PAD) - (b.maxY - b.minY) * s) / 2 - b.minY * s;
    return { s, ox, oy };
  }

  /** Where a world point is on the minimap (CSS px), or null with nothing drawn. */
  toMini(x: number, y: number): { x: number, y: number } | null {
    const m = this.scale();
    return m ? { x: x * m.s + m.ox, y: y * m.s + m.oy } : null;
  }

  /** The world point under a minimap point (CSS px), or null with nothing drawn. */
  toWorld(px: number, py: number): { x: number, y: number } | null {
    const m = this.scale();
    return m ? { x: (px - m.ox) / m.s, y: (py - m.oy) / m.s } : null;
  }

  private draw(): void {
    const ctx = this.el.getContext?.("2d");
    const m = this.scale();
    if (!ctx || !m) return;
    if (this.nodesStale) this.paintNodes(m);
    ctx.clearRect(0, 0, MINI_W, MINI_H);
    ctx.fillStyle = this.colours.background;
    ctx.fillRect(0, 0, MINI_W, MINI_H);
    if (this.nodesLayer) ctx.drawImage(this.nodesLayer, 0, 0);
    this.lastOps += 3;
    const v = this.view;
    if (v) {
      ctx.strokeStyle = this.colours.view;
      ctx.lineWidth = 1.5;
      ctx.strokeRect(v.minX * m.s + m.ox, v.minY * m.s + m.oy, (v.maxX - v.minX) * m.s, (v.maxY - v.minY) * m.s);
      this.lastOps++;
    }
  }

  /** Draws the nodes into their own bitmap: each a 1.5 px square, as coverage summed per
   *  pixel in the node colour (as overlapping translucent-edged squares would look). */
  private paintNodes(m: { s: number, ox: number, oy: number }): void {
    this.nodesStale = false;
    const layer = this.nodesLayer ?? (this.nodesLayer = this.el.ownerDocument.createElement("canvas"));
    layer.width = MINI_W;
    layer.height = MINI_H;
    const ctx = layer.getContext?.("2d");
    const img = ctx?.createImageData?.(MINI_W, MINI_H);
    if (!ctx || !img) {
      this.nodesLayer = null;
      return;
    }
    const cover = new Float32Array(MINI_W * MINI_H);
    const pts = this.points;
    for (let i = 0; i < pts.length; i += 2) {
      // A 1.5 px square's coverage of the (up to) 2 x 2 pixels under it.
      const x0 = pts[i] * m.s + m.ox - 0.75, y0 = pts[i + 1] * m.s + m.oy - 0.75;
      const px = Math.floor(x0), py = Math.floor(y0);
      for (let yy = py; yy <= py + 2; yy++) {
        if (yy < 0 || yy >= MINI_H) continue;
        const cy = Math.min(yy + 1, y0 + 1.5) - Math.max(yy, y0);
        if (cy <= 0) continue;
        for (let xx = px; xx <= px + 2; xx++) {
          if (xx < 0 || xx >= MINI_W) continue;
          const cx = Math.min(xx + 1, x0 + 1.5) - Math.max(xx, x0);
          if (cx > 0) cover[yy * MINI_W + xx] += cx * cy;
        }
      }
    }
    const [r, g, b] = rgb(this.colours.node);
    const d = img.data;
    for (let p = 0; p < cover.length; p++) {
      const a = cover[p];
      if (a <= 0) continue;
      d[4 * p] = r;
      d[4 * p + 1] = g;
      d[4 * p + 2] = b;
      d[4 * p + 3] = a >= 1 ? 255 : Math.round(a * 255);
    }
    ctx.putImageData(img, 0, 0);
    this.lastOps++;
    this.lastUploadBytes += d.length;
  }
}

/** A #rrggbb colour's channels (0..255). */
function rgb(hex: string): [number, number, number] {
  const m = /^#?([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})/i.exec(hex);
  return m ? [parseInt(m[1], 16), parseInt(m[2], 16), parseInt(m[3], 16)] : [107, 117, 133];
}

/** The minimap's colours in a theme: the canvas's selection colour outlines the view. */
export function minimapColours(theme: Theme): { node: string, view: string, background: string } {
  const pal = palette(theme);
  return { node: theme === "dark" ? "#8c95a5" : "#6b7585", view: pal.selection, background: `${pal.background}d9` };
}
