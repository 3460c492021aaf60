//! Pointer input on the canvas turned into intent: drag pans, the wheel zooms about the
//! cursor, a click (not a drag) selects, a double click activates, moving hovers. The
//! keyboard belongs to the app, which calls zoomBy / panBy / fit.

export interface PointerTarget {
  /** Node id under the CSS-pixel point relative to the canvas, or null. */
  pick(x: number, y: number): string | null;
  pan(dx: number, dy: number): void;
  zoomAt(factor: number, x: number, y: number): void;
  hover(id: string | null): void;
  select(id: string | null, additive: boolean): void;
  activate(id: string): void;
}

/** Pointer travel (CSS px) below which a press-release is a click, not a drag. */
const CLICK_SLOP = 4;

/** Zoom per wheel notch: small and even, so that a few notches never lose the drawing. */
export const WHEEL_STEP = 1.12;

/** Zoom factor for a wheel event: one notch (about 100 px, or 3 lines), however large, is
 *  WHEEL_STEP; a smaller delta (a trackpad's) its share of one. A trackpad pinch arrives as
 *  a wheel event with ctrlKey and small deltas, so it counts for more. */
export function wheelFactor(deltaY: number, deltaMode: number, pinch = false): number {
  const px = deltaMode === 1 ? deltaY * 34 : deltaMode === 2 ? deltaY * 400 : deltaY;
  if (pinch) return Math.exp(-Math.max(-300, Math.min(300, px)) * 0.01);
  const notches = Math.max(-1, Math.min(1, px / 100));
  return Math.pow(WHEEL_STEP, -notches);
}

export class PointerControls {
  private down: { id: number, x: number, y: number, lastX: number, lastY: number, dragging: boolean } | null = null;
  private hovered: string | null = null;
  private readonly off: Array<() => void> = [];

  constructor(private el: HTMLElement, private target: PointerTarget) {
    const on = <K extends keyof HTMLElementEventMap>(type: K, fn: (e: HTMLElementEventMap[K]) => void, opts?: AddEventListenerOptions) => {
      el.addEventListener(type, fn as EventListener, opts);
      this.off.push(() => el.removeEventListener(type, fn as EventListener, opts));
    };
    on("pointerdown", (e) => this.onDown(e));
    on("pointermove", (e) => this.onMove(e));
    on("pointerup", (e) => this.onUp(e));
    on("pointercancel", () => {
      this.down = null;
      this.el.style.cursor = "";
    });
    on("pointerleave", () => { if (!this.down) this.setHover(null); });
    on("wheel", (e) => this.onWheel(e), { passive: false });
    on("dblclick", (e) => {
      const p = this.local(e);
      const id = this.target.pick(p.x, p.y);
      if (id !== null) this.target.activate(id);
    });
  }

  private local(e: MouseEvent): { x: number, y: number } {
    const r = this.el.getBoundingClientRect();
    return { x: e.clientX - r.left, y: e.clientY - r.top };
  }

  private onDown(e: PointerEvent): void {
    if (e.button !== 0) return;
    const p = this.local(e);
    this.down = { id: e.pointerId, x: p.x, y: p.y, lastX: p.x, lastY: p.y, dragging: false };
    try {
      this.el.setPointerCapture(e.pointerId);
    } catch {
      // jsdom and some synthetic events have no capture.
    }
  }

  private onMove(e: PointerEvent): void {
    const p = this.local(e);
    const d = this.down;
    if (d && d.id === e.pointerId) {
      if (!d.dragging && Math.hypot(p.x - d.x, p.y - d.y) > CLICK_SLOP) {
        d.dragging = true;
        this.el.style.cursor = "grabbing";
        this.setHover(null);
      }
      if (d.dragging) {
        this.target.pan(p.x - d.lastX, p.y - d.lastY);
        d.lastX = p.x;
        d.lastY = p.y;
      }
      return;
    }
    this.setHover(this.target.pick(p.x, p.y));
  }

  private onUp(e: PointerEvent): void {
    const d = this.down;
    if (!d || d.id !== e.pointerId) return;
    this.down = null;
    try {
      this.el.releasePointerCapture(e.pointerId);
    } catch {
      // nothing captured
    }
    const p = this.local(e);
    if (d.dragging) {
      this.el.style.cursor = "";
      this.setHover(this.target.pick(p.x, p.y));
      return;
    }
    this.target.select(this.target.pick(p.x, p.y), e.shiftKey);
  }

  private onWheel(e: WheelEvent): void {
    e.preventDefault();
    const p = this.local(e);
    this.target.zoomAt(wheelFactor(e.deltaY, e.deltaMode, e.ctrlKey), p.x, p.y);
  }

  private setHover(id: string | null): void {
    if (id === this.hovered) return;
    this.hovered = id;
    this.el.style.cursor = id !== null ? "pointer" : "";
    this.target.hover(id);
  }

  /** Forgets the hovered node (the graph was replaced). */
  resetHover(): void {
    this.hovered = null;
  }

  destroy(): void {
    for (const f of this.off) f();
    this.off.length = 0;
  }
}
