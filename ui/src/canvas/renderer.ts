//! GraphCanvas: the WebGL graph view the app embeds. It owns the two canvases (WebGL
//! below, text overlay above), sizes them to the container and the device pixel ratio,
//! keeps the scene, camera and GPU buffers in step, and draws on demand only; the WebGL
//! state and each frame's GL drawing are gl-frame.ts's.

import type { NodeMove, ViewEdge, ViewNode } from "../api/contract";
import { Camera } from "./camera";
import { compositePNG, sceneToSVG } from "./export";
import { PointerControls } from "./interaction";
import { firstViewState } from "./first-view";
import { FrameClock } from "./frame-clock";
import { makeSurfaces } from "./surfaces";
import { nearestToCentre } from "./frame-plan";
import { LabelLayer } from "./labels";
import { FrameCost, type FrameCostReport } from "./cost";
import { GLFrame, safe } from "./gl-frame";
import { NH, NODE_STRIDE, NW, Scene } from "./scene";
import { palette, type Palette } from "./style";
import type { CanvasEvents, EdgeEnds, FrameStats, GraphCanvasApi, Theme } from "./types";

export class GraphCanvas implements GraphCanvasApi {
  /** The WebGL canvas; it receives the pointer events. */
  readonly element: HTMLCanvasElement;
  /** The 2D canvas over it with the text. */
  readonly overlay: HTMLCanvasElement;

  private readonly ctx2d: CanvasRenderingContext2D | null;

  private readonly scene = new Scene();
  private readonly camera = new Camera();
  private readonly labels = new LabelLayer();
  /** What the last frame cost, by layer (see cost.ts). */
  private readonly cost = new FrameCost();
  /** The WebGL context, what lives in it, and each frame's GL drawing. */
  private readonly glf: GLFrame;
  private readonly viewRect = { minX: 0, minY: 0, maxX: 0, maxY: 0 };
  private pal: Palette;
  private dpr = 1;
  private readonly epoch = now();
  private generation = 0;

  private raf = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private destroyed = false;
  private overlayDrawn = false;
  /** The labels must be drawn again even if the graph's picture stands. */
  private overlayStale = true;
  /** A fit asked for while the container had no size yet. */
  private fitPending = false;
  /** The nodes that fit is to show (setGraph's `focus`). */
  private pendingFocus: string[] = [];

  /** What waits for the next frame (afterFrame). */
  private afterWaiting: Array<() => void> = [];
  /** Frame times (frame-clock.ts). */
  private readonly clock = new FrameClock();

  private readonly controls: PointerControls;
  private readonly resizeObserver: ResizeObserver | null = null;
  private readonly cleanup: Array<() => void> = [];

  constructor(private readonly container: HTMLElement, private readonly events: CanvasEvents = {}, theme: Theme = "light") {
    this.pal = palette(theme);
    const doc = container.ownerDocument;
    ({ element: this.element, overlay: this.overlay } = makeSurfaces(container, this.pal.background));
    this.glf = new GLFrame(this.element, this.scene, this.camera, this.cost, this.pal);

    this.ctx2d = safe(() => this.overlay.getContext("2d"));
    const problem = this.initGL();
    if (problem) {
      this.element.remove();
      this.overlay.remove();
      throw new Error(problem);
    }
    // The canvases are placed absolutely over the container's box.
    if (doc.defaultView && doc.defaultView.getComputedStyle(container).position === "static") {
      container.style.position = "relative";
    }
    const onLost = (e: Event) => {
      e.preventDefault();
      this.glf.drop();
    };
    const onRestored = () => {
      const why = this.initGL();
      if (why) console.error(`provex canvas: ${why}`);
      this.requestRender();
    };
    this.element.addEventListener("webglcontextlost", onLost);
    this.element.addEventListener("webglcontextrestored", onRestored);
    this.cleanup.push(() => {
      this.element.removeEventListener("webglcontextlost", onLost);
      this.element.removeEventListener("webglcontextrestored", onRestored);
    });

    this.controls = new PointerControls(this.element, {
      pick: (x, y) => this.pick(x, y),
      pan: (dx, dy) => this.panBy(dx, dy),
      zoomAt: (f, x, y) => {
        this.dropHover();
        this.camera.zoomAt(f, x, y);
        this.requestRender();
      },
      hover: (id) => {
        this.scene.setHover(id === null ? -1 : this.scene.index.get(id) ?? -1);
        this.requestRender();
        this.events.onHover?.(id);
      },
      select: (id, additive) => this.events.onSelect?.(id, additive),
      activate: (id) => this.events.onActivate?.(id),
    });

    const view = doc.defaultView;
    if (view && typeof view.ResizeObserver === "function") {
      this.resizeObserver = new view.ResizeObserver(() => this.resize());
      this.resizeObserver.observe(container);
    } else if (view) {
      const onResize = () => this.resize();
      view.addEventListener("resize", onResize);
      this.cleanup.push(() => view.removeEventListener("resize", onResize));
    }
    this.resize();
  }

