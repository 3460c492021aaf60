// The legend (ui/legend.ts) and the first-run screen's graph names (ui/welcome.ts). The
// legend: every shape, badge and edge colour the canvas draws, in the
// canvas's own palette, and each badge told apart by its mark as well as its colour.
// @vitest-environment jsdom

import { describe, expect, it } from "vitest";
import { BADGE_SHAPE, STATUS_GLYPH, palette } from "../src/canvas/style";
import { BADGES, EDGES, Legend, SHAPES } from "../src/canvas-area/legend";
import { graphNameFor } from "../src/welcome/welcome";

describe("legend", () => {
  it("lists every shape, badge and edge kind with the canvas's colours, per theme", () => {
    for (const theme of ["light", "dark"] as const) {
      const legend = new Legend(theme);
      const pal = palette(theme);
      const rows = (kind: string) => [...legend.panel.querySelectorAll(`.legend-row[data-kind="${kind}"]`)];
      expect(rows("shape")).toHaveLength(SHAPES.length);
      expect(rows("badge")).toHaveLength(BADGES.length);
      expect(rows("edge")).toHaveLength(EDGES.length);
      for (const r of rows("shape")) {
        const key = Number((r as HTMLElement).dataset.key);
        expect(r.querySelector("svg > *")?.getAttribute("fill")).toBe(pal.fill[key]);
      }
      for (const r of rows("badge")) {
        const key = Number((r as HTMLElement).dataset.key);
        const badge = r.querySelector(".badge");
        expect(badge?.getAttribute(BADGE_SHAPE[key] === "ring" ? "stroke" : "fill")).toBe(pal.status[key]);
        expect(badge?.getAttribute("data-shape")).toBe(BADGE_SHAPE[key]);
        expect(r.textContent?.startsWith(STATUS_GLYPH[key])).toBe(true);
      }
      for (const r of rows("edge")) {
        const key = Number((r as HTMLElement).dataset.key);
        expect(r.querySelector("line")?.getAttribute("stroke")).toBe(pal.edge[key]);
      }
    }
  });

  it("tells badges apart without colour: each has its own shape and mark", () => {
    const marks = BADGES.map((b) => STATUS_GLYPH[b.status]);
    expect(marks.every((m) => m && m.trim().length > 0)).toBe(true);
    expect(new Set(marks).size).toBe(marks.length);
    const shapes = BADGES.map((b) => BADGE_SHAPE[b.status]);
    expect(new Set(shapes).size).toBe(shapes.length);
    for (const s of shapes) expect(["disc", "diamond", "square", "ring"]).toContain(s);
  });

  it("opens and closes, saying so to assistive technology", () => {
    const legend = new Legend("light");
    expect(legend.panel.hidden).toBe(true);
    legend.toggle.click();
    expect(legend.panel.hidden).toBe(false);
    expect(legend.toggle.getAttribute("aria-expanded")).toBe("true");
    legend.setOpen(false);
    expect(legend.panel.hidden).toBe(true);
    expect(legend.toggle.getAttribute("aria-expanded")).toBe("false");
  });
});

describe("first-run screen", () => {
  it("names a file's graph after the file, in the characters graph names allow", () => {
    expect(graphNameFor("a2a-run.jsonl")).toBe("a2a-run");
    expect(graphNameFor("my run (2).json")).toBe("my-run-2");
    expect(graphNameFor("événements.jsonl")).toBe("v-nements");
    expect(graphNameFor("***.jsonl")).toBe("uploads");
    expect(graphNameFor("noext")).toBe("noext");
    for (const name of ["a b c.txt", "x/y\\z.json", "日本.jsonl"]) expect(graphNameFor(name)).toMatch(/^[A-Za-z0-9_.:-]{1,200}$/);
  });
});
