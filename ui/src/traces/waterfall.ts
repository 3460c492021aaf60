// A trace's waterfall: one row per span, nested under its parent, its bar placed on the
// trace's time axis, coloured by what it does (model call, tool, agent…) and marked when it
// failed or links to other spans. Clicking a row picks the span (the trace view selects it on
// the canvas too and shows its details); arrow keys move between rows. A trace of more than
// ALL_ROWS spans draws only the rows in sight of its scroller and a few around them, so that
// a trace of thousands of spans opens, scrolls and picks as fast as a small one.

import type { SpanRow, TraceSpans } from "../api/contract";
import { h, replace } from "../shared/dom";
import { KIND_TEXT, duration, spanMs, ticks, traceSpanNs, treeOrder, type TreeRow } from "./trace-format";

/** Traces of more spans than this draw only the rows in sight (see windowed). */
export const ALL_ROWS = 400;
/** A row's height when rows are drawn in a window (CSS px; `.wf-windowed` sets it). */
export const ROW_PX = 28;
/** Rows drawn beyond each edge of the scroller's sight. */
const OVERSCAN = 15;

export interface WaterfallOptions {
  selected: string | null;
  pick(span: SpanRow): void;
  /** The element that scrolls the waterfall: with it, a large trace is drawn in a window. */
  scroller?: HTMLElement;
}

export function waterfall(t: TraceSpans, opts: WaterfallOptions): HTMLElement {
  const total = traceSpanNs(t.spans);
  const pct = (ns: number | null) => `${(((ns ?? 0) / total) * 100).toFixed(3)}%`;
  const axis = h("div", { class: "wf-axis", "aria-hidden": "true" },
    ticks(total).map((ms) => h("span", { class: "wf-tick", style: `left:${pct(ms * 1e6)}` }, duration(ms === 0 ? 0.0001 : ms).replace("<1 ms", "0"))));
  const names = new Map(t.spans.map((s) => [s.id, s.name]));
  const order = treeOrder(t.spans);
  const row = (i: number) => spanRow(order[i], i, total, names, opts);
  const list = h("ol", { class: "wf-rows", "aria-label": "Spans on the trace's time axis, nested by parent" });
  if (order.length > ALL_ROWS && opts.scroller) windowed(list, order, row, opts.selected, opts.scroller);
  else list.append(...order.map((_, i) => row(i)));
  return h("div", { class: "waterfall", testid: "waterfall", "data-rows": String(order.length) },
    h("div", { class: "wf-head" }, h("span", { class: "wf-name muted" }, "Span"), axis),
    list,
    h("p", { class: "wf-legend muted", testid: "wf-legend" },
      h("span", { class: "wf-kind kind-AgentInvocation" }, "agent"), " ", h("span", { class: "wf-kind kind-LlmCall" }, "LLM"), " ",
      h("span", { class: "wf-kind kind-ToolCall" }, "tool"), " what a span did · ", h("span", { class: "wf-error" }, "✗"), " failed · ",
      h("span", { class: "wf-link" }, "⤳n"), " links to n other spans · pick a row for its details"),
    t.truncated ? h("p", { class: "wf-truncated", testid: "wf-truncated" }, `Showing the first ${t.spans.length.toLocaleString("en")} of ${t.total.toLocaleString("en")} spans.`) : null);
}

