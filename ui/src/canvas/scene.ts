//! The drawn graph as flat typed arrays (what the GPU draws) plus the bookkeeping that
//! keeps them right as batches arrive, nodes move, and filters, highlights, selection and
//! hover change. No WebGL here, so all of it can be tested in Node.

import type { NodeMove, ViewEdge, ViewNode } from "../api/contract";
import { InstanceArray } from "./buffers";
import { SpatialGrid } from "./spatial";
import { SideHistogram } from "./sides";
import type { Bounds } from "./camera";
import { badgeCode, edgeKind, shapeOf } from "./style";
import type { EdgeEnds } from "./types";
import { TripleMap } from "../shared/triple-map";
import { Adjacency } from "./adjacency";

/** Node record layout (three RGBA texels in the node data texture): target centre,
 *  previous centre (moves animate from it); size, shape code, status code; flag bits,
 *  glow start time (seconds), two unused. */
export const NODE_STRIDE = 12;
export const NX = 0, NY = 1, NPX = 2, NPY = 3, NW = 4, NH = 5, NSHAPE = 6, NSTATUS = 7, NFLAGS = 8, NGLOW = 9;

/** Edge record layout (one RGBA texel): source and target node indices, edge kind, flag
 *  bits. The shaders read the endpoints' positions from the node texture, so edges
 *  follow node moves without being rewritten. */
export const EDGE_STRIDE = 4;
export const ESRC = 0, ETGT = 1, EKIND = 2, EFLAGS = 3;

/** Flag bits (stored as a float; the shaders decode them with floor/mod). */
export const Flag = { Hidden: 1, Dim: 2, Selected: 4, Highlight: 8, Hover: 16 } as const;

export const GLOW_SECONDS = 1.2;
/** Glow start time meaning "never glowed". */
export const NO_GLOW = -1e6;

/** Easing of node moves; the node shader uses the same curve. */
export function moveEase(t: number): number {
  const c = t < 0 ? 0 : t > 1 ? 1 : t;
  return c * c * (3 - 2 * c);
}

export class Scene {
  readonly nodes = new InstanceArray(NODE_STRIDE, 1024);
  readonly edges = new InstanceArray(EDGE_STRIDE, 1024);
  /** The node data by instance index, as last received. Its x, y are not kept current:
   *  positions live in `nodes.data`. */
  views: ViewNode[] = [];
  readonly index = new Map<string, number>();
  edgeViews: ViewEdge[] = [];
  edgeSrc: number[] = [];
  edgeTgt: number[] = [];
  readonly adjacency = new Adjacency();
  /** The indices of the edges touching node `i` (adjacency.ts: built when first asked). */
  edgesOf(i: number): ArrayLike<number> & Iterable<number> {
    return this.adjacency.of(i, this.nodes.count, this.edgeSrc, this.edgeTgt);
  }
  /** Edges whose endpoints have not arrived yet. */
  pending: ViewEdge[] = [];
  /** The edges drawn, by their ends' indices and their type's number: numbers in typed
   *  arrays (shared/triple-map.ts), so that a 77,000-edge view is neither 77,000 strings
   *  nor 77,000 boxed numbers to build and hash. */
  private edgeKeys = new TripleMap();
  /** Edge types seen, numbered for edgeKeys. */
  private edgeTypes = new Map<string, number>();
  /** 1 when the node passes the visibility filter. */
  private shown = new Uint8Array(1024);
  grid = new SpatialGrid();

  private filter: ((n: ViewNode) => boolean) | null = null;
  private highlight: Set<string> | null = null;
  private selected = new Set<number>();
  hovered = -1;

  visibleNodes = 0;
  visibleEdges = 0;

  /** The running move animation, in seconds (the node shader reads these as uniforms). */
  moveStart = 0;
  moveSeconds = 0;
  private moving: number[] = [];
  /** Until when (seconds) some node glows. */
  glowUntil = NO_GLOW;
  /** The tallest node box seen (labels are skipped while even it is too small to read). */
  maxNodeHeight = 0;
  maxNodeWidth = 0;
  /** Nodes by the larger side of their box, in quarter octaves (see sideAtShare). */
  private readonly sides = new SideHistogram();
  /** The part of `looks` that hover changes made (see stableLooks). */
  private hoverLooks = 0;
  /** Bumped whenever node positions, sizes or visibility change. */
  version = 0;
  private boundsAt = -1;
  private boundsCache: Bounds | null = null;

