//! A uniform grid over node boxes so that hover and click find the node under the cursor
//! by looking at one cell, not 50,000 nodes, and so labels can be drawn only for the
//! nodes on screen. Hits follow the drawn shapes (an ellipse's corners are not hits).

import { insideShape } from "./style";
import type { Bounds } from "./camera";

const OFFSET = 1 << 20; // cell coordinates within ±2^20 pack into one safe integer
const SPAN = 1 << 21;
/** Cell coordinates within ±2^14 pack into a key under 2^30, which V8 keeps as a small
 *  integer: no number allocated per key and a cheap hash (a view's 50,000 nodes are put in
 *  the grid at once). Keys of cells further out are the wide ones, shifted by `WIDE` so
 *  that the two never meet. */
const SMALL = 1 << 14;
const WIDE = 2 ** 43;

function cellKey(ix: number, iy: number): number {
  if (ix >= -SMALL && ix < SMALL && iy >= -SMALL && iy < SMALL) return (ix + SMALL) * (2 * SMALL) + (iy + SMALL);
  return WIDE + (ix + OFFSET) * SPAN + (iy + OFFSET);
}

export class SpatialGrid {
  readonly cellSize: number;
  private cells = new Map<number, number[]>();
  private cx = new Float32Array(0);
  private cy = new Float32Array(0);
  private hw = new Float32Array(0);
  private hh = new Float32Array(0);
  private shape = new Uint8Array(0);
  /** 1: present in the grid, 2: hidden (skipped by hits and queries). */
  private state = new Uint8Array(0);
  private stamp = new Uint32Array(0);
  private query = 0;

  constructor(cellSize = 256) {
    this.cellSize = cellSize > 0 && Number.isFinite(cellSize) ? cellSize : 256;
  }

  /** A cell size suited to boxes of these sizes: about twice the mean larger side. */
  static cellSizeFor(ws: ArrayLike<number>, hs: ArrayLike<number>, count = ws.length): number {
    if (count === 0) return 256;
    let sum = 0;
    for (let i = 0; i < count; i++) sum += Math.max(ws[i], hs[i]);
    return Math.max(8, (2 * sum) / count);
  }

  private ensure(i: number): void {
    if (i < this.cx.length) return;
    let cap = Math.max(64, this.cx.length);
    while (cap <= i) cap *= 2;
    const grow = <T extends Float32Array | Uint8Array | Uint32Array>(a: T, make: (n: number) => T): T => {
      const b = make(cap);
      b.set(a);
      return b;
    };
    this.cx = grow(this.cx, (n) => new Float32Array(n));
    this.cy = grow(this.cy, (n) => new Float32Array(n));
    this.hw = grow(this.hw, (n) => new Float32Array(n));
    this.hh = grow(this.hh, (n) => new Float32Array(n));
    this.shape = grow(this.shape, (n) => new Uint8Array(n));
    this.state = grow(this.state, (n) => new Uint8Array(n));
    this.stamp = grow(this.stamp, (n) => new Uint32Array(n));
  }

  private forCells(i: number, fn: (key: number) => void): void {
    const s = this.cellSize;
    const x0 = Math.floor((this.cx[i] - this.hw[i]) / s), x1 = Math.floor((this.cx[i] + this.hw[i]) / s);
    const y0 = Math.floor((this.cy[i] - this.hh[i]) / s), y1 = Math.floor((this.cy[i] + this.hh[i]) / s);
    for (let ix = x0; ix <= x1; ix++) for (let iy = y0; iy <= y1; iy++) fn(cellKey(ix, iy));
  }

  /** Puts node `i` (centre x, y; size w, h) in the grid, replacing where it was. */
  set(i: number, x: number, y: number, w: number, h: number, shape: number): void {
    this.ensure(i);
    if (this.state[i] & 1) this.remove(i);
    this.cx[i] = x;
    this.cy[i] = y;
    this.hw[i] = Math.max(0, w / 2);
    this.hh[i] = Math.max(0, h / 2);
    this.shape[i] = shape;
    this.state[i] = (this.state[i] & 2) | 1;
    // The cells' loop written out: no closure per node (a view's 50,000 set here at once).
    const c = this.cellSize;
    // The cells remove() finds again: from the stored (32-bit) centre and half sizes.
    const cx = this.cx[i], cy = this.cy[i], hw = this.hw[i], hh = this.hh[i];
    const x0 = Math.floor((cx - hw) / c), x1 = Math.floor((cx + hw) / c);
    const y0 = Math.floor((cy - hh) / c), y1 = Math.floor((cy + hh) / c);
    for (let ix = x0; ix <= x1; ix++) {
      for (let iy = y0; iy <= y1; iy++) {
        const key = cellKey(ix, iy), cell = this.cells.get(key);
        if (cell) cell.push(i);
        else this.cells.set(key, [i]);
      }
    }
  }

