// The top bar: graph picker, search, filters, ingest (upload, follow, council demo; in
// ingest-menu.ts), export (PNG, SVG, selection JSON; in export-menu.ts), tidy-up, theme
// and help.

import type { Backend } from "../api/backend";
import type { SearchHit } from "../api/contract";
import type { Theme } from "../canvas/types";
import { DIMENSIONS, DIMENSION_TITLES, NONE, facetValues, isFiltering, type FilterState } from "../graph/filters";
import type { GraphModel } from "../graph/model";
import type { SelectFn } from "../shared/host";
import { agentName } from "../trail/labels";
import { h, replace } from "../shared/dom";
import { ExportMenu, type ExportHost } from "../export/export-menu";
import type { HelpOverlay } from "./help";
import { IngestMenu, type IngestHost } from "../ingest/ingest-menu";

const SEARCH_LIMIT = 20;

/** What the top bar needs of the app: its own controls' and those of its two menus. */
export interface TopBarHost extends IngestHost, ExportHost {
  readonly backend: Pick<Backend, "search" | "node" | "upload" | "follow" | "demo" | "exportProv" | "bundle">;
  readonly model: Pick<GraphModel, "nodes" | "nodeList" | "edgeList" | "seq">;
  readonly names: ReadonlyMap<string, string>;
  readonly filters: FilterState;
  setFilters(f: FilterState): void;
  readonly theme: Theme;
  setTheme(theme: Theme): void;
  readonly help: Pick<HelpOverlay, "toggle">;
  tidy(): Promise<void>;
  select: SelectFn;
  readonly compare: { open(): Promise<void> };
}

export class TopBar {
  readonly el: HTMLElement;
  graphs: string[] = [];
  private picker = h("select", { class: "graph-picker", testid: "graph-picker", "aria-label": "Graph", title: "Graph" });
  private searchInput = h("input", {
    class: "search-input", testid: "search-input", type: "search", placeholder: "Search claims, verdicts, problems  ( / )", title: "Search node text, and verdicts or problems such as “forged”, “challenged”, “mismatch” ( / )",
    "aria-label": "Search", autocomplete: "off", spellcheck: "false",
    role: "combobox", "aria-autocomplete": "list", "aria-expanded": "false", "aria-controls": "provex-search-results",
  });
  private searchResults = h("ul", { class: "search-results", id: "provex-search-results", role: "listbox", "aria-label": "Search results", hidden: true });
  private hits: SearchHit[] = [];
  /** The result the arrow keys are on (-1: none); focus stays in the search box. */
  private active = -1;
  private searchTimer: ReturnType<typeof setTimeout> | null = null;
  private pendingSearch: Promise<SearchHit[]> | null = null;
  private searchedFor = "";
  private filterSummary = h("summary", { class: "btn", testid: "filters-menu" }, "Filters");
  private filterBody = h("div", { class: "menu-body filters" });
  private themeButton = h("button", { class: "btn btn-icon", testid: "theme-toggle", title: "Theme (d)" });
  private menus: HTMLDetailsElement[] = [];
  private ingest: IngestMenu;
  private exportMenu: ExportMenu;

  constructor(private readonly app: TopBarHost) {
    this.ingest = new IngestMenu(app, () => this.closeMenus());
    this.exportMenu = new ExportMenu(app, () => this.closeMenus());
    this.picker.addEventListener("change", () => void this.app.openGraph(this.picker.value));
    this.picker.addEventListener("focus", () => void this.app.refreshGraphs());
    this.searchInput.addEventListener("input", () => this.onSearchInput());
    this.searchInput.addEventListener("keydown", (ev) => this.onSearchKey(ev));
    this.searchInput.addEventListener("blur", () => setTimeout(() => this.showResults(false), 200));
    this.searchInput.addEventListener("focus", () => { if (this.hits.length > 0) this.showResults(true); });

    const filters = this.menu("Filters", this.filterSummary, this.filterBody);
    filters.addEventListener("toggle", () => { if (filters.open) this.refreshFilters(); });

    this.el = h("header", { class: "topbar" },
      h("div", { class: "brand" }, h("span", { class: "brand-mark", "aria-hidden": "true" }), "Provex"),
      h("label", { class: "picker-wrap" }, h("span", { class: "sr-only" }, "Graph"), this.picker),
      h("div", { class: "search" }, this.searchInput, this.searchResults),
      filters,
      this.menu("Ingest", this.ingest.summary, this.ingest.body),
      this.menu("Export", this.exportMenu.summary, this.exportMenu.body),
      h("button", { class: "btn", testid: "tidy-button", title: "Tidy up the layout (t)", onclick: () => void this.app.tidy() }, "Tidy up"),
      h("button", { class: "btn", testid: "compare-button", title: "Compare this graph with another run", onclick: () => void this.app.compare.open() }, "Compare…"),
      h("span", { class: "spacer" }),
      this.themeButton,
      h("button", { class: "btn btn-icon", testid: "help-button", title: "Keyboard shortcuts (?)", onclick: () => this.app.help.toggle() }, "?"));
    this.themeButton.addEventListener("click", () => this.app.setTheme(this.app.theme === "dark" ? "light" : "dark"));
    this.renderTheme();
    document.addEventListener("click", (ev) => {
      for (const m of this.menus) if (m.open && !m.contains(ev.target as Node)) m.open = false;
    });
  }