  /** Bounds of the visible nodes at their target positions, or null if none. */
  bounds(): Bounds | null {
    if (this.boundsAt !== this.version) {
      this.boundsCache = this.grid.bounds();
      this.boundsAt = this.version;
    }
    return this.boundsCache;
  }

  /** Changes whenever any node or edge record does (flags, data, positions). */
  get looks(): number {
    return this.nodes.revision + this.edges.revision;
  }

  /** Changes whenever a record changes other than by hovering (a drawing that leaves
   *  hover out, like the cached picture of renderer.ts, need not follow the pointer). */
  get stableLooks(): number {
    return this.looks - this.hoverLooks;
  }

  /** The side (world units, the larger of width and height) that `share` (0..1) of the
   *  nodes are no larger than, to within a quarter octave: what a zoom makes of most nodes,
   *  whatever a few wide ones do. */
  sideAtShare(share: number): number {
    return this.sides.atShare(share, this.nodes.count, Math.max(this.maxNodeWidth, this.maxNodeHeight));
  }

  get nodeCount(): number {
    return this.nodes.count;
  }
  get edgeCount(): number {
    return this.edges.count;
  }

  /** Replaces everything. Nothing glows. `ends`, when given, holds each edge's ends as
   *  places in `nodes` (the model's node numbers), so they are not looked up by id. */
  reset(nodes: ViewNode[], edges: ViewEdge[], ends: EdgeEnds | null = null): void {
    this.empty(nodes, edges.length);
    this.version++;
    this.nodes.reserve(nodes.length);
    // Ids all different (a model's list always is): appended without a look-up each. An id
    // given twice: taken again the careful way, the later copy updating the earlier.
    for (const v of nodes) this.appendNode(v, NO_GLOW);
    if (this.index.size !== nodes.length) {
      this.empty(nodes, edges.length);
      this.add(nodes, [], NO_GLOW);
    }
    if (ends) this.addNumbered(edges, ends);
    else this.add([], edges, NO_GLOW);
  }

  /** Forgets every node and edge, ready for `nodes` and `edgeCount` edges. */
  private empty(nodes: ViewNode[], edgeCount: number): void {
    this.nodes.clear();
    this.edges.clear();
    this.views = [];
    this.index.clear();
    this.edgeViews = [];
    this.edgeSrc = [];
    this.edgeTgt = [];
    this.adjacency.clear();
    this.pending = [];
    this.edgeKeys.clear(edgeCount);
    this.selected.clear();
    this.hovered = -1;
    this.visibleNodes = 0;
    this.visibleEdges = 0;
    this.moving = [];
    this.moveSeconds = 0;
    this.glowUntil = NO_GLOW;
    this.maxNodeHeight = 0;
    this.maxNodeWidth = 0;
    this.sides.clear();
    this.hoverLooks = 0;
    let sum = 0;
    for (const n of nodes) sum += Math.max(n.w, n.h);
    this.grid = new SpatialGrid(nodes.length ? Math.max(8, (2 * sum) / nodes.length) : 256);
  }

  /** Adds edges whose ends are given as node indices, checked against the ends' ids (the
   *  same strings, so no hashing): an edge whose numbers do not fit is looked up by id. */
  private addNumbered(edges: ViewEdge[], ends: EdgeEnds): void {
    this.edges.reserve(this.edges.count + edges.length);
    const views = this.views, count = views.length;
    for (let i = 0; i < edges.length; i++) {
      const e = edges[i], s = ends.source[i], t = ends.target[i];
      if (s < count && t < count && views[s].id === e.source && views[t].id === e.target) this.addEdgeAt(e, s, t);
      else if (!this.tryAddEdge(e)) this.pending.push(e);
    }
  }

