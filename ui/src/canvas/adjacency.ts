//! Which edges touch each node: the hovered node's edges are lit and labelled, and a node
//! shown or hidden rewrites its edges' flags. Built when first asked, from the edges' ends,
//! not while a view is drawn: a 50,000-node view's first frame needs none of it, and one
//! list per node was 50,000 arrays and 150,000 pushes before that frame. Built, it is two
//! typed arrays (each node's edges side by side: a millisecond or so at 50k, so the first
//! hover does not stall); edges added afterwards are kept beside it, by node.

const NONE = new Int32Array(0);

export class Adjacency {
  /** Node i's edges are `edges[start[i]]` up to `edges[start[i + 1]]`, for the nodes and
   *  edges there were when built; null until then. */
  private start: Int32Array | null = null;
  private edges = NONE;
  /** Edges added since it was built, by node. */
  private later = new Map<number, number[]>();

  /** Forgets it (a new view: built again when asked). */
  clear(): void {
    this.start = null;
    this.edges = NONE;
    this.later.clear();
  }

  /** Whether it has been built (tests: a view drawn builds nothing). */
  get built(): boolean {
    return this.start !== null;
  }

  /** The edges of node `i` of `nodeCount`, edge `ei` going from `src[ei]` to `tgt[ei]`. */
  of(i: number, nodeCount: number, src: ArrayLike<number>, tgt: ArrayLike<number>): ArrayLike<number> & Iterable<number> {
    const start = this.start ?? this.build(nodeCount, src, tgt);
    const own = i + 1 < start.length ? this.edges.subarray(start[i], start[i + 1]) : NONE;
    const more = this.later.get(i);
    return more ? [...own, ...more] : own;
  }

  /** Edge `ei` from `s` to `t` was added (kept only once built: a build reads it anyway). */
  edgeAdded(ei: number, s: number, t: number): void {
    if (this.start === null) return;
    this.addLater(s, ei);
    if (t !== s) this.addLater(t, ei);
  }

  private addLater(i: number, ei: number): void {
    const list = this.later.get(i);
    if (list) list.push(ei);
    else this.later.set(i, [ei]);
  }

  /** Counts each node's edges, then places them (a counting sort by node). */
  private build(nodeCount: number, src: ArrayLike<number>, tgt: ArrayLike<number>): Int32Array {
    const start = new Int32Array(nodeCount + 1);
    for (let ei = 0; ei < src.length; ei++) {
      start[src[ei] + 1]++;
      if (tgt[ei] !== src[ei]) start[tgt[ei] + 1]++;
    }
    for (let i = 0; i < nodeCount; i++) start[i + 1] += start[i];
    const at = start.slice(0, nodeCount), edges = new Int32Array(start[nodeCount]);
    for (let ei = 0; ei < src.length; ei++) {
      const s = src[ei], t = tgt[ei];
      edges[at[s]++] = ei;
      if (t !== s) edges[at[t]++] = ei;
    }
    this.edges = edges;
    this.later.clear();
    return (this.start = start);
  }
}