  // ---- set-up -------------------------------------------------------------------------

  /** Sets up WebGL; returns why it could not, or null. */
  private initGL(): string | null {
    return this.glf.init(() => this.requestRender(), () => this.raf !== 0 || this.timer !== null);
  }

  /** Whether zoomed-out views of large graphs are drawn from a cached picture (off: every
   *  frame draws the graph, for measuring and comparing). */
  get pictures(): boolean {
    return this.glf.pictures;
  }
  set pictures(on: boolean) {
    this.glf.pictures = on;
  }

  /** Whether long edges are split into lines and heads once they have heads (off draws
   *  them all by the shader, for measuring and comparing). */
  get splitEdges(): boolean {
    return this.glf.splitEdges;
  }
  set splitEdges(on: boolean) {
    this.glf.splitEdges = on;
  }

  private resize(): void {
    if (this.destroyed) return;
    const r = this.container.getBoundingClientRect();
    const w = r.width || this.container.clientWidth, h = r.height || this.container.clientHeight;
    const dpr = this.container.ownerDocument.defaultView?.devicePixelRatio || 1;
    this.dpr = dpr;
    const pw = Math.max(1, Math.round(w * dpr)), ph = Math.max(1, Math.round(h * dpr));
    for (const c of [this.element, this.overlay]) {
      if (c.width !== pw) c.width = pw;
      if (c.height !== ph) c.height = ph;
    }
    this.camera.resize(w, h);
    this.ctx2d?.setTransform(dpr, 0, 0, dpr, 0, 0);
    this.overlayDrawn = this.overlayStale = true; // resizing cleared it; draw it again
    if (this.fitPending && w >= 2 && h >= 2) this.fitFirst(this.pendingFocus);
    this.requestRender();
  }

  // ---- drawing ------------------------------------------------------------------------

  /** Asks for a frame; several requests before it is drawn make one frame. */
  requestRender(): void {
    if (this.destroyed || this.raf || this.timer) return;
    this.clock.requested(now());
    const view = this.container.ownerDocument.defaultView;
    if (view && typeof view.requestAnimationFrame === "function") {
      this.raf = view.requestAnimationFrame(this.frame);
    } else {
      this.timer = setTimeout(() => this.frame(now()), 16);
    }
  }