  /** Adds new nodes (glowing from `glowAt` seconds) and edges; updates the data and size
   *  of nodes already drawn, never their position. Returns how many nodes were new. */
  add(nodes: ViewNode[], edges: ViewEdge[], glowAt: number): number {
    this.version++;
    if (this.nodes.count === 0 && this.grid.cellSize === 256 && nodes.length) {
      let sum = 0;
      for (const n of nodes) sum += Math.max(n.w, n.h);
      this.grid = new SpatialGrid(Math.max(8, (2 * sum) / nodes.length));
    }
    let added = 0;
    this.nodes.reserve(this.nodes.count + nodes.length);
    for (const v of nodes) {
      const i = this.index.get(v.id);
      if (i === undefined) {
        this.appendNode(v, glowAt);
        added++;
      } else {
        this.updateNode(i, v);
      }
    }
    if (added > 0 && glowAt > NO_GLOW) this.glowUntil = Math.max(this.glowUntil, glowAt + GLOW_SECONDS);
    this.edges.reserve(this.edges.count + edges.length);
    if (added > 0 && this.pending.length) {
      const waiting = this.pending;
      this.pending = [];
      for (const e of waiting) if (!this.tryAddEdge(e)) this.pending.push(e);
    }
    for (const e of edges) if (!this.tryAddEdge(e)) this.pending.push(e);
    return added;
  }

