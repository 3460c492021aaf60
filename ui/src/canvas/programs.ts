//! The two shader programs. Nodes: a quad per node (or one point when zoomed far out) whose
//! PROV shape (ellipse, box, house, rounded box), stroke, status badge, selection ring and
//! arrival glow are drawn by signed distance in the fragment shader: nodes with none of the
//! last three by a program without them, then the others by one with them (on SwiftShader
//! that halves what drawing the nodes costs a frame). Edges: a thin quad plus an arrow head
//! stopping at the target's outline (or one line when zoomed far out). Both read their
//! records from data textures by vertex number; one draw call each (two for nodes when any
//! is decorated).
//! Zoomed far out, edges come from lod.ts's merged lines instead (lines.ts) and nodes
//! from its one-per-pixel list; closer in on a large graph, long edges' bodies do, and the
//! edge program draws only their heads (three of its nine vertices) and the short edges.

import { hexToRgba, type Palette } from "./style";
import { ListTexture, linkProgram, type DataTexture, type GLContext, type Program, VertexIds } from "./gl";
import type { VisibleSet } from "./culling";
import { LineProgram } from "./lines";
import type { PixelLod } from "./lod";
import type { FrameCost } from "./cost";
import { Flag, GLOW_SECONDS, NFLAGS, NGLOW, NODE_STRIDE, NSTATUS } from "./scene";

import { EDGES_PER_ROW, EDGE_FS, EDGE_UNIFORMS, EDGE_VS, NODE_FS, NODE_UNIFORMS, NODE_VS, NODES_PER_ROW, fragmentHeader, vertexHeader } from "./shaders";

export { EDGES_PER_ROW, NODES_PER_ROW };

/** What the level of detail replaces this frame: the edges by its merged lines, the nodes
 *  by its list (see lod.ts); with `split`, the lines are only long edges' bodies and the
 *  shader draws the split's short edges whole and the long ones' heads (EdgeSplit).
 *  `width`, `height`: the canvas in device pixels. */
export interface LodPlan {
  lod: PixelLod;
  nodes: boolean;
  edges: boolean;
  split: boolean;
  width: number;
  height: number;
  /** Draw only the level of detail's ordinary nodes (not the selected, hovered or glowing
   *  ones after them: see PixelLod.plainCount). */
  plainOnly?: boolean;
}

/** Everything the shaders read per frame, preallocated and refilled in place. */
export class FrameUniforms {
  /** centre x, centre y, kx, ky (see Camera.clipTransform). */
  readonly view = new Float32Array(4);
  /** World units per device pixel, and per CSS pixel. */
  px = 1;
  css = 1;
  /** Seconds since the canvas was made. */
  time = 0;
  readonly move = new Float32Array(2);
  readonly fill = new Float32Array(16);
  readonly stroke = new Float32Array(16);
  readonly badge = new Float32Array(20);
  readonly edge = new Float32Array(16);
  readonly ring = new Float32Array(4);
  readonly glow = new Float32Array(4);
  readonly background = new Float32Array(4);
  dim = 0.15;
  /** Level of detail: nodes as points, edges as plain lines. */
  nodePoints = false;
  edgeLines = false;
  /** Whether hovered nodes look hovered (off while drawing a cached picture). */
  hover = true;

  setPalette(p: Palette): void {
    for (let k = 0; k < 4; k++) {
      hexToRgba(p.fill[k], this.fill, k * 4);
      hexToRgba(p.stroke[k], this.stroke, k * 4);
      hexToRgba(p.edge[k], this.edge, k * 4);
    }
    for (let k = 0; k < 5; k++) hexToRgba(p.status[k], this.badge, k * 4);
    this.badge[3] = 0; // status 0: no badge
    hexToRgba(p.selection, this.ring);
    hexToRgba(p.glow, this.glow);
    hexToRgba(p.background, this.background);
    this.dim = p.dimAlpha;
  }
}

