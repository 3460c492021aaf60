//! How long frames take, as the eye sees them: while frames follow each other, the time
//! between them (compositing and the GPU included); a frame on its own, its drawing time.
//! The canvas's stats() reports the mean over the last second that had frames.

/** A frame asked for within this long after the previous one ended continues it: the
 *  canvas is being driven (dragging, zooming, an animation) rather than touched once. */
export const CONTINUOUS_MS = 20;
const STATS_WINDOW_MS = 1000;
const STATS_RING = 1024;

export class FrameClock {
  /** Frames drawn so far. */
  frames = 0;
  private lastFrameAt = -Infinity;
  private lastFrameEnd = -Infinity;
  private requestedAt = 0;
  private readonly statAt = new Float64Array(STATS_RING);
  private readonly statMs = new Float64Array(STATS_RING);
  private statHead = 0;

  /** A frame was asked for at `t` (ms). */
  requested(t: number): void {
    this.requestedAt = t;
  }

  /** A frame ran from `t0` to `t1` (ms). */
  drew(t0: number, t1: number): void {
    const continuous = this.requestedAt - this.lastFrameEnd < CONTINUOUS_MS;
    const sample = continuous ? t0 - this.lastFrameAt : t1 - t0;
    this.lastFrameAt = t0;
    this.lastFrameEnd = t1;
    this.statAt[this.statHead] = t1;
    this.statMs[this.statHead] = sample;
    this.statHead = (this.statHead + 1) % STATS_RING;
    this.frames++;
  }

  /** Mean milliseconds per frame over the last second that had frames (0: none). */
  msPerFrame(): number {
    const t = this.lastFrameEnd;
    let sum = 0, n = 0;
    for (let k = 0; k < STATS_RING; k++) {
      if (this.statAt[k] > 0 && t - this.statAt[k] <= STATS_WINDOW_MS) {
        sum += this.statMs[k];
        n++;
      }
    }
    return n ? sum / n : 0;
  }
}