  private readonly frame = (_ts: number): void => {
    this.raf = 0;
    this.timer = null;
    if (this.destroyed) return;
    const t0 = now();
    const cost = this.cost;
    cost.begin();
    const dpr = this.container.ownerDocument.defaultView?.devicePixelRatio || 1;
    if (dpr !== this.dpr) this.resize();
    const cameraMoving = this.camera.step(t0);
    const time = (t0 - this.epoch) / 1000;
    this.draw(time);
    // What the app draws after each frame (the minimap, marks over nodes) counts as
    // overlays, but for the minimap's own share (which the app times as "minimap").
    const mini = cost.layers.minimap.ms;
    cost.time("overlays", () => this.events.onView?.(this.camera.visibleBounds(this.viewRect), cost));
    cost.layers.overlays.ms -= cost.layers.minimap.ms - mini;
    const t1 = now();
    cost.scriptMs = t1 - t0;
    this.clock.drew(t0, t1);
    if (cameraMoving || time < this.scene.glowUntil || time < this.scene.moveUntil) this.requestRender();
    if (this.afterWaiting.length) {
      const waiting = this.afterWaiting;
      this.afterWaiting = [];
      // A task after this one: after the frame is shown, not before.
      setTimeout(() => { for (const go of waiting) go(); }, 0);
    }
  };

  afterFrame(): Promise<void> {
    return new Promise((resolve) => {
      this.afterWaiting.push(resolve);
      // No frame comes in a hidden tab (or after destroy): the work does not wait forever.
      setTimeout(resolve, 100);
      this.requestRender();
    });
  }

  /** Draws the graph and its labels, or leaves both as they are when the graph's picture
   *  would not change (still.ts) and nothing is `force`d. */
  private draw(time: number, force = false): void {
    if (!this.glf.draw(time, this.dpr, force) && !this.overlayStale) return;
    this.overlayStale = false;
    this.cost.time("labels", () => this.drawOverlay(time));
  }

  private drawOverlay(time: number): void {
    const ctx = this.ctx2d;
    if (!ctx) return;
    if (this.labels.wouldDraw(this.camera, this.scene)) {
      this.labels.draw(ctx, this.camera, this.scene, time, this.pal);
      this.cost.layers.labels.drawCalls = this.labels.drawn.length;
      this.cost.layers.labels.visited = this.labels.visited;
      this.overlayDrawn = true;
    } else if (this.overlayDrawn) {
      ctx.clearRect(0, 0, this.camera.width, this.camera.height);
      this.overlayDrawn = false;
    }
  }

  private time(): number {
    return (now() - this.epoch) / 1000;
  }

  private pick(x: number, y: number): string | null {
    const cam = this.camera;
    const i = this.scene.grid.hit(cam.screenToWorldX(x), cam.screenToWorldY(y), 4 / cam.scale);
    return i >= 0 ? this.scene.views[i].id : null;
  }

  private dropHover(): void {
    if (this.scene.hovered < 0) return;
    this.scene.setHover(-1);
    this.controls.resetHover();
    this.events.onHover?.(null);
  }

  // ---- GraphCanvasApi -----------------------------------------------------------------

  setGraph(nodes: ViewNode[], edges: ViewEdge[], focus: string[] = [], ends: EdgeEnds | null = null): void {
    const hadHover = this.scene.hovered >= 0;
    this.scene.reset(nodes, edges, ends);
    this.generation++;
    this.labels.reset(this.generation);
    this.overlayStale = true;
    this.controls.resetHover();
    if (hadHover) this.events.onHover?.(null);
    this.fitFirst(focus);
  }

  /** The first view: on the `focus` nodes readably (first-view.ts), or the whole drawing. */
  private fitFirst(focus: string[]): void {
    const nd = this.scene.nodes.data;
    const box = { minX: Infinity, minY: Infinity, maxX: -Infinity, maxY: -Infinity };
    let tallest = 0;
    for (const id of focus) {
      const i = this.scene.index.get(id);
      if (i === undefined) continue;
      const o = i * NODE_STRIDE, x = nd[o], y = nd[o + 1], hw = nd[o + NW] / 2, hh = nd[o + NH] / 2;
      box.minX = Math.min(box.minX, x - hw);
      box.maxX = Math.max(box.maxX, x + hw);
      box.minY = Math.min(box.minY, y - hh);
      box.maxY = Math.max(box.maxY, y + hh);
      tallest = Math.max(tallest, nd[o + NH]);
    }
    if (tallest === 0) {
      this.pendingFocus = [];
      this.fit();
      return;
    }
    this.pendingFocus = focus;
    this.camera.set(firstViewState(box, tallest, this.camera.width, this.camera.height));
    this.fitPending = this.camera.width < 2 || this.camera.height < 2;
    this.requestRender();
  }

