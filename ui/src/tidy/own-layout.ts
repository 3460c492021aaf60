// A viewer's own layout of a graph. Tidy up asks the core for a preview of the tidy-up (the
// layout it serves everyone is left alone), draws it, and keeps it in this browser (local
// storage, per graph) so a reload shows it again; a bar over the canvas says so and offers
// Undo (back through this viewer's tidy-ups to the shared layout), "Save for everyone" (the
// core tidies the layout it serves, and every viewer's drawing moves) and "Shared layout".

import type { Backend } from "../api/backend";
import type { NodeMove } from "../api/contract";
import type { GraphCanvasApi } from "../canvas/types";
import type { GraphModel } from "../graph/model";
import type { Notifier } from "../shared/host";
import { h } from "../shared/dom";

/** Node id → [x, y]. */
export type Positions = Record<string, [number, number]>;

const KEY_PREFIX = "provex.layout.";
/** How long moves are animated. */
const MOVE_MS = 600;

/** The local-storage key of a graph's own layout. */
export function storageKey(graph: string): string {
  return KEY_PREFIX + graph;
}

/** What the own layout needs of the app. */
export interface OwnLayoutHost {
  readonly backend: Pick<Backend, "tidy">;
  readonly graph: string | null;
  readonly model: Pick<GraphModel, "nodes" | "mode">;
  readonly canvas: Pick<GraphCanvasApi, "applyMoves">;
  readonly toasts: Notifier;
  /** Nodes moved in the model (the minimap follows). */
  nodesMoved(): void;
}

export class OwnLayout {
  private readonly text = h("span", { testid: "own-layout-text" });
  private readonly undoButton = h("button", { class: "btn btn-small", testid: "own-layout-undo", title: "Undo the last tidy-up", onclick: () => this.undo() }, "Undo");
  readonly el = h("div", { class: "own-layout", testid: "own-layout", role: "status", hidden: true },
    h("span", { class: "notice-icon", "aria-hidden": "true" }, "i"),
    this.text,
    this.undoButton,
    h("button", { class: "btn btn-small btn-primary", testid: "own-layout-save", title: "Tidy up the layout every viewer of this graph is shown", onclick: () => void this.saveForEveryone() }, "Save for everyone"),
    h("button", { class: "btn btn-small btn-ghost", testid: "own-layout-shared", title: "Forget your layout and show the one everyone is shown", onclick: () => this.useShared() }, "Shared layout"));
  /** The positions before each of this viewer's tidy-ups; the first is the shared layout. */
  private history: Positions[] = [];
  /** Where this viewer's own layout puts the nodes (null: the shared layout is shown). */
  private mine: Positions | null = null;

  constructor(private readonly app: OwnLayoutHost) {}

  /** Whether the drawing shows this viewer's own layout. */
  get active(): boolean {
    return this.history.length > 0;
  }

  /** Tidies the layout for this viewer alone. */
  async tidy(): Promise<void> {
    const graph = this.app.graph;
    if (!graph) return;
    if (this.app.model.mode !== "whole") {
      this.app.toasts.info("Tidy up lays out the whole graph; it is not offered in a cluster or neighbourhood view.");
      return;
    }
    try {
      const result = await this.app.backend.tidy({ graph });
      if (graph !== this.app.graph) return;
      const before = this.positions();
      const moves = result.moves.filter((m) => {
        const n = this.app.model.nodes.get(m.id);
        return !!n && (n.x !== m.x || n.y !== m.y);
      });
      if (moves.length === 0) {
        this.app.toasts.info("The layout is already tidy.");
        return;
      }
      this.history.push(before);
      this.move(moves, MOVE_MS, true);
      this.store();
      this.render();
    } catch (e) {
      this.app.toasts.error(e, "Tidy-up");
    }
  }

  /** Back to the layout before the last tidy-up (the shared one after the first). */
  undo(): void {
    const before = this.history.pop();
    if (!before) return;
    this.moveTo(before);
    if (this.history.length === 0) this.forget();
    else this.store();
    this.render();
  }

  /** Back to the layout everyone is shown. */
  useShared(): void {
    const shared = this.history[0];
    if (!shared) return;
    this.history = [];
    this.moveTo(shared);
    this.forget();
    this.render();
  }

