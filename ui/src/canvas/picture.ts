//! A zoomed-out view's drawing kept in a texture and put on screen with the camera, so that
//! panning and zooming a large graph costs one textured quad a frame instead of drawing
//! every node and edge again.
//!
//! Why: a graph packed to the canvas's shape (the first view) and seen whole has its nodes
//! a pixel or two apart and its edges mostly on pixels of their own: the level of detail of
//! lod.ts finds little to merge (50,000 nodes gave 49,997 dots and 99,331 lines), and software
//! GL pays for every one of those primitives and every pixel of the long edges (about 7M
//! pixels at 50k nodes): 250 ms a frame. Drawn once into a texture, the picture is
//! resampled by the camera while it moves and drawn again, pixel for pixel, once the view
//! rests (or leaves the zoom range the texture covers, or the graph changes).
//!
//! The texture covers the whole graph; the renderer draws what changes on its own over it
//! (the hovered node and its edges, selected and glowing nodes).

import type { GLContext, Program } from "./gl";
import { linkProgram } from "./gl";
import type { FrameCost } from "./cost";

/** Largest texture side, and most texels, a picture may take (beyond: drawn directly). */
const MAX_SIDE = 4096;
const MAX_TEXELS = 8 * 1024 * 1024;
/** The texture unit it is read from (shared: every user binds its texture before use). */
const PICTURE_UNIT = 7;
/** Texels per screen pixel the picture may be shown at: magnified a little while moving,
 *  minified down to about half (linear filtering still sees every texel). */
export const MIN_DENSITY = 0.85;
export const MAX_DENSITY = 2.2;

const VS = (webgl2: boolean) => `${webgl2 ? "#version 300 es\nin vec2 a_corner;\nout vec2 v_uv;" : "attribute vec2 a_corner;\nvarying vec2 v_uv;"}
precision highp float;
uniform vec4 u_rect;
uniform vec4 u_view;
void main() {
  vec2 world = mix(u_rect.xy, u_rect.zw, a_corner);
  v_uv = vec2(a_corner.x, 1.0 - a_corner.y);
  gl_Position = vec4((world - u_view.xy) * u_view.zw, 0.0, 1.0);
}
`;
const FS = (webgl2: boolean) => webgl2
  ? `#version 300 es
precision mediump float;
uniform sampler2D u_tex;
in vec2 v_uv;
out vec4 fragColor;
void main() { fragColor = texture(u_tex, v_uv); }
`
  : `precision mediump float;
uniform sampler2D u_tex;
varying vec2 v_uv;
void main() { gl_FragColor = texture2D(u_tex, v_uv); }
`;

/** Where a picture lies and how it was drawn. */
export interface PictureFrame {
  /** World rectangle the texture covers. */
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
  /** CSS px per world unit, and device px per CSS px, it was drawn at. */
  scale: number;
  dpr: number;
  /** Texture size in texels. */
  width: number;
  height: number;
}

/** The frame for a picture of `bounds` (world units, already with their margin) drawn at
 *  `scale` and `dpr`, its texels on the screen's device pixels for a camera at (camX, camY)
 *  on a canvas `cssWidth` x `cssHeight` CSS px; null when it would be too large. */
export function pictureFrame(bounds: { minX: number, minY: number, maxX: number, maxY: number }, scale: number, dpr: number,
  camX: number, camY: number, cssWidth: number, cssHeight: number, maxSide = MAX_SIDE): PictureFrame | null {
  const k = scale * dpr;
  // Screen device px of the bounds' corner; moved back to a whole pixel.
  const sx = ((bounds.minX - camX) * scale + cssWidth / 2) * dpr;
  const sy = ((bounds.minY - camY) * scale + cssHeight / 2) * dpr;
  const minX = bounds.minX - (sx - Math.floor(sx)) / k, minY = bounds.minY - (sy - Math.floor(sy)) / k;
  const width = Math.ceil((bounds.maxX - minX) * k) + 1, height = Math.ceil((bounds.maxY - minY) * k) + 1;
  if (!(width > 0 && height > 0) || width > maxSide || height > maxSide || width * height > MAX_TEXELS) return null;
  return { minX, minY, maxX: minX + width / k, maxY: minY + height / k, scale, dpr, width, height };
}