  addBatch(nodes: ViewNode[], edges: ViewEdge[]): void {
    const wasEmpty = this.scene.nodeCount === 0;
    for (const v of nodes) {
      const i = this.scene.index.get(v.id);
      if (i !== undefined) this.labels.invalidate(i);
    }
    this.scene.add(nodes, edges, this.time());
    if (this.scene.hovered >= 0 && !this.scene.isShown(this.scene.hovered)) this.dropHover();
    if (wasEmpty && this.scene.nodeCount > 0) this.fit();
    else this.requestRender();
  }

  replaceEdges(edges: ViewEdge[]): void {
    this.scene.replaceEdges(edges);
    this.requestRender();
  }

  applyMoves(moves: NodeMove[], ms: number, opts?: { fit?: boolean }): void {
    this.scene.applyMoves(moves, Math.max(0, ms) / 1000, this.time());
    const b = opts?.fit ? this.scene.bounds() : null;
    if (b) {
      // The camera goes along with the nodes to the whole new layout, fitted.
      this.dropHover();
      const target = this.camera.fitState(b, 32, 2);
      if (ms > 0) this.camera.animateTo(target, ms, now());
      else this.camera.set(target);
    }
    this.requestRender();
  }

  setVisible(filter: ((n: ViewNode) => boolean) | null): void {
    this.scene.setVisible(filter);
    if (this.scene.hovered >= 0 && !this.scene.isShown(this.scene.hovered)) this.dropHover();
    this.requestRender();
  }

  setHighlight(ids: Set<string> | null): void {
    this.scene.setHighlight(ids);
    this.requestRender();
  }

  setSelection(ids: string[]): void {
    this.scene.setSelection(ids);
    this.requestRender();
  }

  focus(id: string, animateMs = 450): void {
    const i = this.scene.index.get(id);
    if (i === undefined) return;
    const t = this.time();
    const target = {
      x: this.scene.positionX(i, t),
      y: this.scene.positionY(i, t),
      scale: this.camera.scale < 0.75 ? 1 : this.camera.scale,
    };
    this.dropHover();
    this.camera.animateTo(target, animateMs, now());
    this.requestRender();
  }

  fitTo(ids: readonly string[], animateMs = 450, opts: { top?: number } = {}): void {
    // Where the nodes end up when they are moving (a move's end).
    const t = Number.POSITIVE_INFINITY;
    const b = { minX: Infinity, minY: Infinity, maxX: -Infinity, maxY: -Infinity };
    for (const id of ids) {
      const i = this.scene.index.get(id);
      const v = i === undefined ? undefined : this.scene.views[i];
      if (i === undefined || !v) continue;
      const x = this.scene.positionX(i, t), y = this.scene.positionY(i, t);
      b.minX = Math.min(b.minX, x - v.w / 2);
      b.maxX = Math.max(b.maxX, x + v.w / 2);
      b.minY = Math.min(b.minY, y - v.h / 2);
      b.maxY = Math.max(b.maxY, y + v.h / 2);
    }
    if (!(b.maxX >= b.minX)) return;
    this.pendingFocus = [];
    this.dropHover();
    // Labels overhang their nodes: a wider margin than the whole graph's fit.
    const target = this.camera.fitState(b, 64, 1.5, opts.top ?? 0);
    if (animateMs > 0) this.camera.animateTo(target, animateMs, now());
    else this.camera.set(target);
    this.requestRender();
  }

  centerOn(x: number, y: number): void {
    if (!Number.isFinite(x) || !Number.isFinite(y)) return;
    this.dropHover();
    this.camera.set({ x, y, scale: this.camera.scale });
    this.requestRender();
  }

