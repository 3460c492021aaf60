//! Which edges touch each node: the hovered node's edges are lit and labelled, and a node
//! shown or hidden rewrites its edges' flags. Built when first asked, from the edges' ends,
//! not while a view is drawn: a 50,000-node view's first frame needs none of it, and one
//! list per node was 50,000 arrays and 150,000 pushes before that frame. Once built, it
//! follows the nodes and edges added.

export class Adjacency {
  private lists: number[][] | null = null;

  /** Forgets the lists (a new view: built again when asked). */
  clear(): void {
    this.lists = null;
  }

  /** Whether the lists have been built (tests: a view drawn builds none). */
  get built(): boolean {
    return this.lists !== null;
  }

  /** The edges of each of `nodeCount` nodes, edge `ei` going from `src[ei]` to `tgt[ei]`. */
  of(nodeCount: number, src: ArrayLike<number>, tgt: ArrayLike<number>): number[][] {
    if (this.lists !== null) return this.lists;
    const lists: number[][] = new Array(nodeCount);
    for (let i = 0; i < nodeCount; i++) lists[i] = [];
    for (let ei = 0; ei < src.length; ei++) {
      const s = src[ei], t = tgt[ei];
      lists[s].push(ei);
      if (t !== s) lists[t].push(ei);
    }
    return (this.lists = lists);
  }

  /** A node was added after the lists were built. */
  nodeAdded(): void {
    this.lists?.push([]);
  }

  /** Edge `ei` from `s` to `t` was added after the lists were built. */
  edgeAdded(ei: number, s: number, t: number): void {
    const lists = this.lists;
    if (lists === null) return;
    lists[s].push(ei);
    if (t !== s) lists[t].push(ei);
  }
}
