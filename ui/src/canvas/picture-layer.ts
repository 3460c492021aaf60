//! When the renderer draws a frame from the cached picture of a zoomed-out graph
//! (picture.ts), and how: the picture is drawn again when the graph or its look changed,
//! when the zoom leaves the range the texture covers (finer when zoomed in past it, so
//! zooming on can go on from it), and pixel for pixel once the view has rested elsewhere
//! than it was drawn for; what it leaves out (selected and glowing nodes, the hovered node
//! and its edges) is drawn over it every frame as it looks then.

import type { Camera } from "./camera";
import type { FrameCost } from "./cost";
import type { VisibleSet } from "./culling";
import type { DataTexture, GLContext } from "./gl";
import { PixelLod, type LineStyle, type LodView } from "./lod";
import { MAX_DENSITY, MIN_DENSITY, Picture, pictureFrame } from "./picture";
import type { FrameUniforms, GraphPrograms } from "./programs";
import type { Scene } from "./scene";

/** A view drawn from the picture at another zoom or place is drawn again exactly once the
 *  camera has rested this long (ms): longer than the gaps between frames of a slow machine
 *  being dragged (on a loaded one, 150 ms drew the picture again mid-drag). */
const SETTLE_MS = 400;
/** A picture drawn again because the camera zoomed in past it is drawn this much finer,
 *  so that zooming in further can go on from it. */
const HEADROOM = 1.5;

/** What drawing a frame from the picture needs of the renderer. */
export interface PictureHost {
  gl: GLContext;
  programs: GraphPrograms;
  nodes: DataTexture;
  edges: DataTexture;
  scene: Scene;
  camera: Camera;
  uniforms: FrameUniforms;
  visible: VisibleSet;
  lineStyle: LineStyle;
  dpr: number;
  cost: FrameCost;
  /** The canvas in device px. */
  canvasWidth: number;
  canvasHeight: number;
  /** Clears the screen for the frame. */
  beginScreen(): void;
}

export class PictureLayer {
  private readonly picture: Picture;
  /** The picture's own level of detail: hover is left out of it (drawn over it). */
  private readonly lod = new PixelLod(true);
  private readonly view: LodView = { x: 0, y: 0, scale: 1, width: 1, height: 1, dpr: 1 };
  private readonly key: number[] = [];
  private readonly saved = new Float32Array(4);
  private liveNodes: Float32Array = new Float32Array(4096);
  private liveEdges: Float32Array = new Float32Array(4096);
  private settleTimer: ReturnType<typeof setTimeout> | null = null;
  private settleDue = false;

  /** `redraw` asks the renderer for a frame (when the view has rested); `busy` says
   *  whether one is asked for already (the camera still moving). */
  constructor(ctx: GLContext, private readonly redraw: () => void, private readonly busy: () => boolean) {
    this.picture = new Picture(ctx);
  }

  /** Draws the frame from the picture (drawing that first when it must), then what it
   *  leaves out. False when no picture can be had (too large at this zoom, or the GPU
   *  refuses): then the renderer draws the frame directly. */
  drawFrame(host: PictureHost | null, time: number): boolean {
    if (!host) return false;
    const pic = this.picture, { scene, camera: cam, dpr, cost, uniforms: u } = host;
    const key = [scene.version, scene.stableLooks, scene.nodeCount, scene.edgeCount, host.lineStyle.serial, dpr,
      host.canvasWidth, host.canvasHeight];
    const same = pic.frame !== null && key.every((k, i) => this.key[i] === k);
    const density = pic.density(cam.scale, dpr);
    const fits = same && density >= MIN_DENSITY && density <= MAX_DENSITY;
    if (!fits || (this.settleDue && !this.exact(cam, dpr))) {
      // Zoomed in past it: drawn finer, so that zooming on goes on from it (whatever the
      // frame rate); for anything else, pixel for pixel.
      const finer = same && density < MIN_DENSITY && !this.settleDue;
      if (!this.drawPicture(host, time, finer ? HEADROOM : 1)) return false;
      this.key.length = 0;
      this.key.push(...key);
    }
    this.settleDue = false;
    if (!this.exact(cam, dpr)) this.settleLater();
    host.beginScreen();
    pic.draw(u.view, cost);
    // Over it, what it leaves out, as it looks now.
    const lod = this.lod;
    let n = 0, m = 0;
    for (let k = lod.plainCount; k < lod.nodeCount; k++) n = this.pushLive(n, lod.nodes[k]);
    const h = scene.hovered;
    if (h >= 0 && h < scene.nodeCount && scene.isShown(h)) {
      n = this.pushLive(n, h);
      for (const e of scene.edgesOf(h)) {
        if (m === this.liveEdges.length) this.liveEdges = doubled(this.liveEdges);
        this.liveEdges[m++] = e;
      }
    }
    host.programs.drawLive(host.nodes, host.edges, u, this.liveNodes, n, this.liveEdges, m, cost);
    return true;
  }

