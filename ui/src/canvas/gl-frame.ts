//! The WebGL half of the graph canvas (renderer.ts keeps the page, the camera, the scene
//! and the API): the context and what lives in it (programs, data textures, the cached
//! picture), set up again after a lost context, and one frame's drawing: the level of
//! detail chosen (frame-plan.ts), the culled lists or the whole-view edge rule, then the
//! draw calls.

import type { Camera } from "./camera";
import type { FrameCost } from "./cost";
import { VisibleSet } from "./culling";
import { LOD_MIN_RECORDS, longEdgePx, planFrame } from "./frame-plan";
import { DataTexture, createContext, type GLContext } from "./gl";
import { LINE_VERTEX_BYTES, PixelLod, type LineStyle, type LodView } from "./lod";
import { wholeViewEdges } from "./long-edges";
import { PictureLayer, type PictureHost } from "./picture-layer";
import { EDGES_PER_ROW, FrameUniforms, GraphPrograms, NODES_PER_ROW, type LodPlan } from "./programs";
import type { Scene } from "./scene";
import { StillFrames, type FrameShape } from "./still";
import type { Palette } from "./style";

export class GLFrame {
  private gl: GLContext | null = null;
  private programs: GraphPrograms | null = null;
  private nodeTexture: DataTexture | null = null;
  private edgeTexture: DataTexture | null = null;
  /** The cached drawing of a zoomed-out view (picture-layer.ts). */
  private picture: PictureLayer | null = null;
  readonly uniforms = new FrameUniforms();
  readonly visible = new VisibleSet();
  readonly lod = new PixelLod();
  private readonly lodView: LodView = { x: 0, y: 0, scale: 1, width: 1, height: 1, dpr: 1 };
  private readonly lineStyle: LineStyle;
  private readonly lodPlan: LodPlan;
  private readonly viewRect = { minX: 0, minY: 0, maxX: 0, maxY: 0 };
  /** Whether zoomed-out views of large graphs are drawn from a cached picture (off: every
   *  frame draws the graph, for measuring and comparing). */
  pictures = true;
  /** Whether long edges are split into lines and heads once they have heads (see
   *  draw); off draws them all by the shader (for measuring and comparing). */
  splitEdges = true;
  /** In the last frame, edges longer than this (CSS px) were drawn only with an end
   *  hovered or selected (0: every edge drawn), and how many were left out so. */
  longCut = 0;
  longLeftOut = 0;
  /** The edges the whole view draws (long-edges.ts), refilled each frame. */
  private readonly kept: number[] = [];
  /** Frames that would draw the picture on screen leave it (still.ts). */
  readonly still = new StillFrames();
  /** Whether they do (off: every frame draws, for measuring and comparing). */
  keepStill = true;
  private readonly shape: FrameShape;

  constructor(private readonly element: HTMLCanvasElement, private readonly scene: Scene, private readonly camera: Camera,
    private readonly cost: FrameCost, pal: Palette) {
    this.uniforms.setPalette(pal);
    this.lineStyle = { edge: this.uniforms.edge, dim: this.uniforms.dim, serial: 0 };
    this.lodPlan = { lod: this.lod, nodes: false, edges: false, split: false, width: 1, height: 1 };
    this.shape = { key: new Float64Array(19), nodes: scene.nodes, edges: scene.edges, edgeSrc: scene.edgeSrc, edgeTgt: scene.edgeTgt,
      nodeList: null, nodeCount: 0, edgeList: null, edgeCount: 0, headList: null, headCount: 0, lines: null, lineBytes: 0, moveUntil: 0 };
  }

  /** Whether the context is there (set up, not lost). */
  get ready(): boolean {
    return this.gl !== null;
  }

