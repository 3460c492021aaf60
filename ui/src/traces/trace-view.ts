// One OpenTelemetry trace under the canvas (which shrinks to the space above it), so the
// graph stays in sight: the waterfall (or the agent view) on the left, the picked span's details on the
// right. Picking a span here selects its node on the canvas, and a span picked on the canvas
// is picked here (the app tells the view, see `pickFromCanvas`). While spans arrive the
// Traces tab tells the view to reload; what is picked stays picked.

import type { Backend } from "../api/backend";
import type { AgentBox, MessageOrigin, MessageView, SpanDetails, SpanRow, TraceAgents, TraceSpans } from "../api/contract";
import type { SelectFn } from "../shared/host";
import { h, replace } from "../shared/dom";
import { errorState } from "../shared/error-state";
import { agentsView } from "./agents-view";
import { spanDetails } from "./span-details";
import { count, duration, traceOf } from "./trace-format";
import { waterfall } from "./waterfall";

/** What the trace view needs of the app. */
export interface TraceViewHost {
  readonly backend: Pick<Backend, "traceSpans" | "traceAgents" | "span" | "messageOrigin">;
  readonly graph: string | null;
  select: SelectFn;
}

export type TraceMode = "waterfall" | "agents";

export class TraceView {
  readonly el = h("section", { class: "trace-view", testid: "trace-view", role: "region", "aria-label": "Trace", hidden: true });
  private readonly title = h("h2", { class: "trace-heading", tabindex: "-1", testid: "trace-heading" }, "Trace");
  private readonly sub = h("p", { class: "trace-sub", testid: "trace-summary" });
  private readonly modeButtons = new Map<TraceMode, HTMLButtonElement>();
  private readonly main = h("div", { class: "trace-main", tabindex: "-1" });
  private readonly side = h("aside", { class: "trace-side", testid: "trace-side", "aria-label": "Span details" });
  trace: string | null = null;
  spans: TraceSpans | null = null;
  agents: TraceAgents | null = null;
  details: SpanDetails | null = null;
  origin: MessageOrigin | null = null;
  picked: string | null = null;
  mode: TraceMode = "waterfall";
  private token = 0;
  private detailsToken = 0;
  /** Told when the view opens, closes or shows another trace (the list marks it). */
  onChange: (() => void) | null = null;
  /** Told when the view opens (another overlay closes). */
  onOpen: (() => void) | null = null;

  constructor(private readonly app: TraceViewHost) {
    const mode = (m: TraceMode, text: string, title: string) => {
      const b = h("button", { class: "btn btn-small", testid: `trace-mode-${m}`, title, "aria-pressed": "false", onclick: () => void this.setMode(m) }, text);
      this.modeButtons.set(m, b);
      return b;
    };
    replace(this.el,
      h("header", { class: "trace-head" },
        h("div", { class: "trace-titles" }, this.title, this.sub),
        h("div", { class: "row trace-controls" },
          mode("waterfall", "Waterfall", "Spans on a time axis, nested by parent"),
          mode("agents", "Agents", "Agents as boxes, and the work handed between them"),
          h("button", { class: "btn btn-small", testid: "trace-close", title: "Close the trace (Esc)", onclick: () => this.close() }, "Close"))),
      h("div", { class: "trace-body" }, this.main, this.side));
  }

  get isOpen(): boolean {
    return !this.el.hidden;
  }

  /** Opens trace `id` (picking span `span`, if given). */
  async open(id: string, span: string | null = null): Promise<void> {
    const another = this.trace !== id;
    this.el.hidden = false;
    this.onOpen?.();
    this.trace = id;
    if (another) {
      this.spans = null;
      this.agents = null;
      this.details = null;
      this.origin = null;
      this.picked = null;
      this.sub.textContent = "Loading…";
      replace(this.main, h("p", { class: "muted" }, "Loading the trace…"));
      replace(this.side, this.hintText());
    }
    this.onChange?.();
    await this.load(false);
    if (span) await this.pick(span, false);
  }

  close(): void {
    this.token++;
    this.el.hidden = true;
    this.trace = null;
    this.spans = null;
    this.agents = null;
    this.details = null;
    this.picked = null;
    this.onChange?.();
  }

  /** Spans may have arrived: reload what is shown. */
  async refresh(): Promise<void> {
    if (this.isOpen && this.trace) await this.load(true);
  }

  /** A node was picked on the canvas: a span of this trace (or another) is picked here. */
  async pickFromCanvas(id: string): Promise<void> {
    const t = traceOf(id);
    if (!t) return;
    if (t !== this.trace || !this.isOpen) await this.open(t, null);
    await this.pick(id, false);
  }

  async setMode(m: TraceMode): Promise<void> {
    this.mode = m;
    this.renderMain();
    if (m === "agents" && !this.agents) await this.load(false);
  }

  private hintText(): HTMLElement {
    return h("p", { class: "muted trace-side-hint" }, "Pick a span to read its messages, tool arguments and results, tokens, error and attributes.");
  }

  private async load(marking: boolean): Promise<void> {
    const graph = this.app.graph, trace = this.trace;
    if (!graph || !trace) return;
    const token = ++this.token;
    try {
      const spans = await this.app.backend.traceSpans({ graph, trace });
      const agents = this.mode === "agents" || this.agents ? await this.app.backend.traceAgents({ graph, trace }) : null;
      if (token !== this.token) return;
      this.spans = spans;
      if (agents) this.agents = agents;
    } catch (e) {
      if (token !== this.token) return;
      if (marking && this.spans) return; // keep what is shown; the next batch tries again
      this.sub.textContent = "";
      replace(this.main, errorState("load this trace", e, () => void this.load(false)));
      return;
    }
    this.render();
    if (marking && this.picked) await this.loadDetails(this.picked);
  }