  /** A frame was drawn without the picture: no settling is pending for it. */
  rested(): void {
    this.settleDue = false;
  }

  /** Stops the pending settle (the canvas is going away). */
  stop(): void {
    if (this.settleTimer) clearTimeout(this.settleTimer);
    this.settleTimer = null;
  }

  destroy(): void {
    this.stop();
    this.picture.destroy();
  }

  private pushLive(n: number, i: number): number {
    if (n === this.liveNodes.length) this.liveNodes = doubled(this.liveNodes);
    this.liveNodes[n] = i;
    return n + 1;
  }

  /** Whether the picture is shown pixel for pixel: drawn at this zoom and screen density,
   *  its texels on the screen's pixels with the camera as it is. */
  private exact(cam: Camera, dpr: number): boolean {
    const f = this.picture.frame;
    if (!f || Math.abs(this.picture.density(cam.scale, dpr) - 1) > 1e-9) return false;
    const sx = ((f.minX - cam.x) * cam.scale + cam.width / 2) * dpr;
    const sy = ((f.minY - cam.y) * cam.scale + cam.height / 2) * dpr;
    return Math.abs(sx - Math.round(sx)) < 1e-3 && Math.abs(sy - Math.round(sy)) < 1e-3;
  }

  /** Asks for a frame once the camera has rested SETTLE_MS (each call puts it off). */
  private settleLater(): void {
    if (this.settleTimer) clearTimeout(this.settleTimer);
    this.settleTimer = setTimeout(() => {
      this.settleTimer = null;
      // A frame is asked for already: the view has not rested (only the frames are slow).
      if (this.busy()) {
        this.settleLater();
        return;
      }
      this.settleDue = true;
      this.redraw();
    }, SETTLE_MS);
  }

  /** Draws the whole graph into the picture at the camera's zoom, `finer` times the
   *  screen's pixel density. */
  private drawPicture(host: PictureHost, time: number, finer: number): boolean {
    const pic = this.picture, { scene, camera: cam, uniforms: u, cost } = host;
    const b = scene.bounds();
    if (!b) return false;
    // Room for the smallest dots (1.5 CSS px) and outlines beyond the nodes' boxes.
    const m = 4 / cam.scale;
    const frame = pictureFrame({ minX: b.minX - m, minY: b.minY - m, maxX: b.maxX + m, maxY: b.maxY + m },
      cam.scale, host.dpr * finer, cam.x, cam.y, cam.width, cam.height, Math.min(4096, host.gl.maxTextureSize));
    if (!frame) return false;
    const v = this.view;
    v.scale = frame.scale;
    v.dpr = frame.dpr;
    v.width = frame.width / frame.dpr;
    v.height = frame.height / frame.dpr;
    v.x = frame.minX + v.width / 2 / frame.scale;
    v.y = frame.minY + v.height / 2 / frame.scale;
    host.lineStyle.dim = u.dim;
    this.lod.update(scene, v, time, true, true, host.lineStyle, false, cost);
    if (!pic.begin(frame, cost)) return false;
    // The picture's camera, then the screen's again.
    const saved = this.saved, px = u.px, css = u.css;
    saved.set(u.view);
    u.view[0] = v.x;
    u.view[1] = v.y;
    u.view[2] = (2 * v.scale) / v.width;
    u.view[3] = (-2 * v.scale) / v.height;
    u.px = 1 / (v.scale * v.dpr);
    u.css = 1 / v.scale;
    u.hover = false;
    const gl = host.gl.gl;
    gl.enable(gl.BLEND);
    gl.blendFunc(gl.ONE, gl.ONE_MINUS_SRC_ALPHA);
    host.visible.off();
    const plan = { lod: this.lod, nodes: true, edges: true, split: false, width: frame.width, height: frame.height, plainOnly: true };
    host.programs.draw(host.nodes, scene.nodeCount, host.edges, scene.edgeCount, host.visible, u, plan, cost);
    pic.end();
    u.view.set(saved);
    u.px = px;
    u.css = css;
    u.hover = true;
    return true;
  }
}

function doubled(a: Float32Array): Float32Array {
  const b = new Float32Array(a.length * 2);
  b.set(a);
  return b;
}
