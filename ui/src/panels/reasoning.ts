// The Reasoning tab (issue 12 §3–4): the open graph's TrustGraph sessions (question, status,
// step count, time), each opening its reasoning chain over the canvas (ui/reasoning-view.ts).
// The tab is offered only when the graph has sessions. It also opens the chain of an Explain
// node (or the session of a DialogMessage) picked on the graph, and keeps the list and the
// open chain current while the live stream brings reasoning steps (one re-fetch per burst).

import type { Backend } from "../api/backend";
import type { CrossLink, SessionSummary, ViewNode } from "../api/contract";
import type { GraphModel } from "../graph/model";
import type { SelectFn } from "../host";
import { sessionMeta, statusText, statusTone } from "../reasoning/chain";
import { Coalesced } from "../stream";
import { h, replace } from "../ui/dom";
import { ReasoningView } from "../ui/reasoning-view";
import { errorState } from "../ui/states";

/** How long after the first reasoning node of a burst the list and the open chain re-fetch. */
export const LIVE_MS = 300;

/** Labels of the nodes a TrustGraph session is made of. */
const REASONING_LABELS = new Set(["Explain", "DialogMessage"]);

/** What the Reasoning tab needs of the app. */
export interface ReasoningHost {
  readonly backend: Pick<Backend, "sessions" | "reasoning">;
  readonly graph: string | null;
  readonly model: Pick<GraphModel, "nodes" | "edges" | "mode">;
  select: SelectFn;
  /** Offers the Reasoning tab (or takes it away). */
  reasoningAvailable(available: boolean): void;
  /** A statement linked from a step was clicked: show its trail. */
  openLink(link: CrossLink): Promise<void>;
}

export class ReasoningPanel {
  readonly el = h("div", { class: "panel reasoning", testid: "reasoning" });
  readonly view: ReasoningView;
  private list: SessionSummary[] = [];
  private shownFor: string | null = null;
  private token = 0;
  private readonly live = new Coalesced(LIVE_MS, () => void this.refresh());

  constructor(private readonly app: ReasoningHost) {
    this.view = new ReasoningView(app);
    this.view.onChange = () => this.render();
    this.render();
  }

  get sessions(): readonly SessionSummary[] {
    return this.list;
  }

  /** A view of the graph was loaded: a new graph closes the chain and lists anew. */
  graphOpened(): void {
    if (this.app.graph !== this.shownFor) {
      this.shownFor = this.app.graph;
      this.view.close();
      this.list = [];
      this.app.reasoningAvailable(false);
      this.render();
    }
    if (this.mayHaveSessions()) void this.refresh();
  }

  /** Nodes arrived on the live stream: reasoning steps among them refresh the list and chain. */
  nodesArrived(nodes: readonly ViewNode[]): void {
    if (nodes.some((n) => REASONING_LABELS.has(n.label))) this.live.schedule();
  }

  /** The cluster view grew: its boxes do not say which nodes arrived, so refresh anyway. */
  clustersChanged(): void {
    this.live.schedule();
  }

  /** Whether picking node `id` on the graph opens a reasoning chain. */
  isReasoningNode(id: string): boolean {
    const label = this.app.model.nodes.get(id)?.label;
    return label !== undefined && REASONING_LABELS.has(label);
  }

  /** An Explain node was picked: its chain (a dialog message: its session's, followed). */
  openFor(id: string): Promise<void> {
    if (this.app.model.nodes.get(id)?.label === "DialogMessage") {
      for (const e of this.app.model.edges.values()) {
        if (e.source === id && e.type === "IN_SESSION") return this.view.open(e.target, { follow: true });
      }
      return Promise.resolve();
    }
    return this.view.open(id);
  }

  /** A session from the list: its answer's chain, or (still running) wherever it is. */
  openSession(s: SessionSummary, point?: readonly string[]): Promise<void> {
    return s.answer ? this.view.open(s.answer, { point }) : this.view.open(s.id, { follow: true, point });
  }

  /** Whether asking is worth it: the whole graph is drawn and has reasoning nodes, or it
   *  is too large to tell from what is drawn. */
  private mayHaveSessions(): boolean {
    const m = this.app.model;
    if (!this.app.graph || m.nodes.size === 0) return false;
    if (m.mode !== "whole") return true;
    for (const n of m.nodes.values()) if (REASONING_LABELS.has(n.label)) return true;
    return false;
  }

  /** Lists the graph's sessions again and reloads the open chain. */
  async refresh(): Promise<void> {
    const graph = this.app.graph;
    if (!graph) return;
    const token = ++this.token;
    const reloading = this.view.refresh();
    try {
      const list = await this.app.backend.sessions({ graph });
      if (token !== this.token || graph !== this.app.graph) return;
      this.list = list;
      this.app.reasoningAvailable(list.length > 0);
      this.render();
    } catch (e) {
      if (token !== this.token) return;
      replace(this.el, errorState("list the reasoning sessions", e, () => void this.refresh()));
    }
    await reloading;
  }

  private render(): void {
    if (this.list.length === 0) {
      replace(this.el, h("div", { class: "empty-state" },
        h("p", null, "This graph has no reasoning sessions."),
        h("p", { class: "muted" }, "Ingest TrustGraph agent explainability (Ingest ▸) to see how an answer was reached, step by step.")));
      return;
    }
    const open = this.view.session;
    replace(this.el,
      h("p", { class: "hint" },
        "A session is one question put to an agent: its thoughts, the tools it used and what they returned, and its answer. Open one to read its reasoning and the claims it drew on, down to their evidence."),
      h("h3", null, `Reasoning sessions (${this.list.length})`),
      h("ul", { class: "session-list", testid: "session-list" }, this.list.map((s) => h("li", null,
        h("button", {
          class: `session-row status-${s.status}${s.id === open ? " current" : ""}`, testid: "session-row", "data-session": s.id, "data-status": s.status,
          "aria-pressed": String(s.id === open), title: s.answer ? "Open its reasoning, from the question to the answer" : "Open its reasoning so far",
          onclick: () => void this.openSession(s),
        },
        h("span", { class: "session-row-top" },
          h("span", { class: "session-row-title" }, s.question ? `“${s.question}”` : "(question not recorded yet)"),
          h("span", { class: `pill pill-small tone-${statusTone(s.status)} session-status`, testid: "session-status" }, statusText(s.status))),
        h("span", { class: "session-row-meta", testid: "session-meta" }, sessionMeta(s)))))));
  }
}
