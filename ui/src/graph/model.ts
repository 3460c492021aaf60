// The UI's copy of the graph being shown: a View, kept current by the stream's messages.
// Pure (no DOM, no canvas): the app feeds what each change returns to the canvas.

import type {
  KnowledgeChange, NodeMove, StreamMessage, VerificationUpdate, View, ViewEdge, ViewMode, ViewNode,
} from "../api/contract";

/** What applying one stream message changed, for the app to pass on to the canvas. */
export type ModelChange =
  | { kind: "ignored"; reason: "old" | "other-graph" }
  | {
    kind: "batch";
    /** Nodes seen for the first time. */
    added: ViewNode[];
    /** Nodes already drawn whose data changed (their position is kept). */
    updated: ViewNode[];
    /** Edges seen for the first time. */
    edges: ViewEdge[];
    verifications: VerificationUpdate[];
  }
  | {
    kind: "clusters";
    /** Boxes seen for the first time, and boxes whose counts changed (same place). */
    added: ViewNode[];
    updated: ViewNode[];
    /** Edges between boxes, new or replacing the one drawn between the same boxes. */
    edges: ViewEdge[];
  }
  | { kind: "moves"; moves: NodeMove[] }
  /** Knowledge-graph statements changed: nothing drawn changes with them. */
  | { kind: "knowledge"; changes: KnowledgeChange[] }
  /** The database went away (`restarting`), came back (`up`) or could not be started again
   *  (`failed`): nothing drawn changes, and the stream goes on. */
  | { kind: "database"; state: string; message: string }
  /** The view must be loaded again: the server said so, or a message was missed. */
  | { kind: "reset"; reason: string };

export function edgeKey(e: ViewEdge): string {
  return `${e.source}\u0000${e.type}\u0000${e.target}`;
}

export class GraphModel {
  graph: string | null = null;
  /** The stream sequence number the model is current to. */
  seq = 0;
  mode: ViewMode = "whole";
  root: string | null = null;
  totalNodes = 0;
  totalEdges = 0;
  limit = 0;
  readonly nodes = new Map<string, ViewNode>();
  readonly edges = new Map<string, ViewEdge>();
  /** The latest verification result per statement or verification id. */
  readonly verifications = new Map<string, VerificationUpdate>();
  /** Node ids sorted by arrival. */
  private order: string[] = [];

  /** Replaces everything with a view. */
  applyView(view: View): void {
    this.graph = view.graph;
    this.seq = view.seq;
    this.mode = view.mode;
    this.root = view.root;
    this.totalNodes = view.total_nodes;
    this.totalEdges = view.total_edges;
    this.limit = view.limit;
    this.nodes.clear();
    this.edges.clear();
    this.verifications.clear();
    this.order = [];
    // The view is the model's from here (a fresh answer each time): its records are kept,
    // not copied, which on a 50,000-node view is 127,000 objects fewer to make and collect.
    for (const n of view.nodes) this.nodes.set(n.id, n);
    for (const e of view.edges) this.edges.set(edgeKey(e), e);
    this.order = [...this.nodes.values()].sort(byArrival).map((n) => n.id);
  }

  /** Empties the model (no graph shown). */
  clear(): void {
    this.applyView({
      graph: "", seq: 0, mode: "whole", root: null, total_nodes: 0, total_edges: 0, limit: 0,
      nodes: [], edges: [],
    });
    this.graph = null;
  }

