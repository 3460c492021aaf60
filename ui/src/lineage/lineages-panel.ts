// The Lineages tab: the open graph's prompt lineages, each opening the lineage
// view over the canvas (lineage-view.ts). The tab is offered only when the graph has
// lineages. It also opens the view for a Prompt node selected on the graph, and keeps the
// list and the open view current while the live stream brings new prompts (one re-fetch
// per burst, not one per batch).

import type { Backend } from "../api/backend";
import type { LineageSummary } from "../api/contract";
import type { GraphModel } from "../graph/model";
import type { SelectFn } from "../shared/host";
import { when } from "./tree-layout";
import { h } from "../shared/dom";
import { LineageView, titleOf } from "./lineage-view";
import { ListPanel } from "../live/list-panel";

/** How long after the first new prompt of a burst the list and the open view re-fetch. */
export const LIVE_MS = 600;

/** Labels of the nodes a lineage is made of. */
const LINEAGE_LABELS = new Set(["Prompt"]);

/** What the Lineages tab needs of the app. */
export interface LineagesHost {
  readonly backend: Pick<Backend, "lineages" | "lineage" | "lineageCompare">;
  readonly graph: string | null;
  readonly model: Pick<GraphModel, "nodes" | "mode">;
  select: SelectFn;
  /** Offers the Lineages tab (or takes it away). */
  lineagesAvailable(available: boolean): void;
}

export class LineagesPanel extends ListPanel<LineageSummary> {
  readonly view: LineageView;

  constructor(app: LineagesHost) {
    const view = new LineageView(app);
    super({ class: "lineages", testid: "lineages", doing: "list the prompt lineages" }, {
      get graph() { return app.graph; },
      get model() { return app.model; },
      labels: LINEAGE_LABELS,
      delayMs: LIVE_MS,
      fetch: (graph) => app.backend.lineages({ graph }),
      view,
      available: (yes) => app.lineagesAvailable(yes),
    });
    this.view = view;
    this.view.onChange = () => this.render();
    this.render();
  }

  get lineages(): readonly LineageSummary[] {
    return this.list;
  }

  /** A Prompt node was selected on the graph: opens its lineage with it picked. */
  openFor(nodeId: string): Promise<void> {
    return this.view.open(nodeId, true);
  }

  protected render(): void {
    const open = this.view.lineageId;
    this.draw(
      ["This graph has no prompt lineages.", "Ingest prompt-lineage records (Ingest ▸) to see how prompts were refined, forked and merged."],
      "A lineage is one prompt's versions, each refined, forked, merged or reverted from an earlier one. Open one to see its version tree, compare two versions word by word, or replay how it grew.",
      "Prompt lineages",
      () => h("ul", { class: "lineage-list", testid: "lineage-list" }, this.list.map((l) => h("li", null,
        h("button", {
          class: `lineage-row${l.lineage_id === open ? " current" : ""}`, testid: "lineage-row", "data-lineage": l.lineage_id, "data-root": l.root ?? "",
          disabled: !l.root, title: l.root ? "Open its version tree" : "Its first version has not arrived yet",
          onclick: () => { if (l.root) void this.view.open(l.root); },
        },
        h("span", { class: "lineage-row-title" }, `“${titleOf(l.title, 14)}”`),
        h("span", { class: "lineage-row-meta" },
          `${l.prompts} version${l.prompts === 1 ? "" : "s"} · ${l.heads} head${l.heads === 1 ? "" : "s"} · ${when(l.first)}${l.last !== l.first ? ` – ${when(l.last)}` : ""} UTC`))))));
  }
}
