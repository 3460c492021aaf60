// SVG export of the canvas: a well-formed standalone document with one PROV shape per
// visible node, arrows ending on the target's outline, and text that cannot break the XML.

import { describe, expect, it } from "vitest";
import type { ViewEdge, ViewNode } from "../src/api/contract";
import { buildSVG, escapeXml, sceneToSVG, type SvgEdge, type SvgNode } from "../src/canvas/export";
import { Scene } from "../src/canvas/scene";
import { Shape, Status, insideShape, palette } from "../src/canvas/style";

function parse(svg: string): Document {
  const doc = new DOMParser().parseFromString(svg, "image/svg+xml");
  expect(doc.getElementsByTagName("parsererror")).toHaveLength(0);
  return doc;
}

const svgNode = (id: string, shape: number, x: number, y: number, extra: Partial<SvgNode> = {}): SvgNode =>
  ({ id, label: `Label ${id}`, shape, x, y, w: 120, h: 40, status: 0, dimmed: false, ...extra });

function svgEdge(a: SvgNode, b: SvgNode, type: string, kind = 0): SvgEdge {
  return { type, kind, sx: a.x, sy: a.y, sw: a.w, sh: a.h, sshape: a.shape, tx: b.x, ty: b.y, tw: b.w, th: b.h, tshape: b.shape, dimmed: false };
}

