// The search box of the top bar: what is typed searches the open graph's node text, verdicts
// and problems (`search`, 200 ms after the last key), or, with "All graphs" pressed, every
// graph through the backend's index (`searchAll`, see all-graphs.ts); the hits drop down as a
// list the arrow keys move through (focus stays in the box), under their graph in the second
// mode; Enter or a click selects the hit, or the first one (opening its graph first when it is
// another), and centres the canvas on it.

import type { Backend } from "../api/backend";
import type { GraphModel } from "../graph/model";
import { h, replace } from "../shared/dom";
import type { Notifier, SelectFn } from "../shared/host";
import { byGraph, fromAllHit, fromGraphHit, groupHeading, type ListedHit } from "./all-graphs";

const SEARCH_LIMIT = 20;
/** Hits asked for across every graph. */
const ALL_LIMIT = 50;

/** What the search box needs of the app. */
export interface SearchHost {
  readonly graph: string | null;
  readonly backend: Pick<Backend, "search" | "searchAll">;
  readonly model: Pick<GraphModel, "nodes">;
  readonly toasts: Notifier;
  select: SelectFn;
  openGraph(graph: string, root?: string, opts?: { waitForGraph?: boolean }): Promise<void>;
}

const PLACEHOLDER = "Search claims, verdicts, problems  ( / )";
const PLACEHOLDER_ALL = "Search every graph: claims, agents, trace ids  ( / )";

export class SearchBox {
  private searchInput = h("input", {
    class: "search-input", testid: "search-input", type: "search", placeholder: "Search claims, verdicts, problems  ( / )", title: "Search node text, and verdicts or problems such as “forged”, “challenged”, “mismatch” ( / )",
    "aria-label": "Search", autocomplete: "off", spellcheck: "false",
    role: "combobox", "aria-autocomplete": "list", "aria-expanded": "false", "aria-controls": "provex-search-results",
  });
  private searchResults = h("ul", { class: "search-results", id: "provex-search-results", role: "listbox", "aria-label": "Search results", hidden: true });
  private scope = h("button", {
    class: "search-scope", testid: "search-all-toggle", type: "button", "aria-pressed": "false",
    title: "Search every graph, not only the open one", onclick: () => this.toggleAll(),
  }, "All graphs");
  readonly el = h("div", { class: "search" }, this.searchInput, this.scope, this.searchResults);
  private hits: ListedHit[] = [];
  /** Whether every graph is searched (else the open one). */
  private all = false;
  /** The result the arrow keys are on (-1: none); focus stays in the search box. */
  private active = -1;
  private searchTimer: ReturnType<typeof setTimeout> | null = null;
  private pendingSearch: Promise<ListedHit[]> | null = null;
  private searchedFor = "";

  constructor(private readonly app: SearchHost) {
    this.searchInput.addEventListener("input", () => this.onSearchInput());
    this.searchInput.addEventListener("keydown", (ev) => this.onSearchKey(ev));
    // Closed a moment after the box loses focus (a click on a hit lands first), unless the
    // focus came back meanwhile (the list shown again by the focus handler stays).
    this.searchInput.addEventListener("blur", () => setTimeout(() => {
      if (this.searchInput.ownerDocument.activeElement !== this.searchInput) this.showResults(false);
    }, 200));
    this.searchInput.addEventListener("focus", () => { if (this.hits.length > 0) this.showResults(true); });
  }

  /** Focuses the box with its text selected ( / ). */
  focus(): void {
    this.searchInput.focus();
    this.searchInput.select();
  }

  /** Whether every graph is searched. */
  get allGraphs(): boolean {
    return this.all;
  }

  /** Searches every graph (or the open one again), the text typed searched again. */
  toggleAll(): void {
    this.all = !this.all;
    this.scope.setAttribute("aria-pressed", String(this.all));
    this.el.classList.toggle("all-graphs", this.all);
    this.searchInput.placeholder = this.all ? PLACEHOLDER_ALL : PLACEHOLDER;
    this.searchedFor = "";
    this.pendingSearch = null;
    const q = this.searchInput.value.trim();
    if (q) void this.run(q);
    this.searchInput.focus();
  }