  private render(): void {
    const t = this.spans;
    if (!t) return;
    const root = t.spans.find((s) => !s.parent) ?? t.spans[0];
    const end = t.spans.reduce((m, s) => Math.max(m, s.end_ns ?? 0), 0);
    const errors = t.spans.filter((s) => s.status === "error").length;
    const agents = new Set(t.spans.map((s) => s.agent).filter(Boolean));
    this.title.textContent = root?.name ? `Trace: ${root.name}` : "Trace";
    replace(this.sub,
      h("span", { class: "mono" }, t.trace_id), " · ",
      `${duration(end / 1e6)} · ${count(t.total, "span")}`,
      agents.size ? ` · ${count(agents.size, "agent")}` : "",
      errors ? " " : null,
      errors ? h("span", { class: "pill pill-small tone-negative", testid: "trace-errors" }, ` ${count(errors, "error")} `) : null);
    this.renderMain();
  }

  private renderMain(): void {
    for (const [m, b] of this.modeButtons) {
      b.classList.toggle("btn-active", m === this.mode);
      b.setAttribute("aria-pressed", String(m === this.mode));
    }
    if (this.mode === "agents") {
      if (!this.agents) {
        replace(this.main, h("p", { class: "muted" }, "Loading the agents…"));
        return;
      }
      const selectedAgent = this.spans?.spans.find((s) => s.id === this.picked)?.agent ?? null;
      replace(this.main, agentsView(this.agents, { selected: selectedAgent, pick: (a) => void this.pickAgent(a) }));
      return;
    }
    if (!this.spans) return;
    replace(this.main, waterfall(this.spans, { selected: this.picked, pick: (s: SpanRow) => void this.pick(s.id, true), scroller: this.main }));
  }

  /** An agent box: its first span is picked (and its agent node selected when it has one). */
  private async pickAgent(a: AgentBox): Promise<void> {
    const first = this.spans?.spans.find((s) => (s.agent ?? s.service) === a.id);
    if (a.node) {
      await this.app.select(a.node, { focus: true, from: "panel" });
    }
    if (first) await this.pick(first.id, false);
  }

  /** Picks a span: marked in the waterfall, its details loaded; `select`: selected on the canvas too. */
  async pick(id: string, select: boolean): Promise<void> {
    this.picked = id;
    this.origin = null;
    // The waterfall is drawn again: the keyboard stays on the picked row (arrow keys go on).
    const focused = this.main.contains(document.activeElement);
    this.renderMain();
    const row = [...this.el.querySelectorAll<HTMLElement>(".wf-row")].find((r) => r.dataset.span === id);
    row?.scrollIntoView?.({ block: "nearest" });
    if (focused) row?.focus();
    const loading = this.loadDetails(id);
    if (select) {
      await this.app.select(id, { focus: true, from: "panel" });
    }
    await loading;
  }

  private async loadDetails(id: string): Promise<void> {
    const graph = this.app.graph;
    if (!graph) return;
    const token = ++this.detailsToken;
    try {
      const d = await this.app.backend.span({ graph, id });
      if (token !== this.detailsToken) return;
      this.details = d;
      this.renderSide();
    } catch (e) {
      if (token !== this.detailsToken) return;
      replace(this.side, errorState("load this span", e, () => void this.loadDetails(id)));
    }
  }

  private names(): Map<string, string> {
    return new Map((this.spans?.spans ?? []).map((s) => [s.id, s.name]));
  }

  private renderSide(): void {
    const d = this.details;
    if (!d) return;
    const names = this.names();
    replace(this.side,
      this.origin ? this.originNote(this.origin, names) : null,
      spanDetails(d, { names, origin: (m) => void this.walkBack(m), pick: (id) => void this.pick(id, true) }));
  }

  /** "Where did this message come from?": walks back to the producing call and picks it. */
  async walkBack(m: MessageView): Promise<void> {
    const graph = this.app.graph;
    if (!graph) return;
    let o: MessageOrigin;
    try {
      o = await this.app.backend.messageOrigin({ graph, id: m.id });
    } catch (e) {
      replace(this.side, errorState("find where this message came from", e, () => void this.walkBack(m)));
      return;
    }
    const target = o.call ?? o.first_use;
    if (target && traceOf(target) === this.trace) {
      await this.pick(target, true);
    } else if (target) {
      await this.app.select(target, { focus: true, from: "panel" });
    }
    this.origin = o;
    this.renderSide();
  }

  private originNote(o: MessageOrigin, names: ReadonlyMap<string, string>): HTMLElement {
    const name = (id: string) => names.get(id) || id;
    const steps = o.steps.slice(1).map((s) => `${s.via.toLowerCase().replace(/_/g, " ")} ${name(s.id)}`);
    return h("div", { class: "origin-note", testid: "message-origin-result", role: "status" },
      o.call
        ? [h("strong", null, "This message was produced by "), h("span", { class: "mono" }, name(o.call)), "."]
        : [h("strong", null, "No recorded call produced this message"), o.first_use ? ` (an input: first read by ${name(o.first_use)}).` : "."],
      steps.length > 1 ? h("p", { class: "muted" }, `Path: message → ${steps.join(" → ")}`) : null);
  }
}
