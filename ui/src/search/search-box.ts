// The search box of the top bar: what is typed searches the open graph's node text, verdicts
// and problems (`search`, 200 ms after the last key); the hits drop down as a list the arrow
// keys move through (focus stays in the box); Enter or a click selects the hit, or the first
// one, and centres the canvas on it.

import type { Backend } from "../api/backend";
import type { SearchHit } from "../api/contract";
import { h, replace } from "../shared/dom";
import type { Notifier, SelectFn } from "../shared/host";

const SEARCH_LIMIT = 20;

/** What the search box needs of the app. */
export interface SearchHost {
  readonly graph: string | null;
  readonly backend: Pick<Backend, "search">;
  readonly toasts: Notifier;
  select: SelectFn;
}

export class SearchBox {
  private searchInput = h("input", {
    class: "search-input", testid: "search-input", type: "search", placeholder: "Search claims, verdicts, problems  ( / )", title: "Search node text, and verdicts or problems such as “forged”, “challenged”, “mismatch” ( / )",
    "aria-label": "Search", autocomplete: "off", spellcheck: "false",
    role: "combobox", "aria-autocomplete": "list", "aria-expanded": "false", "aria-controls": "provex-search-results",
  });
  private searchResults = h("ul", { class: "search-results", id: "provex-search-results", role: "listbox", "aria-label": "Search results", hidden: true });
  readonly el = h("div", { class: "search" }, this.searchInput, this.searchResults);
  private hits: SearchHit[] = [];
  /** The result the arrow keys are on (-1: none); focus stays in the search box. */
  private active = -1;
  private searchTimer: ReturnType<typeof setTimeout> | null = null;
  private pendingSearch: Promise<SearchHit[]> | null = null;
  private searchedFor = "";

  constructor(private readonly app: SearchHost) {
    this.searchInput.addEventListener("input", () => this.onSearchInput());
    this.searchInput.addEventListener("keydown", (ev) => this.onSearchKey(ev));
    this.searchInput.addEventListener("blur", () => setTimeout(() => this.showResults(false), 200));
    this.searchInput.addEventListener("focus", () => { if (this.hits.length > 0) this.showResults(true); });
  }

  /** Focuses the box with its text selected ( / ). */
  focus(): void {
    this.searchInput.focus();
    this.searchInput.select();
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

  private run(q: string): Promise<SearchHit[]> {
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
    const hits = chosen ? [chosen] : q === this.searchedFor && this.pendingSearch ? await this.pendingSearch : await this.run(q);
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
}