/** Draws nodes and edges from their data textures. */
export class GraphPrograms {
  /** Nodes with no badge, ring or glow; `nodeDecor` draws the others (NODE_VS). */
  private node: Program;
  private nodeDecor: Program;
  private edge: Program;
  private ids: VertexIds | null;
  private nodeList: ListTexture;
  private edgeList: ListTexture;
  private lodList: ListTexture;
  private lodListSerial = -1;
  private lodListFrom: PixelLod | null = null;
  private liveNodes: ListTexture;
  private liveEdges: ListTexture;
  private exactList: ListTexture;
  private headList: ListTexture;
  private splitSerial = -1;
  private lines: LineProgram;

  constructor(private ctx: GLContext) {
    const w2 = ctx.webgl2;
    const attrib0 = w2 ? undefined : "a_vid";
    this.node = linkProgram(ctx.gl, vertexHeader(w2) + NODE_VS, fragmentHeader(w2) + NODE_FS, NODE_UNIFORMS, attrib0);
    const decor = "#define DECOR 1\n";
    this.nodeDecor = linkProgram(ctx.gl, vertexHeader(w2) + decor + NODE_VS, fragmentHeader(w2) + decor + NODE_FS, NODE_UNIFORMS, attrib0);
    this.edge = linkProgram(ctx.gl, vertexHeader(w2) + EDGE_VS, fragmentHeader(w2) + EDGE_FS, EDGE_UNIFORMS, attrib0);
    this.ids = w2 ? null : new VertexIds(ctx.gl);
    this.nodeList = new ListTexture(ctx);
    this.edgeList = new ListTexture(ctx);
    this.lodList = new ListTexture(ctx);
    this.exactList = new ListTexture(ctx);
    this.headList = new ListTexture(ctx);
    this.liveNodes = new ListTexture(ctx);
    this.liveEdges = new ListTexture(ctx);
    this.lines = new LineProgram(ctx);
  }

  /** Draws the edges then the nodes (nodes on top): all of them, only those in
   *  `visible` when its lists are active, or what `plan` replaces them with; counts what
   *  it submits in `cost`. */
  draw(nodes: DataTexture, nodeCount: number, edges: DataTexture, edgeCount: number, visible: VisibleSet,
    f: FrameUniforms, plan: LodPlan | null, cost: FrameCost): void {
    nodes.sync(0);
    cost.upload("nodes", nodes.uploadBytes);
    edges.sync(1);
    cost.upload("edges", edges.uploadBytes);
    const useList = visible.active;
    const edgeListTex = this.edgeList;
    let nodeListTex = this.nodeList;
    let nodeList: Float32Array | null = null;
    if (useList) {
      nodeCount = visible.nodeCount;
      edgeCount = visible.edgeCount;
      nodeList = visible.nodes;
      if (visible.changed) {
        cost.upload("nodes", this.nodeList.upload(2, visible.nodes, nodeCount));
        cost.upload("edges", this.edgeList.upload(3, visible.edges, edgeCount));
        visible.changed = false;
      } else {
        this.nodeList.bind(2);
        this.edgeList.bind(3);
      }
    }
    let nodeUseList = useList;
    if (plan?.nodes) {
      nodeUseList = true;
      nodeCount = plan.plainOnly ? plan.lod.plainCount : plan.lod.nodeCount;
      nodeListTex = this.lodList;
      nodeList = plan.lod.nodes;
      if (this.lodListSerial !== plan.lod.nodeSerial || this.lodListFrom !== plan.lod) {
        cost.upload("nodes", this.lodList.upload(4, plan.lod.nodes, plan.lod.nodeCount));
        this.lodListSerial = plan.lod.nodeSerial;
        this.lodListFrom = plan.lod;
      } else {
        this.lodList.bind(4);
      }
    }
    if (plan?.edges) {
      const lines = plan.lod.lineCount * plan.lod.lineVertices;
      cost.upload("edges", this.lines.draw(plan.lod, plan.width, plan.height));
      if (lines > 0) cost.draw("edges", lines);
      edgeCount = 0;
    }
    const nodeUnit = nodeListTex === this.lodList ? 4 : 2;
    if (plan?.edges && plan.split) {
      const split = plan.lod.split;
      const fresh = this.splitSerial !== split.serial;
      this.splitSerial = split.serial;
      if (split.exactCount > 0) {
        if (fresh) cost.upload("edges", this.exactList.upload(5, split.exact, split.exactCount));
        else this.exactList.bind(5);
        this.drawEdges(nodes, edges, f, split.exactCount, this.exactList, 5, true, 9, cost);
      }
      if (split.headCount > 0) {
        if (fresh) cost.upload("edges", this.headList.upload(6, split.heads, split.headCount));
        else this.headList.bind(6);
        this.drawEdges(nodes, edges, f, split.headCount, this.headList, 6, true, 3, cost);
      }
    } else if (edgeCount > 0) {
      this.drawEdges(nodes, edges, f, edgeCount, edgeListTex, 3, useList, f.edgeLines ? 2 : 9, cost);
    }
    if (nodeCount > 0) {
      const marks = decorations(nodes.source.data, nodeList, nodeCount, f.time, this.marks);
      this.drawNodes(nodes, f, nodeListTex, nodeUnit, nodeUseList, 0, nodeCount, cost, marks.decorated > 0);
      cost.layers.badges.vertices += marks.badges * (f.nodePoints ? 1 : 6);
    }
  }

