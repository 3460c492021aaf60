//! What the rest of the UI may ask of the graph canvas (implemented by GraphCanvas in
//! renderer.ts). Positions are the core's layout pixels; the canvas never lays out.

import type { NodeMove, ViewEdge, ViewNode } from "../api/contract";
import type { FrameCost, FrameCostReport } from "./cost";

export type Theme = "light" | "dark";

export interface CanvasEvents {
  /** A click on a node (null: on empty space). `additive` when shift was held. */
  onSelect?(id: string | null, additive: boolean): void;
  onHover?(id: string | null): void;
  /** Double click on a node: the app expands it (large graphs) or opens its trail. */
  onActivate?(id: string): void;
  /** After a frame: the world rectangle on screen (the minimap follows it), and the frame's
   *  cost record, where what this draws may count itself (cost.ts). */
  onView?(view: { minX: number, minY: number, maxX: number, maxY: number }, cost?: FrameCost): void;
}

export interface FrameStats {
  /** Frames drawn since the canvas was made. */
  frames: number;
  /** Mean milliseconds per frame over the last second of drawing. */
  msPerFrame: number;
  /** Nodes and edges currently drawn. */
  nodes: number;
  edges: number;
  /** Edges longer than this (CSS px) were drawn in the last frame only with an end hovered
   *  or selected (0: every edge was drawn; see long-edges.ts). */
  longEdgePx?: number;
  /** How many edges that rule left out of the last frame. */
  longEdgesLeftOut?: number;
  /** Frames that left the picture on screen as it was, nothing in view having changed
   *  (still.ts). */
  stillFrames?: number;
  /** The camera's scale: CSS px per layout px. */
  scale?: number;
}

/** Edges' ends as node indices, in the order of the edges they go with. */
export interface EdgeEnds {
  source: ArrayLike<number>;
  target: ArrayLike<number>;
}

export interface GraphCanvasApi {
  /** Replaces everything drawn, then opens the first view: on the `focus` nodes when there
   *  are some (readably, see first-view.ts), else the whole drawing fitted. `ends`, when
   *  given, holds each edge's ends as places in `nodes` (not looked up by id then). */
  setGraph(nodes: ViewNode[], edges: ViewEdge[], focus?: string[], ends?: EdgeEnds | null): void;
  /** Adds new nodes and edges, and updates existing nodes' data (never their position).
   *  New nodes glow for about a second. Nothing already drawn moves. */
  addBatch(nodes: ViewNode[], edges: ViewEdge[]): void;
  /** Replaces the drawn edge between the same two nodes by each of `edges` (a cluster
   *  view's counts changed), adding those with no edge drawn between their nodes. */
  replaceEdges(edges: ViewEdge[]): void;
  /** Moves nodes (tidy-up), animated over `ms` milliseconds (0: at once); with `fit`, the
   *  view ends on the whole new layout, fitted. */
  applyMoves(moves: NodeMove[], ms: number, opts?: { fit?: boolean }): void;
  /** Draws only the nodes this returns true for (filters, timeline scrub); null: all. */
  setVisible(filter: ((n: ViewNode) => boolean) | null): void;
  /** Highlights these nodes and the edges between them (trace, path); others dimmed. */
  setHighlight(ids: Set<string> | null): void;
  setSelection(ids: string[]): void;
  /** Centres on a node, zooming in if far out. */
  focus(id: string, animateMs?: number): void;
  fit(): void;
  /** Fits these nodes in view (where they are drawn now, or are moving to), animated;
   *  `top`: CSS px at the top of the canvas that something over it covers. */
  fitTo(ids: readonly string[], animateMs?: number, opts?: { top?: number }): void;
  /** Moves the view (no zoom) so that the world point (x, y) is at its centre. */
  centerOn(x: number, y: number): void;
  zoomBy(factor: number): void;
  panBy(dx: number, dy: number): void;
  setTheme(theme: Theme): void;
  /** The node's centre in CSS pixels relative to the canvas element, or null if unknown. */
  screenPosition(id: string): { x: number, y: number } | null;
  /** The current drawing as a PNG. */
  toPNG(): Promise<Blob>;
  /** The current view (visible nodes and edges) as a standalone SVG document. */
  toSVG(): string;
  stats(): FrameStats;
  /** What the last frame cost, by layer (script, draw calls, vertices, uploads). */
  frameCost(): FrameCostReport;
  /** Resolves in a task after the next frame is drawn (at most about 100 ms on), for work
   *  that frame does not show. */
  afterFrame?(): Promise<void>;
  /** The shown node nearest the centre of the view, or null (none drawn). */
  nearestToCentre?(): string | null;
  /** The node labels the last frame drew: node id, font size in CSS px, text (its lines
   *  joined), how many lines, and whether it is the node's whole caption (no ellipsis). */
  drawnLabels(): { id: string, font: number, text: string, lines?: number, whole?: boolean }[];
  destroy(): void;
}
