//! The model's edges keyed by numbers: an edge is found by its two ends' node numbers and its
//! type's number (shared/triple-map.ts), so that keying a view's 77,000 edges builds no
//! string and no key object per edge (a view in columns already names an edge's ends by node
//! index: docs/FORMATS.md "Views in columns"). Edges keep the order they came in.

import type { ViewEdge } from "../api/contract";
import { TripleMap } from "../shared/triple-map";

/** Edges' ends as node numbers, in the order of the edges they go with. */
export interface EdgeEnds {
  source: Int32Array;
  target: Int32Array;
}

export class EdgeTable implements Iterable<ViewEdge> {
  /** By place (the order edges were added): ends, type number, and the edge (undefined once
   *  removed). */
  private src = new Int32Array(16);
  private tgt = new Int32Array(16);
  private kind = new Int32Array(16);
  private items: Array<ViewEdge | undefined> = [];
  /** Place by (source, target, type). */
  private places = new TripleMap();
  private live = 0;

  /** How many edges it holds. */
  get size(): number {
    return this.live;
  }

  /** Empties it, with room for `expected` edges. */
  clear(expected = 0): void {
    const cap = Math.max(16, expected);
    this.src = new Int32Array(cap);
    this.tgt = new Int32Array(cap);
    this.kind = new Int32Array(cap);
    this.items = [];
    this.places.clear(expected);
    this.live = 0;
  }

  /** The place of the edge from `s` to `t` of type `k`, or -1. */
  find(s: number, t: number, k: number): number {
    return this.places.get(s, t, k);
  }

  /** Adds the edge unless one from `s` to `t` of type `k` is there; whether it was added. */
  add(s: number, t: number, k: number, e: ViewEdge): boolean {
    const p = this.items.length;
    if (!this.places.add(s, t, k, p)) return false;
    if (p === this.src.length) this.growItems();
    this.src[p] = s;
    this.tgt[p] = t;
    this.kind[p] = k;
    this.items.push(e);
    this.live++;
    return true;
  }

  /** Removes every edge from `s` to `t`, whatever its type. */
  removeBetween(s: number, t: number): void {
    const removed: number[] = [];
    for (let p = 0; p < this.items.length; p++) {
      if (this.items[p] !== undefined && this.src[p] === s && this.tgt[p] === t) removed.push(p);
    }
    for (const p of removed) {
      this.places.delete(s, t, this.kind[p]);
      this.items[p] = undefined;
      this.live--;
    }
    // Many holes: close them up (places change; nothing outside keeps one).
    if (this.items.length > 64 && this.live * 2 < this.items.length) this.compact();
  }

  /** The edges in the order they were added. */
  *values(): IterableIterator<ViewEdge> {
    for (const e of this.items) if (e !== undefined) yield e;
  }

  [Symbol.iterator](): IterableIterator<ViewEdge> {
    return this.values();
  }

  /** The edges as a list, in the order they were added. */
  list(): ViewEdge[] {
    return this.live === this.items.length ? this.items.slice() as ViewEdge[] : this.items.filter((e) => e !== undefined);
  }

  /** The ends of `list()`'s edges, as node numbers. */
  ends(): EdgeEnds {
    const n = this.items.length;
    if (this.live === n) return { source: this.src.slice(0, n), target: this.tgt.slice(0, n) };
    const source = new Int32Array(this.live), target = new Int32Array(this.live);
    let j = 0;
    for (let p = 0; p < n; p++) {
      if (this.items[p] === undefined) continue;
      source[j] = this.src[p];
      target[j++] = this.tgt[p];
    }
    return { source, target };
  }

  private growItems(): void {
    const cap = this.src.length * 2;
    this.src = grown(this.src, cap);
    this.tgt = grown(this.tgt, cap);
    this.kind = grown(this.kind, cap);
  }

  private compact(): void {
    let j = 0;
    for (let p = 0; p < this.items.length; p++) {
      const e = this.items[p];
      if (e === undefined) continue;
      this.items[j] = e;
      this.src[j] = this.src[p];
      this.tgt[j] = this.tgt[p];
      this.kind[j] = this.kind[p];
      j++;
    }
    this.items.length = j;
    this.places.clear(j);
    for (let p = 0; p < j; p++) this.places.add(this.src[p], this.tgt[p], this.kind[p], p);
  }
}

function grown(a: Int32Array, cap: number): Int32Array<ArrayBuffer> {
  const next = new Int32Array(cap);
  next.set(a);
  return next;
}
