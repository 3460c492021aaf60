// The Traces tab: the open graph's OpenTelemetry traces, newest first (root span, services,
// agents, duration, spans, errors, tokens, when it started), each opening its waterfall under
// the canvas (trace-view.ts). The tab is offered only when the graph has traces; the list
// and the open trace follow the live stream as spans arrive (one re-fetch per burst; other
// sources' nodes under a span's label, such as an A2A event's LlmCall, are not spans).

import type { Backend } from "../api/backend";
import type { TraceSummary, ViewNode } from "../api/contract";
import type { GraphModel } from "../graph/model";
import type { SelectFn } from "../shared/host";
import { h, replace } from "../shared/dom";
import { errorState } from "../shared/error-state";
import { LiveList } from "../live/live-list";
import { SPAN_LABELS, count, isSpanId, startedAt, traceMeta } from "./trace-format";
import { TraceView } from "./trace-view";
import "./traces.css";

/** How long after the first span of a burst the list and the open trace re-fetch. */
export const LIVE_MS = 300;

/** What the Traces tab needs of the app. */
export interface TracesHost {
  readonly backend: Pick<Backend, "traces" | "traceSpans" | "traceAgents" | "span" | "messageOrigin">;
  readonly graph: string | null;
  readonly model: Pick<GraphModel, "nodes" | "edges" | "mode">;
  select: SelectFn;
  /** Offers the Traces tab (or takes it away). */
  tracesAvailable(available: boolean): void;
}

export class TracesPanel {
  readonly el = h("div", { class: "panel traces", testid: "traces" });
  readonly view: TraceView;
  private readonly list: LiveList<TraceSummary>;
  /** Traces in the graph (the list shows the newest page). */
  total = 0;

  constructor(private readonly app: TracesHost) {
    this.view = new TraceView(app);
    this.view.onChange = () => this.render();
    const panel = this;
    this.list = new LiveList<TraceSummary>({
      get graph() { return app.graph; },
      get model() { return app.model; },
      labels: SPAN_LABELS,
      delayMs: LIVE_MS,
      fetch: async (graph) => {
        const page = await app.backend.traces({ graph });
        panel.total = page.total;
        return page.traces;
      },
      view: this.view,
      available: (yes) => app.tracesAvailable(yes),
      render: () => panel.render(),
      failed: (e) => replace(panel.el, errorState("list the traces", e, () => void panel.refresh())),
    });
    this.render();
  }

  get traces(): readonly TraceSummary[] {
    return this.list.items;
  }

  graphOpened(): void {
    this.list.graphOpened();
  }

  /** Stored spans arriving live re-fetch the list and the open trace (once per burst). An
   *  A2A runtime event's `LlmCall` or `ToolCall` shares a span's label but is no span: a
   *  stream of those asked the server for the list three times a second, for nothing. */
  nodesArrived(nodes: readonly ViewNode[]): void {
    if (nodes.some((n) => isSpanId(n.id))) this.list.nodesArrived(nodes);
  }

  clustersChanged(): void {
    this.list.clustersChanged();
  }

  /** Whether node `id` is a stored span (picking it on the canvas picks it in its trace). */
  isSpan(id: string): boolean {
    const label = this.app.model.nodes.get(id)?.label;
    return isSpanId(id) && (label === undefined || SPAN_LABELS.has(label));
  }

  /** A span picked on the canvas: its trace opens with it picked. */
  openFor(id: string): Promise<void> {
    return this.view.pickFromCanvas(id);
  }

  refresh(): Promise<void> {
    return this.list.refresh();
  }

  private render(): void {
    const list = this.list.items;
    if (list.length === 0) {
      replace(this.el, h("div", { class: "empty-state" },
        h("p", null, "This graph has no OpenTelemetry traces."),
        h("p", { class: "muted" }, "Point an OpenTelemetry exporter at this server, or ingest an OTLP JSON file (Ingest ▸), to see agents' model calls, tools and hand-offs.")));
      return;
    }
    const open = this.view.isOpen ? this.view.trace : null;
    replace(this.el,
      h("p", { class: "hint" }, "A trace is one run of an agent system: its spans are the model calls, tool calls and agent invocations it made. Open one for its waterfall, its agents and each span's messages."),
      h("h3", null, this.total > list.length ? `Traces (newest ${list.length} of ${this.total.toLocaleString("en")})` : `Traces (${list.length})`),
      h("ul", { class: "session-list trace-list", testid: "trace-list" }, list.map((t) => h("li", null,
        h("button", {
          class: `session-row trace-row${t.errors ? " status-failed" : " status-answered"}${t.trace_id === open ? " current" : ""}`,
          testid: "trace-row", "data-trace": t.trace_id, "aria-pressed": String(t.trace_id === open), title: "Open its waterfall",
          onclick: () => void this.view.open(t.trace_id),
        },
        h("span", { class: "session-row-top" },
          h("span", { class: "session-row-title", testid: "trace-root" }, t.root_name ?? "(root span not arrived yet)"),
          t.errors ? h("span", { class: "pill pill-small tone-negative session-status", testid: "trace-row-errors" }, count(t.errors, "error")) : null),
        h("span", { class: "session-row-meta", testid: "trace-meta" }, traceMeta(t)),
        h("span", { class: "session-row-meta trace-who" },
          [t.services.length ? `service ${t.services.join(", ")}` : null, t.agents.length ? `agents ${t.agents.join(", ")}` : null, `started ${startedAt(t.started_ms)}`]
            .filter(Boolean).join(" · ")))))));
  }
}
