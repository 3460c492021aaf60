// Where the minimap sits (canvas-area/minimap-dock.ts): in a corner with no node under it,
// folded to its button when there is none, and folded or shown by hand (kept in the browser).
// @vitest-environment jsdom

import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ViewNode } from "../src/api/contract";
import { Minimap } from "../src/canvas-area/minimap";
import { MinimapDock, cornerBox, freeCorner } from "../src/canvas-area/minimap-dock";

const n = (id: string, x: number, y: number, w = 40, h = 20): ViewNode => ({ id, x, y, w, h } as unknown as ViewNode);
/** A 1000 × 600 canvas showing the world 0..1000 × 0..600 (one world px a CSS px). */
const VIEW = { minX: 0, minY: 0, maxX: 1000, maxY: 600 };
const SIZE = { width: 1000, height: 600 };

describe("the minimap's corner", () => {
  it("is the first corner, bottom right first, whose box covers no node", () => {
    const m = new Minimap({ centerOn: () => {} });
    const br = cornerBox("br", 1000, 600);
    const tr = cornerBox("tr", 1000, 600);
    // Nothing near the corners: bottom right.
    m.setNodes([n("mid", 500, 300)]);
    expect(freeCorner(VIEW, 1000, 600, (r) => m.countIn(r))).toBe("br");
    // A node under the bottom-right box: top right.
    m.setNodes([n("mid", 500, 300), n("under", (br.left + br.right) / 2, (br.top + br.bottom) / 2)]);
    expect(freeCorner(VIEW, 1000, 600, (r) => m.countIn(r))).toBe("tr");
    // A wide node whose box only reaches in from outside counts too.
    m.setNodes([n("wide", br.left - 100, br.top + 20, 240, 20), n("tr", tr.left + 10, tr.top + 10)]);
    expect(freeCorner(VIEW, 1000, 600, (r) => m.countIn(r))).toBe("tl");
    // Every corner covered: none.
    const all = (["br", "tr", "tl", "bl"] as const).map((c) => {
      const b = cornerBox(c, 1000, 600);
      return n(c, (b.left + b.right) / 2, (b.top + b.bottom) / 2);
    });
    m.setNodes(all);
    expect(freeCorner(VIEW, 1000, 600, (r) => m.countIn(r))).toBeNull();
  });

  it("follows the camera: the same node is under a corner at one zoom and not at another", () => {
    const m = new Minimap({ centerOn: () => {} });
    m.setNodes([n("a", 900, 480)]);
    expect(freeCorner(VIEW, 1000, 600, (r) => m.countIn(r))).toBe("tr");
    // Zoomed out ×4 around the middle: the node is near the centre of the screen.
    expect(freeCorner({ minX: -1500, minY: -900, maxX: 2500, maxY: 1500 }, 1000, 600, (r) => m.countIn(r))).toBe("br");
  });
});

describe("the minimap dock", () => {
  beforeEach(() => {
    localStorage.clear();
    vi.useFakeTimers();
  });
  afterEach(() => vi.useRealTimers());

  function dock(nodes: ViewNode[]): { m: Minimap, d: MinimapDock, toggle: HTMLButtonElement } {
    const m = new Minimap({ centerOn: () => {} });
    const d = new MinimapDock(m, () => SIZE);
    document.body.replaceChildren(d.el);
    m.setNodes(nodes);
    d.viewMoved(VIEW);
    vi.advanceTimersByTime(500);
    return { m, d, toggle: d.el.querySelector<HTMLButtonElement>('[data-testid="minimap-toggle"]')! };
  }

  it("moves to a free corner once the view rests, and folds when no corner is free", () => {
    const br = cornerBox("br", 1000, 600);
    const { m, d } = dock([n("mid", 500, 300), n("under", br.left + 20, br.top + 20)]);
    expect(d.el.dataset.corner).toBe("tr");
    expect(d.el.dataset.state).toBe("open");
    // Not while the view moves: only once it rests.
    d.viewMoved({ minX: -1500, minY: -900, maxX: 2500, maxY: 1500 });
    expect(d.el.dataset.corner).toBe("tr");
    vi.advanceTimersByTime(500);
    expect(d.el.dataset.corner).toBe("br");
    const all = (["br", "tr", "tl", "bl"] as const).map((c) => {
      const b = cornerBox(c, 1000, 600);
      return n(c, b.left + 30, b.top + 30);
    });
    d.viewMoved(VIEW);
    m.setNodes(all);
    vi.advanceTimersByTime(500);
    expect(d.el.dataset.state).toBe("no-room");
    expect(d.el.classList.contains("minimap-folded")).toBe(true);
  });

  it("folds and unfolds by hand, and the choice is kept", () => {
    const { d, toggle } = dock([n("mid", 500, 300)]);
    expect(toggle.getAttribute("aria-expanded")).toBe("true");
    toggle.click();
    expect(d.el.dataset.state).toBe("folded");
    expect(toggle.textContent).toBe("Map");
    expect(localStorage.getItem("provex.minimap")).toBe("folded");
    // A new page keeps it folded.
    const again = dock([n("mid", 500, 300)]);
    expect(again.d.el.dataset.state).toBe("folded");
    again.toggle.click();
    expect(again.d.el.dataset.state).toBe("open");
  });

  it("hides with the minimap when there is nothing to map", () => {
    const { m, d } = dock([n("mid", 500, 300)]);
    expect(d.el.hidden).toBe(false);
    m.setNodes([]);
    expect(d.el.hidden).toBe(true);
  });
});