  private readonly marks = { badges: 0, decorated: 0 };

  /** Draws records `first`.. `first + count` of the node list bound to `unit` (or the
   *  node records themselves without `useList`): those with no badge, ring or glow, then,
   *  unless `decorated` is false (none of them has one), those with one, on top. */
  drawNodes(nodes: DataTexture, f: FrameUniforms, list: ListTexture, unit: number, useList: boolean,
    first: number, count: number, cost: FrameCost, decorated = true): void {
    this.drawNodesWith(this.node, nodes, f, list, unit, useList, first, count, cost);
    if (decorated) this.drawNodesWith(this.nodeDecor, nodes, f, list, unit, useList, first, count, cost);
  }

  private drawNodesWith(program: Program, nodes: DataTexture, f: FrameUniforms, list: ListTexture, unit: number,
    useList: boolean, first: number, count: number, cost: FrameCost): void {
    const { gl } = this.ctx;
    const vpn = f.nodePoints ? 1 : 6;
    this.ids?.bind((first + count) * vpn);
    const u = program.uniform;
    gl.useProgram(program.program);
    this.setShared(u, list, unit, useList, nodes, f);
    gl.uniform1f(u.u_points, f.nodePoints ? 1 : 0);
    gl.uniform1f(u.u_hover, f.hover ? 1 : 0);
    gl.uniform4fv(u.u_fill, f.fill);
    gl.uniform4fv(u.u_stroke, f.stroke);
    gl.uniform4fv(u.u_badge, f.badge);
    gl.uniform1f(u.u_dim, f.dim);
    gl.uniform4fv(u.u_ring, f.ring);
    gl.uniform4fv(u.u_glow, f.glow);
    gl.uniform4fv(u.u_bg, f.background);
    gl.drawArrays(f.nodePoints ? gl.POINTS : gl.TRIANGLES, first * vpn, count * vpn);
    cost.draw("nodes", count * vpn);
  }

  /** Draws, over a cached picture, what it leaves out, as it looks now: the nodes listed
   *  in `live` (selected, glowing, hovered) and the edges in `edgeList` (the hovered node's). */
  drawLive(nodes: DataTexture, edges: DataTexture, f: FrameUniforms, live: Float32Array, liveCount: number,
    edgeList: Float32Array, edgeCount: number, cost: FrameCost): void {
    nodes.sync(0);
    cost.upload("overlays", nodes.uploadBytes);
    edges.sync(1);
    cost.upload("overlays", edges.uploadBytes);
    if (edgeCount > 0) {
      cost.upload("overlays", this.liveEdges.upload(6, edgeList, edgeCount));
      this.drawEdges(nodes, edges, f, edgeCount, this.liveEdges, 6, true, f.edgeLines ? 2 : 9, cost);
    }
    if (liveCount > 0) {
      cost.upload("overlays", this.liveNodes.upload(7, live, liveCount));
      this.drawNodes(nodes, f, this.liveNodes, 7, true, 0, liveCount, cost);
    }
  }

