//! The level of detail's bookkeeping (lod.ts): a hash table numbering screen-pixel keys in
//! the order they are first seen (nodes one per pixel, lines merged per pair of end pixels),
//! and the small numeric helpers its buffers and clipping use.

/** Numbers pairs of int keys 0, 1, 2, ... in the order they are first seen: an open
 *  addressing hash table, emptied in O(1) by stamps, grown when half full and shrunk when
 *  far larger than the last use needed (a table that fits in cache is most of its speed). */
export class KeyNumbers {
  /** Entries so far; whether the last lookup added one. */
  count = 0;
  added = false;
  private ka = new Int32Array(0);
  private kb = new Int32Array(0);
  private val = new Int32Array(0);
  private stamp = new Uint32Array(0);
  private gen = 0;
  private mask = 0;
  private shift = 32;
  private lastCount = 0;

  /** Forgets all entries. */
  reset(): void {
    let size = 1024;
    while (size < 4 * this.lastCount) size *= 2;
    if (size > this.stamp.length || 4 * size < this.stamp.length) this.allocate(size);
    this.count = 0;
    this.gen++;
    if (this.gen === 0xffffffff) {
      this.stamp.fill(0);
      this.gen = 1;
    }
  }

  private allocate(size: number): void {
    this.ka = new Int32Array(size);
    this.kb = new Int32Array(size);
    this.val = new Int32Array(size);
    this.stamp = new Uint32Array(size);
    this.gen = 1;
    this.mask = size - 1;
    this.shift = 32 - Math.log2(size);
  }

  private slot(a: number, b: number): number {
    let h = (Math.imul(a, 0x9e3779b1) ^ Math.imul(b + 0x7f4a7c15, 0x85ebca77)) >>> this.shift;
    const st = this.stamp, ka = this.ka, kb = this.kb, gen = this.gen, mask = this.mask;
    while (st[h] === gen && (ka[h] !== a || kb[h] !== b)) h = (h + 1) & mask;
    return h;
  }

  /** The number of (a, b), numbering it next if new (then `added`). */
  lookup(a: number, b: number): number {
    let h = this.slot(a, b);
    if (this.stamp[h] === this.gen) {
      this.added = false;
      return this.val[h];
    }
    if (2 * (this.count + 1) > this.stamp.length) {
      this.grow();
      h = this.slot(a, b);
    }
    this.stamp[h] = this.gen;
    this.ka[h] = a;
    this.kb[h] = b;
    this.val[h] = this.count;
    this.added = true;
    this.lastCount = Math.max(this.lastCount, this.count + 1);
    return this.count++;
  }

  private grow(): void {
    const { ka, kb, val, stamp, gen } = this;
    this.allocate(Math.max(1024, 2 * stamp.length));
    for (let h = 0; h < stamp.length; h++) {
      if (stamp[h] !== gen) continue;
      const s = this.slot(ka[h], kb[h]);
      this.stamp[s] = this.gen;
      this.ka[s] = ka[h];
      this.kb[s] = kb[h];
      this.val[s] = val[h];
    }
  }

  /** Call after a use: sizes the next one to what this one needed. */
  settle(): void {
    this.lastCount = this.count;
  }
}

export function to8(x: number): number {
  return x <= 0 ? 0 : x >= 1 ? 255 : Math.round(x * 255);
}

export function grown(have: number, need: number): number {
  let n = Math.max(have, 1024);
  while (n < need) n *= 2;
  return n;
}

export function grownInts(a: Int32Array, size: number): Int32Array<ArrayBuffer> {
  const b = new Int32Array(size);
  b.set(a);
  return b;
}

export function grownCopy(a: Float32Array, need: number): Float32Array<ArrayBuffer> {
  const b = new Float32Array(grown(a.length, need));
  b.set(a);
  return b;
}

export function doubled(a: Float32Array): Float32Array<ArrayBuffer> {
  const b = new Float32Array(a.length * 2);
  b.set(a);
  return b;
}

/** Whether the segment meets the rectangle (Liang–Barsky). */
export function meets(x0: number, y0: number, x1: number, y1: number, minX: number, minY: number, maxX: number, maxY: number): boolean {
  const dx = x1 - x0, dy = y1 - y0;
  let t0 = 0, t1 = 1;
  if (dx === 0) {
    if (x0 < minX || x0 > maxX) return false;
  } else {
    let ta = (minX - x0) / dx, tb = (maxX - x0) / dx;
    if (ta > tb) { const t = ta; ta = tb; tb = t; }
    if (ta > t0) t0 = ta;
    if (tb < t1) t1 = tb;
  }
  if (dy === 0) {
    if (y0 < minY || y0 > maxY) return false;
  } else {
    let ta = (minY - y0) / dy, tb = (maxY - y0) / dy;
    if (ta > tb) { const t = ta; ta = tb; tb = t; }
    if (ta > t0) t0 = ta;
    if (tb < t1) t1 = tb;
  }
  return t0 <= t1;
}
