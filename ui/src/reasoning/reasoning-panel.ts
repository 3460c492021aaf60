// The Reasoning tab: the open graph's TrustGraph sessions (question, status,
// step count, time), each opening its reasoning chain over the canvas (reasoning-view.ts).
// The tab is offered only when the graph has sessions. It also opens the chain of an Explain
// node (or the session of a DialogMessage) picked on the graph, and keeps the list and the
// open chain current while the live stream brings reasoning steps (one re-fetch per burst).

import type { Backend } from "../api/backend";
import type { CrossLink, ReasoningChain, SessionSummary } from "../api/contract";
import type { GraphModel } from "../graph/model";
import type { SelectFn } from "../shared/host";
import { sessionMeta, statusText, statusTone } from "./chain";
import { h } from "../shared/dom";
import { ReasoningView } from "./reasoning-view";
import { ListPanel } from "../live/list-panel";

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
  /** "Show on graph": the chain alone on the canvas. */
  showChain?(chain: ReasoningChain): void;
}

export class ReasoningPanel extends ListPanel<SessionSummary> {
  readonly view: ReasoningView;

  constructor(private readonly app: ReasoningHost) {
    const view = new ReasoningView(app);
    super({ class: "reasoning", testid: "reasoning", doing: "list the reasoning sessions" }, {
      get graph() { return app.graph; },
      get model() { return app.model; },
      labels: REASONING_LABELS,
      delayMs: LIVE_MS,
      fetch: (graph) => app.backend.sessions({ graph }),
      view,
      available: (yes) => app.reasoningAvailable(yes),
    });
    this.view = view;
    this.view.onChange = () => this.render();
    this.render();
  }

  get sessions(): readonly SessionSummary[] {
    return this.list;
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

  protected render(): void {
    const open = this.view.session;
    this.draw(
      ["This graph has no reasoning sessions.", "Ingest TrustGraph agent explainability (Ingest ▸) to see how an answer was reached, step by step."],
      "A session is one question put to an agent: its thoughts, the tools it used and what they returned, and its answer. Open one to read its reasoning and the claims it drew on, down to their evidence.",
      "Reasoning sessions",
      () => h("ul", { class: "session-list", testid: "session-list" }, this.list.map((s) => h("li", null,
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
