//! Per-instance data as one growable Float32Array plus a record of what changed since the
//! last upload, so the GPU copy is grown by doubling and refreshed only where it changed
//! (an appended batch, a few flags), never re-sent whole every frame.

/** What to send to the GPU: everything (the GPU copy must be reallocated: it grew), a
 *  list of record ranges [start, end), or nothing. */
export type Upload =
  | { kind: "all", capacity: number, count: number }
  | { kind: "ranges", ranges: Array<[number, number]> }
  | { kind: "none" };

/** Up to this many separate dirty ranges are sent one by one; more are merged into one. */
const MAX_RANGES = 32;

export class InstanceArray {
  readonly stride: number;
  data: Float32Array;
  count = 0;
  /** Bumped by every change (for CPU-side caches of what is drawn). */
  revision = 0;
  private gpuCapacity = 0;
  private ranges: Array<[number, number]> = [];
  private spanLo = Infinity;
  private spanHi = -Infinity;

  constructor(stride: number, capacity = 1024) {
    this.stride = stride;
    this.data = new Float32Array(Math.max(1, capacity) * stride);
  }

  get capacity(): number {
    return this.data.length / this.stride;
  }

  /** Makes room for `n` instances, doubling the capacity as needed. */
  reserve(n: number): void {
    if (n <= this.capacity) return;
    let cap = this.capacity;
    while (cap < n) cap *= 2;
    const next = new Float32Array(cap * this.stride);
    next.set(this.data.subarray(0, this.count * this.stride));
    this.data = next;
  }

  /** Appends one zeroed instance and returns its index. */
  push(): number {
    this.reserve(this.count + 1);
    const i = this.count++;
    // A loop, not `fill`: a record is a dozen numbers, and a view pushes 50,000 at once.
    const d = this.data;
    for (let k = i * this.stride, end = k + this.stride; k < end; k++) d[k] = 0;
    this.markDirty(i);
    return i;
  }

  clear(): void {
    this.count = 0;
    this.revision++;
    this.ranges.length = 0;
    this.spanLo = Infinity;
    this.spanHi = -Infinity;
  }

  /** Records that instance `i` changed. Neighbouring changes merge into one range. */
  markDirty(i: number, end = i + 1): void {
    if (end <= i) return;
    this.revision++;
    this.spanLo = Math.min(this.spanLo, i);
    this.spanHi = Math.max(this.spanHi, end);
    if (this.ranges.length > MAX_RANGES) return; // already degraded to one span
    const last = this.ranges[this.ranges.length - 1];
    if (last && i <= last[1] && end >= last[0]) {
      last[0] = Math.min(last[0], i);
      last[1] = Math.max(last[1], end);
      return;
    }
    this.ranges.push([i, end]);
  }

  markAll(): void {
    this.markDirty(0, Math.max(this.count, 1));
  }

  /** Whether record `i` changed since the last upload (true for any record in the one
   *  span that many scattered changes degrade to). */
  changed(i: number): boolean {
    if (i < this.spanLo || i >= this.spanHi) return false;
    if (this.ranges.length > MAX_RANGES) return true;
    for (const [a, b] of this.ranges) if (i >= a && i < b) return true;
    return false;
  }

  /** Whether any record changed since the last upload. */
  get anyChanged(): boolean {
    return this.spanHi > this.spanLo;
  }

  /** Whether anything is waiting to be uploaded. */
  get dirty(): boolean {
    return this.spanHi > this.spanLo || this.gpuCapacity < this.capacity;
  }

  /** Says what to upload and forgets it: the caller must perform the upload. */
  takeUpload(): Upload {
    let out: Upload;
    if (this.gpuCapacity < this.capacity) {
      this.gpuCapacity = this.capacity;
      out = { kind: "all", capacity: this.capacity, count: this.count };
    } else if (this.spanHi <= this.spanLo) {
      out = { kind: "none" };
    } else if (this.ranges.length > MAX_RANGES) {
      out = { kind: "ranges", ranges: [[this.spanLo, Math.min(this.spanHi, this.count)]] };
    } else {
      const ranges: Array<[number, number]> = [];
      const sorted = this.ranges.sort((a, b) => a[0] - b[0]);
      for (const [a, b0] of sorted) {
        const b = Math.min(b0, this.count);
        if (b <= a) continue;
        const prev = ranges[ranges.length - 1];
        if (prev && a <= prev[1]) prev[1] = Math.max(prev[1], b);
        else ranges.push([a, b]);
      }
      out = ranges.length ? { kind: "ranges", ranges } : { kind: "none" };
    }
    this.ranges = [];
    this.spanLo = Infinity;
    this.spanHi = -Infinity;
    return out;
  }

  /** Forgets the GPU copy (context lost, or a new buffer): the next upload sends all. */
  resetGpu(): void {
    this.gpuCapacity = 0;
  }
}
