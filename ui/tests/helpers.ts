// Builders for the wire types the unit tests feed in.

import type {
  StreamMessage, Trail, TrailVerification, View, ViewColumns, ViewEdge, ViewNode,
} from "../src/api/contract";

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

/** The view in columns, as the server sends it when asked (`columns`): a test's own encoder,
 *  written from docs/FORMATS.md "Views in columns". */
export function inColumns(v: View): View {
  const strings = [""], at = new Map<string, number>();
  const str = (x: string): number => {
    let i = at.get(x);
    if (i === undefined) {
      i = strings.push(x) - 1;
      at.set(x, i);
    }
    return i;
  };
  const opt = (x: string | null | undefined): number => (x === null || x === undefined ? 0 : str(x));
  const index = new Map(v.nodes.map((n, i) => [n.id, i]));
  const kept = v.edges.filter((e) => index.has(e.source) && index.has(e.target));
  const columns: ViewColumns = {
    strings,
    nodes: {
      id: v.nodes.map((n) => n.id), label: v.nodes.map((n) => str(n.label)), base_type: v.nodes.map((n) => opt(n.base_type)),
      x: v.nodes.map((n) => n.x), y: v.nodes.map((n) => n.y), w: v.nodes.map((n) => n.w), h: v.nodes.map((n) => n.h),
      layer: v.nodes.map((n) => n.layer), arrival: v.nodes.map((n) => n.arrival),
      agent: v.nodes.map((n) => opt(n.agent)), context: v.nodes.map((n) => opt(n.context)),
      status: v.nodes.map((n) => opt(n.status)), text: v.nodes.map((n) => opt(n.text)),
      standing: v.nodes.map((n) => opt(n.standing)),
      ...(v.nodes.some((n) => n.cluster) ? { cluster: v.nodes.map((n) => n.cluster ?? null) } : {}),
    },
    edges: {
      source: kept.map((e) => index.get(e.source)!), target: kept.map((e) => index.get(e.target)!),
      type: kept.map((e) => str(e.type)), prov: kept.map((e) => opt(e.prov)), a2a: kept.map((e) => opt(e.a2a)),
    },
  };
  return { ...v, nodes: [], edges: [], columns };
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
