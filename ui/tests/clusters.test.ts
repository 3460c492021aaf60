// Semantic zoom in the explorer: cluster boxes are told apart, remembered places restore the
// right view, cluster keys read as titles, and a box's hover card says what it holds and
// what a click does.

import { describe, expect, it, vi } from "vitest";
import type { ClusterInfo } from "../src/api/contract";
import { clusterPath, clusterSummary, clusterTitle, isCluster, placeOf } from "../src/graph/clusters";
import { cardLines } from "../src/canvas-area/hover-card";
import { ClusterNav, zoomedInto } from "../src/clusters/cluster-nav";
import { GraphModel } from "../src/graph/model";
import { node } from "./helpers";

const info: ClusterInfo = {
  title: "agent gpt-5", members: 12345,
  labels: [["LlmCall", 6000], ["ToolCall", 4000], ["Artifact", 2000], ["Message", 345]],
  statuses: [["invalid", 1], ["valid", 12]], opens: "clusters",
};

describe("clusters", () => {
  it("tells a cluster's box from a node", () => {
    expect(isCluster(node("agent:a", 0, { label: "Cluster", cluster: info }))).toBe(true);
    expect(isCluster(node("agent:a", 0, { label: "Cluster" }))).toBe(false);
    expect(isCluster(node("x", 0, { label: "LlmCall", cluster: info }))).toBe(false);
    expect(isCluster(undefined)).toBe(false);
  });

  it("remembers a view as the place to come back to", () => {
    expect(placeOf("clusters", "agent:a")).toEqual({ cluster: "agent:a" });
    expect(placeOf("members", "agent:a › task:t")).toEqual({ cluster: "agent:a › task:t" });
    expect(placeOf("neighbourhood", "n1")).toEqual({ root: "n1" });
    expect(placeOf("clusters", null)).toEqual({});
    expect(placeOf("whole", null)).toEqual({});
  });

  it("reads keys as titles, top first", () => {
    expect(clusterPath("agent:urn:agent:gpt-5 › task:ctx-1")).toEqual(["agent:urn:agent:gpt-5", "agent:urn:agent:gpt-5 › task:ctx-1"]);
    expect(clusterPath("sources").map(clusterTitle)).toEqual(["source documents"]);
    expect(clusterTitle("agent:urn:agent:gpt-5")).toBe("agent gpt-5");
    expect(clusterTitle("agent:a › task:ctx-1")).toBe("task ctx-1");
    expect(clusterTitle("kind:Artifact")).toBe("Artifact nodes");
  });

  it("sums a box up with counts and signature marks, and says what a click does", () => {
    expect(clusterSummary(info)).toBe("12,345 nodes: 6,000 LlmCall, 4,000 ToolCall, 2,000 Artifact, … · signatures ✗ 1 invalid, ✓ 12 valid");
    const card = cardLines(node("agent:urn:agent:gpt-5", 0, { label: "Cluster", cluster: info }));
    expect(card.title).toBe("Cluster · agent gpt-5");
    expect(card.lines.at(-1)).toBe("Click to open its clusters.");
    const leaf = cardLines(node("k", 0, { label: "Cluster", cluster: { ...info, opens: "members", statuses: [] } }));
    expect(leaf.lines).toEqual(["12,345 nodes: 6,000 LlmCall, 4,000 ToolCall, 2,000 Artifact, …", "Click to open its nodes."]);
  });
});

