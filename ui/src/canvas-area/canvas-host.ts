// Makes the graph canvas (GraphCanvas from canvas/renderer.ts). When it cannot be made
// (the renderer threw), a stand-in that draws nothing keeps every panel working and the
// reason is shown in the canvas area.

import type { NodeMove, ViewEdge, ViewNode } from "../api/contract";
import { GraphCanvas } from "../canvas/renderer";
import type { CanvasEvents, FrameStats, GraphCanvasApi, Theme } from "../canvas/types";
import { FrameCost, type FrameCostReport } from "../canvas/cost";

export function createCanvas(container: HTMLElement, events: CanvasEvents, theme: Theme): { canvas: GraphCanvasApi; problem: string | null } {
  try {
    return { canvas: new GraphCanvas(container, events, theme), problem: null };
  } catch (e) {
    console.error("provex: canvas", e);
    return { canvas: new NullCanvas(), problem: `The graph canvas could not start: ${e instanceof Error ? e.message : String(e)}` };
  }
}

/** Keeps the app usable without a drawing: remembers the graph, draws nothing. */
export class NullCanvas implements GraphCanvasApi {
  private nodes = new Map<string, ViewNode>();
  private edges = 0;
  setGraph(nodes: ViewNode[], edges: ViewEdge[]): void {
    this.nodes = new Map(nodes.map((n) => [n.id, n]));
    this.edges = edges.length;
  }
  addBatch(nodes: ViewNode[], edges: ViewEdge[]): void {
    for (const n of nodes) this.nodes.set(n.id, n);
    this.edges += edges.length;
  }
  replaceEdges(_edges: ViewEdge[]): void {}
  applyMoves(_moves: NodeMove[], _ms: number): void {}
  setVisible(_filter: ((n: ViewNode) => boolean) | null): void {}
  setHighlight(_ids: Set<string> | null): void {}
  setSelection(_ids: string[]): void {}
  focus(_id: string, _animateMs?: number): void {}
  fit(): void {}
  fitTo(_ids: readonly string[], _animateMs?: number, _opts?: { top?: number }): void {}
  centerOn(_x: number, _y: number): void {}
  zoomBy(_factor: number): void {}
  panBy(_dx: number, _dy: number): void {}
  setTheme(_theme: Theme): void {}
  screenPosition(_id: string): { x: number; y: number } | null {
    return null;
  }
  toPNG(): Promise<Blob> {
    return Promise.reject(new Error("No canvas to export"));
  }
  toSVG(): string {
    throw new Error("No canvas to export");
  }
  drawnLabels(): { id: string, font: number, text: string }[] {
    return [];
  }
  stats(): FrameStats {
    return { frames: 0, msPerFrame: 0, nodes: this.nodes.size, edges: this.edges };
  }
  frameCost(): FrameCostReport {
    return new FrameCost().report();
  }
  destroy(): void {}
}
