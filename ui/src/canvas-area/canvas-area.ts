// The canvas's part of the page: the section the canvas draws in, the message shown over
// it (empty graph, no canvas), the hint that new nodes landed out of view, the legend, the
// hover card and the minimap. The camera never moves by itself (nothing drawn jumps), so the
// hint says so and offers to fit.

import type { ViewNode } from "../api/contract";
import type { FrameCost } from "../canvas/cost";
import type { GraphCanvasApi, Theme } from "../canvas/types";
import { h } from "../shared/dom";
import { HoverCard } from "./hover-card";
import { Legend } from "./legend";
import { Minimap, minimapColours } from "./minimap";
import { MinimapDock } from "./minimap-dock";

/** What the canvas area needs of the app: the canvas, once made. */
export interface CanvasAreaHost {
  readonly canvas: Pick<GraphCanvasApi, "fit" | "screenPosition" | "centerOn">;
}

export class CanvasArea {
  readonly el = h("section", { class: "canvas", testid: "canvas", "aria-label": "Provenance graph" });
  private message = h("div", { class: "canvas-message", hidden: true });
  private offscreen = h("button", { class: "offscreen-hint", testid: "offscreen-hint", hidden: true, onclick: () => this.fit() });
  private offscreenCount = 0;
  readonly legend: Legend;
  /** A node's essentials beside it while the pointer rests on it. */
  readonly hoverCard = new HoverCard();
  readonly minimap = new Minimap({ centerOn: (x, y) => this.host.canvas.centerOn(x, y) });
  /** The minimap and its button, in a corner the drawing leaves free. */
  readonly minimapDock = new MinimapDock(this.minimap, () => ({ width: this.el.clientWidth, height: this.el.clientHeight }));

  /** The hover card and the minimap are the app's to place among the other overlays. */
  constructor(private readonly host: CanvasAreaHost, theme: Theme) {
    this.legend = new Legend(theme);
    this.el.appendChild(this.message);
    this.el.appendChild(this.offscreen);
    this.el.appendChild(this.legend.el);
    this.minimap.setColours(minimapColours(theme));
  }

  setTheme(theme: Theme): void {
    this.legend.setTheme(theme);
    this.minimap.setColours(minimapColours(theme));
  }

  /** The pointer rests on node `n` (null: on none): its hover card. */
  hover(n: ViewNode | null, names: ReadonlyMap<string, string>): void {
    this.hoverCard.show(n, n ? this.host.canvas.screenPosition(n.id) : null, this.el.clientWidth, this.el.clientHeight, names);
  }

  /** The camera moved: the minimap follows (its cost counted in the frame's, when measured). */
  viewMoved(v: { minX: number, minY: number, maxX: number, maxY: number }, cost?: FrameCost): void {
    this.minimapDock.viewMoved(v);
    if (!cost) {
      this.minimap.setView(v);
      return;
    }
    cost.time("minimap", () => this.minimap.setView(v));
    cost.layers.minimap.drawCalls += this.minimap.lastOps;
    cost.upload("minimap", this.minimap.lastUploadBytes);
  }

  showMessage(text: string): void {
    this.message.textContent = text;
    this.message.hidden = false;
  }

  hideMessage(): void {
    this.message.hidden = true;
  }

  /** Fits the whole graph in view, and forgets new nodes that were out of it. */
  fit(): void {
    this.host.canvas.fit();
    this.forgetOffscreen();
  }

  /** A new drawing: no node is out of view yet. */
  forgetOffscreen(): void {
    this.offscreenCount = 0;
    this.offscreen.hidden = true;
  }

  /** Counts newly drawn nodes that landed outside the visible canvas. */
  noteOffscreen(added: { id: string }[]): void {
    const w = this.el.clientWidth;
    const hgt = this.el.clientHeight;
    if (w === 0 || hgt === 0) return;
    for (const n of added) {
      const at = this.host.canvas.screenPosition(n.id);
      if (at && (at.x < 0 || at.y < 0 || at.x > w || at.y > hgt)) this.offscreenCount++;
    }
    if (this.offscreenCount > 0) {
      const n = this.offscreenCount;
      this.offscreen.textContent = `${n.toLocaleString("en")} new node${n === 1 ? "" : "s"} out of view · Fit (F)`;
      this.offscreen.hidden = false;
    }
  }
}
