// Where the selection sits, above the side panels: graph › its claim or
// conversation › the node. The graph crumb fits the graph; a claim crumb selects the claim.

import type { ViewNode } from "../api/contract";
import { nodeCaption, type AgentNameOf } from "../canvas/captions";
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
  return cut(base, max);
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1).trimEnd()}…` : text;
}

/** Kinds whose caption says what they are ("✗ Challenged · Civic Fact Checker", "Tool ·
 *  search"): shown as the canvas names them, without the kind in front. */
const SELF_NAMED = new Set([
  "Verification", "Message", "LlmPrompt", "LlmCall", "ToolCall", "ToolArgs", "A2ATask", "A2ATaskExecution",
  "A2ATaskState", "A2AMessageProcessing", "Artifact", "AgentRuntimeInstance", "AgentBoot", "AgentArchive",
]);

/** Words for a kind of node in the breadcrumb. */
const KIND: Record<string, string> = { Statement: "Claim", Chunk: "Quote" };

/** A node's name in the breadcrumb: what its label on the canvas says (a verification by
 *  verdict and verifier, a claim its words, an event what it did), never a bare id. */
export function crumbName(n: ViewNode, nameOf: AgentNameOf = () => undefined, max = 60): string {
  const caption = nodeCaption(n, nameOf);
  if (SELF_NAMED.has(n.label)) return cut(caption, max);
  const kind = KIND[n.label] ?? n.label;
  // A caption that fell back to the node's kind (no text) is named by its id's end.
  const name = caption && caption !== n.label && caption !== n.id ? caption : shortName(n, max);
  return cut(`${kind}: ${name}`, max);
}

/** A conversation's id, short: a UUID by its first eight characters. */
function shortContext(id: string): string {
  const uuid = /^(?:urn:uuid:)?([0-9a-f]{8})-[0-9a-f-]{27}$/i.exec(id);
  return uuid ? `${uuid[1]}…` : cut(id.split(/[:/#]/).filter(Boolean).pop() ?? id, 24);
}

export class Breadcrumb {
  private readonly list = h("ol", { class: "breadcrumb-list" });
  readonly el = h("nav", { class: "breadcrumb", testid: "breadcrumb", "aria-label": "Breadcrumb", hidden: true }, this.list);

  constructor(private readonly host: BreadcrumbHost) {}

  /** Agent names for verifications' crumbs (an agent node's text), set by the app. */
  nameOf: AgentNameOf = () => undefined;

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
      crumbs.push(h("li", null, h("button", { class: "crumb", testid: "crumb-claim", "data-id": claim.id, title: claim.text ?? undefined, onclick: () => this.host.select(claim.id) },
        `Claim: ${shortName(claim, 40)}`)));
    } else if (node.context) {
      crumbs.push(h("li", { testid: "crumb-context", title: node.context }, `Conversation ${shortContext(node.context)}`));
    }
    const name = crumbName(node, this.nameOf);
    crumbs.push(h("li", { testid: "crumb-node", "aria-current": "location", "data-id": node.id, title: name.endsWith("…") ? nodeCaption(node, this.nameOf) : undefined }, name));
    this.list.replaceChildren(...crumbs);
    this.el.hidden = false;
  }
}