/** One span's row: `i` is its place in tree order. */
function spanRow({ span: s, depth }: TreeRow, i: number, total: number, names: Map<string, string>, opts: WaterfallOptions): HTMLElement {
  const pct = (ns: number | null) => `${(((ns ?? 0) / total) * 100).toFixed(3)}%`;
    const ms = spanMs(s);
    const width = s.start_ns !== null && s.end_ns !== null ? Math.max(((s.end_ns - s.start_ns) / total) * 100, 0.4) : 0;
    const who = [s.agent ? `agent ${s.agent}` : null, s.model, s.service].filter(Boolean).join(" · ");
    const links = s.links.map((l) => names.get(l.target) ?? l.target);
  return h("li", { class: "wf-row-item", "data-index": String(i) },
      h("button", {
        class: `wf-row kind-${s.label} status-${s.status}${s.id === opts.selected ? " selected" : ""}`,
        testid: "wf-row", "data-span": s.id, "data-index": String(i), "data-depth": String(depth), "aria-pressed": String(s.id === opts.selected),
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
}

/**
 * Draws the rows of `list` that are in sight of `scroller` (and OVERSCAN around them), each
 * at its place in a list as tall as all of them, again whenever the scroller moves; the row
 * of `selected` is brought into sight first.
 */
function windowed(list: HTMLElement, order: readonly TreeRow[], row: (i: number) => HTMLElement, selected: string | null, scroller: HTMLElement): void {
  list.classList.add("wf-windowed");
  list.style.height = `${order.length * ROW_PX}px`;
  let drawn = "";
  let drawnFrom = 0;
  let drawnTo = 0;
  const draw = () => {
    if (!list.isConnected && drawn) return false;
    // Where the list's top is within the scroller's content (before it is in the page: under
    // the waterfall's header, about one row down).
    const top = list.isConnected ? list.getBoundingClientRect().top - scroller.getBoundingClientRect().top + scroller.scrollTop : ROW_PX;
    const seeFrom = Math.max(0, Math.floor((scroller.scrollTop - top) / ROW_PX));
    const seeTo = Math.min(order.length, Math.ceil((scroller.scrollTop - top + Math.max(scroller.clientHeight, 600)) / ROW_PX));
    // Drawn again only when what is in sight leaves what is drawn.
    if (drawn && seeFrom >= drawnFrom && seeTo <= drawnTo) return true;
    const from = Math.max(0, seeFrom - OVERSCAN);
    const to = Math.min(order.length, seeTo + OVERSCAN);
    drawn = `${from}:${to}`;
    drawnFrom = from;
    drawnTo = to;
    const items: HTMLElement[] = [];
    for (let i = from; i < to; i++) {
      const li = row(i);
      li.style.top = `${i * ROW_PX}px`;
      li.setAttribute("aria-posinset", String(i + 1));
      li.setAttribute("aria-setsize", String(order.length));
      items.push(li);
    }
    replace(list, ...items);
    return true;
  };
  const onScroll = () => {
    if (!draw()) scroller.removeEventListener("scroll", onScroll);
  };
  scroller.addEventListener("scroll", onScroll, { passive: true });
  const at = selected === null ? -1 : order.findIndex((r) => r.span.id === selected);
  draw();
  // Once in the page: the list's real place, and the picked row brought into sight.
  queueMicrotask(() => {
    if (!list.isConnected) return;
    if (at >= 0) {
      const top = list.getBoundingClientRect().top - scroller.getBoundingClientRect().top + scroller.scrollTop + at * ROW_PX;
      if (top < scroller.scrollTop || top + ROW_PX > scroller.scrollTop + scroller.clientHeight) scroller.scrollTop = top - scroller.clientHeight / 2;
    }
    draw();
  });
  showRow.set(list, (i: number) => {
    const top = list.getBoundingClientRect().top - scroller.getBoundingClientRect().top + scroller.scrollTop + i * ROW_PX;
    if (top < scroller.scrollTop) scroller.scrollTop = top;
    else if (top + ROW_PX > scroller.scrollTop + scroller.clientHeight) scroller.scrollTop = top + ROW_PX - scroller.clientHeight;
    draw();
    return list.querySelector<HTMLElement>(`.wf-row[data-index="${i}"]`);
  });
}

/** For a list drawn in a window: brings row `i` into sight (drawing it) and returns its button. */
const showRow = new WeakMap<Element, (i: number) => HTMLElement | null>();

function moveFocus(ev: KeyboardEvent): void {
  if (ev.key !== "ArrowDown" && ev.key !== "ArrowUp") return;
  const from = ev.currentTarget as HTMLElement;
  const list = from.closest("ol");
  if (!list) return;
  const i = Number(from.dataset.index) + (ev.key === "ArrowDown" ? 1 : -1);
  const b = showRow.get(list)?.(i) ?? list.querySelector<HTMLButtonElement>(`.wf-row[data-index="${i}"]`);
  if (b) {
    ev.preventDefault();
    b.focus();
    b.click();
  }
}
