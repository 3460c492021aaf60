// The panels' error state: what failed, the backend's reason and code, what to do next, and a
// Try again button that runs the request again.

import { describe, expect, it, vi } from "vitest";
import { DetailsPanel, type DetailsHost } from "../src/details/details-panel";
import { TimelinePanel, type TimelineHost } from "../src/timeline/timeline-panel";
import { errorState, reason } from "../src/shared/error-state";
import { node } from "./helpers";

describe("errorState", () => {
  it("says what failed and why, with the code, and retries on click", () => {
    const retry = vi.fn();
    const el = errorState("load this node", { code: "not_found", message: "No node x in graph g" }, retry);
    expect(el.getAttribute("role")).toBe("alert");
    expect(el.querySelector(".error-text")?.textContent).toBe("Could not load this node: No node x in graph g (not_found)");
    expect(el.textContent).toContain("try again, or pick the node again");
    el.querySelector<HTMLButtonElement>('[data-testid="retry"]')!.click();
    expect(retry).toHaveBeenCalledTimes(1);
  });

  it("points at the server when the network failed", () => {
    const el = errorState("load this node", new TypeError("Failed to fetch"), () => {});
    expect(el.textContent).toContain("The Provex server (or its FalkorDB) may be down");
    expect(reason(new TypeError("Failed to fetch"))).toBe("Failed to fetch");
    expect(reason("plain")).toBe("plain");
  });
});

describe("the Details panel's states", () => {
  function host(over: Partial<DetailsHost> = {}): DetailsHost {
    return {
      backend: {
        node: vi.fn(async () => { throw { code: "unavailable", message: "connection refused" }; }),
        neighbours: vi.fn(async () => ({ nodes: [], edges: [] })),
        trace: vi.fn(), path: vi.fn(), trail: vi.fn(),
      } as unknown as DetailsHost["backend"],
      graph: "g",
      model: { nodes: new Map([["a", node("a", 0)]]) },
      toasts: { error: vi.fn(), info: vi.fn() } as unknown as DetailsHost["toasts"],
      select: vi.fn(async () => {}),
      highlight: vi.fn(),
      showTab: vi.fn(),
      names: new Map(),
      resolveNames: vi.fn(async () => {}),
      ...over,
    };
  }

  it("with no graph open, says how to open one", () => {
    const p = new DetailsPanel(host({ graph: null, model: { nodes: new Map() } }));
    expect(p.el.textContent).toContain("No graph is open.");
    expect(p.el.textContent).toContain("Ingest ▸");
  });

  it("with an empty graph, says how to fill it", () => {
    const p = new DetailsPanel(host({ model: { nodes: new Map() } }));
    expect(p.el.textContent).toContain("This graph has no nodes yet.");
  });

  it("when the node cannot be loaded, shows why and tries again on request", async () => {
    const app = host();
    const p = new DetailsPanel(app);
    await p.show(["a"]);
    expect(p.el.querySelector(".error-text")?.textContent).toBe("Could not load this node: connection refused (unavailable)");
    p.el.querySelector<HTMLButtonElement>('[data-testid="retry"]')!.click();
    await vi.waitFor(() => expect(app.backend.node).toHaveBeenCalledTimes(2));
  });
});

describe("the Timeline's empty state", () => {
  function timeline(graph: string | null) {
    return new TimelinePanel({
      backend: { query: vi.fn(async () => ({ columns: [], rows: [] })) },
      graph,
      model: { minArrival: () => -1, maxArrival: () => -1, byArrival: () => [], edgeList: () => [], mode: "whole" } as unknown as TimelineHost["model"],
      timelineAt: null,
      setTimeline: vi.fn(),
      select: vi.fn(async () => {}),
    });
  }

  it("says how to get events, or how to open a graph", () => {
    const t = timeline("g");
    t.render();
    expect(t.el.textContent).toContain("No events yet.");
    const none = timeline(null);
    none.render();
    expect(none.el.textContent).toContain("No graph is open");
  });
});