  remove(i: number): void {
    if (i >= this.state.length || !(this.state[i] & 1)) return;
    this.forCells(i, (key) => {
      const cell = this.cells.get(key);
      if (!cell) return;
      const at = cell.indexOf(i);
      if (at >= 0) {
        cell[at] = cell[cell.length - 1];
        cell.pop();
      }
      if (cell.length === 0) this.cells.delete(key);
    });
    this.state[i] &= ~1;
  }

  setHidden(i: number, hidden: boolean): void {
    this.ensure(i);
    this.state[i] = hidden ? this.state[i] | 2 : this.state[i] & ~2;
  }

  clear(): void {
    this.cells.clear();
    this.state.fill(0);
  }

  /** The topmost (highest index, drawn last) visible node whose shape contains (x, y);
   *  failing that, the nearest one whose box is within `tolerance` world units; or -1. */
  hit(x: number, y: number, tolerance = 0): number {
    const s = this.cellSize;
    let best = -1;
    const cell = this.cells.get(cellKey(Math.floor(x / s), Math.floor(y / s)));
    if (cell) {
      for (let k = 0; k < cell.length; k++) {
        const i = cell[k];
        if (i <= best || this.state[i] & 2) continue;
        if (insideShape(this.shape[i], x - this.cx[i], y - this.cy[i], this.hw[i], this.hh[i])) best = i;
      }
    }
    if (best >= 0 || tolerance <= 0) return best;
    let bestD = tolerance * tolerance;
    this.visit(x - tolerance, y - tolerance, x + tolerance, y + tolerance, (i) => {
      const dx = Math.max(Math.abs(x - this.cx[i]) - this.hw[i], 0);
      const dy = Math.max(Math.abs(y - this.cy[i]) - this.hh[i], 0);
      const d = dx * dx + dy * dy;
      if (d < bestD || (d === bestD && i > best)) {
        bestD = d;
        best = i;
      }
    });
    return best;
  }

  /** Calls `fn` once for every visible node whose box overlaps the rectangle. Stops when
   *  `fn` returns false. */
  visit(minX: number, minY: number, maxX: number, maxY: number, fn: (i: number) => boolean | void): void {
    const s = this.cellSize;
    const x0 = Math.floor(minX / s), x1 = Math.floor(maxX / s);
    const y0 = Math.floor(minY / s), y1 = Math.floor(maxY / s);
    const q = ++this.query;
    if (q === 0xffffffff) {
      this.stamp.fill(0);
      this.query = 1;
    }
    const stamp = this.query;
    // Many more cells than entries (a far zoom-out): walk the entries instead.
    if ((x1 - x0 + 1) * (y1 - y0 + 1) > this.cells.size * 4) {
      for (const cell of this.cells.values()) {
        if (!this.visitCell(cell, stamp, minX, minY, maxX, maxY, fn)) return;
      }
      return;
    }
    for (let ix = x0; ix <= x1; ix++) {
      for (let iy = y0; iy <= y1; iy++) {
        const cell = this.cells.get(cellKey(ix, iy));
        if (cell && !this.visitCell(cell, stamp, minX, minY, maxX, maxY, fn)) return;
      }
    }
  }

  private visitCell(cell: number[], stamp: number, minX: number, minY: number, maxX: number, maxY: number,
    fn: (i: number) => boolean | void): boolean {
    for (let k = 0; k < cell.length; k++) {
      const i = cell[k];
      if (this.stamp[i] === stamp || this.state[i] & 2) continue;
      this.stamp[i] = stamp;
      if (this.cx[i] + this.hw[i] < minX || this.cx[i] - this.hw[i] > maxX) continue;
      if (this.cy[i] + this.hh[i] < minY || this.cy[i] - this.hh[i] > maxY) continue;
      if (fn(i) === false) return false;
    }
    return true;
  }

  /** Bounds of the visible nodes, or null if there are none. */
  bounds(): Bounds | null {
    let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
    for (let i = 0; i < this.state.length; i++) {
      if (this.state[i] !== 1) continue;
      minX = Math.min(minX, this.cx[i] - this.hw[i]);
      maxX = Math.max(maxX, this.cx[i] + this.hw[i]);
      minY = Math.min(minY, this.cy[i] - this.hh[i]);
      maxY = Math.max(maxY, this.cy[i] + this.hh[i]);
    }
    return minX <= maxX ? { minX, minY, maxX, maxY } : null;
  }
}
