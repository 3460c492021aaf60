// Where the selection sits, above the side panels: graph › its claim or
// conversation › the node. The graph crumb fits the graph; a claim crumb selects the claim.

import type { ViewNode } from "../api/contract";
import { h } from "../shared/dom";

/** What the breadcrumb needs of the app. */
export interface BreadcrumbHost {
  fitView(): void;
  select(id: string): void;
}

/** A node's short name: its text, else the end of its id. */
export function shortName(n: ViewNode, max = 48): string {
  const text = (n.text ?? "").replace(/\s+/g, " ").trim();
  const base = text || (n.id.split(/[:/#]/).filter(Boolean).pop() ?? n.id);
  return base.length > max ? `${base.slice(0, max - 1).trimEnd()}…` : base;
}

export class Breadcrumb {
  private readonly list = h("ol", { class: "breadcrumb-list" });
  readonly el = h("nav", { class: "breadcrumb", testid: "breadcrumb", "aria-label": "Breadcrumb", hidden: true }, this.list);

  constructor(private readonly host: BreadcrumbHost) {}

  /** Shows where `node` sits in `graph`; `claim` is the claim whose trail it belongs to (if
   *  not itself). Hidden when nothing is selected. */
  render(graph: string | null, node: ViewNode | null, claim: ViewNode | null): void {
    if (!graph || !node) {
      this.el.hidden = true;
      this.list.replaceChildren();
      return;
    }
    const crumbs: HTMLElement[] = [
      h("li", null, h("button", { class: "crumb", testid: "crumb-graph", title: "Fit the whole graph (F)", onclick: () => this.host.fitView() }, graph)),
    ];
    if (claim && claim.id !== node.id) {
      crumbs.push(h("li", null, h("button", { class: "crumb", testid: "crumb-claim", "data-id": claim.id, onclick: () => this.host.select(claim.id) },
        `Claim: ${shortName(claim, 40)}`)));
    } else if (node.context) {
      crumbs.push(h("li", { testid: "crumb-context" }, `Conversation ${shortName({ ...node, text: null, id: node.context }, 16)}`));
    }
    crumbs.push(h("li", { testid: "crumb-node", "aria-current": "location", "data-id": node.id }, `${node.label}: ${shortName(node)}`));
    this.list.replaceChildren(...crumbs);
    this.el.hidden = false;
  }
}