  /** Sets up WebGL; returns why it could not, or null. `redraw` asks for a frame; `busy`
   *  says whether one is asked for already (the picture waits for the view to rest). */
  init(redraw: () => void, busy: () => boolean): string | null {
    const ctx = safe(() => createContext(this.element));
    if (!ctx) return "WebGL (2, or 1 with float textures) is not available in this browser";
    try {
      this.gl = ctx;
      this.still.forget();
      this.programs = new GraphPrograms(ctx);
      this.scene.nodes.resetGpu();
      this.scene.edges.resetGpu();
      this.visible.changed = true;
      this.nodeTexture = new DataTexture(ctx, this.scene.nodes, NODES_PER_ROW);
      this.edgeTexture = new DataTexture(ctx, this.scene.edges, EDGES_PER_ROW);
      // Without one (no framebuffers), every frame is drawn directly.
      this.picture = safe(() => new PictureLayer(ctx, redraw, busy));
      return null;
    } catch (err) {
      this.drop();
      return `WebGL set-up failed: ${err instanceof Error ? err.message : String(err)}`;
    }
  }

  /** Forgets the context (lost: everything in it is gone). */
  drop(): void {
    this.still.forget();
    this.gl = null;
    this.programs = null;
    this.nodeTexture = null;
    this.edgeTexture = null;
    this.picture = null;
  }

  setPalette(pal: Palette): void {
    this.uniforms.setPalette(pal);
    this.lineStyle.serial++;
  }

  /** Draws the graph for a frame at `time` (seconds) with device pixel ratio `dpr`, unless
   *  the picture on screen is already the one it would draw (and not `force`d). Returns
   *  false when it left the canvas as it was. */
  draw(time: number, dpr: number, force = false): boolean {
    const ctx = this.gl, progs = this.programs, nt = this.nodeTexture, et = this.edgeTexture;
    if (!ctx || !progs || !nt || !et) return true;
    const gl = ctx.gl;
    if (gl.isContextLost()) return true;
    const u = this.uniforms, cam = this.camera;
    cam.clipTransform(u.view);
    u.css = 1 / cam.scale;
    u.px = 1 / (cam.scale * dpr);
    u.time = time;
    u.move[0] = this.scene.moveStart;
    u.move[1] = this.scene.moveSeconds;
    const scene = this.scene;
    const plan = this.lodPlan;
    planFrame(scene, cam.scale, dpr, ctx.maxPointSize, this.splitEdges, u, plan);
    // Seen whole, a graph drawn edge by edge leaves its long edges out until an end is
    // pointed at (long-edges.ts); the level of detail's merged lines are drawn as they are.
    const small = scene.nodeCount + scene.edgeCount < LOD_MIN_RECORDS;
    this.longCut = plan.edges || !small ? 0 : longEdgePx(scene.bounds(), cam.visibleBounds(this.viewRect), cam.width, cam.height, scene.visibleEdges);
    this.longLeftOut = 0;
    // Seen whole, a large graph's picture is cached while the camera moves (picture.ts).
    if (plan.nodes && plan.edges && !plan.split && this.pictures && time >= scene.moveUntil && this.picture
      && this.picture.drawFrame(this.pictureHost(dpr), time)) {
      this.still.forget();
      return true;
    }
    this.picture?.rested();
    if (plan.nodes || plan.edges) {
      const v = this.lodView;
      v.x = cam.x;
      v.y = cam.y;
      v.scale = cam.scale;
      v.width = cam.width;
      v.height = cam.height;
      v.dpr = dpr;
      this.lineStyle.dim = u.dim;
      this.lod.update(scene, v, time, plan.nodes, plan.edges, this.lineStyle, plan.split, this.cost);
      plan.width = this.element.width;
      plan.height = this.element.height;
    }
    if (plan.nodes) this.visible.off();
    else if (this.longCut > 0) this.cost.time("edges", () => this.keepShortEdges(this.longCut / cam.scale));
    else this.cost.time("nodes", () => this.visible.update(scene, scene.bounds(), cam.visibleBounds(this.viewRect), 40 / cam.scale, time < scene.moveUntil, !plan.edges));
    if (force || !this.keepStill) this.still.forget();
    if (this.still.same(this.frameShape(dpr), time)) return false;
    this.beginScreen();
    progs.draw(nt, scene.nodeCount, et, scene.edgeCount, this.visible, u, plan.nodes || plan.edges ? plan : null, this.cost);
    return true;
  }

