//! The thin layer over WebGL2 / WebGL1 that the programs need: getting a context that can
//! read float textures in vertex shaders, compiling shaders, and mirroring an
//! InstanceArray into a float data texture, re-sending only the rows that changed.
//!
//! Why data textures rather than instanced attributes: the shaders pull each node's and
//! edge's record by vertex number. This draws as fast as instancing on GPUs, and in
//! software rendering (SwiftShader: headless Chromium, VMs, GPU-blocklisted machines) it
//! is about eight times faster, because SwiftShader sets up every instance as a separate
//! draw. It also lets edges read their endpoints from the node texture, so moving a node
//! never rewrites its edges.

import type { InstanceArray } from "./buffers";

export type AnyGL = WebGLRenderingContext | WebGL2RenderingContext;

export interface GLContext {
  gl: AnyGL;
  webgl2: boolean;
  maxTextureSize: number;
  /** Largest gl_PointSize the context draws. */
  maxPointSize: number;
}

const ATTRS: WebGLContextAttributes = {
  alpha: false,
  // The shaders smooth their own edges; multisampling would only slow software GL down.
  antialias: false,
  depth: false,
  stencil: false,
  premultipliedAlpha: true,
  preserveDrawingBuffer: false,
  powerPreference: "high-performance",
};

/** WebGL2 if the browser has it, else WebGL1 with float textures readable in vertex
 *  shaders, else null. */
export function createContext(canvas: HTMLCanvasElement): GLContext | null {
  const gl2 = tryContext(canvas, "webgl2") as WebGL2RenderingContext | null;
  if (gl2) return describe(gl2, true);
  const gl1 = (tryContext(canvas, "webgl") ?? tryContext(canvas, "experimental-webgl")) as WebGLRenderingContext | null;
  if (!gl1) return null;
  if (!gl1.getExtension("OES_texture_float")) return null;
  if ((gl1.getParameter(gl1.MAX_VERTEX_TEXTURE_IMAGE_UNITS) as number) < 2) return null;
  return describe(gl1, false);
}

function tryContext(canvas: HTMLCanvasElement, kind: string): RenderingContext | null {
  try {
    return canvas.getContext(kind, ATTRS);
  } catch {
    return null;
  }
}

function describe(gl: AnyGL, webgl2: boolean): GLContext {
  const range = gl.getParameter(gl.ALIASED_POINT_SIZE_RANGE) as Float32Array | null;
  return {
    gl,
    webgl2,
    maxTextureSize: gl.getParameter(gl.MAX_TEXTURE_SIZE) as number,
    maxPointSize: range ? range[1] : 1,
  };
}

function compile(gl: AnyGL, type: number, source: string): WebGLShader {
  const sh = gl.createShader(type);
  if (!sh) throw new Error("createShader failed");
  gl.shaderSource(sh, source);
  gl.compileShader(sh);
  if (!gl.getShaderParameter(sh, gl.COMPILE_STATUS) && !gl.isContextLost()) {
    const log = gl.getShaderInfoLog(sh);
    gl.deleteShader(sh);
    throw new Error(`shader compile failed: ${log}`);
  }
  return sh;
}

export interface Program {
  program: WebGLProgram;
  uniform: Record<string, WebGLUniformLocation | null>;
}

export function linkProgram(gl: AnyGL, vs: string, fs: string, uniforms: string[], attrib0?: string): Program {
  const program = gl.createProgram();
  if (!program) throw new Error("createProgram failed");
  const v = compile(gl, gl.VERTEX_SHADER, vs), f = compile(gl, gl.FRAGMENT_SHADER, fs);
  gl.attachShader(program, v);
  gl.attachShader(program, f);
  if (attrib0) gl.bindAttribLocation(program, 0, attrib0);
  gl.linkProgram(program);
  if (!gl.getProgramParameter(program, gl.LINK_STATUS) && !gl.isContextLost()) {
    throw new Error(`program link failed: ${gl.getProgramInfoLog(program)}`);
  }
  gl.deleteShader(v);
  gl.deleteShader(f);
  const uniform: Record<string, WebGLUniformLocation | null> = {};
  for (const u of uniforms) uniform[u] = gl.getUniformLocation(program, u);
  return { program, uniform };
}

/** An RGBA float texture holding an InstanceArray: `perRow` records per texture row, each
 *  record `stride / 4` texels wide. Grows with the array; sends only changed rows. */
export class DataTexture {
  readonly texture: WebGLTexture;
  readonly width: number;
  height = 0;

