// The Runs view: every graph in the database as one row (its sources, size, time span,
// agents and problem counts, read by the `runs` operation), sortable by each column and
// filterable by name or agent, source and "has problems". A click (or Enter) on a row opens
// that graph. While the view is open it stays current: it passes the list's version back
// and the backend answers when a graph is written.

import type { Backend } from "../api/backend";
import type { RunList, RunRow } from "../api/contract";
import { h, replace } from "../shared/dom";
import { errorState } from "../shared/error-state";
import {
  DEFAULT_SORT, NO_FILTER, SOURCES, SOURCE_NAMES, duration, filterRows, isFiltering, nextSort, problemCount,
  sortRows, spanMs, when, type RunFilter, type RunSort, type SortKey,
} from "./rows";
import "./runs.css";

/** What the Runs view needs of the app. */
export interface RunsHost {
  readonly backend: Pick<Backend, "runs">;
  /** The open graph, marked in the list. */
  readonly graph: string | null;
  openGraph(graph: string): Promise<void>;
}

/** How long the backend may hold a request for the next write. */
const WAIT_MS = 20_000;
/** After a failed request, how long until the next try. */
const RETRY_MS = 3_000;

const COLUMNS: { key: SortKey, title: string, hint: string, numeric?: boolean }[] = [
  { key: "graph", title: "Graph", hint: "The graph's name" },
  { key: "sources", title: "Sources", hint: "What the graph was read from" },
  { key: "nodes", title: "Nodes", hint: "Nodes in the graph", numeric: true },
  { key: "edges", title: "Edges", hint: "Edges in the graph", numeric: true },
  { key: "first", title: "Started", hint: "The earliest time its nodes carry (UTC)" },
  { key: "span", title: "Lasted", hint: "From the earliest to the latest time its nodes carry", numeric: true },
  { key: "agents", title: "Agents", hint: "Agents that signed, ran or were traced (models not counted)" },
  { key: "invalid_signatures", title: "Invalid signatures", hint: "Claims altered after signing and forged verifications", numeric: true },
  { key: "challenged_claims", title: "Challenged", hint: "Claims a counted verification challenges", numeric: true },
  { key: "failed_tools", title: "Failed tools", hint: "Tool calls that failed and OpenTelemetry spans with an error", numeric: true },
];

export class RunsView {
  readonly el = h("section", { class: "runs-view", testid: "runs", role: "region", "aria-label": "Runs", hidden: true });
  private readonly text = h("input", {
    class: "input", type: "search", testid: "runs-filter", placeholder: "Graph or agent", "aria-label": "Filter by graph or agent name", spellcheck: "false",
  });
  private readonly source = h("select", { class: "input", testid: "runs-source", "aria-label": "Filter by source" });
  private readonly problems = h("input", { type: "checkbox", testid: "runs-problems" });
  private readonly summary = h("p", { class: "runs-summary muted", testid: "runs-summary", "aria-live": "polite" });
  private readonly body = h("div", { class: "runs-body" });
  private list: RunList | null = null;
  private sort: RunSort = DEFAULT_SORT;
  private filter: RunFilter = NO_FILTER;
  /** Bumped on every open and close: a request of an earlier opening is ignored. */
  private opening = 0;
  /** When the list was last received. */
  private received: Date | null = null;

  constructor(private readonly host: RunsHost) {
    replace(this.source, h("option", { value: "" }, "Any source"), SOURCES.map((s) => h("option", { value: s }, SOURCE_NAMES[s])));
    this.text.addEventListener("input", () => this.setFilter({ text: this.text.value }));
    this.source.addEventListener("change", () => this.setFilter({ source: this.source.value as RunFilter["source"] }));
    this.problems.addEventListener("change", () => this.setFilter({ problems: this.problems.checked }));
    this.el.addEventListener("keydown", (ev) => {
      if (ev.key === "Escape") {
        ev.stopPropagation();
        this.close();
      }
    });
    replace(this.el,
      h("div", { class: "runs-head" },
        h("h2", null, "Runs"),
        this.summary,
        h("span", { class: "spacer" }),
        h("button", { class: "btn btn-icon", testid: "runs-close", title: "Close (Esc)", "aria-label": "Close runs", onclick: () => this.close() }, "×")),
      h("div", { class: "runs-controls" },
        this.text,
        this.source,
        h("label", { class: "runs-check" }, this.problems, " Has problems")),
      this.body);
  }

  get isOpen(): boolean {
    return !this.el.hidden;
  }

  /** Opens the view and keeps it current until it is closed. */
  open(): void {
    if (this.isOpen) return;
    this.el.hidden = false;
    const opening = ++this.opening;
    if (!this.list) replace(this.body, h("p", { class: "muted runs-empty" }, "Reading the graphs…"));
    else this.render();
    void this.follow(opening);
    this.text.focus();
  }

  close(): void {
    this.el.hidden = true;
    this.opening++;
  }

  toggle(): void {
    if (this.isOpen) this.close();
    else this.open();
  }

