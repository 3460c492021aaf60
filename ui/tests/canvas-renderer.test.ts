// GraphCanvas in jsdom, on a recording stand-in for WebGL: exact screen positions with a
// device pixel ratio of 2, pointer input turned into events, on-demand frames, and GPU
// uploads limited to what changed. (What it looks like is checked in a real browser.)

import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ViewEdge, ViewNode } from "../src/api/contract";
import { GraphCanvas } from "../src/canvas/renderer";
import { fitText } from "../src/canvas/labels";
import { WHEEL_STEP, wheelFactor } from "../src/canvas/interaction";
import { LONG_EDGE_MIN_EDGES, LONG_EDGE_SHARE, longEdgePx } from "../src/canvas/frame-plan";

type Call = [string, unknown[]];

/** A WebGL2 context that accepts everything and records the calls. Constants are their
 *  own names, so getParameter can answer by name. */
function fakeGL(calls: Call[]): unknown {
  return new Proxy({}, {
    get(_t, prop) {
      if (typeof prop !== "string") return undefined;
      if (/^[A-Z0-9_]+$/.test(prop)) return prop;
      switch (prop) {
        case "canvas": return undefined;
        case "getShaderParameter": case "getProgramParameter": return () => true;
        case "isContextLost": return () => false;
        case "getExtension": return () => null;
        case "getParameter":
          return (p: string) => p === "ALIASED_POINT_SIZE_RANGE" ? new Float32Array([1, 1024]) : p === "MAX_TEXTURE_SIZE" ? 8192 : 16;
        case "createShader": case "createProgram": case "createBuffer": case "createTexture":
          return () => ({});
        // A uniform's location names it, so a test can read what a frame set.
        case "getUniformLocation": return (_program: unknown, name: string) => ({ name });
        default:
          return (...args: unknown[]) => { calls.push([prop, args]); };
      }
    },
  });
}

/** A 2D context that draws nothing but records the names of its calls; text is 7 px a character. */
function fake2D(): unknown {
  const state: Record<string, unknown> = {};
  return new Proxy(state, {
    get(t, prop) {
      if (prop === "measureText") return (s: string) => ({ width: s.length * 7 });
      if (typeof prop === "string" && prop in t) return t[prop];
      if (prop === "fillText") return (text: string) => { calls2d.push("fillText"); texts2d.push(text); };
      return () => { calls2d.push(String(prop)); };
    },
    set(t, prop, v) {
      t[prop as string] = v;
      return true;
    },
  });
}

function node(id: string, x: number, y: number, base: string | null = "ProvEntity"): ViewNode {
  return { id, label: id, base_type: base, x, y, w: 100, h: 40, layer: 0, arrival: 0, agent: null, context: null, status: null, text: null };
}
const edge = (source: string, target: string): ViewEdge => ({ source, target, type: "USED", prov: null, a2a: null });

let calls: Call[];
let calls2d: string[];
/** The text of every fillText call. */
let texts2d: string[];
let frames: FrameRequestCallback[];
let container: HTMLDivElement;
const RECT = { left: 10, top: 20, width: 800, height: 600 };

/** Runs the frames asked for so far (not those they ask for in turn). */
function flush(): void {
  for (const cb of frames.splice(0, frames.length)) cb(performance.now());
}

beforeEach(() => {
  calls = [];
  calls2d = [];
  texts2d = [];
  frames = [];
  vi.spyOn(HTMLCanvasElement.prototype, "getContext").mockImplementation(function (kind: string) {
    return (kind === "webgl2" ? fakeGL(calls) : kind === "2d" ? fake2D() : null) as never;
  });
  const rect = () => ({ ...RECT, x: RECT.left, y: RECT.top, right: RECT.left + RECT.width, bottom: RECT.top + RECT.height, toJSON() {} }) as DOMRect;
  vi.spyOn(HTMLElement.prototype, "getBoundingClientRect").mockImplementation(rect);
  vi.spyOn(window, "requestAnimationFrame").mockImplementation((cb) => { frames.push(cb); return frames.length; });
  Object.defineProperty(window, "devicePixelRatio", { value: 2, configurable: true });
  container = document.createElement("div");
  document.body.appendChild(container);
});

afterEach(() => {
  vi.restoreAllMocks();
  container.remove();
});

function pointer(el: Element, type: string, x: number, y: number, shiftKey = false): void {
  el.dispatchEvent(new MouseEvent(type, { clientX: RECT.left + x, clientY: RECT.top + y, button: 0, shiftKey, bubbles: true }));
}

