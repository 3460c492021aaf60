// Hover cards: a node's essentials beside it while the pointer rests on it: what
// it is, a claim's standing (the worst thing true of it) first, what it says, who made it, its
// signature status (mark and word, not colour alone).

import type { ViewNode } from "../api/contract";
import { STATUS_GLYPH, statusCode } from "../canvas/style";
import { clusterSummary, isCluster } from "../graph/clusters";
import { agentName } from "../trail/labels";
import { STANDING_TEXT, asStanding, standingIcon } from "../trail/standing";
import { h } from "../shared/dom";
import { spanStandingLine } from "../traces/span-standing";

/** Signature statuses in words. */
const STATUS_WORDS: Record<string, string> = {
  valid: "signature valid", invalid: "signature invalid", malformed: "signature malformed",
  unknown_key: "key unknown", untrusted_key: "key not trusted", unsigned: "not signed",
};

/** The card's lines for a node: title, then what it says, who made it and its status. */
export function cardLines(n: ViewNode, names?: ReadonlyMap<string, string>): { title: string, lines: string[] } {
  if (isCluster(n)) {
    return {
      title: `Cluster · ${n.cluster.title}`,
      lines: [clusterSummary(n.cluster), n.cluster.opens === "clusters" ? "Click to open its clusters." : "Click to open its nodes."],
    };
  }
  const lines: string[] = [];
  // A claim's standing first: the worst thing true of it is its headline.
  const standing = asStanding(n.standing);
  if (standing) lines.push(`${standingIcon(standing)} ${STANDING_TEXT[standing]}`);
  // A span that failed: its headline too.
  const failed = spanStandingLine(n.standing);
  if (failed) lines.push(failed);
  const text = (n.text ?? "").replace(/\s+/g, " ").trim();
  if (text) lines.push(text.length > 160 ? `${text.slice(0, 159).trimEnd()}…` : text);
  if (n.agent) lines.push(`By ${agentName(n.agent, names)}`);
  if (n.status) lines.push(`${STATUS_GLYPH[statusCode(n.status)] ?? ""} ${STATUS_WORDS[n.status] ?? n.status}`.trim());
  if (n.context) lines.push(`Conversation ${n.context}`);
  return { title: `${n.label}${n.base_type ? ` · ${n.base_type.replace(/^Prov/, "")}` : ""}`, lines };
}

export class HoverCard {
  readonly el = h("div", { class: "hover-card", testid: "hover-card", role: "tooltip", id: "provex-hover-card", hidden: true });

  /** Shows the card for `n` beside the point (x, y) of the canvas (CSS px), kept inside a
   *  `width` × `height` area; null hides it. */
  show(n: ViewNode | null, at: { x: number, y: number } | null, width: number, height: number, names?: ReadonlyMap<string, string>): void {
    if (!n || !at) {
      this.el.hidden = true;
      return;
    }
    const { title, lines } = cardLines(n, names);
    this.el.replaceChildren(h("strong", null, title), ...lines.map((l) => h("div", null, l)));
    this.el.dataset.id = n.id;
    this.el.dataset.standing = n.standing ?? "";
    this.el.hidden = false;
    const w = this.el.offsetWidth || 280, hh = this.el.offsetHeight || 80;
    const left = Math.max(8, Math.min(at.x + 16, width - w - 8));
    const top = at.y + 20 + hh < height ? at.y + 20 : Math.max(8, at.y - 20 - hh);
    this.el.style.left = `${left}px`;
    this.el.style.top = `${top}px`;
  }
}
