// Lines along a few rows (columns) of pixels as disjoint runs: each pixel covered once,
// coloured as the lines over it composited.

import { describe, expect, it } from "vitest";
import { MAX_RUN_SPAN, RunMerger } from "../src/canvas/runs";

type Run = [boolean, number, number, number, number, number, number, number];

function merged(m: RunMerger): Run[] {
  const out: Run[] = [];
  m.merge((...r) => out.push(r));
  return out;
}

const grey = (a: number) => [0.5 * a, 0.5 * a, 0.5 * a, a] as const;

describe("pixel runs", () => {
  it("cuts overlapping runs on a row into pieces composited where they overlap", () => {
    const m = new RunMerger();
    expect(m.addLine(0, 5, 9, 5, ...grey(0.5))).toBe(true); // pixels 0..9
    expect(m.addLine(14, 5, 5, 5, ...grey(0.5))).toBe(true); // pixels 5..14, drawn right to left
    expect(m.addLine(20, 5, 22, 5, ...grey(0.5))).toBe(true);
    const g1 = Math.round(0.25 * 255), a1 = Math.round(0.5 * 255);
    const g2 = Math.round(0.5 * 0.75 * 255), a2 = Math.round(0.75 * 255);
    expect(merged(m)).toEqual([
      [false, 5, 0, 5, g1, g1, g1, a1],
      [false, 5, 5, 10, g2, g2, g2, a2], // two lines at 0.5: 1 - 0.5 * 0.5
      [false, 5, 10, 15, g1, g1, g1, a1],
      [false, 5, 20, 23, g1, g1, g1, a1],
    ]);
  });

  it("joins neighbouring pieces of one colour and keeps rows apart", () => {
    const m = new RunMerger();
    m.addLine(0, 1, 4, 1, ...grey(1));
    m.addLine(5, 1, 9, 1, ...grey(1));
    m.addLine(0, 2, 9, 2, ...grey(1));
    expect(merged(m)).toEqual([
      [false, 1, 0, 10, 128, 128, 128, 255],
      [false, 2, 0, 10, 128, 128, 128, 255],
    ]);
  });

  it("splits a shallow line into one run per row it crosses, and keeps steep lines", () => {
    const m = new RunMerger();
    // 0..20 across rows 3..4: the step is halfway.
    expect(m.addLine(0, 3, 20, 4, ...grey(1))).toBe(true);
    expect(merged(m).map(([v, line, a, b]) => [v, line, a, b])).toEqual([[false, 3, 0, 10], [false, 4, 10, 21]]);
    m.reset();
    // Down the page, two columns: vertical runs.
    expect(m.addLine(7, 30, 8, 0, ...grey(1))).toBe(true);
    expect(merged(m).map(([v, line, a, b]) => [v, line, a, b])).toEqual([[true, 7, 15, 31], [true, 8, 0, 15]]);
    m.reset();
    expect(m.addLine(0, 0, 40, MAX_RUN_SPAN, ...grey(1))).toBe(false);
    expect(m.addLine(0, 0, 10, 10, ...grey(1))).toBe(false);
    expect(m.runs).toBe(0);
  });
});