  /** Sets the uniforms both programs have: which records to draw (all, or those listed
   *  in `list`, bound to texture `unit`), the node texture, the camera and the clock. */
  private setShared(u: Program["uniform"], list: ListTexture, unit: number, useList: boolean, nodes: DataTexture,
    f: FrameUniforms): void {
    const { gl } = this.ctx;
    gl.uniform1i(u.u_list, unit);
    gl.uniform2f(u.u_listTex, list.width, Math.max(1, list.height));
    gl.uniform1f(u.u_useList, useList ? 1 : 0);
    gl.uniform1i(u.u_nodes, 0);
    gl.uniform2f(u.u_nodeTex, nodes.width, nodes.height);
    gl.uniform4fv(u.u_view, f.view);
    gl.uniform1f(u.u_px, f.px);
    gl.uniform1f(u.u_css, f.css);
    gl.uniform1f(u.u_time, f.time);
    gl.uniform2fv(u.u_move, f.move);
  }

  /** Draws `count` edges with the edge program: records 0.. or those listed in `list`
   *  (bound to texture `unit`); `vpe` vertices each: 2 plain lines, 9 quads with heads, 3
   *  heads only. */
  private drawEdges(nodes: DataTexture, edges: DataTexture, f: FrameUniforms, count: number, list: ListTexture, unit: number,
    useList: boolean, vpe: number, cost: FrameCost): void {
    const { gl } = this.ctx;
    this.ids?.bind(count * vpe);
    const u = this.edge.uniform;
    gl.useProgram(this.edge.program);
    this.setShared(u, list, unit, useList, nodes, f);
    gl.uniform1i(u.u_edges, 1);
    gl.uniform2f(u.u_edgeTex, edges.width, edges.height);
    gl.uniform1f(u.u_dim, f.dim);
    gl.uniform1f(u.u_lines, vpe === 2 ? 1 : 0);
    gl.uniform1f(u.u_heads, vpe === 3 ? 1 : 0);
    gl.uniform4fv(u.u_edge, f.edge);
    gl.drawArrays(vpe === 2 ? gl.LINES : gl.TRIANGLES, 0, count * vpe);
    cost.draw("edges", count * vpe);
  }

  destroy(): void {
    this.ctx.gl.deleteProgram(this.node.program);
    this.ctx.gl.deleteProgram(this.nodeDecor.program);
    this.ctx.gl.deleteProgram(this.edge.program);
    this.ids?.destroy();
    this.nodeList.destroy();
    this.edgeList.destroy();
    this.lodList.destroy();
    this.exactList.destroy();
    this.headList.destroy();
    this.liveNodes.destroy();
    this.liveEdges.destroy();
    this.lines.destroy();
  }
}

/** Of the first `count` records listed in `list` (of all records, without a list), how many
 *  carry a signature badge, and how many may be drawn with a badge, a ring (selected or
 *  hovered) or a glow at time `t` (a little early and late: the shader decides in 32-bit
 *  floats); written into `out`. */
export function decorations(data: Float32Array, list: Float32Array | null, count: number, t: number,
  out: { badges: number, decorated: number }): { badges: number, decorated: number } {
  let badges = 0, decorated = 0;
  for (let k = 0; k < count; k++) {
    const o = (list ? list[k] : k) * NODE_STRIDE;
    const badge = data[o + NSTATUS] > 0;
    if (badge) badges++;
    const age = t - data[o + NGLOW];
    if (badge || data[o + NFLAGS] & (Flag.Selected | Flag.Hover) || (age > -0.1 && age < GLOW_SECONDS + 0.1)) decorated++;
  }
  out.badges = badges;
  out.decorated = decorated;
  return out;
}
