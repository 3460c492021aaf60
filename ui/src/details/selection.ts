// The selected nodes: what a click, a search hit, a panel link or a walkthrough step
// selects, kept in step with the canvas, the open tab, and the Details and Trail panels.

import type { GraphCanvasApi } from "../canvas/types";
import type { GraphModel } from "../graph/model";
import type { SelectOptions, Tab } from "../shared/host";
import type { DetailsPanel } from "./details-panel";
import type { TrailView } from "../trail/trail-view";

/** What the selection needs of the app. */
export interface SelectionHost {
  readonly model: Pick<GraphModel, "mode" | "nodes" | "edges">;
  readonly canvas: Pick<GraphCanvasApi, "setSelection" | "setHighlight" | "focus">;
  readonly activeTab: Tab;
  showTab(tab: Tab): void;
  /** Re-centres a neighbourhood view on `id`. */
  expand(id: string): Promise<void>;
  /** The selection changed (the breadcrumb follows it). */
  selectionChanged(ids: string[]): void;
}

export class NodeSelection {
  ids: string[] = [];

  constructor(
    private readonly host: SelectionHost,
    private readonly details: Pick<DetailsPanel, "show" | "clearHighlightNote">,
    private readonly trail: Pick<TrailView, "show">,
  ) {}

  /** Selects a node (null: clears), updates the canvas and loads Details and Trail.
   *  Resolves when the panels have loaded. */
  async select(id: string | null, opts: SelectOptions = {}): Promise<void> {
    const { model, canvas } = this.host;
    if (id === null) {
      if (!opts.additive) this.clear();
      return;
    }
    // A large graph shows one neighbourhood: going to a node outside it re-centres there.
    if (model.mode === "neighbourhood" && !model.nodes.has(id) && opts.from !== "canvas") {
      await this.host.expand(id);
      return;
    }
    if (opts.additive) {
      const at = this.ids.indexOf(id);
      if (at >= 0) this.ids.splice(at, 1);
      else this.ids.push(id);
    } else {
      this.ids = [id];
    }
    canvas.setSelection(this.ids);
    this.host.selectionChanged(this.ids);
    const primary = this.ids[this.ids.length - 1];
    if (!primary) {
      this.clear();
      return;
    }
    if (opts.focus) canvas.focus(primary, 450);
    const statement = statementFor(model, primary);
    const label = model.nodes.get(primary)?.label;
    if (opts.from !== "walkthrough") {
      if (label === "Statement" && this.host.activeTab === "details") this.host.showTab("trail");
      else if (!statement && this.host.activeTab === "trail") this.host.showTab("details");
    }
    const verification = label === "Verification" ? primary : null;
    await Promise.all([
      this.details.show(this.ids),
      // The walkthrough shows its own step's trail.
      opts.from === "walkthrough" ? null : this.trail.show(statement, { verification }),
    ]);
  }

  clear(): void {
    this.ids = [];
    this.host.canvas.setSelection([]);
    this.host.selectionChanged([]);
    this.host.canvas.setHighlight(null);
    this.details.clearHighlightNote();
    void this.details.show([]);
  }

  /** After a view reload: keeps the selected nodes that are still drawn. */
  keepDrawn(): void {
    this.ids = this.ids.filter((id) => this.host.model.nodes.has(id));
    this.host.canvas.setSelection(this.ids);
    this.host.selectionChanged(this.ids);
  }
}

/** The statement whose trail a node belongs to: itself, the statement a verification
 *  validates, or the statement citing a chunk. */
export function statementFor(model: Pick<GraphModel, "nodes" | "edges">, id: string): string | null {
  const n = model.nodes.get(id);
  if (!n) return null;
  if (n.label === "Statement") return id;
  for (const e of model.edges.values()) {
    if (n.label === "Verification" && e.source === id && e.type === "VALIDATES") return e.target;
    if (n.label === "Chunk" && e.target === id && e.type === "CITES") return e.source;
  }
  return null;
}