  private ensureShown(n: number): void {
    if (n <= this.shown.length) return;
    let cap = this.shown.length;
    while (cap < n) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.shown);
    this.shown = next;
  }

  private appendNode(v: ViewNode, glowAt: number): void {
    const i = this.nodes.push();
    this.views.push(v);
    this.index.set(v.id, i);
    const d = this.nodes.data, o = i * NODE_STRIDE;
    d[o + NX] = d[o + NPX] = v.x;
    d[o + NY] = d[o + NPY] = v.y;
    d[o + NW] = v.w;
    d[o + NH] = v.h;
    d[o + NSHAPE] = shapeOf(v.base_type);
    d[o + NSTATUS] = badgeCode(v);
    d[o + NGLOW] = glowAt;
    this.sides.add(v.w, v.h);
    if (v.h > this.maxNodeHeight) this.maxNodeHeight = v.h;
    if (v.w > this.maxNodeWidth) this.maxNodeWidth = v.w;
    this.ensureShown(i + 1);
    this.shown[i] = this.filter && !this.filter(v) ? 0 : 1;
    this.grid.set(i, v.x, v.y, v.w, v.h, d[o + NSHAPE]);
    this.grid.setHidden(i, !this.shown[i]);
    d[o + NFLAGS] = this.nodeFlags(i);
    if (this.shown[i]) this.visibleNodes++;
  }

  private updateNode(i: number, v: ViewNode): void {
    this.views[i] = v;
    const d = this.nodes.data, o = i * NODE_STRIDE;
    const shape = shapeOf(v.base_type);
    const sized = d[o + NW] !== v.w || d[o + NH] !== v.h || d[o + NSHAPE] !== shape;
    this.sides.remove(d[o + NW], d[o + NH]);
    this.sides.add(v.w, v.h);
    d[o + NW] = v.w;
    d[o + NH] = v.h;
    d[o + NSHAPE] = shape;
    if (v.h > this.maxNodeHeight) this.maxNodeHeight = v.h;
    if (v.w > this.maxNodeWidth) this.maxNodeWidth = v.w;
    d[o + NSTATUS] = badgeCode(v);
    const was = this.shown[i];
    this.shown[i] = this.filter && !this.filter(v) ? 0 : 1;
    if (was !== this.shown[i]) this.visibleNodes += this.shown[i] ? 1 : -1;
    if (sized) this.grid.set(i, d[o + NX], d[o + NY], v.w, v.h, shape);
    this.grid.setHidden(i, !this.shown[i]);
    this.nodes.markDirty(i);
    this.refreshNode(i, was !== this.shown[i]);
  }

  /** Replaces the data of the drawn edge between the same two nodes (a cluster view's edge
   *  whose count changed), or adds the edge when none is drawn between them. */
  replaceEdges(edges: ViewEdge[]): void {
    this.version++;
    for (const e of edges) {
      const s = this.index.get(e.source), t = this.index.get(e.target);
      const ei = s === undefined || t === undefined
        ? undefined
        : [...this.edgesOf(s)].find((i) => this.edgeSrc[i] === s && this.edgeTgt[i] === t);
      if (ei === undefined) {
        if (!this.tryAddEdge(e)) this.pending.push(e);
        continue;
      }
      this.forgetEdgeKey(s!, t!, this.edgeViews[ei].type);
      this.rememberEdgeKey(s!, t!, e.type);
      this.edgeViews[ei] = e;
      this.edges.data[ei * EDGE_STRIDE + EKIND] = edgeKind(e.type);
      this.edges.markDirty(ei);
    }
  }

  private tryAddEdge(e: ViewEdge): boolean {
    const s = this.index.get(e.source), t = this.index.get(e.target);
    if (s === undefined || t === undefined) return false;
    this.addEdgeAt(e, s, t);
    return true;
  }

  /** Adds an edge between nodes `s` and `t` unless the same one is drawn. */
  private addEdgeAt(e: ViewEdge, s: number, t: number): void {
    if (!this.rememberEdgeKey(s, t, e.type)) return;
    const ei = this.edges.push();
    this.edgeViews.push(e);
    this.edgeSrc.push(s);
    this.edgeTgt.push(t);
    this.adjacency.edgeAdded(ei, s, t);
    const o = ei * EDGE_STRIDE, ed = this.edges.data;
    ed[o + ESRC] = s;
    ed[o + ETGT] = t;
    ed[o + EKIND] = edgeKind(e.type);
    ed[o + EFLAGS] = this.edgeFlags(ei);
    if (!(ed[o + EFLAGS] & Flag.Hidden)) this.visibleEdges++;
  }

  private typeNumber(type: string): number {
    let k = this.edgeTypes.get(type);
    if (k === undefined) {
      k = this.edgeTypes.size;
      this.edgeTypes.set(type, k);
    }
    return k;
  }

  /** Records an edge's key; false when it was already there. */
  private rememberEdgeKey(s: number, t: number, type: string): boolean {
    return this.edgeKeys.add(s, t, this.typeNumber(type));
  }

  private forgetEdgeKey(s: number, t: number, type: string): void {
    this.edgeKeys.delete(s, t, this.typeNumber(type));
  }

  /** Recomputes an edge's flags from its nodes. */
  private refreshEdge(ei: number): void {
    const o = ei * EDGE_STRIDE + EFLAGS, ed = this.edges.data;
    const f = this.edgeFlags(ei);
    if (ed[o] === f) return;
    if ((ed[o] & Flag.Hidden) !== (f & Flag.Hidden)) this.visibleEdges += f & Flag.Hidden ? -1 : 1;
    ed[o] = f;
    this.edges.markDirty(ei);
  }

  nodeFlags(i: number): number {
    let f = 0;
    if (!this.shown[i]) f |= Flag.Hidden;
    if (this.highlight) f |= this.highlight.has(this.views[i].id) ? Flag.Highlight : Flag.Dim;
    if (this.selected.has(i)) f |= Flag.Selected;
    if (this.hovered === i) f |= Flag.Hover;
    return f;
  }

  edgeFlags(ei: number): number {
    const s = this.edgeSrc[ei], t = this.edgeTgt[ei];
    let f = 0;
    if (!this.shown[s] || !this.shown[t]) f |= Flag.Hidden;
    if (this.highlight) {
      const both = this.highlight.has(this.views[s].id) && this.highlight.has(this.views[t].id);
      f |= both ? Flag.Highlight : Flag.Dim;
    }
    if (this.hovered >= 0 && (s === this.hovered || t === this.hovered)) f |= Flag.Hover;
    return f;
  }

  /** Recomputes a node's flags (and, if asked, rewrites its edges). */
  private refreshNode(i: number, edgesToo: boolean): void {
    const d = this.nodes.data, o = i * NODE_STRIDE;
    const f = this.nodeFlags(i);
    if (d[o + NFLAGS] !== f) {
      d[o + NFLAGS] = f;
      this.nodes.markDirty(i);
    }
    if (!edgesToo) return;
    for (const ei of this.edgesOf(i)) this.refreshEdge(ei);
  }

  private refreshAll(): void {
    const d = this.nodes.data;
    let visible = 0;
    for (let i = 0; i < this.nodes.count; i++) {
      d[i * NODE_STRIDE + NFLAGS] = this.nodeFlags(i);
      if (this.shown[i]) visible++;
    }
    this.visibleNodes = visible;
    const ed = this.edges.data;
    visible = 0;
    for (let ei = 0; ei < this.edges.count; ei++) {
      const f = this.edgeFlags(ei);
      ed[ei * EDGE_STRIDE + EFLAGS] = f;
      if (!(f & Flag.Hidden)) visible++;
    }
    this.visibleEdges = visible;
    this.nodes.markAll();
    this.edges.markAll();
  }

  setVisible(filter: ((n: ViewNode) => boolean) | null): void {
    this.version++;
    this.filter = filter;
    let changed = false;
    for (let i = 0; i < this.nodes.count; i++) {
      const shown = filter && !filter(this.views[i]) ? 0 : 1;
      if (this.shown[i] === shown) continue;
      this.shown[i] = shown;
      this.grid.setHidden(i, !shown);
      changed = true;
    }
    // Flags follow from what is shown: when nothing changed (a new view shown whole, a
    // filter that keeps every node), there is nothing to recompute or upload.
    if (changed) this.refreshAll();
  }

  setHighlight(ids: Set<string> | null): void {
    if (ids === null && this.highlight === null) return;
    this.highlight = ids ? new Set(ids) : null;
    this.refreshAll();
  }

  setSelection(ids: string[]): void {
    const old = this.selected;
    this.selected = new Set<number>();
    for (const id of ids) {
      const i = this.index.get(id);
      if (i !== undefined) this.selected.add(i);
    }
    for (const i of old) if (!this.selected.has(i)) this.refreshNode(i, false);
    for (const i of this.selected) this.refreshNode(i, false);
  }

  /** Marks the hovered node (and its edges); -1 for none. Returns whether it changed. */
  setHover(i: number): boolean {
    if (i === this.hovered) return false;
    const old = this.hovered, before = this.looks;
    this.hovered = i;
    if (old >= 0 && old < this.nodes.count) this.refreshNode(old, true);
    if (i >= 0) this.refreshNode(i, true);
    this.hoverLooks += this.looks - before;
    return true;
  }

  isShown(i: number): boolean {
    return this.shown[i] === 1;
  }

  /** Progress (0..1, eased) of the move animation at time `now` (seconds). */
  moveProgress(now: number): number {
    return this.moveSeconds > 0 ? moveEase((now - this.moveStart) / this.moveSeconds) : 1;
  }

  /** Where node `i` is drawn at time `now` (seconds). */
  positionX(i: number, now: number): number {
    const d = this.nodes.data, o = i * NODE_STRIDE;
    return d[o + NPX] + (d[o + NX] - d[o + NPX]) * this.moveProgress(now);
  }
  positionY(i: number, now: number): number {
    const d = this.nodes.data, o = i * NODE_STRIDE;
    return d[o + NPY] + (d[o + NY] - d[o + NPY]) * this.moveProgress(now);
  }

  /** Moves nodes to new centres, animated over `seconds` from `now`. A move arriving while
   *  another runs continues from where each node is drawn, without a jump. */
  applyMoves(moves: NodeMove[], seconds: number, now: number): void {
    this.version++;
    const d = this.nodes.data;
    const p = this.moveProgress(now);
    const touched = new Set<number>();
    // Settle the running animation: its nodes start again from where they are drawn.
    for (const i of this.moving) {
      const o = i * NODE_STRIDE;
      d[o + NPX] += (d[o + NX] - d[o + NPX]) * p;
      d[o + NPY] += (d[o + NY] - d[o + NPY]) * p;
      touched.add(i);
    }
    for (const m of moves) {
      const i = this.index.get(m.id);
      if (i === undefined || !Number.isFinite(m.x) || !Number.isFinite(m.y)) continue;
      const o = i * NODE_STRIDE;
      d[o + NX] = m.x;
      d[o + NY] = m.y;
      this.grid.set(i, m.x, m.y, d[o + NW], d[o + NH], d[o + NSHAPE]);
      touched.add(i);
    }
    const animate = seconds > 0;
    this.moving = [];
    for (const i of touched) {
      const o = i * NODE_STRIDE;
      if (!animate) {
        d[o + NPX] = d[o + NX];
        d[o + NPY] = d[o + NY];
      } else if (d[o + NPX] !== d[o + NX] || d[o + NPY] !== d[o + NY]) {
        this.moving.push(i);
      }
      this.nodes.markDirty(i);
    }
    this.moveStart = now;
    this.moveSeconds = animate && this.moving.length ? seconds : 0;
  }

  /** Until when (seconds) the move animation runs. */
  get moveUntil(): number {
    return this.moveSeconds > 0 ? this.moveStart + this.moveSeconds : NO_GLOW;
  }
}
