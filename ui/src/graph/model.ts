// The UI's copy of the graph being shown: a View, kept current by the stream's messages.
// Pure (no DOM, no canvas): the app feeds what each change returns to the canvas.

import type {
  KnowledgeChange, NodeMove, StreamMessage, VerificationUpdate, View, ViewEdge, ViewMode, ViewNode,
} from "../api/contract";
import { EdgeTable, type EdgeEnds } from "./edge-table";
import { viewRecords } from "./view-columns";

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

/** What the model's edges offer outside it. */
export interface EdgesRead {
  readonly size: number;
  values(): IterableIterator<ViewEdge>;
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
  /** Edges by their ends' node numbers and their type's number (edge-table.ts). */
  private readonly table = new EdgeTable();
  /** The latest verification result per statement or verification id. */
  readonly verifications = new Map<string, VerificationUpdate>();
  /** Nodes sorted by arrival. */
  private order: ViewNode[] = [];
  /** Node numbers: every id a node or an edge's end has had since the view, numbered in the
   *  order seen (a view's nodes first, in its order). Built from `idOf` when first asked,
   *  so that a view in columns, whose edges come numbered, builds no map for them. */
  private numbers: Map<string, number> | null = null;
  private idOf: string[] = [];
  /** Whether every number is a node's, given as the node came: numbers are then places in
   *  `nodeList()`, which the canvas numbers its nodes by. */
  private numbersArePlaces = true;
  /** Edge types, numbered in the order seen. */
  private types = new Map<string, number>();

  /** The edges, in the order they came (read only). */
  get edges(): EdgesRead {
    return this.table;
  }

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
    this.verifications.clear();
    this.types.clear();
    // The view is the model's from here (a fresh answer each time): its records, decoded
    // once from its columns (view-columns.ts), are kept, not copied.
    const { nodes, edges, numbered } = viewRecords(view);
    this.table.clear(edges.length);
    let ordered = true;
    for (let i = 0; i < nodes.length; i++) {
      const n = nodes[i];
      this.nodes.set(n.id, n);
      if (i > 0 && nodes[i - 1].arrival > n.arrival) ordered = false;
    }
    const distinct = this.nodes.size === nodes.length;
    this.numbersArePlaces = true;
    if (numbered && distinct) {
      // Node i is number i; each edge comes with its ends' numbers.
      this.idOf = nodes.map((n) => n.id);
      this.numbers = null;
      const { source, target, type, types } = numbered;
      const kinds = new Int32Array(types.length).fill(-1);
      for (let i = 0; i < edges.length; i++) {
        let k = kinds[type[i]];
        if (k < 0) k = kinds[type[i]] = this.typeNumber(types[type[i]]);
        this.table.add(source[i], target[i], k, edges[i]);
      }
    } else {
      this.idOf = [];
      this.numbers = new Map();
      for (const n of this.nodes.values()) this.numberOf(n.id, true);
      for (const e of edges) this.table.add(this.numberOf(e.source), this.numberOf(e.target), this.typeNumber(e.type), e);
    }
    // A whole view comes in arrival order: nothing to sort.
    this.order = ordered && distinct ? nodes.slice() : [...this.nodes.values()].sort(byArrival);
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
      const s = this.numberOf(e.source), t = this.numberOf(e.target), k = this.typeNumber(e.type);
      if (this.table.find(s, t, k) >= 0) continue;
      const copy = { ...e };
      this.table.add(s, t, k, copy);
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
      this.totalEdges = Math.max(this.totalEdges, this.table.size);
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
        this.numberOf(n.id, true);
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
      const s = this.numberOf(e.source), t = this.numberOf(e.target), k = this.typeNumber(e.type);
      if (this.table.find(s, t, k) >= 0) continue;
      this.table.removeBetween(s, t);
      const copy = { ...e };
      this.table.add(s, t, k, copy);
      changed.push(copy);
    }
    return changed;
  }

  /** Nodes in arrival order. */
  byArrival(): ViewNode[] {
    return this.order.slice();
  }

  /** The lowest arrival number drawn (0 when empty). */
  minArrival(): number {
    return this.order.length === 0 ? 0 : this.order[0].arrival;
  }

  /** The highest arrival number drawn (-1 when empty). */
  maxArrival(): number {
    return this.order.length === 0 ? -1 : this.order[this.order.length - 1].arrival;
  }

  nodeList(): ViewNode[] {
    return [...this.nodes.values()];
  }

  edgeList(): ViewEdge[] {
    return this.table.list();
  }

  /** The edges as `edgeList()` gives them, with their ends as places in `nodeList()` when
   *  every end is a node (null when not: an edge whose end has not arrived yet). */
  drawnEdges(): { edges: ViewEdge[], ends: EdgeEnds | null } {
    return { edges: this.table.list(), ends: this.numbersArePlaces ? this.table.ends() : null };
  }

  /** The number of node id `id`, given it now if it has none (`node`: it is a node's, added
   *  to `nodes` now; else an edge's end). */
  private numberOf(id: string, node = false): number {
    let numbers = this.numbers;
    if (numbers === null) {
      numbers = this.numbers = new Map();
      for (let i = 0; i < this.idOf.length; i++) numbers.set(this.idOf[i], i);
    }
    let k = numbers.get(id);
    if (k === undefined) {
      k = this.idOf.push(id) - 1;
      numbers.set(id, k);
      if (!node) this.numbersArePlaces = false;
    }
    return k;
  }

  private typeNumber(type: string): number {
    let k = this.types.get(type);
    if (k === undefined) {
      k = this.types.size;
      this.types.set(type, k);
    }
    return k;
  }

  private insertByArrival(n: ViewNode): void {
    // Arrivals almost always come in order: check the end before searching.
    let lo = 0;
    let hi = this.order.length;
    if (hi === 0 || this.order[hi - 1].arrival <= n.arrival) {
      this.order.push(n);
      return;
    }
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.order[mid].arrival <= n.arrival) lo = mid + 1;
      else hi = mid;
    }
    this.order.splice(lo, 0, n);
  }
}

function byArrival(a: ViewNode, b: ViewNode): number {
  return a.arrival - b.arrival;
}