  private menu(name: string, summary: HTMLElement, body: HTMLElement): HTMLDetailsElement {
    const d = h("details", { class: "menu", "data-menu": name.toLowerCase() }, summary, body);
    this.menus.push(d);
    return d;
  }

  /** Closes open menus; true if one was open. */
  closeMenus(): boolean {
    let closed = false;
    for (const m of this.menus) if (m.open) { m.open = false; closed = true; }
    if (!this.searchResults.hidden) { this.showResults(false); closed = true; }
    return closed;
  }

  renderTheme(): void {
    const dark = this.app.theme === "dark";
    this.themeButton.textContent = dark ? "☀" : "☾";
    this.themeButton.setAttribute("aria-label", dark ? "Light theme" : "Dark theme");
  }

  // ---------------------------------------------------------------- graph picker

  setGraphs(graphs: string[], current: string | null): void {
    this.graphs = [...graphs].sort((a, b) => a.localeCompare(b));
    if (current && !this.graphs.includes(current)) this.graphs.unshift(current);
    replace(this.picker,
      this.graphs.length === 0 ? h("option", { value: "", disabled: true }, "No graphs")
        : current ? null : h("option", { value: "", disabled: true }, "Choose a graph…"),
      this.graphs.map((g) => h("option", { value: g }, g)));
    this.picker.value = current ?? "";
  }

  setCurrent(graph: string): void {
    if (!this.graphs.includes(graph)) this.setGraphs([...this.graphs, graph], graph);
    this.picker.value = graph;
    this.ingest.graphOpened(graph);
  }

  // ---------------------------------------------------------------- search

  focusSearch(): void {
    this.searchInput.focus();
    this.searchInput.select();
  }

  private onSearchInput(): void {
    if (this.searchTimer !== null) clearTimeout(this.searchTimer);
    const q = this.searchInput.value.trim();
    if (q.length === 0) {
      this.hits = [];
      // Forget the last query, so typing it again searches again.
      this.searchedFor = "";
      this.pendingSearch = null;
      this.renderHits();
      return;
    }
    this.searchTimer = setTimeout(() => void this.search(q), 200);
  }

  private search(q: string): Promise<SearchHit[]> {
    const graph = this.app.graph;
    if (!graph) return Promise.resolve([]);
    if (this.searchTimer !== null) clearTimeout(this.searchTimer);
    this.searchTimer = null;
    if (this.pendingSearch && this.searchedFor === q) return this.pendingSearch;
    this.searchedFor = q;
    const p = this.app.backend.search({ graph, q, limit: SEARCH_LIMIT }).then((hits) => {
      if (this.searchedFor === q) {
        this.hits = hits;
        this.renderHits();
      }
      return hits;
    }, (e) => {
      this.app.toasts.error(e, "Search");
      return [] as SearchHit[];
    });
    this.pendingSearch = p;
    return p;
  }

  private async onSearchKey(ev: KeyboardEvent): Promise<void> {
    if (ev.key === "Escape") {
      this.showResults(false);
      this.searchInput.blur();
      return;
    }
    if (ev.key === "ArrowDown" || ev.key === "ArrowUp") {
      ev.preventDefault();
      if (this.hits.length === 0) return;
      if (this.searchResults.hidden) this.showResults(true);
      const last = this.hits.length - 1;
      this.setActive(ev.key === "ArrowDown" ? Math.min(this.active + 1, last) : Math.max(this.active - 1, -1));
      return;
    }
    if (ev.key !== "Enter") return;
    ev.preventDefault();
    const q = this.searchInput.value.trim();
    if (!q) return;
    const chosen = this.active >= 0 && q === this.searchedFor ? this.hits[this.active] : undefined;
    const hits = chosen ? [chosen] : q === this.searchedFor && this.pendingSearch ? await this.pendingSearch : await this.search(q);
    const first = hits[0];
    if (!first) {
      this.app.toasts.info(`Nothing matches “${q}”.`);
      return;
    }
    this.showResults(false);
    await this.app.select(first.id, { focus: true, from: "search" });
  }

