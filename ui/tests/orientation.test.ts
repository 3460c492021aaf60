// The legend (ui/legend.ts) and the first-run screen's graph names (ui/welcome.ts). The
// legend: every shape, badge and edge colour the canvas draws, in the
// canvas's own palette, and each badge told apart by its mark as well as its colour.
// @vitest-environment jsdom

import { describe, expect, it } from "vitest";
import { STATUS_GLYPH, palette } from "../src/canvas/style";
import { BADGES, EDGES, Legend, SHAPES } from "../src/ui/legend";
import { graphNameFor } from "../src/ui/welcome";

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
        expect(r.querySelector("circle")?.getAttribute("fill")).toBe(pal.status[key]);
        expect(r.querySelector("text")?.textContent).toBe(STATUS_GLYPH[key]);
      }
      for (const r of rows("edge")) {
        const key = Number((r as HTMLElement).dataset.key);
        expect(r.querySelector("line")?.getAttribute("stroke")).toBe(pal.edge[key]);
      }
    }
  });

  it("tells badges apart without colour: each has its own mark", () => {
    const marks = BADGES.map((b) => STATUS_GLYPH[b.status]);
    expect(marks.every((m) => m && m.trim().length > 0)).toBe(true);
    expect(new Set(marks).size).toBe(marks.length);
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