describe("GraphCanvas", () => {
  it("sizes its canvases to the container in device pixels", () => {
    const c = new GraphCanvas(container);
    expect([c.element.width, c.element.height]).toEqual([1600, 1200]);
    expect([c.overlay.width, c.overlay.height]).toEqual([1600, 1200]);
    expect(c.element.parentElement).toBe(container);
    c.destroy();
    expect(container.children).toHaveLength(0);
  });

  it("refuses to start without WebGL, leaving the container as it was", () => {
    vi.mocked(HTMLCanvasElement.prototype.getContext).mockImplementation(() => null);
    expect(() => new GraphCanvas(container)).toThrow(/WebGL/);
    expect(container.children).toHaveLength(0);
  });

  it("reports exact CSS-pixel positions after fit, zoom and pan", () => {
    const c = new GraphCanvas(container);
    c.setGraph([node("a", 0, 0), node("b", 1000, 500), node("c", 2000, 1000)], [edge("b", "a")]);
    // Fitted: the drawing is centred, so the middle node is at the viewport's centre.
    expect(c.screenPosition("b")).toEqual({ x: 400, y: 300 });
    const a0 = c.screenPosition("a")!, c0 = c.screenPosition("c")!;
    expect(a0.x).toBeGreaterThan(0);
    expect(c0.x).toBeLessThan(800);
    c.zoomBy(2);
    expect(c.screenPosition("a")!.x).toBeCloseTo(400 + 2 * (a0.x - 400), 9);
    c.panBy(-30, 12.5);
    expect(c.screenPosition("b")!.x).toBeCloseTo(370, 9);
    expect(c.screenPosition("b")!.y).toBeCloseTo(312.5, 9);
    expect(c.screenPosition("nope")).toBeNull();
    c.setVisible((n) => n.id !== "a");
    expect(c.screenPosition("a")).toBeNull();
    expect(c.stats()).toMatchObject({ nodes: 2, edges: 0 });
    c.destroy();
  });

  it("turns clicks, shift-clicks, double clicks, hover and drags into events", () => {
    const onSelect = vi.fn(), onHover = vi.fn(), onActivate = vi.fn();
    const c = new GraphCanvas(container, { onSelect, onHover, onActivate });
    c.setGraph([node("a", 0, 0), node("b", 1000, 0)], []);
    const b = c.screenPosition("b")!;
    pointer(c.element, "pointermove", b.x, b.y);
    expect(onHover).toHaveBeenLastCalledWith("b");
    pointer(c.element, "pointerdown", b.x, b.y);
    pointer(c.element, "pointerup", b.x, b.y, true);
    expect(onSelect).toHaveBeenLastCalledWith("b", true);
    pointer(c.element, "dblclick", b.x, b.y);
    expect(onActivate).toHaveBeenLastCalledWith("b");
    pointer(c.element, "pointermove", 5, 5);
    expect(onHover).toHaveBeenLastCalledWith(null);
    pointer(c.element, "pointerdown", 5, 5);
    pointer(c.element, "pointerup", 5, 5);
    expect(onSelect).toHaveBeenLastCalledWith(null, false);
    // A drag pans and selects nothing.
    onSelect.mockClear();
    pointer(c.element, "pointerdown", b.x, b.y);
    pointer(c.element, "pointermove", b.x + 50, b.y + 20);
    pointer(c.element, "pointerup", b.x + 50, b.y + 20);
    expect(onSelect).not.toHaveBeenCalled();
    expect(c.screenPosition("b")!.x).toBeCloseTo(b.x + 50, 9);
    expect(c.screenPosition("b")!.y).toBeCloseTo(b.y + 20, 9);
    c.destroy();
  });

  it("labels a hovered node's edges, leaving out a label that would cover another", () => {
    const c = new GraphCanvas(container);
    const typed = (source: string, target: string, type: string): ViewEdge => ({ ...edge(source, target), type });
    // a's edges to b and c meet at nearly the same midpoint; its edge to d is far from both.
    c.setGraph([node("a", 0, 0), node("b", 600, 0), node("c", 600, 10), node("d", 0, 600)],
      [typed("a", "b", "FIRST_TYPE"), typed("a", "c", "SECOND_TYPE"), typed("a", "d", "THIRD_TYPE")]);
    flush();
    const a = c.screenPosition("a")!;
    texts2d.length = 0;
    pointer(c.element, "pointermove", a.x, a.y);
    flush();
    const edgeLabels = texts2d.filter((t) => t.endsWith("_TYPE"));
    expect(edgeLabels).toEqual(["FIRST_TYPE", "THIRD_TYPE"]);
    // Apart, both are drawn.
    c.setGraph([node("a", 0, 0), node("b", 600, 0), node("c", 600, 300), node("d", 0, 600)],
      [typed("a", "b", "FIRST_TYPE"), typed("a", "c", "SECOND_TYPE"), typed("a", "d", "THIRD_TYPE")]);
    flush();
    const a2 = c.screenPosition("a")!;
    pointer(c.element, "pointermove", a2.x + 300, a2.y + 300);
    pointer(c.element, "pointermove", a2.x, a2.y);
    texts2d.length = 0;
    flush();
    expect(texts2d.filter((t) => t.endsWith("_TYPE")).sort()).toEqual(["FIRST_TYPE", "SECOND_TYPE", "THIRD_TYPE"]);
    c.destroy();
  });

  it("ends a tidy-up fitted to the new layout, and a moving view drops the hover", () => {
    const hovers: (string | null)[] = [];
    const c = new GraphCanvas(container, { onHover: (id) => hovers.push(id) });
    c.setGraph([node("a", 0, 0), node("b", 100, 0)], []);
    c.focus("a", 0);
    c.applyMoves([{ id: "b", x: 20000, y: 3000 }], 0, { fit: true });
    for (const id of ["a", "b"]) {
      const p = c.screenPosition(id)!;
      expect(p.x).toBeGreaterThanOrEqual(0);
      expect(p.x).toBeLessThanOrEqual(RECT.width);
      expect(p.y).toBeGreaterThanOrEqual(0);
      expect(p.y).toBeLessThanOrEqual(RECT.height);
    }
    // Hover a node, then pan: the hover (and so its card) is gone.
    const a = c.screenPosition("a")!;
    pointer(c.element, "pointermove", a.x, a.y);
    expect(hovers.at(-1)).toBe("a");
    c.panBy(30, 0);
    expect(hovers.at(-1)).toBeNull();
    c.destroy();
  });

  it("is reachable with Tab and names the node nearest the centre for the keyboard", () => {
    const c = new GraphCanvas(container);
    expect(c.element.tabIndex).toBe(0);
    expect(c.element.getAttribute("aria-label")).toMatch(/arrow keys/);
    c.setGraph([node("a", 0, 0), node("b", 400, 0), node("c", 800, 0)], []);
    c.centerOn(390, 10);
    expect(c.nearestToCentre()).toBe("b");
    c.setVisible((n) => n.id !== "b");
    expect(["a", "c"]).toContain(c.nearestToCentre());
    c.destroy();
  });

  it("zooms about the cursor on the wheel", () => {
    const c = new GraphCanvas(container);
    c.setGraph([node("a", 0, 0), node("b", 1000, 0)], []);
    const a = c.screenPosition("a")!, b = c.screenPosition("b")!;
    const wheel = new WheelEvent("wheel", { clientX: RECT.left + a.x, clientY: RECT.top + a.y, deltaY: -100, cancelable: true });
    c.element.dispatchEvent(wheel);
    expect(wheel.defaultPrevented).toBe(true);
    const after = c.screenPosition("a")!;
    expect(after.x).toBeCloseTo(a.x, 9);
    expect(after.y).toBeCloseTo(a.y, 9);
    expect(c.screenPosition("b")!.x - after.x).toBeCloseTo((b.x - a.x) * wheelFactor(-100, 0), 6);
    expect(wheelFactor(-100, 0)).toBeGreaterThan(1);
    expect(wheelFactor(3, 1)).toBeLessThan(1);
    expect(wheelFactor(-4, 0, true)).toBeGreaterThan(wheelFactor(-4, 0));
    // Even steps: a notch is the same step however the wheel reports it, and in and out
    // undo each other; five notches out leave well over half the size.
    expect(wheelFactor(120, 0)).toBeCloseTo(wheelFactor(100, 0), 9);
    expect(wheelFactor(3, 1)).toBeCloseTo(wheelFactor(100, 0), 9);
    expect(wheelFactor(500, 0)).toBeCloseTo(1 / WHEEL_STEP, 9);
    expect(wheelFactor(-100, 0) * wheelFactor(100, 0)).toBeCloseTo(1, 9);
    expect(wheelFactor(100, 0) ** 5).toBeGreaterThan(0.5);
    c.destroy();
  });

  it("draws on demand, one frame for many changes, with one draw call per kind", () => {
    const c = new GraphCanvas(container);
    flush();
    const before = c.stats().frames;
    c.setGraph([node("a", 0, 0), node("b", 300, 0), node("c", 600, 0)], [edge("b", "a"), edge("c", "b")]);
    c.setSelection(["a"]);
    c.panBy(5, 5);
    expect(frames.length).toBe(1);
    calls.length = 0;
    flush();
    expect(c.stats().frames).toBe(before + 1);
    const draws = calls.filter(([name]) => name === "drawArrays");
    // Edges first (9 vertices each: a quad and an arrow head), then nodes (6 each): those
    // with no badge, ring or glow, then, by another program, those with one (the selected
    // "a"; each program's vertex shader leaves out the other's nodes).
    expect(draws.map(([, a]) => [a[0], a[2]])).toEqual([["TRIANGLES", 18], ["TRIANGLES", 18], ["TRIANGLES", 18]]);
    const programs = calls.filter(([name]) => name === "useProgram").map(([, a]) => a[0]);
    expect(programs).toHaveLength(3);
    expect(programs[2]).not.toBe(programs[1]);
    // Nothing changed: no frame is asked for.
    expect(frames.length).toBe(0);
    // With nothing selected, hovered, badged or glowing, the second program is not run.
    c.setSelection([]);
    calls.length = 0;
    flush();
    const plain = calls.filter(([name]) => name === "drawArrays");
    expect(plain.map(([, a]) => [a[0], a[2]])).toEqual([["TRIANGLES", 18], ["TRIANGLES", 18]]);
    expect(calls.filter(([name]) => name === "useProgram").map(([, a]) => a[0])).toEqual(programs.slice(0, 2));
    c.destroy();
  });

  it("resolves afterFrame in a task after the next frame, or after 100 ms when no frame comes", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout"] });
    try {
      const c = new GraphCanvas(container);
      flush();
      c.setGraph([node("a", 0, 0)], []);
      let done = false;
      void c.afterFrame().then(() => { done = true; });
      await vi.advanceTimersByTimeAsync(0);
      expect(done).toBe(false);
      const drawn = c.stats().frames;
      flush();
      expect(c.stats().frames).toBe(drawn + 1);
      // Not inside the frame: in a task after it.
      await Promise.resolve();
      expect(done).toBe(false);
      await vi.advanceTimersByTimeAsync(0);
      expect(done).toBe(true);
      // No frame (a hidden tab): it still resolves.
      let late = false;
      void c.afterFrame().then(() => { late = true; });
      await vi.advanceTimersByTimeAsync(99);
      expect(late).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect(late).toBe(true);
      c.destroy();
    } finally {
      vi.useRealTimers();
    }
  });

  it("seen whole, draws edges longer than a share of the canvas only with an end selected or hovered; closer in, all", () => {
    const c = new GraphCanvas(container);
    // A row of nodes 20 apart, each linked to the next, and one far away linked to the first.
    const row = Array.from({ length: LONG_EDGE_MIN_EDGES + 1 }, (_, i) => node(`p${i}`, i * 20, 0));
    const edges = [...row.slice(1).map((n, i) => edge(n.id, row[i].id)), edge("far", "p0")];
    c.setGraph([...row, node("far", 3000, 1500)], edges);
    // The edges the edge program draws: 9 vertices each.
    const edgeVertices = () => calls.filter(([name]) => name === "drawArrays").map(([, a]) => a[2] as number)[0];
    calls.length = 0;
    flush();
    expect(c.stats().longEdgePx).toBe(LONG_EDGE_SHARE * 600);
    expect(edgeVertices()).toBe(9 * LONG_EDGE_MIN_EDGES);
    expect(c.stats().longEdgesLeftOut).toBe(1);
    // Selecting either end brings the long edge back.
    for (const end of ["far", "p0"]) {
      c.setSelection([end]);
      calls.length = 0;
      flush();
      expect(edgeVertices()).toBe(9 * edges.length);
      expect(c.stats().longEdgesLeftOut).toBe(0);
    }
    c.setSelection([]);
    calls.length = 0;
    flush();
    expect(edgeVertices()).toBe(9 * LONG_EDGE_MIN_EDGES);
    // Closer in, every edge is drawn.
    c.zoomBy(4);
    calls.length = 0;
    flush();
    expect(c.stats().longEdgePx).toBe(0);
    expect(edgeVertices()).toBe(9 * edges.length);
    c.destroy();
  });

  it("leaves long edges out only while the view spans at least half the drawing both ways", () => {
    const drawing = { minX: 0, minY: 0, maxX: 1000, maxY: 500 };
    expect(longEdgePx(drawing, { minX: -100, minY: -100, maxX: 1100, maxY: 600 }, 800, 600, LONG_EDGE_MIN_EDGES)).toBe(LONG_EDGE_SHARE * 600);
    expect(longEdgePx(drawing, { minX: 0, minY: 0, maxX: 600, maxY: 300 }, 800, 600, LONG_EDGE_MIN_EDGES)).toBe(LONG_EDGE_SHARE * 600);
    expect(longEdgePx(drawing, { minX: 0, minY: 0, maxX: 400, maxY: 500 }, 800, 600, LONG_EDGE_MIN_EDGES)).toBe(0);
    expect(longEdgePx(drawing, { minX: 0, minY: 0, maxX: 1000, maxY: 200 }, 800, 600, LONG_EDGE_MIN_EDGES)).toBe(0);
    expect(longEdgePx(null, { minX: 0, minY: 0, maxX: 1, maxY: 1 }, 800, 600, LONG_EDGE_MIN_EDGES)).toBe(0);
    // Fewer edges never tangle.
    expect(longEdgePx(drawing, { minX: -100, minY: -100, maxX: 1100, maxY: 600 }, 800, 600, LONG_EDGE_MIN_EDGES - 1)).toBe(0);
  });

  it("zoomed far out on a large graph, draws a node per pixel and merged lines", () => {
    const c = new GraphCanvas(container);
    // 40 columns 1,000 units apart, 100 nodes each 2 units apart: fitted, every column is
    // about one pixel wide, and the edges along a column coincide.
    const nodes = Array.from({ length: 4000 }, (_, i) => node(`n${i}`, Math.floor(i / 100) * 1000, (i % 100) * 2));
    const edges = nodes.slice(1).map((n, i) => edge(n.id, nodes[i].id));
    c.setGraph(nodes, edges);
    calls.length = 0;
    flush();
    const draws = calls.filter(([name]) => name === "drawArrays").map(([, a]) => [a[0], a[2]] as [string, number]);
    // At DPR 2 (as here) the merged lines are quads one CSS px thick: 6 vertices each.
    expect(draws.map(([mode]) => mode)).toEqual(["TRIANGLES", "POINTS"]);
    const [[, lineVertices], [, points]] = draws;
    expect(lineVertices / 6).toBeLessThan(edges.length / 10);
    expect(points).toBeLessThan(nodes.length / 10);
    expect(points).toBeGreaterThanOrEqual(40);
    // The lines come from a vertex buffer; nothing is sent again while nothing changes.
    expect(calls.filter(([name]) => name === "bufferData")).toHaveLength(1);
    calls.length = 0;
    c.setTheme("light");
    flush();
    expect(calls.filter(([name]) => name === "bufferData" || name === "texSubImage2D" || name === "texImage2D")).toHaveLength(1);
    c.destroy();
  });

  it("sends only the new records to the GPU when a batch arrives", () => {
    const c = new GraphCanvas(container);
    const nodes = Array.from({ length: 5000 }, (_, i) => node(`n${i}`, (i % 100) * 150, Math.floor(i / 100) * 100));
    c.setGraph(nodes, []);
    flush();
    calls.length = 0;
    c.addBatch([node("x", -300, 0)], [edge("x", "n0")]);
    flush();
    const uploads = calls.filter(([name]) => name === "texImage2D" || name === "texSubImage2D");
    // One node record (3 texels) and one edge record (1 texel), nothing else.
    expect(uploads.map(([name, a]) => [name, a[4], a[5], (a[8] as Float32Array).length])).toEqual([
      ["texSubImage2D", 3, 1, 12],
      ["texSubImage2D", 1, 1, 4],
    ]);
    // The new node glows, so frames keep coming until the glow has faded.
    expect(frames.length).toBe(1);
    c.destroy();
  });

  it("leaves the picture and its labels as they are while nothing in view changes, and draws what lands in view", () => {
    const c = new GraphCanvas(container);
    const nodes = Array.from({ length: 5000 }, (_, i) => node(`n${i}`, (i % 100) * 150, Math.floor(i / 100) * 100));
    c.setGraph(nodes, [edge("n1", "n0"), edge("n4999", "n4998")]);
    c.zoomBy(20);
    flush();
    expect(c.drawnLabels().length).toBeGreaterThan(0);
    const drawn = () => calls.filter(([name]) => name === "drawArrays").length;
    const cleared = () => calls.filter(([name]) => name === "clear").length;
    // A batch far outside the view: it glows there, so frames keep coming, but none of
    // them touches the WebGL canvas or the label overlay.
    calls.length = 0;
    calls2d.length = 0;
    c.addBatch([node("far", 40000, 40000), node("far2", 40300, 40000)], [edge("far2", "far")]);
    const kept = c.stats().stillFrames ?? 0;
    for (let k = 0; k < 3; k++) flush();
    expect(frames.length).toBe(1);
    expect(c.stats().stillFrames).toBe(kept + 3);
    expect([drawn(), cleared(), calls2d.length]).toEqual([0, 0, 0]);
    // A node that lands in view is drawn, labels too.
    c.addBatch([node("near", 7400, 2480)], []);
    flush();
    expect(drawn()).toBeGreaterThan(0);
    expect(calls2d).toContain("fillText");
    // And so is any change of the view.
    calls.length = 0;
    c.panBy(3, 0);
    flush();
    expect(drawn()).toBeGreaterThan(0);
    c.destroy();
  });

  it("keeps drawing a glowing node in view until its glow has faded, then leaves the picture", () => {
    let t = 1000;
    vi.spyOn(performance, "now").mockImplementation(() => t);
    const c = new GraphCanvas(container);
    const nodes = Array.from({ length: 5000 }, (_, i) => node(`n${i}`, (i % 100) * 150, Math.floor(i / 100) * 100));
    c.setGraph(nodes, []);
    c.zoomBy(20);
    flush();
    const drawn = () => calls.filter(([name]) => name === "drawArrays").length;
    c.addBatch([node("near", 7400, 2480)], []);
    const kept = c.stats().stillFrames ?? 0;
    // Every frame of the glow (1.2 s) is drawn, the first one after it too, and then no
    // frame is asked for.
    for (let k = 0; k <= 12; k++) {
      calls.length = 0;
      flush();
      expect([k, drawn() > 0, frames.length]).toEqual([k, true, k < 12 ? 1 : 0]);
      t += 100;
    }
    expect(c.stats().stillFrames).toBe(kept);
    calls.length = 0;
    c.panBy(0, 0);
    flush();
    expect(drawn()).toBe(0);
    expect(c.stats().stillFrames).toBe(kept + 1);
    c.destroy();
  });

  it("counts frames and times them: intervals while driven, drawing time when touched once", () => {
    let clock = 1000;
    vi.spyOn(performance, "now").mockImplementation(() => clock);
    const c = new GraphCanvas(container);
    c.setGraph([node("a", 0, 0)], []);
    flush();
    // Driven: each pan comes right after the previous frame; frames land 50 ms apart. (The
    // first frame, on its own, falls out of the last second.)
    for (let k = 0; k < 25; k++) {
      c.panBy(1, 0);
      clock += 50;
      flush();
    }
    expect(c.stats().msPerFrame).toBeCloseTo(50, 6);
    // Much later, one change: the last second of drawing is that one frame, which took no
    // time on this clock.
    clock += 5000;
    c.panBy(1, 0);
    flush();
    expect(c.stats().msPerFrame).toBe(0);
    expect(c.stats().frames).toBe(27);
    c.destroy();
  });

  it("exports the visible graph as SVG", () => {
    const c = new GraphCanvas(container, {}, "dark");
    c.setGraph([node("a", 0, 0), node("b", 300, 0, "ProvAgent")], [edge("b", "a")]);
    c.setVisible((n) => n.id !== "b");
    const svg = c.toSVG();
    expect(svg).toContain('data-id="a"');
    expect(svg).not.toContain('data-id="b"');
    expect(svg).not.toContain("<line");
    c.destroy();
  });
});

describe("canvas labels", () => {
  const ctx = { measureText: (s: string) => ({ width: s.length * 7 }) };

  it("keeps text that fits and shortens the rest with an ellipsis to the width", () => {
    expect(fitText(ctx, "Short", 100)).toBe("Short");
    const long = "A statement about the council budget for 2025";
    const fitted = fitText(ctx, long, 100);
    expect(fitted.endsWith("…")).toBe(true);
    expect(ctx.measureText(fitted).width).toBeLessThanOrEqual(100);
    expect(ctx.measureText(long.slice(0, fitted.length) + "…").width).toBeGreaterThan(100);
    expect(fitText(ctx, "  spaced\n\tout  ", 500)).toBe("spaced out");
    expect(fitText(ctx, "anything", 5)).toBe("");
  });
});
