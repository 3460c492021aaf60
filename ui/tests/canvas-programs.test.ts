// Which nodes the decorated program must draw: the count that decides whether its draw
// call is made at all must never be below what the vertex shader would draw with it.

import { describe, expect, it } from "vitest";
import { decorations } from "../src/canvas/programs";
import { Flag, GLOW_SECONDS, NFLAGS, NGLOW, NO_GLOW, NODE_STRIDE, NSTATUS } from "../src/canvas/scene";

function records(spec: { status?: number, flags?: number, glow?: number }[]): Float32Array {
  const d = new Float32Array(spec.length * NODE_STRIDE);
  spec.forEach((s, i) => {
    d[i * NODE_STRIDE + NSTATUS] = s.status ?? 0;
    d[i * NODE_STRIDE + NFLAGS] = s.flags ?? 0;
    d[i * NODE_STRIDE + NGLOW] = s.glow ?? NO_GLOW;
  });
  return d;
}

describe("decorated nodes", () => {
  const t = 100;
  const data = records([
    {}, // plain
    { status: 2 }, // a badge
    { flags: Flag.Selected }, // a ring
    { flags: Flag.Hover | Flag.Dim }, // a hover ring
    { flags: Flag.Highlight | Flag.Dim }, // a thicker stroke, no ring: plain
    { glow: t - 0.5 }, // glowing
    { glow: t - GLOW_SECONDS - 5 }, // glowed long ago: plain
    { glow: t - GLOW_SECONDS + 0.01 }, // about to stop glowing
    { glow: t + 30 }, // glows later: plain now
  ]);
  const out = { badges: 0, decorated: 0 };

  it("counts badges, rings and glows over every record", () => {
    expect(decorations(data, null, 9, t, out)).toEqual({ badges: 1, decorated: 5 });
  });

  it("counts only the records listed, and none in a plain list", () => {
    expect(decorations(data, new Float32Array([0, 4, 6, 8]), 4, t, out)).toEqual({ badges: 0, decorated: 0 });
    expect(decorations(data, new Float32Array([6, 1, 5, 0]), 4, t, out)).toEqual({ badges: 1, decorated: 2 });
    // Only the first `count` entries of the list are read.
    expect(decorations(data, new Float32Array([0, 2, 0, 0]), 1, t, out)).toEqual({ badges: 0, decorated: 0 });
  });

  it("errs towards drawing at the ends of a glow (the shader's clock is 32-bit)", () => {
    const edge = records([{ glow: t + 0.01 }, { glow: t - GLOW_SECONDS - 0.01 }]);
    expect(decorations(edge, null, 2, t, out).decorated).toBe(2);
  });
});