  /** Asks for the list, then for each next one (answered when a graph is written). */
  private async follow(opening: number): Promise<void> {
    let since: number | undefined;
    while (opening === this.opening) {
      try {
        const list = await this.host.backend.runs(since === undefined ? {} : { since, wait_ms: WAIT_MS });
        if (opening !== this.opening) return;
        this.list = list;
        this.received = new Date();
        since = list.version;
        this.render();
      } catch (e) {
        if (opening !== this.opening) return;
        replace(this.body, errorState("list the runs", e, () => { this.close(); this.open(); }));
        await new Promise((r) => setTimeout(r, RETRY_MS));
      }
    }
  }

  private setFilter(change: Partial<RunFilter>): void {
    this.filter = { ...this.filter, ...change };
    this.render();
  }

  private setSort(key: SortKey): void {
    this.sort = nextSort(this.sort, key);
    this.render();
  }

  private async openRow(graph: string): Promise<void> {
    this.close();
    await this.host.openGraph(graph);
  }

  /** The rows shown now, in the order shown (for tests and the summary). */
  shownRows(): RunRow[] {
    return this.list ? sortRows(filterRows(this.list.rows, this.filter), this.sort) : [];
  }

  private render(): void {
    if (!this.list) return;
    const all = this.list.rows;
    const rows = this.shownRows();
    const withProblems = all.filter((r) => problemCount(r) > 0).length;
    const time = this.received ? ` · live, updated ${this.received.toLocaleTimeString("en-GB")}` : "";
    this.summary.textContent = isFiltering(this.filter)
      ? `${rows.length} of ${plural(all.length, "graph")} shown${time}`
      : `${plural(all.length, "graph")}, ${withProblems} with problems${time}`;
    if (all.length === 0) {
      replace(this.body, h("p", { class: "muted runs-empty" }, "No graphs yet. Ingest a file (Ingest ▸) or run the council demo: each run becomes a graph here."));
      return;
    }
    const scroll = this.body.scrollTop;
    replace(this.body,
      h("table", { class: "runs-table", testid: "runs-table" },
        h("thead", null, h("tr", null, COLUMNS.map((c) => this.header(c)))),
        h("tbody", null, rows.map((r) => this.row(r)))),
      rows.length === 0 ? h("p", { class: "muted runs-empty" }, "No graph matches the filter.") : null);
    this.body.scrollTop = scroll;
  }

  private header(c: (typeof COLUMNS)[number]): HTMLElement {
    const sorted = this.sort.key === c.key;
    const arrow = sorted ? (this.sort.dir === "asc" ? " ▲" : " ▼") : "";
    return h("th", { class: c.numeric ? "num" : "", "aria-sort": sorted ? (this.sort.dir === "asc" ? "ascending" : "descending") : "none", scope: "col" },
      h("button", { class: "runs-sort", "data-sort": c.key, title: `${c.hint}. Sort by ${c.title.toLowerCase()}`, onclick: () => this.setSort(c.key) }, c.title, arrow));
  }

  private row(r: RunRow): HTMLElement {
    const span = spanMs(r);
    const open = () => void this.openRow(r.graph);
    const tr = h("tr", {
      class: `runs-row${r.graph === this.host.graph ? " current" : ""}`, testid: "runs-row", "data-graph": r.graph, tabindex: 0,
      title: `Open ${r.graph}`, onclick: open,
      onkeydown: (ev) => { if ((ev as KeyboardEvent).key === "Enter") open(); },
    },
    h("td", { class: "runs-name" }, r.graph,
      r.unavailable ? h("span", { class: "runs-unavailable", testid: "runs-unavailable" }, r.unavailable) : null),
    h("td", { class: "runs-sources" }, r.sources.length === 0 ? h("span", { class: "muted" }, "—")
      : r.sources.map((s) => h("span", { class: "runs-source", "data-source": s }, SOURCE_NAMES[s]))),
    h("td", { class: "num", "data-col": "nodes" }, r.nodes.toLocaleString("en")),
    h("td", { class: "num", "data-col": "edges" }, r.edges.toLocaleString("en")),
    h("td", { class: "runs-when" }, r.first_ms === null ? h("span", { class: "muted" }, "—") : when(r.first_ms)),
    h("td", { class: "num" }, span === null ? h("span", { class: "muted" }, "—") : duration(span)),
    h("td", { class: "runs-agents", title: r.agent_names.join(", ") },
      r.agents === 0 ? h("span", { class: "muted" }, "—")
        : [h("strong", null, r.agents.toLocaleString("en")), " ", h("span", { class: "runs-agent-names" }, names(r))]),
    this.problem(r.invalid_signatures, "invalid_signatures"),
    this.problem(r.challenged_claims, "challenged_claims"),
    this.problem(r.failed_tools, "failed_tools"));
    return tr;
  }

  private problem(n: number, col: string): HTMLElement {
    return h("td", { class: "num", "data-col": col },
      n === 0 ? h("span", { class: "muted" }, "0") : h("span", { class: "runs-problem" }, n.toLocaleString("en")));
  }
}

function plural(n: number, word: string): string {
  return `${n.toLocaleString("en")} ${word}${n === 1 ? "" : "s"}`;
}

/** The agents' names a row shows, "and N more" past them. */
function names(r: RunRow): string {
  const more = r.agents - r.agent_names.length;
  return r.agent_names.join(", ") + (more > 0 ? ` and ${more} more` : "");
}