  /** Closes the result list; true if it was open. */
  close(): boolean {
    if (this.searchResults.hidden) return false;
    this.showResults(false);
    return true;
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
    this.searchTimer = setTimeout(() => void this.run(q), 200);
  }

  /** The hits of `q` in the mode the box is in. */
  private ask(q: string): Promise<ListedHit[]> | null {
    if (this.all) return this.app.backend.searchAll({ q, limit: ALL_LIMIT }).then((hits) => hits.map(fromAllHit));
    const graph = this.app.graph;
    if (!graph) return null;
    return this.app.backend.search({ graph, q, limit: SEARCH_LIMIT }).then((hits) => hits.map(fromGraphHit));
  }

  private run(q: string): Promise<ListedHit[]> {
    if (this.searchTimer !== null) clearTimeout(this.searchTimer);
    this.searchTimer = null;
    if (this.pendingSearch && this.searchedFor === q) return this.pendingSearch;
    const asked = this.ask(q);
    if (!asked) return Promise.resolve([]);
    this.searchedFor = q;
    const p = asked.then((hits) => {
      if (this.searchedFor === q) {
        this.hits = hits;
        this.renderHits();
      }
      return hits;
    }, (e) => {
      this.app.toasts.error(e, "Search");
      return [] as ListedHit[];
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
    const hits = chosen ? [chosen] : q === this.searchedFor && this.pendingSearch ? await this.pendingSearch : await this.run(q);
    const first = hits[0];
    if (!first) {
      this.app.toasts.info(`Nothing matches “${q}”.`);
      return;
    }
    this.showResults(false);
    await this.pick(first);
  }

  /** Selects a hit and centres the canvas on it, opening its graph first when it is another
   *  (around the node, when the graph opens as clusters that do not draw it). */
  private async pick(hit: ListedHit): Promise<void> {
    if (hit.graph !== null && hit.graph !== this.app.graph) {
      await this.app.openGraph(hit.graph);
      if (!this.app.model.nodes.has(hit.id)) await this.app.openGraph(hit.graph, hit.id);
    }
    await this.app.select(hit.id, { focus: true, from: "search" });
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

  private option(hit: ListedHit, i: number): HTMLLIElement {
    return h("li", { role: "option", id: `provex-search-hit-${i}`, "aria-selected": "false", testid: "search-option" },
      h("button", {
        class: "search-result", testid: "search-result", "data-id": hit.id, "data-graph": hit.graph ?? undefined,
        type: "button", tabindex: "-1", title: hit.snippet || hit.id,
        onmousedown: (ev) => ev.preventDefault(),
        onclick: () => {
          this.showResults(false);
          void this.pick(hit);
        },
      },
      h("span", { class: "chip" }, hit.label),
      h("span", { class: "hit-snippet" }, hit.snippet || hit.id),
      h("span", { class: "hit-field" }, hit.note)));
  }

  private renderHits(): void {
    this.active = -1;
    this.searchInput.removeAttribute("aria-activedescendant");
    if (this.all) {
      // Under their graph; the options keep the hits' order, so the arrow keys walk them as listed.
      const items: HTMLLIElement[] = [];
      const groups = byGraph(this.hits);
      this.hits = groups.flatMap((g) => g.hits);
      let i = 0;
      for (const g of groups) {
        items.push(groupHeading(g.graph, g.hits.length, g.graph === this.app.graph));
        for (const hit of g.hits) items.push(this.option(hit, i++));
      }
      replace(this.searchResults, items);
    } else {
      replace(this.searchResults, this.hits.map((hit, i) => this.option(hit, i)));
    }
    if (this.hits.length === 0 && this.searchInput.value.trim()) {
      this.searchResults.appendChild(h("li", { class: "empty" }, "No matches"));
    }
    this.showResults(this.searchInput.value.trim() !== "");
  }
}
