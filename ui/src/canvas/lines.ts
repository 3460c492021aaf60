//! Plain one-pixel lines from a vertex buffer with their positions (device pixels) and
//! premultiplied colours baked in: how edges are drawn once the view is zoomed far out
//! (see lod.ts). At DPR 2 and above the same buffer holds quads (two triangles each, about
//! one CSS px thick) instead of lines. The vertex shader reads no texture, which is what software GL is slowest
//! at per vertex; the buffer is re-sent only when the lines change.

import { linkProgram, type GLContext, type Program } from "./gl";
import { LINE_VERTEX_BYTES, type PixelLod } from "./lod";

const VS_BODY = `
uniform vec2 u_size;
void main() {
  v_color = a_color;
  gl_Position = vec4(a_pos.x / u_size.x * 2.0 - 1.0, 1.0 - a_pos.y / u_size.y * 2.0, 0.0, 1.0);
}
`;

function vertexShader(webgl2: boolean): string {
  return webgl2
    ? `#version 300 es
precision highp float;
in vec2 a_pos;
in vec4 a_color;
out vec4 v_color;
${VS_BODY}`
    : `precision highp float;
attribute vec2 a_pos;
attribute vec4 a_color;
varying vec4 v_color;
${VS_BODY}`;
}

function fragmentShader(webgl2: boolean): string {
  return webgl2
    ? `#version 300 es
precision mediump float;
in vec4 v_color;
out vec4 fragColor;
void main() { fragColor = v_color; }
`
    : `precision mediump float;
varying vec4 v_color;
void main() { gl_FragColor = v_color; }
`;
}

export class LineProgram {
  private readonly prog: Program;
  private readonly colorLoc: number;
  private buffer: WebGLBuffer | null = null;
  private sentSerial = -1;
  private sentFrom: PixelLod | null = null;

  constructor(private readonly ctx: GLContext) {
    const gl = ctx.gl;
    this.prog = linkProgram(gl, vertexShader(ctx.webgl2), fragmentShader(ctx.webgl2), ["u_size"], "a_pos");
    this.colorLoc = gl.getAttribLocation(this.prog.program, "a_color");
  }

  /** Draws `lod`'s lines (or quads) on a canvas of `width` x `height` device pixels (blending as set);
   *  returns the bytes of vertices it sent (0: the buffer held them already). */
  draw(lod: PixelLod, width: number, height: number): number {
    if (lod.lineCount === 0) return 0;
    let sent = 0;
    const gl = this.ctx.gl;
    if (!this.buffer) this.buffer = gl.createBuffer();
    gl.bindBuffer(gl.ARRAY_BUFFER, this.buffer);
    if (this.sentSerial !== lod.lineSerial || this.sentFrom !== lod) {
      sent = lod.lineCount * lod.lineVertices * LINE_VERTEX_BYTES;
      gl.bufferData(gl.ARRAY_BUFFER, lod.lineBytes.subarray(0, sent), gl.DYNAMIC_DRAW);
      this.sentSerial = lod.lineSerial;
      this.sentFrom = lod;
    }
    gl.useProgram(this.prog.program);
    gl.uniform2f(this.prog.uniform.u_size, width, height);
    gl.enableVertexAttribArray(0);
    gl.vertexAttribPointer(0, 2, gl.FLOAT, false, LINE_VERTEX_BYTES, 0);
    const c = this.colorLoc >= 0 ? this.colorLoc : 1;
    gl.enableVertexAttribArray(c);
    gl.vertexAttribPointer(c, 4, gl.UNSIGNED_BYTE, true, LINE_VERTEX_BYTES, 8);
    gl.drawArrays(lod.lineVertices === 2 ? gl.LINES : gl.TRIANGLES, 0, lod.lineCount * lod.lineVertices);
    // The other programs read no attributes (WebGL1's vertex ids enable their own).
    gl.disableVertexAttribArray(c);
    gl.disableVertexAttribArray(0);
    return sent;
  }

  destroy(): void {
    const gl = this.ctx.gl;
    gl.deleteProgram(this.prog.program);
    if (this.buffer) gl.deleteBuffer(this.buffer);
  }
}
