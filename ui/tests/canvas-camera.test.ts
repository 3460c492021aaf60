// The canvas camera: exact world/screen round trips, zoom about a fixed point, panning in
// screen pixels, fitting bounds, animations and the clip transform the shaders use.

import { describe, expect, it } from "vitest";
import { Camera, MAX_SCALE, MIN_SCALE } from "../src/canvas/camera";

function camera(): Camera {
  const c = new Camera(800, 600);
  c.set({ x: 1234.5, y: -321.25, scale: 0.37 });
  return c;
}

describe("canvas camera", () => {
  it("round-trips world and screen coordinates", () => {
    const c = camera();
    for (const [wx, wy] of [[0, 0], [1234.5, -321.25], [-5000, 7000], [1e5, 3.3]]) {
      const s = c.worldToScreen(wx, wy);
      const w = c.screenToWorld(s.x, s.y);
      expect(w.x).toBeCloseTo(wx, 6);
      expect(w.y).toBeCloseTo(wy, 6);
    }
    // The centre of the view is the centre of the viewport, and y grows downward.
    expect(c.worldToScreen(1234.5, -321.25)).toEqual({ x: 400, y: 300 });
    expect(c.worldToScreen(1234.5, -321.25 + 100).y).toBeCloseTo(300 + 37, 9);
  });

  it("keeps the world point under the cursor fixed while zooming", () => {
    const c = camera();
    for (const [sx, sy, f] of [[10, 20, 2], [799, 599, 0.5], [400, 300, 1.7], [123.4, 456.7, 0.03]]) {
      const before = c.screenToWorld(sx, sy);
      const scale = c.scale;
      c.zoomAt(f, sx, sy);
      expect(c.scale).toBeCloseTo(scale * f, 9);
      const after = c.worldToScreen(before.x, before.y);
      expect(after.x).toBeCloseTo(sx, 6);
      expect(after.y).toBeCloseTo(sy, 6);
    }
  });

  it("clamps the zoom and still keeps the point fixed", () => {
    const c = camera();
    const w = c.screenToWorld(100, 100);
    c.zoomAt(1e9, 100, 100);
    expect(c.scale).toBe(MAX_SCALE);
    expect(c.worldToScreen(w.x, w.y).x).toBeCloseTo(100, 6);
    c.zoomAt(1e-12, 100, 100);
    expect(c.scale).toBe(MIN_SCALE);
    expect(c.worldToScreen(w.x, w.y).y).toBeCloseTo(100, 6);
  });

  it("pans the drawing by exactly the screen distance given", () => {
    const c = camera();
    const p = c.worldToScreen(50, 60);
    c.panBy(-37.5, 12.25);
    const q = c.worldToScreen(50, 60);
    expect(q.x - p.x).toBeCloseTo(-37.5, 9);
    expect(q.y - p.y).toBeCloseTo(12.25, 9);
  });

  it("fits bounds inside the padded viewport, tight on one side", () => {
    const c = camera();
    const b = { minX: -1000, minY: 200, maxX: 39000, maxY: 4200 };
    c.fit(b, 24);
    const tl = c.worldToScreen(b.minX, b.minY), br = c.worldToScreen(b.maxX, b.maxY);
    for (const p of [tl, br]) {
      expect(p.x).toBeGreaterThanOrEqual(24 - 1e-6);
      expect(p.x).toBeLessThanOrEqual(800 - 24 + 1e-6);
      expect(p.y).toBeGreaterThanOrEqual(24 - 1e-6);
      expect(p.y).toBeLessThanOrEqual(600 - 24 + 1e-6);
    }
    // Wide bounds: the width is what limits, so it fills the padded width exactly.
    expect(br.x - tl.x).toBeCloseTo(800 - 48, 6);
    // Centred vertically.
    expect((tl.y + br.y) / 2).toBeCloseTo(300, 6);
  });

  it("does not blow one small node up past the fit's scale cap", () => {
    const c = camera();
    c.fit({ minX: 0, minY: 0, maxX: 10, maxY: 4 }, 24, 2);
    expect(c.scale).toBe(2);
    expect(c.worldToScreen(5, 2)).toEqual({ x: 400, y: 300 });
  });

  it("keeps the centre in place on resize", () => {
    const c = camera();
    c.resize(1000, 200);
    expect(c.worldToScreen(1234.5, -321.25)).toEqual({ x: 500, y: 100 });
  });

  it("animates from the current state to the target and ends exactly there", () => {
    const c = camera();
    const from = c.state();
    const to = { x: 0, y: 0, scale: 2.96 };
    c.animateTo(to, 400, 1000);
    expect(c.step(1000)).toBe(true);
    expect(c.state()).toEqual(from);
    expect(c.step(1200)).toBe(true);
    // Halfway in time, the zoom is halfway in log space (the easing is symmetric).
    expect(c.scale).toBeCloseTo(Math.sqrt(from.scale * to.scale), 6);
    expect(c.destination()).toEqual(to);
    expect(c.step(1400)).toBe(false);
    expect(c.state()).toEqual(to);
    expect(c.animating).toBe(false);
    // A user zoom during an animation cancels it.
    c.animateTo(from, 400, 2000);
    c.zoomAt(2, 0, 0);
    expect(c.step(2400)).toBe(false);
    expect(c.scale).toBeCloseTo(to.scale * 2, 9);
  });

  it("maps the visible rectangle to clip space [-1, 1] with y up", () => {
    const c = camera();
    const t = c.clipTransform(new Float32Array(4));
    const v = c.visibleBounds();
    const clip = (x: number, y: number) => [(x - t[0]) * t[2], (y - t[1]) * t[3]];
    const [x0, y0] = clip(v.minX, v.minY);
    const [x1, y1] = clip(v.maxX, v.maxY);
    expect(x0).toBeCloseTo(-1, 4);
    expect(y0).toBeCloseTo(1, 4);
    expect(x1).toBeCloseTo(1, 4);
    expect(y1).toBeCloseTo(-1, 4);
  });
});
