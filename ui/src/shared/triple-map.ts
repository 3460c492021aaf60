//! Whole-number triples (an edge's two ends and its type, as numbers) to whole numbers, in
//! an open-addressing hash over typed arrays: no string, no key object and no boxed number
//! per entry, so that keying 77,000 edges costs a few milliseconds and leaves no garbage.
//! The graph model's edge table and the canvas's scene key their edges with it.

/** A slot's state: empty, holding an entry, or one removed (searches go on past it). */
const EMPTY = 0, FULL = 1, REMOVED = 2;

export class TripleMap {
  private a = new Int32Array(32);
  private b = new Int32Array(32);
  private c = new Int32Array(32);
  private value = new Int32Array(32);
  private state = new Uint8Array(32);
  /** Slots not empty (entries and removed marks). */
  private taken = 0;
  private count = 0;

  constructor(expected = 0) {
    this.clear(expected);
  }

  get size(): number {
    return this.count;
  }

  /** Empties it, with room for `expected` entries. */
  clear(expected = 0): void {
    let n = 32;
    while (n < expected * 2) n *= 2;
    this.a = new Int32Array(n);
    this.b = new Int32Array(n);
    this.c = new Int32Array(n);
    this.value = new Int32Array(n);
    this.state = new Uint8Array(n);
    this.taken = 0;
    this.count = 0;
  }

  /** The value of (x, y, z), or -1 when absent. */
  get(x: number, y: number, z: number): number {
    const i = this.slotOf(x, y, z);
    return i < 0 ? -1 : this.value[i];
  }

  has(x: number, y: number, z: number): boolean {
    return this.slotOf(x, y, z) >= 0;
  }

  /** Sets (x, y, z) to `v` unless present; whether it was added. */
  add(x: number, y: number, z: number, v = 0): boolean {
    if (this.slotOf(x, y, z) >= 0) return false;
    if ((this.taken + 1) * 2 > this.state.length) this.rehash();
    const mask = this.state.length - 1;
    let i = hash(x, y, z) & mask;
    while (this.state[i] === FULL) i = (i + 1) & mask;
    if (this.state[i] === EMPTY) this.taken++;
    this.state[i] = FULL;
    this.a[i] = x;
    this.b[i] = y;
    this.c[i] = z;
    this.value[i] = v;
    this.count++;
    return true;
  }

  /** Removes (x, y, z); whether it was there. */
  delete(x: number, y: number, z: number): boolean {
    const i = this.slotOf(x, y, z);
    if (i < 0) return false;
    this.state[i] = REMOVED;
    this.count--;
    return true;
  }

  private slotOf(x: number, y: number, z: number): number {
    const state = this.state, mask = state.length - 1;
    for (let i = hash(x, y, z) & mask; ; i = (i + 1) & mask) {
      const s = state[i];
      if (s === EMPTY) return -1;
      if (s === FULL && this.a[i] === x && this.b[i] === y && this.c[i] === z) return i;
    }
  }

  /** Room for twice the entries (or the same room without the removed marks). */
  private rehash(): void {
    const { a, b, c, value, state } = this;
    this.clear(this.count + 1);
    for (let i = 0; i < state.length; i++) if (state[i] === FULL) this.add(a[i], b[i], c[i], value[i]);
  }
}

/** Mixes three numbers into one (the start slot). */
function hash(x: number, y: number, z: number): number {
  let h = Math.imul(x, 0x9e3779b1) ^ Math.imul(y ^ 0x5bd1e995, 0x85ebca77) ^ Math.imul(z + 1, 0xc2b2ae3d);
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  return h ^ (h >>> 12);
}
