//! Where the minimap sits over the canvas, so that it never covers what it maps: once the
//! view comes to rest, the minimap moves to a corner of the canvas with no node under it
//! (bottom right first), and folds away behind its button when every corner has nodes. The
//! button folds and unfolds it by hand too; that choice is kept in this browser.

import type { Bounds } from "../canvas/camera";
import { h } from "../shared/dom";
import { MINI_H, MINI_W, type Minimap } from "./minimap";

/** The corners tried, in order: bottom right, top right, top left, bottom left. */
export const CORNERS = ["br", "tr", "tl", "bl"] as const;
export type Corner = (typeof CORNERS)[number];

/** The gap between the minimap and the canvas's edge, and what a corner keeps clear below
 *  (bottom corners sit above the legend and the hints), in CSS px; `CLEAR` is the margin
 *  kept around it free of nodes (labels overhang their nodes a little). */
const EDGE = 12, BOTTOM = 52, CLEAR = 10;
/** How long the view rests before the minimap is placed again. */
const REST_MS = 180;
const STORE_KEY = "provex.minimap";

/** Where the minimap's box is on the canvas (CSS px) in a corner of a w × h canvas. */
export function cornerBox(corner: Corner, w: number, hgt: number): { left: number, top: number, right: number, bottom: number } {
  const left = corner === "tl" || corner === "bl" ? EDGE : w - EDGE - MINI_W;
  const top = corner === "tl" || corner === "tr" ? EDGE : hgt - BOTTOM - MINI_H;
  return { left, top, right: left + MINI_W, bottom: top + MINI_H };
}

/** The first corner whose box (with its margin) covers no node, or null when all do.
 *  `count` says how many nodes reach into a world rectangle. */
export function freeCorner(view: Bounds, w: number, hgt: number, count: (r: Bounds) => number): Corner | null {
  if (w <= 0 || hgt <= 0 || view.maxX <= view.minX) return "br";
  const sx = (view.maxX - view.minX) / w, sy = (view.maxY - view.minY) / hgt;
  for (const c of CORNERS) {
    const b = cornerBox(c, w, hgt);
    const r = {
      minX: view.minX + (b.left - CLEAR) * sx, maxX: view.minX + (b.right + CLEAR) * sx,
      minY: view.minY + (b.top - CLEAR) * sy, maxY: view.minY + (b.bottom + CLEAR) * sy,
    };
    if (count(r) === 0) return c;
  }
  return null;
}

export class MinimapDock {
  private readonly toggle = h("button", {
    class: "minimap-toggle", testid: "minimap-toggle", type: "button",
    onclick: () => this.setOpen(!this.open),
  });
  readonly el = h("div", { class: "minimap-dock", testid: "minimap-dock", "data-corner": "br", hidden: true });
  /** The viewer's choice: shown (unless it would cover nodes) or folded. */
  private open = readChoice();
  /** Shown although every corner has nodes: the viewer asked for it. */
  private forced = false;
  private view: Bounds | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(private readonly minimap: Minimap, private readonly size: () => { width: number, height: number }) {
    this.el.append(this.minimap.el, this.toggle);
    this.minimap.onNodes = () => this.place();
    this.render(true);
  }

  /** The camera moved: placed again once it rests. */
  viewMoved(v: Bounds): void {
    this.view = { minX: v.minX, minY: v.minY, maxX: v.maxX, maxY: v.maxY };
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.place();
    }, REST_MS);
  }

  /** Puts the minimap in a free corner, or folds it when there is none. */
  place(): void {
    this.el.hidden = this.minimap.el.hidden;
    if (this.el.hidden) return;
    const { width, height } = this.size();
    const corner = this.view ? freeCorner(this.view, width, height, (r) => this.minimap.countIn(r)) : "br";
    if (corner) this.el.dataset.corner = corner;
    this.render(corner !== null);
  }

  private setOpen(open: boolean): void {
    this.open = open;
    this.forced = open;
    writeChoice(open);
    this.place();
  }

  /** Shows the map or only its button; `room`: a corner is free of nodes. */
  private render(room: boolean): void {
    const shown = this.open && (room || this.forced);
    this.el.classList.toggle("minimap-folded", !shown);
    this.el.dataset.state = shown ? "open" : this.open ? "no-room" : "folded";
    this.toggle.textContent = shown ? "×" : "Map";
    const title = shown ? "Hide the minimap"
      : this.open ? "Show the minimap (hidden: every corner of the view has nodes under it)" : "Show the minimap";
    this.toggle.title = title;
    this.toggle.setAttribute("aria-label", title);
    this.toggle.setAttribute("aria-expanded", String(shown));
  }
}

function readChoice(): boolean {
  try {
    return localStorage.getItem(STORE_KEY) !== "folded";
  } catch {
    return true;
  }
}

function writeChoice(open: boolean): void {
  try {
    localStorage.setItem(STORE_KEY, open ? "open" : "folded");
  } catch {
    // not kept
  }
}
