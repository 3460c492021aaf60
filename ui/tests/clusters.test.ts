// Semantic zoom in the explorer: cluster boxes are told apart, remembered places restore the
// right view, cluster keys read as titles, and a box's hover card says what it holds and
// what a click does.

import { describe, expect, it } from "vitest";
import type { ClusterInfo } from "../src/api/contract";
import { clusterPath, clusterSummary, clusterTitle, isCluster, placeOf } from "../src/graph/clusters";
import { cardLines } from "../src/ui/hover-card";
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
