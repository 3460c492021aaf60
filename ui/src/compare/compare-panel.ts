// Compare two graphs in the explorer: a panel over the canvas that runs
// `diff` between the open graph and another, marks what differs on the drawing (+ added,
// − removed, ~ changed: a glyph and a colour each, the rest dimmed), and lists every
// difference to step through, each with its properties before and after. What the diff means
// for claims comes first (claims and verifications added and removed, changed verdicts,
// consensus, signatures and quotes), and the list goes by importance: claims before runtime
// rows; when the graphs hold OpenTelemetry spans, the runs they record, call by call, come
// next (runs-section.ts). Removals are drawn on the base graph and additions on the other: "Open the other"
// swaps which is drawn.

import type { Backend } from "../api/backend";
import type { GraphDiff, TraceSummary, ViewNode } from "../api/contract";
import type { GraphCanvasApi } from "../canvas/types";
import { CHANGE_GLYPH, CHANGE_WORD, claimGroups, counts, diffItems, nodeMarks, showChange, sideOf, visibleOn, type Change, type DiffItem } from "./diff-overlay";
import type { SelectFn } from "../shared/host";
import { h, replace } from "../shared/dom";
import { errorState } from "../shared/error-state";
import { runsSection } from "./runs-section";

/** Marks drawn at most (those on screen first); the list has every difference. */
const MAX_MARKS = 600;

/** What the compare panel needs of the app. */
export interface CompareHost {
  readonly backend: Pick<Backend, "diff" | "graphs"> & Partial<Pick<Backend, "traces">>;
  readonly graph: string | null;
  readonly model: { readonly nodes: ReadonlyMap<string, ViewNode> };
  readonly canvas: Pick<GraphCanvasApi, "setHighlight" | "screenPosition">;
  select: SelectFn;
  openGraph(graph: string): Promise<void>;
}

export class ComparePanel {
  readonly el = h("section", { class: "compare-panel", testid: "compare", role: "region", "aria-label": "Compare graphs", hidden: true });
  /** The marks over the canvas: positioned from the canvas's screen positions. */
  readonly marksEl = h("div", { class: "diff-marks", testid: "diff-marks", "aria-hidden": "true" });
  private other = h("select", { class: "input", testid: "compare-other", "aria-label": "Graph to compare with" });
  private body = h("div", { class: "compare-body" });
  private traceA = h("select", { class: "input", testid: "compare-trace-a", "aria-label": "First run (trace)" });
  private traceB = h("select", { class: "input", testid: "compare-trace-b", "aria-label": "Second run (trace)" });
  private diff: { a: string, b: string, result: GraphDiff, items: DiffItem[], runs?: { a: string, b: string } } | null = null;
  private marks = new Map<string, Change>();
  private index = -1;
  /** The graph open when the panel's controls were made. */
  private openedFor: string | null = null;

  constructor(private readonly app: CompareHost) {}

  get isOpen(): boolean {
    return !this.el.hidden;
  }

