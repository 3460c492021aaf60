// A viewer's own layout: a tidy-up previewed for this viewer alone, kept per graph in local
// storage, undone step by step, and not overridden when someone else saves a layout.

import { beforeEach, describe, expect, it, vi } from "vitest";
import type { NodeMove, TidyResult, ViewNode } from "../src/api/contract";
import { OwnLayout, load, storageKey, type OwnLayoutHost } from "../src/tidy/own-layout";

function node(id: string, x: number, y: number): ViewNode {
  return { id, label: "Artifact", base_type: null, x, y, w: 10, h: 10, layer: 0, arrival: 0, agent: null, context: null, status: null, text: null };
}

function host(preview: NodeMove[]) {
  const nodes = new Map([["a", node("a", 0, 0)], ["b", node("b", 100, 0)], ["c", node("c", 200, 0)]]);
  const tidy = vi.fn(async (req: { graph: string, save?: boolean }): Promise<TidyResult> => ({ moves: preview, saved: !!req.save }));
  const applyMoves = vi.fn();
  const h: OwnLayoutHost = {
    backend: { tidy },
    graph: "g",
    model: { nodes, mode: "whole" } as unknown as OwnLayoutHost["model"],
    canvas: { applyMoves },
    toasts: { info: vi.fn(), error: vi.fn() },
    nodesMoved: vi.fn(),
  };
  return { h, nodes, tidy, applyMoves };
}

const at = (nodes: Map<string, ViewNode>) => Object.fromEntries([...nodes.values()].map((n) => [n.id, [n.x, n.y]]));

describe("a viewer's own layout", () => {
  beforeEach(() => localStorage.clear());

  it("previews a tidy-up for this viewer, keeps it per graph, and undoes it", async () => {
    const { h, nodes, tidy, applyMoves } = host([{ id: "a", x: 5, y: 50 }, { id: "b", x: 105, y: 50 }]);
    const own = new OwnLayout(h);
    const shared = at(nodes);
    await own.tidy();
    expect(tidy).toHaveBeenCalledWith({ graph: "g" });
    // A tidy-up ends on the whole new layout, fitted.
    expect(applyMoves).toHaveBeenLastCalledWith(expect.any(Array), expect.any(Number), { fit: true });
    expect(own.active).toBe(true);
    expect(own.el.hidden).toBe(false);
    expect(at(nodes)).toEqual({ ...shared, a: [5, 50], b: [105, 50] });
    expect(load("g")).toEqual(at(nodes));
    own.undo();
    expect(at(nodes)).toEqual(shared);
    expect(own.active).toBe(false);
    expect(localStorage.getItem(storageKey("g"))).toBeNull();
  });

  it("draws the kept layout over a freshly loaded view", async () => {
    localStorage.setItem(storageKey("g"), JSON.stringify({ a: [7, 7], gone: [1, 1] }));
    const { h, nodes, applyMoves } = host([]);
    const own = new OwnLayout(h);
    own.viewShown();
    expect(own.active).toBe(true);
    expect(at(nodes).a).toEqual([7, 7]);
    expect(applyMoves).toHaveBeenCalledWith([{ id: "a", x: 7, y: 7 }], 0, { fit: false });
    own.useShared();
    expect(at(nodes).a).toEqual([0, 0]);
  });

  it("keeps its own positions when someone saves a layout, which Shared layout then shows", async () => {
    const { h, nodes } = host([{ id: "a", x: 5, y: 50 }]);
    const own = new OwnLayout(h);
    await own.tidy();
    // The stream's moves: the model takes them first, as GraphModel.apply does.
    const saved: NodeMove[] = [{ id: "a", x: 9, y: 9 }, { id: "c", x: 300, y: 3 }];
    for (const m of saved) Object.assign(nodes.get(m.id)!, { x: m.x, y: m.y });
    expect(own.sharedMoved(saved)).toBe(true);
    expect(at(nodes).a).toEqual([5, 50]);
    expect(at(nodes).c).toEqual([200, 0]);
    own.useShared();
    expect(at(nodes).a).toEqual([9, 9]);
    expect(at(nodes).c).toEqual([300, 3]);
    // Without an own layout, the shared layout's moves are drawn as they come.
    expect(own.sharedMoved(saved)).toBe(false);
  });

  it("saves for everyone through the core, and forgets the kept layout", async () => {
    const { h, tidy } = host([{ id: "a", x: 5, y: 50 }]);
    const own = new OwnLayout(h);
    await own.tidy();
    await own.saveForEveryone();
    expect(tidy).toHaveBeenLastCalledWith({ graph: "g", save: true });
    expect(own.active).toBe(false);
    expect(localStorage.getItem(storageKey("g"))).toBeNull();
  });
});