  /** What this frame draws, for the still check (after the lists are made). */
  private frameShape(dpr: number): FrameShape {
    const s = this.shape, u = this.uniforms, plan = this.lodPlan, lod = this.lod, vis = this.visible, scene = this.scene;
    const k = s.key;
    k.set(u.view);
    k[4] = u.px; k[5] = u.css; k[6] = u.dim; k[7] = u.hover ? 1 : 0; k[8] = u.nodePoints ? 1 : 0; k[9] = u.edgeLines ? 1 : 0;
    k[10] = this.lineStyle.serial; k[11] = scene.hovered; k[12] = plan.nodes ? 1 : 0; k[13] = plan.edges ? 1 : 0;
    k[14] = plan.plainOnly ? 1 : 0; k[15] = this.element.width; k[16] = this.element.height; k[17] = this.longCut; k[18] = dpr;
    s.nodeList = plan.nodes ? lod.nodes : vis.active ? vis.nodes : null;
    s.nodeCount = plan.nodes ? (plan.plainOnly ? lod.plainCount : lod.nodeCount) : vis.active ? vis.nodeCount : scene.nodeCount;
    const split = plan.edges && plan.split ? lod.split : null;
    s.edgeList = split ? split.exact : plan.edges ? null : vis.active ? vis.edges : null;
    s.edgeCount = split ? split.exactCount : plan.edges ? 0 : vis.active ? vis.edgeCount : scene.edgeCount;
    s.headList = split ? split.heads : null;
    s.headCount = split ? split.headCount : 0;
    s.lines = plan.edges ? lod.lineBytes : null;
    s.lineBytes = plan.edges ? lod.lineCount * lod.lineVertices * LINE_VERTEX_BYTES : 0;
    s.moveUntil = scene.moveUntil;
    return s;
  }

  /** Lists every node and the edges the whole view draws (long-edges.ts): those no longer
   *  than `maxLen` world units, and those of hovered or selected nodes. */
  private keepShortEdges(maxLen: number): void {
    const n = wholeViewEdges(this.scene, maxLen, this.kept);
    this.visible.onlyEdges(this.scene.nodeCount, this.kept, n);
    this.longLeftOut = Math.max(0, this.scene.visibleEdges - n);
  }

  /** What the cached picture draws with (null until WebGL is set up). */
  private pictureHost(dpr: number): PictureHost | null {
    const programs = this.programs, nodes = this.nodeTexture, edges = this.edgeTexture, gl = this.gl;
    if (!programs || !nodes || !edges || !gl) return null;
    return { gl, programs, nodes, edges, scene: this.scene, camera: this.camera, uniforms: this.uniforms, visible: this.visible,
      lineStyle: this.lineStyle, dpr, cost: this.cost, canvasWidth: this.element.width, canvasHeight: this.element.height,
      beginScreen: () => this.beginScreen() };
  }

  /** Clears the screen for a frame (blending as the programs want it). */
  private beginScreen(): void {
    const gl = this.gl!.gl, bg = this.uniforms.background;
    gl.viewport(0, 0, this.element.width, this.element.height);
    gl.clearColor(bg[0], bg[1], bg[2], 1);
    gl.clear(gl.COLOR_BUFFER_BIT);
    gl.enable(gl.BLEND);
    gl.blendFunc(gl.ONE, gl.ONE_MINUS_SRC_ALPHA);
  }

  /** Stops the picture's timers. */
  stop(): void {
    this.picture?.stop();
  }

  /** Frees what the context holds and loses it on purpose. */
  destroy(): void {
    if (this.gl && !this.gl.gl.isContextLost()) {
      this.programs?.destroy();
      this.picture?.destroy();
      this.nodeTexture?.destroy();
      this.edgeTexture?.destroy();
      this.gl.gl.getExtension("WEBGL_lose_context")?.loseContext();
    }
    this.drop();
  }
}

export function safe<T>(fn: () => T | null): T | null {
  try {
    return fn();
  } catch {
    return null;
  }
}
