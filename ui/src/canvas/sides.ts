//! How large the scene's nodes are, as a histogram of their larger sides in quarter octaves,
//! so that a zoom can be chosen for most nodes whatever a few wide ones do (first-view.ts,
//! the frame plan) without looking at every node.

/** Quarter-octave buckets of node sides from 1 to 2^16 world units. */
const BUCKETS = 65;

function bucket(w: number, h: number): number {
  const side = w > h ? w : h;
  const b = side > 1 ? Math.ceil(Math.log2(side) * 4) : 0;
  return b < BUCKETS - 1 ? b : BUCKETS - 1;
}

export class SideHistogram {
  private readonly counts = new Uint32Array(BUCKETS);

  add(w: number, h: number): void {
    this.counts[bucket(w, h)]++;
  }

  remove(w: number, h: number): void {
    this.counts[bucket(w, h)]--;
  }

  clear(): void {
    this.counts.fill(0);
  }

  /** The side that `share` (0..1) of `count` nodes are no larger than, to within a quarter
   *  octave; `largest` when the buckets do not reach that many. */
  atShare(share: number, count: number, largest: number): number {
    const want = Math.max(1, Math.ceil(share * count));
    let seen = 0;
    for (let b = 0; b < BUCKETS; b++) {
      seen += this.counts[b];
      if (seen >= want) return 2 ** (b / 4);
    }
    return largest;
  }
}
