//! The view transform between layout pixels ("world") and CSS pixels on the canvas
//! ("screen"), kept free of the DOM so that zooming, panning, fitting and camera
//! animations can be tested exactly.

export interface CameraState {
  /** World point at the centre of the viewport. */
  x: number;
  y: number;
  /** CSS pixels per world unit. */
  scale: number;
}

export interface Bounds {
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
}

export const MIN_SCALE = 1e-4;
export const MAX_SCALE = 16;

function easeInOut(t: number): number {
  return t < 0.5 ? 4 * t * t * t : 1 - Math.pow(-2 * t + 2, 3) / 2;
}

export class Camera {
  x = 0;
  y = 0;
  scale = 1;
  /** Viewport size in CSS pixels. */
  width = 1;
  height = 1;

  private from: CameraState | null = null;
  private to: CameraState | null = null;
  private animStart = 0;
  private animMs = 0;

  constructor(width = 1, height = 1) {
    this.resize(width, height);
  }

  /** Changes the viewport size; the world point at the centre stays there. */
  resize(width: number, height: number): void {
    this.width = Math.max(1, width);
    this.height = Math.max(1, height);
  }

  state(): CameraState {
    return { x: this.x, y: this.y, scale: this.scale };
  }

  /** Jumps to a state, cancelling any animation. */
  set(s: CameraState): void {
    this.stop();
    this.x = s.x;
    this.y = s.y;
    this.scale = clampScale(s.scale);
  }

  worldToScreenX(wx: number): number {
    return (wx - this.x) * this.scale + this.width / 2;
  }
  worldToScreenY(wy: number): number {
    return (wy - this.y) * this.scale + this.height / 2;
  }
  screenToWorldX(sx: number): number {
    return (sx - this.width / 2) / this.scale + this.x;
  }
  screenToWorldY(sy: number): number {
    return (sy - this.height / 2) / this.scale + this.y;
  }

  worldToScreen(wx: number, wy: number): { x: number, y: number } {
    return { x: this.worldToScreenX(wx), y: this.worldToScreenY(wy) };
  }
  screenToWorld(sx: number, sy: number): { x: number, y: number } {
    return { x: this.screenToWorldX(sx), y: this.screenToWorldY(sy) };
  }

  /** Multiplies the scale by `factor`, keeping the world point under screen (sx, sy) fixed.
   *  The factor is clamped so the scale stays within [MIN_SCALE, MAX_SCALE]. */
  zoomAt(factor: number, sx: number, sy: number): void {
    this.stop();
    const wx = this.screenToWorldX(sx), wy = this.screenToWorldY(sy);
    this.scale = clampScale(this.scale * factor);
    // Solve worldToScreen(wx, wy) == (sx, sy) for the centre.
    this.x = wx - (sx - this.width / 2) / this.scale;
    this.y = wy - (sy - this.height / 2) / this.scale;
  }

  /** Moves the drawing by (dx, dy) CSS pixels on screen, as dragging it does. */
  panBy(dx: number, dy: number): void {
    this.stop();
    this.x -= dx / this.scale;
    this.y -= dy / this.scale;
  }

  /** The state that shows `b` whole, centred, with `padding` CSS pixels on each side
   *  (and below the top `top` CSS px, which something over the canvas covers). The scale
   *  is capped at `maxScale` so one small node is not blown up. */
  fitState(b: Bounds, padding = 24, maxScale = 2, top = 0): CameraState {
    const inset = Math.max(0, Math.min(top, this.height / 2));
    const bw = Math.max(b.maxX - b.minX, 1e-6), bh = Math.max(b.maxY - b.minY, 1e-6);
    const aw = Math.max(this.width - 2 * padding, 1), ah = Math.max(this.height - 2 * padding - inset, 1);
    const scale = clampScale(Math.min(aw / bw, ah / bh, maxScale));
    return { x: (b.minX + b.maxX) / 2, y: (b.minY + b.maxY) / 2 - inset / 2 / scale, scale };
  }

  fit(b: Bounds, padding = 24, maxScale = 2): void {
    this.set(this.fitState(b, padding, maxScale));
  }

  /** World rectangle currently on screen (written into `out` if given). */
  visibleBounds(out: Bounds = { minX: 0, minY: 0, maxX: 0, maxY: 0 }): Bounds {
    const hw = this.width / 2 / this.scale, hh = this.height / 2 / this.scale;
    out.minX = this.x - hw;
    out.minY = this.y - hh;
    out.maxX = this.x + hw;
    out.maxY = this.y + hh;
    return out;
  }

  /** Starts an animated move to `target` over `ms` milliseconds from time `now` (ms). */
  animateTo(target: CameraState, ms: number, now: number): void {
    if (ms <= 0) {
      this.set(target);
      return;
    }
    this.from = this.state();
    this.to = { x: target.x, y: target.y, scale: clampScale(target.scale) };
    this.animStart = now;
    this.animMs = ms;
  }

  get animating(): boolean {
    return this.to !== null;
  }

  /** Advances an animation to time `now` (ms). Returns whether it is still running. */
  step(now: number): boolean {
    const from = this.from, to = this.to;
    if (!from || !to) return false;
    const t = Math.min(1, Math.max(0, (now - this.animStart) / this.animMs));
    const e = easeInOut(t);
    // Zoom in log space so the motion looks even; move the centre in screen terms, which
    // is the centre interpolated with the weight the scale change puts on each end.
    const ls = Math.log(from.scale) + (Math.log(to.scale) - Math.log(from.scale)) * e;
    this.scale = Math.exp(ls);
    if (Math.abs(to.scale - from.scale) / from.scale < 1e-6) {
      this.x = from.x + (to.x - from.x) * e;
      this.y = from.y + (to.y - from.y) * e;
    } else {
      const w = (1 / this.scale - 1 / from.scale) / (1 / to.scale - 1 / from.scale);
      this.x = from.x + (to.x - from.x) * w;
      this.y = from.y + (to.y - from.y) * w;
    }
    if (t >= 1) {
      this.x = to.x;
      this.y = to.y;
      this.scale = to.scale;
      this.stop();
      return false;
    }
    return true;
  }

  /** The target of the running animation, or the current state. */
  destination(): CameraState {
    return this.to ? { ...this.to } : this.state();
  }

  stop(): void {
    this.from = null;
    this.to = null;
  }

  /** Writes the clip-space transform for the shaders: clip = (world - centre) * k, as
   *  [centreX, centreY, kx, ky] (y flipped: world y grows downward, clip y upward). */
  clipTransform(out: Float32Array): Float32Array {
    out[0] = this.x;
    out[1] = this.y;
    out[2] = (2 * this.scale) / this.width;
    out[3] = (-2 * this.scale) / this.height;
    return out;
  }
}

export function clampScale(s: number): number {
  if (!Number.isFinite(s) || s <= 0) return 1;
  return Math.min(MAX_SCALE, Math.max(MIN_SCALE, s));
}