  /** The shown node nearest the centre of the view (the keyboard's way in), or null. */
  nearestToCentre(): string | null {
    return nearestToCentre(this.scene, this.camera, this.time(), this.viewRect);
  }

  drawnLabels(): { id: string, font: number, text: string, lines: number, whole: boolean }[] {
    return this.labels.drawn.map((l) => ({ id: this.scene.views[l.index]?.id ?? "", font: l.font, text: l.text, lines: l.lines, whole: l.whole }));
  }

  fit(): void {
    this.pendingFocus = [];
    this.dropHover();
    const b = this.scene.bounds();
    if (b) {
      this.camera.fit(b, 32, 2);
      this.fitPending = this.camera.width < 2 || this.camera.height < 2;
    } else {
      this.camera.set({ x: 0, y: 0, scale: 1 });
    }
    this.requestRender();
  }

  zoomBy(factor: number): void {
    if (!(factor > 0) || !Number.isFinite(factor)) return;
    this.dropHover();
    this.camera.zoomAt(factor, this.camera.width / 2, this.camera.height / 2);
    this.requestRender();
  }

  /** Moves the drawing by (dx, dy) CSS pixels, as dragging it by that much does. */
  panBy(dx: number, dy: number): void {
    if (!Number.isFinite(dx) || !Number.isFinite(dy)) return;
    // A card beside a node that moved away would point at nothing: moving the view ends the hover.
    this.dropHover();
    this.camera.panBy(dx, dy);
    this.requestRender();
  }

  setTheme(theme: Theme): void {
    this.pal = palette(theme);
    this.overlayStale = true;
    this.glf.setPalette(this.pal);
    this.element.style.background = this.pal.background;
    this.requestRender();
  }

  screenPosition(id: string): { x: number, y: number } | null {
    const i = this.scene.index.get(id);
    if (i === undefined || !this.scene.isShown(i)) return null;
    const t = this.time();
    return {
      x: this.camera.worldToScreenX(this.scene.positionX(i, t)),
      y: this.camera.worldToScreenY(this.scene.positionY(i, t)),
    };
  }

  toPNG(): Promise<Blob> {
    // The WebGL buffer is not preserved after compositing, so draw now and copy it in the
    // same task.
    this.draw(this.time(), true);
    this.overlayDrawn = true;
    return compositePNG(this.glf.ready ? this.element : null, this.ctx2d ? this.overlay : null,
      this.element.width, this.element.height, this.pal.background);
  }

  toSVG(): string {
    return sceneToSVG(this.scene, this.pal, this.time());
  }

  /** What the last frame cost, by layer: script, draw calls, vertices, uploads (cost.ts). */
  frameCost(): FrameCostReport {
    return this.cost.report();
  }

  /** Frames so far, and the mean over the last second that had frames (frame-clock.ts). */
  stats(): FrameStats {
    return {
      frames: this.clock.frames, msPerFrame: this.clock.msPerFrame(), nodes: this.scene.visibleNodes, edges: this.scene.visibleEdges,
      longEdgePx: this.glf.longCut, longEdgesLeftOut: this.glf.longLeftOut, scale: this.camera.scale, stillFrames: this.glf.still.kept,
    };
  }

  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    const view = this.container.ownerDocument.defaultView;
    if (this.raf && view) view.cancelAnimationFrame(this.raf);
    if (this.timer) clearTimeout(this.timer);
    this.glf.stop();
    this.raf = 0;
    this.timer = null;
    this.resizeObserver?.disconnect();
    for (const f of this.cleanup) f();
    this.controls.destroy();
    this.glf.destroy();
    this.element.remove();
    this.overlay.remove();
  }
}

/** Makes a GraphCanvas in `container`. */
export function createCanvas(container: HTMLElement, events: CanvasEvents = {}, theme: Theme = "light"): GraphCanvas {
  return new GraphCanvas(container, events, theme);
}

function now(): number {
  return typeof performance !== "undefined" ? performance.now() : Date.now();
}
