// The minimap (issue 16): the whole drawing small in the canvas's corner, with the part on
// screen outlined; a click or drag there moves the view to that place.

import type { ViewNode } from "../api/contract";
import type { Bounds } from "../canvas/camera";
import { palette } from "../canvas/style";
import type { Theme } from "../canvas/types";
import { h } from "./dom";

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
  private view: Bounds | null = null;
  private dragging = false;

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
    this.draw();
  }

  /** The drawing to show: node centres (all nodes, kept until the next call). */
  setNodes(nodes: Iterable<ViewNode>): void {
    const pts: number[] = [];
    const b = { minX: Infinity, minY: Infinity, maxX: -Infinity, maxY: -Infinity };
    for (const n of nodes) {
      pts.push(n.x, n.y);
      b.minX = Math.min(b.minX, n.x - n.w / 2);
      b.maxX = Math.max(b.maxX, n.x + n.w / 2);
      b.minY = Math.min(b.minY, n.y - n.h / 2);
      b.maxY = Math.max(b.maxY, n.y + n.h / 2);
    }
    this.points = Float32Array.from(pts);
    this.world = pts.length ? b : null;
    this.el.hidden = !this.world;
    this.draw();
  }

  /** The world rectangle on screen now. */
  setView(view: Bounds): void {
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
    ctx.clearRect(0, 0, MINI_W, MINI_H);
    ctx.fillStyle = this.colours.background;
    ctx.fillRect(0, 0, MINI_W, MINI_H);
    ctx.fillStyle = this.colours.node;
    for (let i = 0; i < this.points.length; i += 2) {
      ctx.fillRect(this.points[i] * m.s + m.ox - 0.75, this.points[i + 1] * m.s + m.oy - 0.75, 1.5, 1.5);
    }
    const v = this.view;
    if (v) {
      ctx.strokeStyle = this.colours.view;
      ctx.lineWidth = 1.5;
      ctx.strokeRect(v.minX * m.s + m.ox, v.minY * m.s + m.oy, (v.maxX - v.minX) * m.s, (v.maxY - v.minY) * m.s);
    }
  }
}

/** The minimap's colours in a theme: the canvas's selection colour outlines the view. */
export function minimapColours(theme: Theme): { node: string, view: string, background: string } {
  const pal = palette(theme);
  return { node: theme === "dark" ? "#8c95a5" : "#6b7585", view: pal.selection, background: `${pal.background}d9` };
}