export class Picture {
  /** What the texture holds now (null: nothing). */
  frame: PictureFrame | null = null;
  /** What it was drawn from (the renderer's key of the scene and style). */
  readonly key: number[] = [];
  private readonly prog: Program;
  private readonly texture: WebGLTexture;
  private readonly fbo: WebGLFramebuffer;
  private readonly corners: WebGLBuffer;
  private texW = 0;
  private texH = 0;

  constructor(private readonly ctx: GLContext) {
    const gl = ctx.gl;
    this.prog = linkProgram(gl, VS(ctx.webgl2), FS(ctx.webgl2), ["u_rect", "u_view", "u_tex"], "a_corner");
    const t = gl.createTexture(), f = gl.createFramebuffer(), b = gl.createBuffer();
    if (!t || !f || !b) throw new Error("could not make the picture's texture");
    this.texture = t;
    this.fbo = f;
    this.corners = b;
    gl.bindBuffer(gl.ARRAY_BUFFER, b);
    gl.bufferData(gl.ARRAY_BUFFER, new Float32Array([0, 0, 1, 0, 0, 1, 1, 1]), gl.STATIC_DRAW);
  }

  /** Texels per screen device px when shown at `scale` on a `dpr` screen (1: pixel for pixel). */
  density(scale: number, dpr: number): number {
    const f = this.frame;
    return f ? (f.scale * f.dpr) / (scale * dpr) : 0;
  }

  /** Starts drawing `frame` into the texture: binds it as the target, sized and cleared to
   *  transparent. False when the GPU refuses the framebuffer (then draw directly). */
  begin(frame: PictureFrame, cost: FrameCost): boolean {
    const gl = this.ctx.gl;
    gl.activeTexture(gl.TEXTURE0 + PICTURE_UNIT);
    gl.bindTexture(gl.TEXTURE_2D, this.texture);
    if (this.texW !== frame.width || this.texH !== frame.height) {
      gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA, frame.width, frame.height, 0, gl.RGBA, gl.UNSIGNED_BYTE, null);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.LINEAR);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.LINEAR);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE);
      this.texW = frame.width;
      this.texH = frame.height;
      cost.upload("picture", frame.width * frame.height * 4);
    }
    // Not bound while drawn into (a texture both read and written is refused).
    gl.bindTexture(gl.TEXTURE_2D, null);
    gl.bindFramebuffer(gl.FRAMEBUFFER, this.fbo);
    gl.framebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, this.texture, 0);
    if (gl.checkFramebufferStatus(gl.FRAMEBUFFER) !== gl.FRAMEBUFFER_COMPLETE) {
      gl.bindFramebuffer(gl.FRAMEBUFFER, null);
      this.frame = null;
      return false;
    }
    gl.viewport(0, 0, frame.width, frame.height);
    gl.clearColor(0, 0, 0, 0);
    gl.clear(gl.COLOR_BUFFER_BIT);
    this.frame = frame;
    return true;
  }

  /** Ends drawing into the texture: the screen is the target again. */
  end(): void {
    this.ctx.gl.bindFramebuffer(this.ctx.gl.FRAMEBUFFER, null);
  }

  /** Forgets what it holds (it is drawn again before its next use). */
  invalidate(): void {
    this.frame = null;
  }

  /** Puts the picture on screen through the camera's clip transform `view` (see
   *  Camera.clipTransform), blending over what is there. */
  draw(view: Float32Array, cost: FrameCost): void {
    const f = this.frame;
    if (!f) return;
    const gl = this.ctx.gl, u = this.prog.uniform;
    gl.useProgram(this.prog.program);
    gl.activeTexture(gl.TEXTURE0 + PICTURE_UNIT);
    gl.bindTexture(gl.TEXTURE_2D, this.texture);
    gl.uniform1i(u.u_tex, PICTURE_UNIT);
    gl.uniform4f(u.u_rect, f.minX, f.minY, f.maxX, f.maxY);
    gl.uniform4fv(u.u_view, view);
    gl.bindBuffer(gl.ARRAY_BUFFER, this.corners);
    gl.enableVertexAttribArray(0);
    gl.vertexAttribPointer(0, 2, gl.FLOAT, false, 8, 0);
    gl.drawArrays(gl.TRIANGLE_STRIP, 0, 4);
    gl.disableVertexAttribArray(0);
    cost.draw("picture", 4);
  }

  destroy(): void {
    const gl = this.ctx.gl;
    gl.deleteProgram(this.prog.program);
    gl.deleteTexture(this.texture);
    gl.deleteFramebuffer(this.fbo);
    gl.deleteBuffer(this.corners);
  }
}
