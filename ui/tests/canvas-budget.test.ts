// What a frame submits, whatever the machine's speed: for a fixed 50,000-node scene seen
// whole (a layered drawing packed to the canvas, as the first view makes it) and a camera
// moving over it, the draw calls, vertices and uploads each frame sends to WebGL, and the
// minimap's drawing operations, stay under recorded budgets. Counted on a recording stand-in
// for WebGL and for the 2D canvas (what it looks like is checked in a real browser; how fast
// it is, by bench/ui/run.sh).

import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ViewEdge, ViewNode } from "../src/api/contract";
import { GraphCanvas } from "../src/canvas/renderer";
import { Minimap } from "../src/canvas-area/minimap";

/** Per moving frame of the whole graph: the budgets. Drawing every node (50,000 vertices),
 *  its badges, or every edge as a line (150,000+ vertices), or sending the node data again,
 *  is far over them; so is a minimap that draws each node again (50,000 operations). */
const BUDGET = { drawCalls: 6, vertices: 2_000, uploads: 4, uploadBytes: 64 * 1024, minimapOps: 10, minimapUploadBytes: 0 };
/** Per moving frame zoomed in ×24 (on average: the lists of what can meet the view are
 *  made again now and then), records the frame's script looks at: nodes projected or
 *  culled, edges clipped, nodes considered for labels. Projecting every node (50,000) and
 *  clipping every edge (77,000) each frame, as a pan did, is far over them. */
const ZOOMED_BUDGET = { nodes: 10_000, edges: 10_000, labels: 2_000 };
/** A frame that draws the whole graph again (the graph or its look changed) may send it
 *  all once; frames after it go back under BUDGET. */
const REDRAW_FRAMES = 1;
/** Building a 50,000-node scene in jsdom takes seconds on a loaded machine (not what is tested). */
const SLOW = 120_000;

interface Counts { drawCalls: number, vertices: number, uploads: number, uploadBytes: number, mini: number, miniBytes: number }
const counts: Counts = { drawCalls: 0, vertices: 0, uploads: 0, uploadBytes: 0, mini: 0, miniBytes: 0 };
function resetCounts(): void {
  Object.assign(counts, { drawCalls: 0, vertices: 0, uploads: 0, uploadBytes: 0, mini: 0, miniBytes: 0 });
}

const bytes = (x: unknown, w = 0, h = 0): number =>
  x && typeof x === "object" && "byteLength" in x ? (x as ArrayBufferView).byteLength : w * h * 4;

/** A WebGL2 context that accepts everything and counts what is submitted. Constants are
 *  their own names. */
function countingGL(): unknown {
  return new Proxy({}, {
    get(_t, prop) {
      if (typeof prop !== "string") return undefined;
      if (/^[A-Z0-9_]+$/.test(prop)) return prop;
      switch (prop) {
        case "canvas": return undefined;
        case "getShaderParameter": case "getProgramParameter": return () => true;
        case "isContextLost": return () => false;
        case "getExtension": return () => null;
        case "checkFramebufferStatus": return () => "FRAMEBUFFER_COMPLETE";
        case "getAttribLocation": return () => 1;
        case "getParameter":
          return (p: string) => p === "ALIASED_POINT_SIZE_RANGE" ? new Float32Array([1, 1024]) : p === "MAX_TEXTURE_SIZE" ? 8192 : 16;
        case "createShader": case "createProgram": case "createBuffer": case "createTexture": case "createFramebuffer":
        case "getUniformLocation":
          return () => ({});
        case "drawArrays":
          return (_mode: unknown, _first: number, count: number) => {
            counts.drawCalls++;
            counts.vertices += count;
          };
        case "drawElements":
          return (_mode: unknown, count: number) => {
            counts.drawCalls++;
            counts.vertices += count;
          };
        case "texImage2D":
          return (...a: unknown[]) => {
            counts.uploads++;
            counts.uploadBytes += a.length === 9 ? bytes(a[8], a[3] as number, a[4] as number) : bytes(a[5]);
          };
        case "texSubImage2D":
          return (...a: unknown[]) => {
            counts.uploads++;
            counts.uploadBytes += bytes(a[8] ?? a[6]);
          };
        case "bufferData": case "bufferSubData":
          return (_target: unknown, data: unknown) => {
            counts.uploads++;
            counts.uploadBytes += typeof data === "number" ? data : bytes(data);
          };
        default:
          return () => {};
      }
    },
  });
}