  private showResults(shown: boolean): void {
    this.searchResults.hidden = !shown;
    this.searchInput.setAttribute("aria-expanded", String(shown));
  }

  /** Moves the arrow keys' place to result `i` (-1: none), and scrolls it into view. */
  private setActive(i: number): void {
    this.active = i;
    const options = this.searchResults.querySelectorAll<HTMLElement>("li[role=option]");
    options.forEach((o, k) => {
      o.setAttribute("aria-selected", String(k === i));
      o.classList.toggle("active", k === i);
    });
    const on = options[i];
    if (on) {
      this.searchInput.setAttribute("aria-activedescendant", on.id);
      on.scrollIntoView({ block: "nearest" });
    } else {
      this.searchInput.removeAttribute("aria-activedescendant");
    }
  }

  private renderHits(): void {
    this.active = -1;
    this.searchInput.removeAttribute("aria-activedescendant");
    replace(this.searchResults, this.hits.map((hit, i) =>
      h("li", { role: "option", id: `provex-search-hit-${i}`, "aria-selected": "false", testid: "search-option" },
        h("button", {
          class: "search-result", testid: "search-result", "data-id": hit.id, type: "button", tabindex: "-1", title: hit.snippet || hit.id,
          onmousedown: (ev) => ev.preventDefault(),
          onclick: () => {
            this.showResults(false);
            void this.app.select(hit.id, { focus: true, from: "search" });
          },
        },
        h("span", { class: "chip" }, hit.label),
        h("span", { class: "hit-snippet" }, hit.snippet || hit.id),
        h("span", { class: "hit-field" }, hit.field)))));
    if (this.hits.length === 0 && this.searchInput.value.trim()) {
      this.searchResults.appendChild(h("li", { class: "empty" }, "No matches"));
    }
    this.showResults(this.searchInput.value.trim() !== "");
  }

  // ---------------------------------------------------------------- filters

  /** Rebuilds the filter menu from the values now in the graph. */
  refreshFilters(): void {
    const state = this.app.filters;
    const hidden = DIMENSIONS.reduce((n, d) => n + state[d].size, 0);
    this.filterSummary.textContent = isFiltering(state) ? `Filters (${hidden} hidden)` : "Filters";
    this.filterSummary.classList.toggle("btn-active", isFiltering(state));
    const open = this.menus.find((m) => m.contains(this.filterBody))?.open;
    if (!open) return;
    const nodes = this.app.model.nodeList();
    const sections = DIMENSIONS.map((dim) => {
      const values = facetValues(nodes, dim);
      if (values.length === 0 || (values.length === 1 && values[0][0] === NONE)) return null;
      return h("fieldset", { class: "facet" },
        h("legend", null, DIMENSION_TITLES[dim]),
        values.map(([value, count]) =>
          h("label", { class: "facet-value" },
            h("input", {
              type: "checkbox", checked: !state[dim].has(value), "data-dim": dim, "data-value": value,
              onchange: (ev) => this.toggleValue(dim, value, (ev.target as HTMLInputElement).checked),
            }),
            h("span", { class: value === NONE ? "muted" : "", title: value },
              value === NONE ? "(none)" : dim === "agent" ? agentName(value, this.app.names) : value),
            h("span", { class: "count" }, count.toLocaleString("en")))));
    });
    replace(this.filterBody,
      h("div", { class: "menu-head" },
        h("strong", null, "Show nodes with"),
        h("button", { class: "btn btn-small", testid: "filters-reset", onclick: () => this.resetFilters() }, "Show all")),
      sections.some(Boolean) ? sections : h("p", { class: "muted" }, "Nothing to filter yet."));
  }

  private toggleValue(dim: (typeof DIMENSIONS)[number], value: string, shown: boolean): void {
    const next: FilterState = { ...this.app.filters, [dim]: new Set(this.app.filters[dim]) };
    if (shown) next[dim].delete(value);
    else next[dim].add(value);
    this.app.setFilters(next);
    this.refreshFilters();
  }

  private resetFilters(): void {
    this.app.setFilters({ label: new Set(), base_type: new Set(), agent: new Set(), context: new Set(), status: new Set() });
    this.refreshFilters();
  }
}
