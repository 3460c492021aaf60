//! Near-horizontal and near-vertical one-pixel lines turned into disjoint pixel runs.
//!
//! Why: zoomed far out, a layered layout puts thousands of long edges along the same few
//! rows (or columns) of pixels. Even after lod.ts merges the ones that coincide exactly,
//! software GL draws every pixel of every overlapping line, hundreds deep. A line that
//! crosses at most MAX_RUN_SPAN rows is the same pixels as a few horizontal runs; runs on
//! one row are cut where lines start and end into disjoint pieces, each coloured as the
//! lines over it composited (as if in any order: exact when they share a colour, which
//! overlapping edges mostly do). Drawn, no pixel is covered twice.

/** Lines spanning up to this many rows (columns) become runs; steeper ones stay lines. */
export const MAX_RUN_SPAN = 4;

/** Coordinates are kept in 0 .. 2^15 - 1 (the caller offsets them). */
const COORD_BITS = 15;
const COORD_MAX = (1 << COORD_BITS) - 1;
/** Radix sort of the events: digits of this many bits, enough of them for a position. */
const DIGIT_BITS = 11;
const DIGITS = Math.ceil((2 * COORD_BITS + 1) / DIGIT_BITS);
/** Lines at least this opaque hide what is under them (log(1 - alpha) would not be finite). */
const OPAQUE = 1 - 1 / 1024;

/** Receives merged runs: horizontal (`vertical` false) on row `line` from column `a` to
 *  `b` (exclusive), or vertical on column `line` from row `a` to `b`; RGBA premultiplied,
 *  0..255. */
export type RunSink = (vertical: boolean, line: number, a: number, b: number, r: number, g: number, bl: number, al: number) => void;

export class RunMerger {
  private row = new Int32Array(1024);
  private a = new Int32Array(1024);
  private b = new Int32Array(1024);
  /** Premultiplied r, g, b and alpha per run. */
  private color = new Float32Array(4 * 1024);
  private count = 0;
  /** Events (run number * 2 + 1 for its end) and their positions (line, then column),
   *  with the second buffers of the radix sort. */
  private ev = new Int32Array(2048);
  private pos = new Int32Array(2048);
  private ev2 = new Int32Array(2048);
  private pos2 = new Int32Array(2048);
  private readonly counts = new Int32Array(1 << DIGIT_BITS);

  get runs(): number {
    return this.count;
  }

  reset(): void {
    this.count = 0;
  }

  /** Whether the line between pixels (x0, y0) and (x1, y1) is added as runs (else it
   *  stays a line). Colour premultiplied, 0..1. */
  addLine(x0: number, y0: number, x1: number, y1: number, r: number, g: number, bl: number, al: number): boolean {
    const dx = Math.abs(x1 - x0), dy = Math.abs(y1 - y0);
    if (dx >= dy && dy < MAX_RUN_SPAN) {
      if (x1 < x0) this.spans(false, x1, y1, x0, y0, r, g, bl, al);
      else this.spans(false, x0, y0, x1, y1, r, g, bl, al);
      return true;
    }
    if (dy > dx && dx < MAX_RUN_SPAN) {
      if (y1 < y0) this.spans(true, y1, x1, y0, x0, r, g, bl, al);
      else this.spans(true, y0, x0, y1, x1, r, g, bl, al);
      return true;
    }
    return false;
  }

  /** The runs of a line along its major axis from (u0, v0) to (u1, v1), u0 <= u1: one per
   *  minor-axis line it crosses, splitting the major axis where it steps across. */
  private spans(vertical: boolean, u0: number, v0: number, u1: number, v1: number, r: number, g: number, bl: number, al: number): void {
    const dv = Math.abs(v1 - v0), step = v1 > v0 ? 1 : -1;
    let start = u0;
    for (let k = 0; k <= dv; k++) {
      const end = k === dv ? u1 + 1 : Math.round(u0 + ((k + 0.5) / dv) * (u1 - u0));
      if (end > start) this.push(vertical, v0 + k * step, start, end, r, g, bl, al);
      start = end;
    }
  }

  private push(vertical: boolean, line: number, a: number, b: number, r: number, g: number, bl: number, al: number): void {
    if (this.count === this.row.length) this.grow();
    const i = this.count++;
    this.row[i] = (vertical ? 1 << COORD_BITS : 0) + clamp(line);
    this.a[i] = clamp(a);
    this.b[i] = clamp(b);
    const c = this.color;
    c[4 * i] = r;
    c[4 * i + 1] = g;
    c[4 * i + 2] = bl;
    c[4 * i + 3] = al;
  }

