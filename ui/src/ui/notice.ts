// The notice above the canvas when a large graph shows one neighbourhood or its clusters:
// how big the graph is, what is shown (whose neighbourhood, which cluster opened), what to do,
// and "Back" to the view before; and when the graph is an audit bundle, that it is read-only.

import type { GraphModel } from "../graph/model";
import { clusterPath, clusterTitle, type Place } from "../graph/clusters";
import { nodeTitle } from "../trail/labels";
import { h, replace } from "./dom";

/** What the notice needs of the app. */
export interface NoticeHost {
  readonly model: Pick<GraphModel, "mode" | "root" | "nodes" | "totalNodes">;
  /** Roots of the neighbourhoods expanded before the current one. */
  readonly expandHistory: readonly Place[];
  back(): Promise<void>;
}

export class NeighbourhoodNotice {
  readonly el = h("div", { class: "notice", testid: "notice", hidden: true });

  constructor(private readonly host: NoticeHost) {}

  render(): void {
    const model = this.host.model;
    const back = this.host.expandHistory.length > 0
      ? h("button", { class: "btn btn-small", testid: "notice-back", onclick: () => void this.host.back() }, "← Back")
      : null;
    if (model.mode === "clusters" || model.mode === "members") {
      const path = model.root ? clusterPath(model.root).map(clusterTitle).join(" › ") : null;
      replace(this.el,
        h("span", { class: "notice-icon", "aria-hidden": "true" }, "i"),
        h("span", { testid: "notice-text" },
          model.mode === "clusters"
            ? [path ? "Showing " : `This graph has ${model.totalNodes.toLocaleString("en")} nodes, shown as clusters`,
              path ? h("strong", null, path) : null, path ? " as clusters" : null, ". Click a box to open it."]
            : [model.totalNodes > model.nodes.size
              ? `Showing the first ${model.nodes.size.toLocaleString("en")} of ${model.totalNodes.toLocaleString("en")} nodes of `
              : "Showing the nodes of ", h("strong", null, path ?? "a cluster"), "."]),
        back);
      this.el.hidden = false;
      return;
    }
    if (model.mode !== "neighbourhood") {
      // An audit bundle opened as a graph (`provex bundle`) is read-only.
      const bundle = [...model.nodes.values()].find((n) => n.label === "AuditBundle");
      if (bundle) {
        replace(this.el,
          h("span", { class: "notice-icon", "aria-hidden": "true" }, "i"),
          h("span", { testid: "notice-text" },
            "An audit bundle, opened read-only: its statements' trails as the bundle recorded them. ",
            "Check it with ", h("code", null, "provex verify FILE"), "."));
        this.el.hidden = false;
        return;
      }
      this.el.hidden = true;
      return;
    }
    const root = model.root;
    const rootNode = root ? model.nodes.get(root) : undefined;
    const name = rootNode ? nodeTitle(rootNode, 60) : root ?? "a node";
    replace(this.el,
      h("span", { class: "notice-icon", "aria-hidden": "true" }, "i"),
      h("span", null,
        `This graph has ${model.totalNodes.toLocaleString("en")} nodes; showing the neighbourhood of `,
        h("strong", null, name),
        ". Double-click a node to expand."),
      back);
    this.el.hidden = false;
  }
}