  /** Opens the panel with the other graphs to choose from. */
  async open(): Promise<void> {
    this.el.hidden = false;
    const open = this.app.graph;
    this.openedFor = open;
    let graphs: string[] = [];
    try {
      graphs = (await this.app.backend.graphs({})).filter((g) => g !== open);
    } catch (e) {
      replace(this.el, this.head(), errorState("list the graphs", e, () => void this.open()));
      return;
    }
    // Two runs of an agent in this graph: its traces, to compare one with another.
    let traces: TraceSummary[] = [];
    if (open && this.app.backend.traces) {
      try {
        traces = (await this.app.backend.traces({ graph: open, limit: 200 })).traces;
      } catch {
        traces = [];
      }
    }
    const keep = this.diff ? (this.diff.a === open ? this.diff.b : this.diff.a) : this.other.value;
    replace(this.other, graphs.map((g) => h("option", { value: g }, g)));
    if (graphs.includes(keep)) this.other.value = keep;
    const option = (t: TraceSummary) => h("option", { value: t.trace_id }, `${t.root_name ?? "trace"} · ${t.trace_id.slice(0, 8)}${t.errors ? ` · ${t.errors} failed` : ""}`);
    // Oldest first as A, the newest as B (the list comes newest first).
    replace(this.traceA, [...traces].reverse().map(option));
    replace(this.traceB, traces.map(option));
    replace(this.el, this.head(),
      graphs.length === 0
        ? h("p", { class: "muted" }, "There is no other graph to compare with. Ingest another run into a graph of its own first (Ingest ▸, “Into graph”).")
        : h("div", { class: "row" },
          h("label", null, "Earlier run ", this.other),
          h("button", { class: "btn btn-primary", testid: "compare-run", onclick: () => void this.run(this.other.value, open ?? "") }, "Compare")),
      traces.length < 2 ? null : h("div", { class: "row", testid: "compare-traces" },
        h("label", null, "Or two runs in this graph: ", this.traceA),
        h("label", null, "with ", this.traceB),
        h("button", { class: "btn", testid: "compare-run-traces", onclick: () => void this.runTraces(open ?? "", this.traceA.value, this.traceB.value) }, "Compare runs")),
      this.body);
    if (this.diff) this.render();
    else replace(this.body, h("p", { class: "hint" }, `Shows what “${open ?? "this graph"}” adds, removes and changes with respect to the graph you pick.`));
  }

  /** Closes the panel and takes its marks off the canvas. */
  close(): void {
    this.el.hidden = true;
    this.diff = null;
    this.index = -1;
    this.clearMarks();
  }

  private head(): HTMLElement {
    return h("div", { class: "compare-head" },
      h("h2", null, "Compare graphs"),
      h("button", { class: "btn btn-icon", testid: "compare-close", title: "Close (marks off)", "aria-label": "Close compare", onclick: () => this.close() }, "×"));
  }

  /** Runs the diff of `b` against `a` and shows it. */
  async run(a: string, b: string): Promise<void> {
    if (!a || !b) return;
    replace(this.body, h("p", { class: "muted" }, `Comparing ${b} with ${a}…`));
    let result: GraphDiff;
    try {
      result = await this.app.backend.diff({ a, b });
    } catch (e) {
      replace(this.body, errorState(`compare ${b} with ${a}`, e, () => void this.run(a, b)));
      return;
    }
    this.diff = { a, b, result, items: diffItems(result) };
    this.index = -1;
    this.render();
    this.graphChanged();
  }

  /** Compares two traces (runs) of graph `g`: what run `tb` changes with respect to `ta`. */
  async runTraces(g: string, ta: string, tb: string): Promise<void> {
    if (!g || !ta || !tb) return;
    const names = { a: `trace ${ta.slice(0, 8)}`, b: `trace ${tb.slice(0, 8)}` };
    replace(this.body, h("p", { class: "muted" }, `Comparing ${names.b} with ${names.a}…`));
    let result: GraphDiff;
    try {
      result = await this.app.backend.diff({ a: g, b: g, trace_a: ta, trace_b: tb });
    } catch (e) {
      replace(this.body, errorState(`compare ${names.b} with ${names.a}`, e, () => void this.runTraces(g, ta, tb)));
      return;
    }
    this.diff = { a: g, b: g, result, items: diffItems(result), runs: names };
    this.index = -1;
    this.render();
    this.graphChanged();
  }

  /** The open graph changed (or was redrawn): mark what differs on it. */
  graphChanged(): void {
    if (!this.diff || !this.isOpen) return;
    const side = sideOf(this.app.graph, this.diff.a, this.diff.b);
    this.marks = nodeMarks(this.diff.items, side, (id) => this.app.model.nodes.has(id));
    this.app.canvas.setHighlight(this.marks.size ? new Set(this.marks.keys()) : null);
    this.render();
    this.reposition();
    // Another graph opened: the choice of graph to compare with is offered anew.
    if (this.app.graph !== this.openedFor) void this.open();
  }