describe("opening a box by zooming in", () => {
  it("takes the box nearest the centre once it fills most of the canvas's width", () => {
    const at = (id: string) => ({ a: { x: 500, y: 300 }, b: { x: 420, y: 310 }, off: { x: -50, y: 300 } } as Record<string, { x: number, y: number }>)[id] ?? null;
    const boxes = [{ id: "a", w: 300 }, { id: "b", w: 300 }, { id: "off", w: 300 }];
    expect(zoomedInto(boxes, at, 1, 1000, 600)).toBeNull(); // 300 px of 1,000: not yet
    expect(zoomedInto(boxes, at, 2.1, 1000, 600)).toBe("a"); // 630 px, the nearest the centre
    expect(zoomedInto(boxes.slice(1), at, 2.1, 1000, 600)).toBe("b");
    expect(zoomedInto([{ id: "off", w: 300 }], at, 5, 1000, 600)).toBeNull(); // off screen
  });

  it("opens it once, remembering where the view was", async () => {
    let resolve!: () => void;
    const opened: Array<{ cluster?: string }> = [];
    const host = {
      backend: { clusterEdges: vi.fn(async () => []) },
      graph: "g",
      model: { mode: "clusters" as const, root: null, nodes: new Map([["agent:a", node("agent:a", 0, { label: "Cluster", w: 300, cluster: info })]]), setClusterEdges: () => [] },
      canvas: { screenPosition: () => ({ x: 500, y: 300 }), replaceEdges: vi.fn() },
      expandHistory: [] as Array<{ root?: string, cluster?: string }>,
      openGraph: (_g: string, _r?: string, opts?: { cluster?: string }) => {
        opened.push(opts ?? {});
        return new Promise<void>((r) => { resolve = r; });
      },
    };
    const nav = new ClusterNav(host);
    nav.viewShown();
    nav.viewChanged(2.5, 1000, 600); // drawn fitted this big: not opened by itself
    expect(opened).toEqual([]);
    nav.viewChanged(3.0, 1000, 600); // zoomed in, but not far enough yet
    expect(opened).toEqual([]);
    nav.viewChanged(3.3, 1000, 600);
    nav.viewChanged(3.6, 1000, 600); // still opening: not again
    expect(opened).toEqual([{ cluster: "agent:a" }]);
    expect(host.expandHistory).toEqual([{}]);
    resolve();
    await Promise.resolve();
    expect(nav.open("not-a-box")).toBe(false);
  });
});

describe("the edges between boxes", () => {
  it("arrive after the boxes and are drawn, unless the view changed meanwhile", async () => {
    const nodes = new Map([["a", node("a", 0, { label: "Cluster", cluster: info })], ["b", node("b", 1, { label: "Cluster", cluster: info })]]);
    const model = new GraphModel();
    model.applyView({ graph: "g", seq: 0, mode: "clusters", root: null, total_nodes: 2, total_edges: 0, limit: 1, nodes: [...nodes.values()], edges: [] });
    const edges = [{ source: "a", target: "b", type: "12 edges", prov: null, a2a: null }, { source: "a", target: "gone", type: "1 edges", prov: null, a2a: null }];
    const host = {
      backend: { clusterEdges: vi.fn(async () => edges) },
      graph: "g", model, canvas: { screenPosition: () => null, replaceEdges: vi.fn() },
      expandHistory: [], openGraph: vi.fn(async () => {}),
    };
    const nav = new ClusterNav(host);
    await nav.loadEdges("g", null, () => true);
    expect(host.backend.clusterEdges).toHaveBeenCalledWith({ graph: "g" });
    expect(host.canvas.replaceEdges).toHaveBeenCalledWith([edges[0]]);
    expect(model.edges.size).toBe(1);
    await nav.loadEdges("g", "agent:a", () => false);
    expect(host.backend.clusterEdges).toHaveBeenLastCalledWith({ graph: "g", cluster: "agent:a" });
    expect(host.canvas.replaceEdges).toHaveBeenCalledTimes(1);
  });

  it("replace the edge between the same boxes when a count changes, in the model and on the canvas", () => {
    const model = new GraphModel();
    const box = (id: string, members: number) => node(id, 0, { label: "Cluster", cluster: { ...info, members } });
    model.applyView({ graph: "g", seq: 0, mode: "clusters", root: null, total_nodes: 3, total_edges: 0, limit: 1,
      nodes: [box("a", 1), box("b", 2)], edges: [{ source: "a", target: "b", type: "12 edges", prov: null, a2a: null }] });
    const change = model.apply({
      kind: "clusters", graph: "g", seq: 1, time_ms: 0,
      nodes: [box("b", 5), box("c", 7)],
      edges: [{ source: "a", target: "b", type: "13 edges", prov: null, a2a: null }, { source: "b", target: "c", type: "1 edges", prov: null, a2a: null }],
    });
    expect(change.kind).toBe("clusters");
    if (change.kind !== "clusters") return;
    expect(change.added.map((n) => n.id)).toEqual(["c"]);
    expect(change.updated.map((n) => [n.id, n.cluster?.members])).toEqual([["b", 5]]);
    expect(change.edges.map((e) => e.type)).toEqual(["13 edges", "1 edges"]);
    expect([...model.edges.values()].map((e) => `${e.source}>${e.target} ${e.type}`).sort()).toEqual(["a>b 13 edges", "b>c 1 edges"]);
    expect(model.totalNodes).toBe(13);
    // An old message is ignored; a gap asks for the view again.
    expect(model.apply({ kind: "clusters", graph: "g", seq: 1, time_ms: 0, nodes: [], edges: [] }).kind).toBe("ignored");
    expect(model.apply({ kind: "clusters", graph: "g", seq: 3, time_ms: 0, nodes: [], edges: [] }).kind).toBe("reset");
  });
});
