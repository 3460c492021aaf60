// Where the camera opens on a graph (canvas/first-view.ts): on claims, else tasks, readably.

import { describe, expect, it } from "vitest";
import type { ViewNode } from "../src/api/contract";
import { READABLE_HEIGHT, firstViewState, focusIds } from "../src/canvas/first-view";

const node = (id: string, label: string): ViewNode => ({ id, label, x: 0, y: 0, w: 40, h: 20 } as unknown as ViewNode);

describe("first view", () => {
  it("focuses on claims first, then tasks, else nothing", () => {
    const nodes = [node("t1", "A2ATask"), node("s1", "Statement"), node("m", "Message"), node("s2", "Statement")];
    expect(focusIds(nodes)).toEqual(["s1", "s2"]);
    expect(focusIds(nodes.filter((n) => n.label !== "Statement"))).toEqual(["t1"]);
    expect(focusIds([node("m", "Message")])).toEqual([]);
  });

  it("shows a small focus box whole and centred", () => {
    const s = firstViewState({ minX: 0, minY: 0, maxX: 400, maxY: 100 }, 36, 900, 800);
    expect(s.x).toBe(200);
    expect(s.y).toBe(50);
    expect(s.scale).toBeCloseTo(Math.min(836 / 400, 2), 6);
  });

  it("keeps a wide focus box readable, starting at its left end", () => {
    const box = { minX: 1000, minY: 0, maxX: 9000, maxY: 100 };
    const s = firstViewState(box, 36, 900, 800, 32);
    expect(s.scale * 36).toBeCloseTo(READABLE_HEIGHT, 6);
    // The box's left end sits at the padding on the left of the screen.
    const left = (box.minX - s.x) * s.scale + 900 / 2;
    expect(left).toBeCloseTo(32, 6);
    expect(s.y).toBe(50);
  });
});

describe("the canvas's size guessed before the page is built", () => {
  it("is the window less the side panel's column and the two bars", async () => {
    const { estimatedViewport, FRAME_BARS_HEIGHT } = await import("../src/graph/graph-loading");
    // Wide: the side panel takes 34% of the width, between 360 and 480 px.
    expect(estimatedViewport(1400, 900)).toEqual({ width: 1400 - 476, height: 900 - FRAME_BARS_HEIGHT });
    expect(estimatedViewport(2000, 1000).width).toBe(2000 - 480);
    expect(estimatedViewport(1101, 700).width).toBeCloseTo(1101 - 374.34, 6);
    // At 1100 px and under, a fixed 360 px.
    expect(estimatedViewport(1100, 700).width).toBe(740);
    expect(estimatedViewport(800, 600).width).toBe(440);
    // Never negative.
    expect(estimatedViewport(200, 50)).toEqual({ width: 0, height: 0 });
  });
});
