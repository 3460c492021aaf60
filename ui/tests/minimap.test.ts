// The minimap (ui/minimap.ts): its mapping between the drawing and itself, and clicks.
// @vitest-environment jsdom

import { describe, expect, it } from "vitest";
import type { ViewNode } from "../src/api/contract";
import { MINI_H, MINI_W, Minimap } from "../src/canvas-area/minimap";

const n = (id: string, x: number, y: number): ViewNode => ({ id, x, y, w: 40, h: 20 } as unknown as ViewNode);

describe("minimap", () => {
  it("maps the whole drawing inside itself, and back", () => {
    const m = new Minimap({ centerOn: () => {} });
    expect(m.toMini(0, 0)).toBeNull();
    expect(m.el.hidden).toBe(true);
    m.setNodes([n("a", 0, 0), n("b", 4000, 1000), n("c", 2000, 3000)]);
    expect(m.el.hidden).toBe(false);
    for (const [x, y] of [[-20, -10], [4020, 3010]]) {
      const p = m.toMini(x, y)!;
      expect(p.x).toBeGreaterThanOrEqual(0);
      expect(p.x).toBeLessThanOrEqual(MINI_W);
      expect(p.y).toBeGreaterThanOrEqual(0);
      expect(p.y).toBeLessThanOrEqual(MINI_H);
      const back = m.toWorld(p.x, p.y)!;
      expect(back.x).toBeCloseTo(x, 6);
      expect(back.y).toBeCloseTo(y, 6);
    }
    m.setNodes([]);
    expect(m.el.hidden).toBe(true);
  });

  it("a click moves the view to the point under it", () => {
    const asked: number[][] = [];
    const m = new Minimap({ centerOn: (x, y) => asked.push([x, y]) });
    m.setNodes([n("a", 0, 0), n("b", 1000, 500)]);
    const p = m.toMini(1000, 500)!;
    m.el.getBoundingClientRect = () => ({ left: 0, top: 0, right: MINI_W, bottom: MINI_H, width: MINI_W, height: MINI_H, x: 0, y: 0, toJSON: () => ({}) });
    m.el.dispatchEvent(new MouseEvent("pointerdown", { clientX: p.x, clientY: p.y }) as PointerEvent);
    expect(asked).toHaveLength(1);
    expect(asked[0][0]).toBeCloseTo(1000, 6);
    expect(asked[0][1]).toBeCloseTo(500, 6);
  });
});
