// The notice above the canvas when a large graph shows one neighbourhood: how big the
// graph is, whose neighbourhood this is, and "Back" to the one before.

import type { GraphModel } from "../graph/model";
import { nodeTitle } from "../trail/labels";
import { h, replace } from "./dom";

/** What the notice needs of the app. */
export interface NoticeHost {
  readonly model: Pick<GraphModel, "mode" | "root" | "nodes" | "totalNodes">;
  /** Roots of the neighbourhoods expanded before the current one. */
  readonly expandHistory: readonly (string | null)[];
  back(): Promise<void>;
}

export class NeighbourhoodNotice {
  readonly el = h("div", { class: "notice", testid: "notice", hidden: true });

  constructor(private readonly host: NoticeHost) {}

  render(): void {
    const model = this.host.model;
    if (model.mode !== "neighbourhood") {
      this.el.hidden = true;
      return;
    }
    const root = model.root;
    const rootNode = root ? model.nodes.get(root) : undefined;
    const name = rootNode ? nodeTitle(rootNode, 60) : root ?? "a node";
    replace(this.el,
      h("span", { class: "notice-icon", "aria-hidden": "true" }, "ⓘ"),
      h("span", null,
        `This graph has ${model.totalNodes.toLocaleString("en")} nodes; showing the neighbourhood of `,
        h("strong", null, name),
        ". Double-click a node to expand."),
      this.host.expandHistory.length > 0 ? h("button", { class: "btn btn-small", onclick: () => void this.host.back() }, "← Back") : null);
    this.el.hidden = false;
  }
}