  /** Makes the tidy-up the layout every viewer is shown. */
  async saveForEveryone(): Promise<void> {
    const graph = this.app.graph;
    if (!graph) return;
    try {
      // The core's own moves reach every viewer on the stream; this one takes them too.
      this.history = [];
      this.forget();
      this.render();
      const result = await this.app.backend.tidy({ graph, save: true });
      if (graph === this.app.graph) this.move(result.moves.filter((m) => this.app.model.nodes.has(m.id)));
      this.app.toasts.info("Saved: everyone viewing this graph now sees this layout.");
    } catch (e) {
      this.app.toasts.error(e, "Saving the layout");
    }
  }

  /** A view was drawn: the graph's own layout, if this browser kept one, is drawn over it. */
  viewShown(): void {
    this.history = [];
    this.mine = null;
    const graph = this.app.graph;
    const kept = graph && this.app.model.mode === "whole" ? load(graph) : null;
    if (kept) {
      const shared = this.positions();
      const moves: NodeMove[] = [];
      for (const [id, [x, y]] of Object.entries(kept)) if (this.app.model.nodes.has(id)) moves.push({ id, x, y });
      if (moves.length > 0) {
        this.history.push(shared);
        this.move(moves, 0);
        this.mine = this.positions();
      }
    }
    this.render();
  }

  /** The served layout moved (someone saved a tidy-up): while this viewer's own layout is
   *  shown, the moves change only what "Shared layout" goes back to. Returns whether they
   *  were kept out of the drawing. */
  sharedMoved(moves: readonly NodeMove[]): boolean {
    const shared = this.history[0];
    const mine = this.mine;
    if (!shared || !mine) return false;
    // The model has taken the moves already: nodes of this viewer's layout go back to where
    // it has them; nodes it does not place (arrived since) follow the shared layout.
    const follow: NodeMove[] = [];
    for (const m of moves) {
      shared[m.id] = [m.x, m.y];
      const n = this.app.model.nodes.get(m.id);
      const own = mine[m.id];
      if (n && own) [n.x, n.y] = own;
      else if (n) follow.push(m);
    }
    if (follow.length > 0) {
      this.app.canvas.applyMoves(follow, MOVE_MS);
      this.app.nodesMoved();
    }
    return true;
  }

  private render(): void {
    const steps = this.history.length;
    this.el.hidden = steps === 0;
    this.text.textContent = "Your own layout: only this browser shows it. Others see the shared layout until you save it for everyone.";
    this.undoButton.title = steps > 1 ? "Undo the last tidy-up" : "Undo: back to the shared layout";
  }

  /** Where the model's nodes are now. */
  private positions(): Positions {
    const out: Positions = {};
    for (const n of this.app.model.nodes.values()) out[n.id] = [n.x, n.y];
    return out;
  }

  private moveTo(p: Positions): void {
    const moves: NodeMove[] = [];
    for (const [id, [x, y]] of Object.entries(p)) {
      const n = this.app.model.nodes.get(id);
      if (n && (n.x !== x || n.y !== y)) moves.push({ id, x, y });
    }
    this.move(moves);
  }

  private move(moves: NodeMove[], ms = MOVE_MS, fit = false): void {
    for (const m of moves) {
      const n = this.app.model.nodes.get(m.id);
      if (n) {
        n.x = m.x;
        n.y = m.y;
      }
    }
    if (moves.length > 0) {
      this.app.canvas.applyMoves(moves, ms, { fit });
      this.app.nodesMoved();
    }
  }

  private store(): void {
    const graph = this.app.graph;
    this.mine = this.positions();
    if (!graph) return;
    try {
      localStorage.setItem(storageKey(graph), JSON.stringify(this.mine));
    } catch {
      this.app.toasts.info("Your layout could not be kept in this browser: it lasts until the page is reloaded.");
    }
  }

  private forget(): void {
    this.mine = null;
    const graph = this.app.graph;
    if (!graph) return;
    try {
      localStorage.removeItem(storageKey(graph));
    } catch {
      // nothing was kept
    }
  }
}

/** A graph's own layout as this browser kept it, or null. */
export function load(graph: string): Positions | null {
  try {
    const text = localStorage.getItem(storageKey(graph));
    if (!text) return null;
    const value: unknown = JSON.parse(text);
    if (!value || typeof value !== "object" || Array.isArray(value)) return null;
    const out: Positions = {};
    for (const [id, p] of Object.entries(value as Record<string, unknown>)) {
      if (Array.isArray(p) && p.length === 2 && p.every((v) => typeof v === "number" && Number.isFinite(v))) out[id] = [p[0], p[1]];
    }
    return out;
  } catch {
    return null;
  }
}