/** A 2D context that draws nothing and counts its drawing operations. */
function counting2D(): unknown {
  const state: Record<string, unknown> = {};
  const ops = new Set(["fillRect", "strokeRect", "fillText", "strokeText", "drawImage", "putImageData", "fill", "stroke", "arc", "rect", "lineTo"]);
  return new Proxy(state, {
    get(t, prop) {
      if (prop === "measureText") return (s: string) => ({ width: s.length * 7 });
      if (prop === "createImageData") return (w: number, h: number) => ({ width: w, height: h, data: new Uint8ClampedArray(w * h * 4) });
      if (typeof prop === "string" && ops.has(prop)) {
        return (...a: unknown[]) => {
          counts.mini++;
          if (prop === "putImageData") counts.miniBytes += bytes((a[0] as { data?: unknown })?.data);
        };
      }
      if (typeof prop === "string" && prop in t) return t[prop];
      return () => {};
    },
    set(t, prop, v) {
      t[prop as string] = v;
      return true;
    },
  });
}

/** The fixed scene: 50,000 nodes in 200 layers of 250 (entities, activities and agents,
 *  most 45 wide, one in ten 192, all 36 tall, every one signed), packed to a 3:2 drawing
 *  about 35,000 x 26,000 layout px; 77,000 edges: each node to one in the layer above, every
 *  third to the next in its layer, and every fourth to one of 50 nodes anywhere in the drawing
 *  (the long edges that cross a whole-graph view). */
function scene(): { nodes: ViewNode[], edges: ViewEdge[] } {
  const COLS = 250, ROWS = 200;
  const bases = ["ProvEntity", "ProvActivity", "ProvEntity", "ProvActivity", "ProvAgent"];
  const statuses = ["valid", "invalid", "unknown_key", "unsigned"];
  const nodes: ViewNode[] = [];
  for (let r = 0; r < ROWS; r++) {
    for (let c = 0; c < COLS; c++) {
      const i = r * COLS + c;
      nodes.push({ id: `n${i}`, label: `Node ${i}`, base_type: bases[i % bases.length], x: c * 140 + 70, y: r * 130 + 18,
        w: i % 10 === 0 ? 192 : 45, h: 36, layer: r, arrival: i, agent: null, context: null, status: statuses[i % statuses.length], text: null });
    }
  }
  const edges: ViewEdge[] = [];
  const e = (s: number, t: number) => edges.push({ source: `n${s}`, target: `n${t}`, type: "USED", prov: null, a2a: null });
  for (let i = 0; i < nodes.length; i++) {
    if (i % 3 === 0 && i % COLS !== COLS - 1) e(i, i + 1);
    if (i >= COLS) e(i, Math.max(0, i - COLS + ((i * 7) % 5) - 2));
    if (i % 4 === 0) e(i, (((i * 2654435761) >>> 0) % 50) * 997);
  }
  return { nodes, edges: edges.slice(0, 77_000) };
}

let frames: FrameRequestCallback[];
let container: HTMLDivElement;

function flush(): void {
  for (const cb of frames.splice(0, frames.length)) cb(performance.now());
}

beforeEach(() => {
  frames = [];
  resetCounts();
  vi.spyOn(HTMLCanvasElement.prototype, "getContext").mockImplementation(function (kind: string) {
    return (kind === "webgl2" ? countingGL() : kind === "2d" ? counting2D() : null) as never;
  });
  const rect = () => ({ left: 0, top: 0, width: 1400, height: 900, x: 0, y: 0, right: 1400, bottom: 900, toJSON() {} }) as DOMRect;
  vi.spyOn(HTMLElement.prototype, "getBoundingClientRect").mockImplementation(rect);
  vi.spyOn(window, "requestAnimationFrame").mockImplementation((cb) => { frames.push(cb); return frames.length; });
  Object.defineProperty(window, "devicePixelRatio", { value: 1, configurable: true });
  container = document.createElement("div");
  document.body.appendChild(container);
});

afterEach(() => {
  vi.restoreAllMocks();
  container.remove();
});