  /** The camera moved: the marks follow their nodes. */
  reposition(): void {
    if (this.marks.size === 0) {
      replace(this.marksEl);
      return;
    }
    const w = this.marksEl.clientWidth || Infinity, hgt = this.marksEl.clientHeight || Infinity;
    const out: HTMLElement[] = [];
    for (const [id, change] of this.marks) {
      if (out.length >= MAX_MARKS) break;
      const p = this.app.canvas.screenPosition(id);
      if (!p || p.x < -20 || p.y < -20 || p.x > w + 20 || p.y > hgt + 20) continue;
      const n = this.app.model.nodes.get(id);
      const el = h("span", { class: "diff-mark", "data-change": change, "data-id": id }, CHANGE_GLYPH[change]);
      el.style.transform = `translate(${Math.round(p.x + (n ? n.w / 4 : 0))}px, ${Math.round(p.y - 22)}px)`;
      out.push(el);
    }
    replace(this.marksEl, ...out);
  }

  private clearMarks(): void {
    this.marks.clear();
    replace(this.marksEl);
    this.app.canvas.setHighlight(null);
  }

  /** Moves to item `i` of the list: selects and centres it when the open graph has it. */
  async step(i: number): Promise<void> {
    if (!this.diff || this.diff.items.length === 0) return;
    const n = this.diff.items.length;
    this.index = ((i % n) + n) % n;
    this.render();
    const item = this.diff.items[this.index];
    const side = sideOf(this.app.graph, this.diff.a, this.diff.b);
    if (visibleOn(item, side) && this.app.model.nodes.has(item.focus)) {
      await this.app.select(item.focus, { focus: true, from: "panel" });
    }
    this.el.querySelector<HTMLElement>(`[data-index="${this.index}"]`)?.scrollIntoView?.({ block: "nearest" });
  }

  private render(): void {
    const d = this.diff;
    if (!d) return;
    const c = counts(d.result);
    const side = sideOf(this.app.graph, d.a, d.b);
    const drawnName = side === "a" ? d.a : d.b;
    const otherName = side === "a" ? d.b : d.a;
    const sum = (k: "nodes" | "edges") =>
      (["added", "removed", "changed"] as Change[]).map((ch) => `${CHANGE_GLYPH[ch]}${c[k][ch]} ${ch}`).join(" · ");
    const current = this.index >= 0 ? d.items[this.index] : null;
    replace(this.body,
      this.claims(d.result, side),
      d.result.traces ? runsSection(d.result.traces, d.runs ?? { a: d.a, b: d.b }, (n) => side !== null && this.app.model.nodes.has(n),
        (n) => void this.app.select(n, { focus: true, from: "panel" })) : null,
      h("p", { class: "compare-summary", testid: "compare-summary" },
        h("strong", null, d.runs?.b ?? d.b), " against ", h("strong", null, d.runs?.a ?? d.a), ": ",
        d.items.length === 0 ? "no differences." : `nodes ${sum("nodes")}; edges ${sum("edges")}.`),
      d.items.length === 0 ? null : h("div", { class: "row" },
        h("button", { class: "btn", testid: "compare-prev", onclick: () => void this.step(this.index - 1) }, "← Previous"),
        h("button", { class: "btn btn-primary", testid: "compare-next", onclick: () => void this.step(this.index + 1) }, "Next →"),
        h("span", { class: "muted", testid: "compare-position" }, this.index >= 0 ? `${this.index + 1} of ${d.items.length}` : `${d.items.length} differences`),
        side ? h("button", { class: "btn btn-small", testid: "compare-swap", title: `Draw ${otherName} instead`, onclick: () => void this.app.openGraph(otherName) },
          `Open ${otherName}`) : null),
      side === null ? h("p", { class: "hint" }, `Open ${d.a} or ${d.b} to see the marks on the drawing.`)
        : h("p", { class: "hint" }, side === "b"
          ? `Drawn: ${drawnName}. + added and ~ changed are marked; removed things are in ${otherName}.`
          : `Drawn: ${drawnName}. − removed and ~ changed are marked; added things are in ${otherName}.`),
      current ? this.detail(current, side) : null,
      h("ol", { class: "compare-list", testid: "compare-list" }, d.items.map((it, i) =>
        h("li", { "data-index": String(i), "data-change": it.change, class: i === this.index ? "current" : "" },
          h("button", { class: "compare-item", onclick: () => void this.step(i), title: visibleOn(it, side) ? "Show it" : `Only in ${it.change === "added" ? d.b : d.a}` },
            h("span", { class: "diff-glyph", "data-change": it.change }, CHANGE_GLYPH[it.change]),
            h("span", { class: "compare-what" }, `${CHANGE_WORD[it.change]} ${it.what} ${it.label}`),
            h("span", { class: "compare-key" }, it.key))))));
  }

