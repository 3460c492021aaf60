//! Whether a frame would draw the very picture already on screen, so that it can leave the
//! WebGL canvas (and the label overlay) as they are. While a live graph grows outside the
//! view, most frames are asked for by the glow of new nodes nobody can see, or by a batch
//! that landed elsewhere; yet each WebGL frame drawn costs the GPU process the same,
//! whatever it shows: in software rendering (SwiftShader) about 40 ms of CPU for a
//! 900 × 800 canvas (rasterising it and handing it to the compositor), and a frame that
//! does not touch the context costs it nothing.
//!
//! A frame's picture is the same as the last one drawn when its settings (camera, canvas
//! size, palette, hover and selection, level of detail) are the same, it draws the same
//! node and edge records (or the same merged lines), none of those records (nor an edge's
//! ends) changed since, none of its nodes glows at either time, and no node is moving.

import type { InstanceArray } from "./buffers";
import { GLOW_SECONDS, NGLOW, NODE_STRIDE } from "./scene";

/** What a frame draws, as far as its picture goes. */
export interface FrameShape {
  /** Every setting the picture depends on besides the records (uniforms, canvas size,
   *  palette and looks serials, level-of-detail switches), as numbers. */
  key: Float64Array;
  nodes: InstanceArray;
  edges: InstanceArray;
  edgeSrc: readonly number[];
  edgeTgt: readonly number[];
  /** Node records drawn: listed (`nodeList`, `nodeCount` of it), or all `nodeCount` of
   *  them when `nodeList` is null. */
  nodeList: Float32Array | null;
  nodeCount: number;
  /** Edge records the edge program draws, likewise (count 0: none): whole edges, and with
   *  the level of detail's split, only the heads of `headList`. */
  edgeList: Float32Array | null;
  edgeCount: number;
  headList: Float32Array | null;
  headCount: number;
  /** Line vertices made on the CPU (the level of detail's merged lines): the first
   *  `lineBytes` bytes of `lines`. */
  lines: Uint8Array | null;
  lineBytes: number;
  /** Until when (seconds) nodes move. */
  moveUntil: number;
}

export class StillFrames {
  private key: Float64Array<ArrayBufferLike> = new Float64Array(0);
  private nodeList: Float32Array<ArrayBufferLike> = new Float32Array(0);
  private nodeCount = -1;
  private allNodes = false;
  private edgeList: Float32Array<ArrayBufferLike> = new Float32Array(0);
  private edgeCount = -1;
  private allEdges = false;
  private headList: Float32Array<ArrayBufferLike> = new Float32Array(0);
  private headCount = -1;
  private lines: Uint8Array<ArrayBufferLike> = new Uint8Array(0);
  private lineBytes = -1;
  private drawnAt = -Infinity;
  private valid = false;
  /** Frames that left the picture on screen as it was. */
  kept = 0;

  /** Whether the frame at `time` (seconds) would draw the picture the last drawn frame
   *  did. If not, its shape is remembered as the one on screen (the caller draws it). */
  same(s: FrameShape, time: number): boolean {
    if (this.valid && this.unchanged(s, time)) {
      this.kept++;
      return true;
    }
    this.remember(s, time);
    return false;
  }

  /** The picture on screen is unknown (a new context, a cleared canvas, another drawing). */
  forget(): void {
    this.valid = false;
  }

  private unchanged(s: FrameShape, time: number): boolean {
    if (this.drawnAt < s.moveUntil || time < s.moveUntil) return false;
    if (!sameNumbers(this.key, s.key, s.key.length)) return false;
    if (this.allNodes !== (s.nodeList === null) || this.nodeCount !== s.nodeCount) return false;
    if (s.nodeList && !sameNumbers(this.nodeList, s.nodeList, s.nodeCount)) return false;
    if (this.allEdges !== (s.edgeList === null) || this.edgeCount !== s.edgeCount) return false;
    if (s.edgeList && !sameNumbers(this.edgeList, s.edgeList, s.edgeCount)) return false;
    if (this.headCount !== s.headCount || (s.headList && !sameNumbers(this.headList, s.headList, s.headCount))) return false;
    if (this.lineBytes !== (s.lines ? s.lineBytes : -1)) return false;
    if (s.lines && !sameNumbers(this.lines, s.lines, s.lineBytes)) return false;
    return !this.nodesChanged(s, time) && !edgesChanged(s, s.edgeList, s.edgeCount) && !edgesChanged(s, s.headList, s.headCount);
  }

  /** Whether a drawn node changed, or glows now or did when last drawn. */
  private nodesChanged(s: FrameShape, time: number): boolean {
    const d = s.nodes.data, list = s.nodeList, then = this.drawnAt;
    if (!list && s.nodes.anyChanged) return true;
    for (let k = 0; k < s.nodeCount; k++) {
      const i = list ? list[k] : k;
      if (list && s.nodes.changed(i)) return true;
      const at = d[i * NODE_STRIDE + NGLOW];
      if (glows(at, time) || glows(at, then)) return true;
    }
    return false;
  }

  private remember(s: FrameShape, time: number): void {
    this.key = copyInto(this.key, s.key, s.key.length);
    this.allNodes = s.nodeList === null;
    this.nodeCount = s.nodeCount;
    if (s.nodeList) this.nodeList = copyInto(this.nodeList, s.nodeList, s.nodeCount);
    this.allEdges = s.edgeList === null;
    this.edgeCount = s.edgeCount;
    if (s.edgeList) this.edgeList = copyInto(this.edgeList, s.edgeList, s.edgeCount);
    this.headCount = s.headCount;
    if (s.headList) this.headList = copyInto(this.headList, s.headList, s.headCount);
    this.lineBytes = s.lines ? s.lineBytes : -1;
    if (s.lines) this.lines = copyInto(this.lines, s.lines, s.lineBytes);
    this.drawnAt = time;
    this.valid = true;
  }
}

/** Whether a drawn edge (`count` of `list`, or all `count` edges), or a node at one of
 *  its ends, changed. */
function edgesChanged(s: FrameShape, list: Float32Array | null, count: number): boolean {
  if (count === 0) return false;
  if (!list) return s.edges.anyChanged || s.nodes.anyChanged;
  if (!s.edges.anyChanged && !s.nodes.anyChanged) return false;
  for (let k = 0; k < count; k++) {
    const e = list[k];
    if (s.edges.changed(e) || s.nodes.changed(s.edgeSrc[e]) || s.nodes.changed(s.edgeTgt[e])) return true;
  }
  return false;
}

function glows(at: number, t: number): boolean {
  const age = t - at;
  return age >= 0 && age < GLOW_SECONDS;
}

type Numbers = Float64Array | Float32Array | Uint8Array;

function sameNumbers(a: Numbers, b: Numbers, n: number): boolean {
  if (a.length < n) return false;
  for (let k = 0; k < n; k++) if (a[k] !== b[k]) return false;
  return true;
}

function copyInto<T extends Numbers>(into: T, from: T, n: number): T {
  let out = into;
  if (out.length < n) out = new (from.constructor as new (n: number) => T)(Math.max(n, out.length * 2));
  out.set(from.subarray(0, n) as never);
  return out;
}
