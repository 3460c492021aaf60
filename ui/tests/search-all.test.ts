// The search box's "All graphs" mode (ui/src/search/): every graph searched through the
// backend's index, the hits listed under their graph, and a hit of another graph opening that
// graph with its node selected.
// @vitest-environment jsdom

import { beforeEach, describe, expect, it, vi } from "vitest";
import type { GraphHit, SearchAllRequest, SearchHit, SearchRequest } from "../src/api/contract";
import { byGraph, fromAllHit } from "../src/search/all-graphs";
import { SearchBox, type SearchHost } from "../src/search/search-box";

const hit = (graph: string, id: string, kind = "claim", matched = "text"): GraphHit =>
  ({ graph, id, kind, label: kind === "agent" ? "Agent" : "Statement", snippet: `${id} text`, matched });

class Host implements SearchHost {
  graph: string | null = "run-a";
  nodes = new Map<string, unknown>();
  readonly model = { nodes: this.nodes as never };
  allHits: GraphHit[] = [];
  oneHits: SearchHit[] = [];
  readonly backend = {
    search: vi.fn(async (_r: SearchRequest) => this.oneHits),
    searchAll: vi.fn(async (_r: SearchAllRequest) => this.allHits),
  };
  readonly toasts = { error: vi.fn(), info: vi.fn() };
  readonly calls: string[] = [];
  select = vi.fn(async (id: string) => { this.calls.push(`select ${id}`); });
  /** Opening a graph draws `drawn` of it (a graph too large draws clusters, not the node). */
  drawn = new Map<string, string[]>();
  openGraph = vi.fn(async (graph: string, root?: string) => {
    this.calls.push(root ? `open ${graph} around ${root}` : `open ${graph}`);
    this.graph = graph;
    this.nodes.clear();
    for (const id of root ? [root] : this.drawn.get(graph) ?? []) this.nodes.set(id, {});
  });
}

let host: Host;
let box: SearchBox;
const input = () => box.el.querySelector<HTMLInputElement>("[data-testid=search-input]")!;
const toggle = () => box.el.querySelector<HTMLButtonElement>("[data-testid=search-all-toggle]")!;
const key = (k: string) => input().dispatchEvent(new KeyboardEvent("keydown", { key: k }));

async function typeAndWait(text: string): Promise<void> {
  input().value = text;
  input().dispatchEvent(new Event("input"));
  await vi.waitFor(() => expect(box.el.querySelector(".search-results")!.hasAttribute("hidden")).toBe(false), { timeout: 2000 });
}

beforeEach(() => {
  // jsdom lays nothing out.
  Element.prototype.scrollIntoView = () => {};
  document.body.innerHTML = "";
  host = new Host();
  box = new SearchBox(host);
  document.body.appendChild(box.el);
});

