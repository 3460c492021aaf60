// Builders for the wire types the unit tests feed in.

import type { StreamMessage, Trail, TrailVerification, View, ViewEdge, ViewNode } from "../src/api/contract";

export function node(id: string, arrival: number, over: Partial<ViewNode> = {}): ViewNode {
  return {
    id, label: "Entity", base_type: "ProvEntity", x: arrival * 10, y: 0, w: 40, h: 20, layer: 0, arrival,
    agent: null, context: null, status: null, text: null, ...over,
  };
}

export function edge(source: string, target: string, type = "USED"): ViewEdge {
  return { source, target, type, prov: null, a2a: null };
}

export function view(nodes: ViewNode[], edges: ViewEdge[] = [], over: Partial<View> = {}): View {
  return {
    graph: "g", seq: 0, mode: "whole", root: null, total_nodes: nodes.length, total_edges: edges.length, limit: 5000,
    nodes, edges, ...over,
  };
}

export function batch(seq: number, nodes: ViewNode[], edges: ViewEdge[] = [], graph = "g"): StreamMessage {
  return { kind: "batch", graph, seq, time_ms: seq * 100, nodes, edges, verifications: [] };
}

export function verification(id: string, agent: string, over: Partial<TrailVerification> = {}): TrailVerification {
  return {
    verification_id: id, agent, verdict: "VALIDATED", confidence: 0.9, findings: [], time: null, signature: "valid",
    counted: true, consensus_after: 0.9, verified_after: true, ...over,
  };
}

export function trail(id: string, over: Partial<Trail> = {}): Trail {
  return {
    statement_id: id, agent: "urn:agent:gpt-5", generated_at: null,
    claim: { text: `claim ${id}`, confidence: 0.9, content_hash: null, generation_method: null },
    signature: "valid", evidence: [], requests: [], verifications: [], consensus: 0, verified: false, standing: "unverified", threshold: 0.7,
    supports: [], contradicts: [], contradicted_by: [], problems: [], ...over,
  };
}

/** A file of examples/council/, read from disk. */
export async function councilFile(name: string): Promise<string> {
  const fs = await import("node:fs");
  // The base in a variable: Vite rewrites `new URL("…", import.meta.url)` into an asset import.
  const here = import.meta.url;
  return fs.readFileSync(new URL(`../../examples/council/${name}`, here), "utf8");
}