  /** What the diff means for claims, first: by claim, each naming its claim, which is
   *  selected on a click when the drawn graph has it. */
  private claims(d: GraphDiff, side: "a" | "b" | null): HTMLElement {
    const groups = claimGroups(d);
    return h("section", { class: "compare-claims", testid: "compare-claims", "aria-label": "What changed for claims" },
      h("h3", null, "Claims"),
      groups.length === 0
        ? h("p", { class: "muted" }, "No claim, verification, verdict, consensus, signature or quote differs.")
        : groups.map((g) => {
          const drawn = g.claim !== null && side !== null && this.app.model.nodes.has(g.claim);
          return h("div", { class: "claim-group", "data-claim": g.claim ?? "" },
            g.claim === null ? null : h("button", {
              class: "claim-of", disabled: !drawn, title: drawn ? "Show the claim" : "Not in the drawn graph",
              onclick: () => { if (g.claim) void this.app.select(g.claim, { focus: true, from: "panel" }); },
            }, `“${g.claimText ?? g.claim}”`),
            h("ul", null, g.lines.map((l) => {
              const [was, is] = l.before === undefined && l.after === undefined ? ["", ""] : showChange(l.before, l.after, 90);
              return h("li", { "data-what": l.what, "data-change": l.change },
                h("span", { class: "diff-glyph", "data-change": l.change, "aria-hidden": "true" }, CHANGE_GLYPH[l.change]),
                h("span", { class: "claim-line" },
                  h("span", { class: "compare-what" }, l.text),
                  was || is ? h("span", { class: "claim-values" }, " ", h("span", { class: "before" }, was), " → ", h("span", { class: "after" }, is)) : null));
            })));
        }));
  }

  private detail(it: DiffItem, side: "a" | "b" | null): HTMLElement {
    const where = !visibleOn(it, side)
      ? h("p", { class: "muted" }, `Not in the drawn graph: open ${it.change === "added" ? this.diff?.b : this.diff?.a} to see it.`)
      : this.app.model.nodes.has(it.focus) ? null
        : h("p", { class: "muted" }, "Not drawn now: it is filtered out, or outside the neighbourhood drawn.");
    return h("div", { class: "compare-detail", testid: "compare-detail" },
      h("p", null, h("span", { class: "diff-glyph", "data-change": it.change }, CHANGE_GLYPH[it.change]), ` ${CHANGE_WORD[it.change]} ${it.what} `,
        h("code", null, it.key)),
      where,
      it.props.length === 0 ? h("p", { class: "muted" }, "No properties.") : h("table", { class: "props" },
        h("thead", null, h("tr", null, h("th", null, "property"), h("th", null, "before"), h("th", null, "after"))),
        h("tbody", null, it.props.map(([k, before, after]) => {
          const [was, is] = showChange(before, after);
          return h("tr", null, h("th", null, k), h("td", { class: "before" }, was), h("td", { class: "after" }, is));
        }))));
  }
}