  private grow(): void {
    const n = this.row.length * 2;
    const grow = <T extends Int32Array | Float32Array>(x: T, make: (n: number) => T, k = 1): T => {
      const y = make(n * k);
      y.set(x);
      return y;
    };
    this.row = grow(this.row, (m) => new Int32Array(m));
    this.a = grow(this.a, (m) => new Int32Array(m));
    this.b = grow(this.b, (m) => new Int32Array(m));
    this.color = grow(this.color, (m) => new Float32Array(m), 4);
  }

  /** Cuts the runs on each row (column) into disjoint pieces and gives them to `sink`,
   *  neighbouring pieces of one colour as one. */
  merge(sink: RunSink): void {
    const events = 2 * this.count;
    this.sortEvents();
    const evs = this.ev, poss = this.pos, c = this.color;
    let current = -1, from = 0, active = 0, opaque = 0;
    let logKeep = 0, sr = 0, sg = 0, sb = 0, sa = 0;
    // The piece waiting to be given out (extended while the next one matches it).
    let pLine = -1, pa = 0, pb = 0, pr = 0, pg = 0, pbl = 0, pal = 0;
    const flush = () => {
      if (pLine >= 0) sink(pLine >= 1 << COORD_BITS, pLine & COORD_MAX, pa, pb, pr, pg, pbl, pal);
      pLine = -1;
    };
    for (let k = 0; k < events; k++) {
      const ev = evs[k], pos = poss[k];
      const line = pos >>> COORD_BITS, x = pos & COORD_MAX;
      if (line !== current) {
        current = line;
        active = opaque = 0;
        logKeep = sr = sg = sb = sa = 0;
      } else if (x > from && active > 0) {
        const alpha = opaque > 0 ? 1 : 1 - Math.exp(logKeep);
        const k8 = alpha / sa;
        const r8 = to8(sr * k8), g8 = to8(sg * k8), b8 = to8(sb * k8), a8 = to8(alpha);
        if (pLine === line && pb === from && pr === r8 && pg === g8 && pbl === b8 && pal === a8) {
          pb = x;
        } else {
          flush();
          pLine = line; pa = from; pb = x; pr = r8; pg = g8; pbl = b8; pal = a8;
        }
      }
      from = x;
      const i = ev >> 1, o = 4 * i;
      const al = c[o + 3], sign = ev & 1 ? -1 : 1;
      active += sign;
      if (active === 0) {
        opaque = 0;
        logKeep = sr = sg = sb = sa = 0;
      } else {
        // Straight colour weighted by alpha: sum(c * a) is the premultiplied colour.
        if (al >= OPAQUE) opaque += sign;
        else logKeep += sign * Math.log(1 - al);
        sr += sign * c[o];
        sg += sign * c[o + 1];
        sb += sign * c[o + 2];
        sa += sign * c[o + 3];
      }
    }
    flush();
  }

  /** Lists the events (each run's start and end) in `ev` sorted by position in `pos`:
   *  a radix sort, DIGIT_BITS at a time (stable, and linear in the number of events). */
  private sortEvents(): void {
    const n = 2 * this.count;
    if (this.ev.length < n) {
      const size = 2 * this.row.length;
      this.ev = new Int32Array(size);
      this.pos = new Int32Array(size);
      this.ev2 = new Int32Array(size);
      this.pos2 = new Int32Array(size);
    }
    let ev = this.ev, pos = this.pos, ev2 = this.ev2, pos2 = this.pos2;
    for (let i = 0; i < this.count; i++) {
      const base = this.row[i] << COORD_BITS;
      ev[2 * i] = 2 * i;
      pos[2 * i] = base | this.a[i];
      ev[2 * i + 1] = 2 * i + 1;
      pos[2 * i + 1] = base | this.b[i];
    }
    const counts = this.counts, mask = (1 << DIGIT_BITS) - 1;
    for (let d = 0; d < DIGITS; d++) {
      const shift = d * DIGIT_BITS;
      counts.fill(0);
      for (let k = 0; k < n; k++) counts[(pos[k] >>> shift) & mask]++;
      for (let b = 0, sum = 0; b <= mask; b++) {
        const c = counts[b];
        counts[b] = sum;
        sum += c;
      }
      for (let k = 0; k < n; k++) {
        const to = counts[(pos[k] >>> shift) & mask]++;
        ev2[to] = ev[k];
        pos2[to] = pos[k];
      }
      [ev, ev2] = [ev2, ev];
      [pos, pos2] = [pos2, pos];
    }
    this.ev = ev;
    this.pos = pos;
    this.ev2 = ev2;
    this.pos2 = pos2;
  }
}

function clamp(x: number): number {
  return x < 0 ? 0 : x > COORD_MAX ? COORD_MAX : x;
}

function to8(x: number): number {
  return x <= 0 ? 0 : x >= 1 ? 255 : Math.round(x * 255);
}