  /** Applies one stream message; messages at or below the current seq are ignored. */
  apply(msg: StreamMessage): ModelChange {
    if (this.graph === null || msg.graph !== this.graph) return { kind: "ignored", reason: "other-graph" };
    if (msg.kind !== "reset" && msg.seq <= this.seq) return { kind: "ignored", reason: "old" };
    // Sequence numbers have no gaps: a jump means messages were lost, so the view is stale.
    const gap = msg.seq > this.seq + 1;
    if (msg.kind === "reset" || gap) {
      const reason = msg.kind === "reset" ? msg.reason : `missed messages ${this.seq + 1} to ${msg.seq - 1}`;
      this.seq = msg.seq;
      return { kind: "reset", reason };
    }
    this.seq = msg.seq;
    if (msg.kind === "moves") {
      const moves: NodeMove[] = [];
      for (const m of msg.moves) {
        const n = this.nodes.get(m.id);
        if (!n) continue;
        n.x = m.x;
        n.y = m.y;
        moves.push(m);
      }
      return { kind: "moves", moves };
    }
    if (msg.kind === "knowledge") return { kind: "knowledge", changes: msg.changes };
    if (msg.kind === "database") return { kind: "database", state: msg.state, message: msg.message };
    if (msg.kind === "clusters") {
      const { added, updated } = this.takeNodes(msg.nodes);
      if (!this.root) {
        let members = 0;
        for (const n of this.nodes.values()) members += n.cluster?.members ?? 0;
        this.totalNodes = members;
      }
      return { kind: "clusters", added, updated: [...updated.values()], edges: this.setClusterEdges(msg.edges) };
    }
    const { added, updated } = this.takeNodes(msg.nodes);
    const edges: ViewEdge[] = [];
    for (const e of msg.edges) {
      const key = edgeKey(e);
      if (this.edges.has(key)) continue;
      const copy = { ...e };
      this.edges.set(key, copy);
      edges.push(copy);
    }
    for (const v of msg.verifications) {
      this.verifications.set(v.id, v);
      const n = this.nodes.get(v.id);
      if (n && v.signature !== null && n.status !== v.signature) {
        n.status = v.signature;
        if (!added.includes(n)) updated.set(n.id, n);
      }
      if (n && v.standing !== undefined && n.standing !== v.standing) {
        n.standing = v.standing;
        if (!added.includes(n)) updated.set(n.id, n);
      }
    }
    if (this.mode === "whole") {
      this.totalNodes = Math.max(this.totalNodes, this.nodes.size);
      this.totalEdges = Math.max(this.totalEdges, this.edges.size);
    }
    return { kind: "batch", added, updated: [...updated.values()], edges, verifications: msg.verifications };
  }

  /** Takes a message's nodes: new ones added, known ones given the new data in place. */
  private takeNodes(nodes: ViewNode[]): { added: ViewNode[], updated: Map<string, ViewNode> } {
    const added: ViewNode[] = [];
    const updated = new Map<string, ViewNode>();
    for (const incoming of nodes) {
      const old = this.nodes.get(incoming.id);
      if (old) {
        // New data, same place: only a `moves` message moves a drawn node.
        Object.assign(old, incoming, { x: old.x, y: old.y });
        updated.set(old.id, old);
      } else {
        const n = { ...incoming };
        this.nodes.set(n.id, n);
        this.insertByArrival(n);
        added.push(n);
      }
    }
    return { added, updated };
  }

  /** Takes a cluster view's edges: each replaces the edge between the same two boxes.
   *  Returns those new or changed. */
  setClusterEdges(edges: ViewEdge[]): ViewEdge[] {
    const changed: ViewEdge[] = [];
    for (const e of edges) {
      if (!this.nodes.has(e.source) || !this.nodes.has(e.target)) continue;
      const key = edgeKey(e);
      if (this.edges.has(key)) continue;
      for (const [k, old] of this.edges) {
        if (old.source === e.source && old.target === e.target) this.edges.delete(k);
      }
      const copy = { ...e };
      this.edges.set(key, copy);
      changed.push(copy);
    }
    return changed;
  }

  /** Nodes in arrival order. */
  byArrival(): ViewNode[] {
    return this.order.map((id) => this.nodes.get(id)!);
  }

  /** The lowest arrival number drawn (0 when empty). */
  minArrival(): number {
    const first = this.order[0];
    return first === undefined ? 0 : this.nodes.get(first)!.arrival;
  }

  /** The highest arrival number drawn (-1 when empty). */
  maxArrival(): number {
    const last = this.order[this.order.length - 1];
    return last === undefined ? -1 : this.nodes.get(last)!.arrival;
  }

  nodeList(): ViewNode[] {
    return [...this.nodes.values()];
  }

  edgeList(): ViewEdge[] {
    return [...this.edges.values()];
  }

  private insertByArrival(n: ViewNode): void {
    // Arrivals almost always come in order: check the end before searching.
    let lo = 0;
    let hi = this.order.length;
    if (hi === 0 || this.nodes.get(this.order[hi - 1])!.arrival <= n.arrival) {
      this.order.push(n.id);
      return;
    }
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.nodes.get(this.order[mid])!.arrival <= n.arrival) lo = mid + 1;
      else hi = mid;
    }
    this.order.splice(lo, 0, n.id);
  }
}

function byArrival(a: ViewNode, b: ViewNode): number {
  return a.arrival - b.arrival;
}