describe("search across every graph", () => {
  it("the toggle says its state and switches which operation is asked", async () => {
    expect(toggle().getAttribute("aria-pressed")).toBe("false");
    host.oneHits = [{ id: "s1", label: "Statement", field: "claim_text", snippet: "park" }];
    await typeAndWait("park");
    expect(host.backend.search).toHaveBeenCalledWith({ graph: "run-a", q: "park", limit: 20 });
    host.allHits = [hit("run-b", "s9")];
    toggle().click();
    expect(toggle().getAttribute("aria-pressed")).toBe("true");
    expect(input().placeholder).toMatch(/every graph/);
    // The text typed is searched again, across every graph.
    await vi.waitFor(() => expect(host.backend.searchAll).toHaveBeenCalledWith({ q: "park", limit: 50 }));
    await vi.waitFor(() => expect(box.el.querySelectorAll("[data-testid=search-group]")).toHaveLength(1));
    toggle().click();
    expect(toggle().getAttribute("aria-pressed")).toBe("false");
    await vi.waitFor(() => expect(host.backend.search).toHaveBeenCalledTimes(2));
    await vi.waitFor(() => expect(box.el.querySelectorAll("[data-testid=search-group]")).toHaveLength(0));
    expect([...box.el.querySelectorAll<HTMLElement>("[data-testid=search-result]")].map((r) => r.dataset.id)).toEqual(["s1"]);
  });

  it("lists the hits under their graph, in the order of each graph's best hit", async () => {
    host.allHits = [hit("run-b", "a1", "agent", "id"), hit("run-a", "s1"), hit("run-b", "s2"), hit("run-c", "s3")];
    toggle().click();
    await typeAndWait("urn:agent:gpt-5");
    const groups = [...box.el.querySelectorAll<HTMLElement>("[data-testid=search-group]")];
    expect(groups.map((g) => g.dataset.graph)).toEqual(["run-b", "run-a", "run-c"]);
    expect(groups.map((g) => g.textContent)).toEqual(["run-b2 hits", "run-a1 hit · open now", "run-c1 hit"]);
    const results = [...box.el.querySelectorAll<HTMLElement>("[data-testid=search-result]")];
    expect(results.map((r) => `${r.dataset.graph}/${r.dataset.id}`)).toEqual(["run-b/a1", "run-b/s2", "run-a/s1", "run-c/s3"]);
    expect(results[0]!.textContent).toContain("agent · id");
    // Headings are not options: the arrow keys go from hit to hit.
    key("ArrowDown");
    key("ArrowDown");
    key("ArrowDown");
    expect(box.el.querySelector("li.active [data-testid=search-result]")?.getAttribute("data-id")).toBe("s1");
  });

  it("Enter opens the best hit's graph and selects its node", async () => {
    host.allHits = [hit("run-b", "s2"), hit("run-a", "s1")];
    host.drawn.set("run-b", ["s2"]);
    toggle().click();
    await typeAndWait("rezoning");
    key("Enter");
    await vi.waitFor(() => expect(host.select).toHaveBeenCalled());
    expect(host.calls).toEqual(["open run-b", "select s2"]);
    expect(host.select).toHaveBeenCalledWith("s2", { focus: true, from: "search" });
  });

  it("a hit the opened graph does not draw (clusters) opens the graph around it; a hit of the open graph only selects", async () => {
    host.allHits = [hit("big", "deep"), hit("run-a", "s1")];
    toggle().click();
    await typeAndWait("deep");
    box.el.querySelector<HTMLElement>("[data-testid=search-result][data-id=deep]")!.click();
    await vi.waitFor(() => expect(host.select).toHaveBeenCalled());
    expect(host.calls).toEqual(["open big", "open big around deep", "select deep"]);
    host.calls.length = 0;
    host.graph = "run-a";
    box.el.querySelector<HTMLElement>("[data-testid=search-result][data-id=s1]")!.click();
    await vi.waitFor(() => expect(host.calls).toEqual(["select s1"]));
  });

  it("searches every graph with no graph open, and says when nothing matches", async () => {
    host.graph = null;
    toggle().click();
    await typeAndWait("nothing-here");
    expect(host.backend.searchAll).toHaveBeenCalled();
    expect(box.el.querySelector(".search-results .empty")?.textContent).toBe("No matches");
  });

  it("the list stays open when the box has its focus back before the close after a blur", async () => {
    host.allHits = [hit("run-a", "s1"), hit("run-b", "s2")];
    toggle().click();
    await typeAndWait("council");
    const list = box.el.querySelector(".search-results")!;
    vi.useFakeTimers();
    try {
      // Out of the box (a click on the theme button) and straight back into it.
      input().blur();
      input().focus();
      vi.advanceTimersByTime(300);
      expect(list.hasAttribute("hidden")).toBe(false);
      // Out for good: closed.
      input().blur();
      vi.advanceTimersByTime(300);
      expect(list.hasAttribute("hidden")).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it("groups keep every hit once", () => {
    const listed = [hit("a", "1"), hit("b", "2"), hit("a", "3")].map(fromAllHit);
    expect(byGraph(listed).map((g) => [g.graph, g.hits.map((h) => h.id)])).toEqual([["a", ["1", "3"]], ["b", ["2"]]]);
  });
});
