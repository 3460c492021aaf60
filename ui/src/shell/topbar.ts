// The top bar: graph picker, search (search/search-box.ts), filters, ingest (upload, follow,
// council demo; in ingest/ingest-menu.ts), export (PNG, SVG, selection JSON; in
// export/export-menu.ts), tidy-up, compare, theme and help.

import type { Backend } from "../api/backend";
import type { Theme } from "../canvas/types";
import { DIMENSIONS, DIMENSION_TITLES, NONE, facetValues, isFiltering, type FilterState } from "../graph/filters";
import type { GraphModel } from "../graph/model";
import type { SelectFn } from "../shared/host";
import { agentName } from "../trail/labels";
import { h, replace } from "../shared/dom";
import { ExportMenu, type ExportHost } from "../export/export-menu";
import type { HelpOverlay } from "./help";
import { IngestMenu, type IngestHost } from "../ingest/ingest-menu";
import { SearchBox, type SearchHost } from "../search/search-box";

/** What the top bar needs of the app: its own controls' and those of its two menus. */
export interface TopBarHost extends IngestHost, ExportHost, SearchHost {
  readonly backend: Pick<Backend, "search" | "searchAll" | "node" | "upload" | "follow" | "demo" | "exportProv" | "bundle">;
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
  readonly runs: { toggle(): void };
}

export class TopBar {
  readonly el: HTMLElement;
  graphs: string[] = [];
  private picker = h("select", { class: "graph-picker", testid: "graph-picker", "aria-label": "Graph", title: "Graph" });
  private search: SearchBox;
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
    this.search = new SearchBox(app);

    const filters = this.menu("Filters", this.filterSummary, this.filterBody);
    filters.addEventListener("toggle", () => { if (filters.open) this.refreshFilters(); });

    this.el = h("header", { class: "topbar" },
      h("div", { class: "brand" }, h("span", { class: "brand-mark", "aria-hidden": "true" }), "Provex"),
      h("label", { class: "picker-wrap" }, h("span", { class: "sr-only" }, "Graph"), this.picker),
      this.search.el,
      filters,
      this.menu("Ingest", this.ingest.summary, this.ingest.body),
      this.menu("Export", this.exportMenu.summary, this.exportMenu.body),
      h("button", { class: "btn", testid: "tidy-button", title: "Tidy up the layout (t)", onclick: () => void this.app.tidy() }, "Tidy up"),
      h("button", { class: "btn", testid: "compare-button", title: "Compare this graph with another run", onclick: () => void this.app.compare.open() }, "Compare…"),
      h("button", { class: "btn", testid: "runs-button", title: "Every graph: its sources, size, time, agents and problems", onclick: () => this.app.runs.toggle() }, "Runs"),
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
    if (this.search.close()) closed = true;
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

  /** The search box, focused with its text selected ( / ). */
  focusSearch(): void {
    this.search.focus();
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