describe("canvas SVG export", () => {
  const nodes = [
    svgNode("e1", Shape.Ellipse, 0, 0, { status: Status.Valid }),
    svgNode("a1", Shape.Box, 300, 150, { status: Status.Bad }),
    svgNode("g1", Shape.House, -200, 300),
    svgNode("u1", Shape.Rounded, 250, -200, { dimmed: true }),
    svgNode("e2", Shape.Ellipse, 600, 0),
  ];
  const edges = [
    svgEdge(nodes[0], nodes[1], "WAS_GENERATED_BY"),
    svgEdge(nodes[1], nodes[2], "WAS_ASSOCIATED_WITH"),
    svgEdge(nodes[4], nodes[0], "CHALLENGED", 2),
  ];

  it("is a standalone SVG document framing every node", () => {
    const svg = buildSVG(nodes, edges, palette("light"));
    expect(svg.startsWith("<?xml")).toBe(true);
    const root = parse(svg).documentElement;
    expect(root.namespaceURI).toBe("http://www.w3.org/2000/svg");
    const [vx, vy, vw, vh] = root.getAttribute("viewBox")!.split(" ").map(Number);
    for (const n of nodes) {
      expect(n.x - n.w / 2).toBeGreaterThanOrEqual(vx);
      expect(n.y - n.h / 2).toBeGreaterThanOrEqual(vy);
      expect(n.x + n.w / 2).toBeLessThanOrEqual(vx + vw);
      expect(n.y + n.h / 2).toBeLessThanOrEqual(vy + vh);
    }
  });

  it("draws one PROV shape per node, in its colours, with status badges", () => {
    const pal = palette("light");
    const doc = parse(buildSVG(nodes, edges, pal));
    const groups = Array.from(doc.querySelectorAll("g.node"));
    expect(groups.map((g) => g.getAttribute("data-id"))).toEqual(nodes.map((n) => n.id));
    const shapeOf = (g: Element) => Array.from(g.children).find((c) => ["ellipse", "rect", "polygon"].includes(c.tagName))!;
    expect(groups.map((g) => shapeOf(g).tagName)).toEqual(["ellipse", "rect", "polygon", "rect", "ellipse"]);
    expect(shapeOf(groups[0]).getAttribute("fill")).toBe(pal.fill[Shape.Ellipse]);
    expect(shapeOf(groups[1]).getAttribute("rx")).toBeNull();
    expect(Number(shapeOf(groups[3]).getAttribute("rx"))).toBeGreaterThan(0);
    expect(shapeOf(groups[2]).getAttribute("points")!.split(" ")).toHaveLength(5);
    const badges = Array.from(doc.querySelectorAll(".badge"));
    expect(badges.map((b) => b.getAttribute("fill"))).toEqual([pal.status[Status.Valid], pal.status[Status.Bad]]);
    // Not by colour alone: a valid signature's badge is a disc, an invalid one's a diamond.
    expect(badges.map((b) => b.getAttribute("data-shape"))).toEqual(["disc", "diamond"]);
    expect(groups[3].getAttribute("opacity")).toBe(String(pal.dimAlpha));
    expect(groups[0].querySelector("text.label")!.textContent).toBe("Label e1");
    expect(groups[0].querySelector("text.badge-glyph")!.textContent).toBe("✓");
  });

  it("draws each edge as a line with an arrow ending on the target's outline", () => {
    const doc = parse(buildSVG(nodes, edges, palette("light")));
    const lines = Array.from(doc.querySelectorAll("line"));
    expect(lines).toHaveLength(edges.length);
    const markers = new Set(Array.from(doc.querySelectorAll("marker")).map((m) => m.getAttribute("id")));
    lines.forEach((line, k) => {
      const ref = /^url\(#(.+)\)$/.exec(line.getAttribute("marker-end")!)![1];
      expect(markers.has(ref)).toBe(true);
      const e = edges[k];
      const x2 = Number(line.getAttribute("x2")), y2 = Number(line.getAttribute("y2"));
      const x1 = Number(line.getAttribute("x1")), y1 = Number(line.getAttribute("y1"));
      const ux = (x2 - x1) / Math.hypot(x2 - x1, y2 - y1), uy = (y2 - y1) / Math.hypot(x2 - x1, y2 - y1);
      // Just before the end is outside the target, just after is inside (rounding: 0.01).
      expect(insideShape(e.tshape, x2 - ux * 0.5 - e.tx, y2 - uy * 0.5 - e.ty, e.tw / 2, e.th / 2)).toBe(false);
      expect(insideShape(e.tshape, x2 + ux * 0.5 - e.tx, y2 + uy * 0.5 - e.ty, e.tw / 2, e.th / 2)).toBe(true);
      expect(line.getAttribute("data-type")).toBe(e.type);
    });
    expect(lines[2].getAttribute("marker-end")).toBe("url(#arrow-2)");
  });

  it("skips edges between overlapping nodes and frames an empty drawing", () => {
    const a = svgNode("a", Shape.Box, 0, 0), b = svgNode("b", Shape.Box, 10, 0);
    expect(parse(buildSVG([a, b], [svgEdge(a, b, "USED")], palette("dark"))).querySelectorAll("line")).toHaveLength(0);
    const empty = parse(buildSVG([], [], palette("dark")));
    const [, , vw, vh] = empty.documentElement.getAttribute("viewBox")!.split(" ").map(Number);
    expect(vw).toBeGreaterThan(0);
    expect(vh).toBeGreaterThan(0);
  });

  it("escapes markup and drops characters XML cannot hold", () => {
    const nasty = `<b>"Tom" & 'Jerry'</b>\u0000\u0007\uD800 ok`;
    expect(escapeXml(nasty)).toBe("&lt;b&gt;&quot;Tom&quot; &amp; &apos;Jerry&apos;&lt;/b&gt; ok");
    const n = svgNode(`id"<&>`, Shape.Ellipse, 0, 0, { label: nasty, w: 2000 });
    const doc = parse(buildSVG([n], [], palette("light")));
    expect(doc.querySelector("g.node")!.getAttribute("data-id")).toBe(`id"<&>`);
    expect(doc.querySelector("g.node text.label")!.textContent).toBe(`<b>"Tom" & 'Jerry'</b> ok`);
  });

  it("shortens labels too long for their node", () => {
    const n = svgNode("x", Shape.Box, 0, 0, { label: "A very long label that cannot possibly fit in the box", w: 100 });
    const text = parse(buildSVG([n], [], palette("light"))).querySelector("g.node text.label")!.textContent!;
    expect(text.endsWith("…")).toBe(true);
    expect(text.length).toBeLessThan(20);
  });

  it("exports the scene's visible nodes and edges only", () => {
    const view = (id: string, x: number, base: string | null): ViewNode => ({
      id, label: id, base_type: base, x, y: 0, w: 100, h: 40, layer: 0, arrival: 0, agent: null, context: null, status: null, text: null,
    });
    const e = (source: string, target: string): ViewEdge => ({ source, target, type: "USED", prov: null, a2a: null });
    const s = new Scene();
    s.reset([view("a", 0, "ProvEntity"), view("b", 300, "ProvActivity"), view("c", 600, "ProvAgent")], [e("b", "a"), e("b", "c"), e("c", "a")]);
    s.setVisible((n) => n.id !== "c");
    s.setHighlight(new Set(["a"]));
    const doc = parse(sceneToSVG(s, palette("light"), 0));
    expect(Array.from(doc.querySelectorAll("g.node")).map((g) => g.getAttribute("data-id"))).toEqual(["a", "b"]);
    const lines = doc.querySelectorAll("line");
    expect(lines).toHaveLength(1);
    expect(lines[0].getAttribute("opacity")).not.toBeNull(); // b is dimmed, so is its edge
    expect(doc.querySelector('g.node[data-id="a"]')!.getAttribute("opacity")).toBeNull();
  });
});