  constructor(private ctx: GLContext, readonly source: InstanceArray, readonly perRow: number) {
    const t = ctx.gl.createTexture();
    if (!t) throw new Error("createTexture failed");
    this.texture = t;
    if (source.stride % 4 !== 0) throw new Error("record stride must be whole texels");
    if (source.capacity % perRow !== 0) throw new Error("capacity must be whole rows");
    this.width = (perRow * source.stride) / 4;
    const gl = ctx.gl;
    gl.bindTexture(gl.TEXTURE_2D, t);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE);
  }

  /** Uploads the last sync made: how many, and their bytes. */
  uploads = 0;
  uploadBytes = 0;

  private upload(x: number, y: number, w: number, h: number, data: Float32Array, allocate: boolean): void {
    const gl = this.ctx.gl;
    this.uploads++;
    this.uploadBytes += data.byteLength;
    if (allocate) {
      const internal = this.ctx.webgl2 ? (gl as WebGL2RenderingContext).RGBA32F : gl.RGBA;
      gl.texImage2D(gl.TEXTURE_2D, 0, internal, w, h, 0, gl.RGBA, gl.FLOAT, data);
    } else {
      gl.texSubImage2D(gl.TEXTURE_2D, 0, x, y, w, h, gl.RGBA, gl.FLOAT, data);
    }
  }

  /** Sends what changed since the last sync, then leaves the texture bound to `unit`. */
  sync(unit: number): void {
    const gl = this.ctx.gl, src = this.source;
    gl.activeTexture(gl.TEXTURE0 + unit);
    gl.bindTexture(gl.TEXTURE_2D, this.texture);
    this.uploads = 0;
    this.uploadBytes = 0;
    if (!src.dirty) return;
    const up = src.takeUpload();
    if (up.kind === "none") return;
    const floatsPerRow = this.perRow * src.stride;
    if (up.kind === "all") {
      const rows = up.capacity / this.perRow;
      if (rows > this.ctx.maxTextureSize) throw new Error(`graph too large for this GPU (${up.capacity} records)`);
      this.height = rows;
      this.upload(0, 0, this.width, rows, src.data.subarray(0, rows * floatsPerRow), true);
      return;
    }
    const tpr = src.stride / 4; // texels per record
    for (const [a, b] of up.ranges) {
      const r0 = Math.floor(a / this.perRow), r1 = Math.floor((b - 1) / this.perRow);
      if (r0 === r1) {
        const c0 = a - r0 * this.perRow;
        this.upload(c0 * tpr, r0, (b - a) * tpr, 1, src.data.subarray(a * src.stride, b * src.stride), false);
      } else {
        this.upload(0, r0, this.width, r1 - r0 + 1, src.data.subarray(r0 * floatsPerRow, (r1 + 1) * floatsPerRow), false);
      }
    }
  }

  destroy(): void {
    this.ctx.gl.deleteTexture(this.texture);
  }
}

/** A list of record numbers, four per RGBA float texel, 1024 texels per row. */
export class ListTexture {
  static readonly TEXELS_PER_ROW = 1024;
  readonly texture: WebGLTexture;
  readonly width = ListTexture.TEXELS_PER_ROW;
  height = 0;

  constructor(private ctx: GLContext) {
    const gl = ctx.gl;
    const t = gl.createTexture();
    if (!t) throw new Error("createTexture failed");
    this.texture = t;
    gl.bindTexture(gl.TEXTURE_2D, t);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE);
  }

  /** Sends the first `count` entries of `list` (whose length is a power of two of at
   *  least 4096) and leaves the texture bound to `unit`. */
  bind(unit: number): void {
    const gl = this.ctx.gl;
    gl.activeTexture(gl.TEXTURE0 + unit);
    gl.bindTexture(gl.TEXTURE_2D, this.texture);
  }

  /** Returns the bytes sent. */
  upload(unit: number, list: Float32Array, count: number): number {
    const gl = this.ctx.gl;
    this.bind(unit);
    const perRow = this.width * 4;
    const rows = Math.ceil(list.length / perRow);
    if (rows !== this.height) {
      this.height = rows;
      const internal = this.ctx.webgl2 ? (gl as WebGL2RenderingContext).RGBA32F : gl.RGBA;
      gl.texImage2D(gl.TEXTURE_2D, 0, internal, this.width, rows, 0, gl.RGBA, gl.FLOAT, list.subarray(0, rows * perRow));
      return rows * perRow * 4;
    }
    const used = Math.ceil(count / perRow);
    if (used > 0) gl.texSubImage2D(gl.TEXTURE_2D, 0, 0, 0, this.width, used, gl.RGBA, gl.FLOAT, list.subarray(0, used * perRow));
    return used * perRow * 4;
  }

  destroy(): void {
    this.ctx.gl.deleteTexture(this.texture);
  }
}

/** WebGL1 has no gl_VertexID: a buffer of vertex numbers 0, 1, 2, ... stands in for it. */
export class VertexIds {
  private buffer: WebGLBuffer | null = null;
  private size = 0;

  constructor(private gl: AnyGL) {}

  /** Binds ids for at least `n` vertices to attribute 0. */
  bind(n: number): void {
    const gl = this.gl;
    if (!this.buffer) this.buffer = gl.createBuffer();
    gl.bindBuffer(gl.ARRAY_BUFFER, this.buffer);
    if (n > this.size) {
      let size = Math.max(4096, this.size);
      while (size < n) size *= 2;
      const ids = new Float32Array(size);
      for (let i = 0; i < size; i++) ids[i] = i;
      gl.bufferData(gl.ARRAY_BUFFER, ids, gl.STATIC_DRAW);
      this.size = size;
    }
    gl.enableVertexAttribArray(0);
    gl.vertexAttribPointer(0, 1, gl.FLOAT, false, 0, 0);
  }

  destroy(): void {
    if (this.buffer) this.gl.deleteBuffer(this.buffer);
  }
}
