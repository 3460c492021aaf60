// A trace's waterfall: one row per span, nested under its parent, its bar placed on the
// trace's time axis, coloured by what it does (model call, tool, agent…) and marked when it
// failed or links to other spans. Clicking a row picks the span (the trace view selects it on
// the canvas too and shows its details); arrow keys move between rows.

import type { SpanRow, TraceSpans } from "../api/contract";
import { h } from "../shared/dom";
import { KIND_TEXT, duration, spanMs, ticks, traceSpanNs, treeOrder } from "./trace-format";

export interface WaterfallOptions {
  selected: string | null;
  pick(span: SpanRow): void;
}

export function waterfall(t: TraceSpans, opts: WaterfallOptions): HTMLElement {
  const total = traceSpanNs(t.spans);
  const pct = (ns: number | null) => `${(((ns ?? 0) / total) * 100).toFixed(3)}%`;
  const axis = h("div", { class: "wf-axis", "aria-hidden": "true" },
    ticks(total).map((ms) => h("span", { class: "wf-tick", style: `left:${pct(ms * 1e6)}` }, duration(ms === 0 ? 0.0001 : ms).replace("<1 ms", "0"))));
  const names = new Map(t.spans.map((s) => [s.id, s.name]));
  const rows = treeOrder(t.spans).map(({ span: s, depth }) => {
    const ms = spanMs(s);
    const width = s.start_ns !== null && s.end_ns !== null ? Math.max(((s.end_ns - s.start_ns) / total) * 100, 0.4) : 0;
    const who = [s.agent ? `agent ${s.agent}` : null, s.model, s.service].filter(Boolean).join(" · ");
    const links = s.links.map((l) => names.get(l.target) ?? l.target);
    return h("li", { class: "wf-row-item" },
      h("button", {
        class: `wf-row kind-${s.label} status-${s.status}${s.id === opts.selected ? " selected" : ""}`,
        testid: "wf-row", "data-span": s.id, "data-depth": String(depth), "aria-pressed": String(s.id === opts.selected),
        title: `${s.name} (${KIND_TEXT[s.label] ?? s.label}) · ${duration(ms)}${who ? ` · ${who}` : ""}${links.length ? ` · links to ${links.join(", ")}` : ""}`,
        onclick: () => opts.pick(s),
        onkeydown: (ev: Event) => moveFocus(ev as KeyboardEvent),
      },
      h("span", { class: "wf-name", style: `padding-left:${Math.min(depth, 24) * 14}px` },
        h("span", { class: `wf-kind kind-${s.label}` }, KIND_TEXT[s.label] ?? s.label),
        h("span", { class: "wf-title" }, s.name || "(not arrived yet)"),
        s.status === "error" ? h("span", { class: "wf-error", testid: "wf-error", title: "This span failed" }, "✗") : null,
        s.links.length ? h("span", { class: "wf-link", testid: "wf-link", title: `Links to ${links.join(", ")}` }, `⤳${s.links.length}`) : null),
      h("span", { class: "wf-track" },
        s.start_ns === null
          ? h("span", { class: "wf-pending muted" }, "waiting for this span")
          : h("span", { class: "wf-bar", style: `left:${pct(s.start_ns)};width:${width.toFixed(3)}%` }),
        h("span", { class: "wf-dur", style: `left:${pct(s.end_ns ?? s.start_ns)}` }, s.start_ns === null ? "" : duration(ms)))));
  });
  return h("div", { class: "waterfall", testid: "waterfall" },
    h("div", { class: "wf-head" }, h("span", { class: "wf-name muted" }, "Span"), axis),
    h("ol", { class: "wf-rows", "aria-label": "Spans on the trace's time axis, nested by parent" }, rows),
    h("p", { class: "wf-legend muted", testid: "wf-legend" },
      h("span", { class: "wf-kind kind-AgentInvocation" }, "agent"), " ", h("span", { class: "wf-kind kind-LlmCall" }, "LLM"), " ",
      h("span", { class: "wf-kind kind-ToolCall" }, "tool"), " what a span did · ", h("span", { class: "wf-error" }, "✗"), " failed · ",
      h("span", { class: "wf-link" }, "⤳n"), " links to n other spans · pick a row for its details"),
    t.truncated ? h("p", { class: "wf-truncated", testid: "wf-truncated" }, `Showing the first ${t.spans.length.toLocaleString("en")} of ${t.total.toLocaleString("en")} spans.`) : null);
}

function moveFocus(ev: KeyboardEvent): void {
  if (ev.key !== "ArrowDown" && ev.key !== "ArrowUp") return;
  const li = (ev.currentTarget as HTMLElement).parentElement;
  const next = ev.key === "ArrowDown" ? li?.nextElementSibling : li?.previousElementSibling;
  const b = next?.querySelector<HTMLButtonElement>(".wf-row");
  if (b) {
    ev.preventDefault();
    b.focus();
    b.click();
  }
}