describe("frame budget at 50,000 nodes", () => {
  it("a moving whole-graph view submits a bounded frame, and the minimap does not redraw the graph", () => {
    const minimap = new Minimap({ centerOn: () => {} });
    container.appendChild(minimap.el);
    const canvas = new GraphCanvas(container, { onView: (v) => minimap.setView(v) });
    const { nodes, edges } = scene();
    canvas.setGraph(nodes, edges);
    minimap.setNodes(nodes);
    canvas.fit();
    // The first frames may send the graph and draw it whole.
    for (let k = 0; k < REDRAW_FRAMES; k++) flush();
    // Then the camera moves every frame, as dragging and wheeling do.
    const per: Counts[] = [];
    for (let k = 0; k < 20; k++) {
      const z = Math.exp(Math.log(0.6) * (1 - Math.cos(k / 3)) / 2);
      canvas.zoomBy(k % 2 ? 1 / Math.sqrt(z) : Math.sqrt(z));
      canvas.panBy(3 * Math.sin(k), 2 * Math.cos(k));
      resetCounts();
      flush();
      per.push({ ...counts });
    }
    const worst = (k: keyof Counts) => Math.max(...per.map((c) => c[k]));
    const report = { drawCalls: worst("drawCalls"), vertices: worst("vertices"), uploads: worst("uploads"), uploadBytes: worst("uploadBytes"),
      minimapOps: worst("mini"), minimapUploadBytes: worst("miniBytes") };
    expect(report.drawCalls, JSON.stringify(report)).toBeLessThanOrEqual(BUDGET.drawCalls);
    expect(report.vertices, JSON.stringify(report)).toBeLessThanOrEqual(BUDGET.vertices);
    expect(report.uploads, JSON.stringify(report)).toBeLessThanOrEqual(BUDGET.uploads);
    expect(report.uploadBytes, JSON.stringify(report)).toBeLessThanOrEqual(BUDGET.uploadBytes);
    expect(report.minimapOps, JSON.stringify(report)).toBeLessThanOrEqual(BUDGET.minimapOps);
    expect(report.minimapUploadBytes, JSON.stringify(report)).toBeLessThanOrEqual(BUDGET.minimapUploadBytes);
    // Something is drawn every frame (the picture at least).
    expect(Math.min(...per.map((c) => c.drawCalls))).toBeGreaterThan(0);
    canvas.destroy();
  }, SLOW);

  it("a moving view zoomed in ×24 looks at the records near the view, not at the whole graph", () => {
    const canvas = new GraphCanvas(container, {});
    const { nodes, edges } = scene();
    canvas.setGraph(nodes, edges);
    canvas.fit();
    canvas.zoomBy(24);
    flush();
    const per: { nodes: number, edges: number, labels: number }[] = [];
    for (let k = 0; k < 30; k++) {
      // As the benchmark's ×24 pass: a drift on a circle, breathing to 0.6 of the zoom.
      const z = Math.exp(Math.log(0.6) * (1 - Math.cos(k / 3)) / 2);
      canvas.zoomBy(k % 2 ? 1 / Math.sqrt(z) : Math.sqrt(z));
      canvas.panBy(24 * Math.sin(k / 4), 24 * Math.cos(k / 4));
      flush();
      const c = canvas.frameCost();
      per.push({ nodes: c.nodes.visited, edges: c.edges.visited, labels: c.labels.visited });
    }
    const mean = (k: keyof typeof ZOOMED_BUDGET) => per.reduce((a, c) => a + c[k], 0) / per.length;
    const report = JSON.stringify({ nodes: mean("nodes"), edges: mean("edges"), labels: mean("labels") });
    // Something is looked at (the view is on the graph), and far from all of it.
    expect(mean("edges"), report).toBeGreaterThan(0);
    for (const k of ["nodes", "edges", "labels"] as const) expect(mean(k), report).toBeLessThanOrEqual(ZOOMED_BUDGET[k]);
    canvas.destroy();
  }, SLOW);

  it("hovering a node in the whole-graph view draws it and its edges over the picture, not the graph again", () => {
    const canvas = new GraphCanvas(container, {});
    const { nodes, edges } = scene();
    canvas.setGraph(nodes, edges);
    canvas.fit();
    flush();
    const el = canvas.element;
    const p = canvas.screenPosition("n25125")!;
    el.dispatchEvent(new MouseEvent("pointermove", { clientX: p.x, clientY: p.y, bubbles: true }) as PointerEvent);
    resetCounts();
    flush();
    const hovered = { ...counts };
    el.dispatchEvent(new MouseEvent("pointerleave", { bubbles: true }) as PointerEvent);
    resetCounts();
    flush();
    for (const c of [hovered, counts]) {
      expect(c.vertices, JSON.stringify(c)).toBeLessThanOrEqual(BUDGET.vertices);
      expect(c.uploadBytes, JSON.stringify(c)).toBeLessThanOrEqual(BUDGET.uploadBytes);
    }
    canvas.destroy();
  }, SLOW);
});
