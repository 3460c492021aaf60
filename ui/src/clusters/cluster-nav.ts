// Moving through a cluster view (semantic zoom): a click on a box opens it, and so
// does zooming in until one box fills most of the canvas; each step is remembered for Back.

import type { Backend } from "../api/backend";
import type { GraphCanvasApi } from "../canvas/types";
import { isCluster, placeOf, type Place } from "../graph/clusters";
import type { GraphModel } from "../graph/model";

/** Share of the canvas's width a box must fill, zoomed in, for the zoom to open it (and the
 *  camera must have zoomed in ZOOMED_IN times past the view's first scale). */
export const OPEN_AT = 0.6;

/** What the navigation needs of the app. */
export interface ClusterNavHost {
  readonly backend: Pick<Backend, "clusterEdges">;
  readonly graph: string | null;
  readonly model: Pick<GraphModel, "mode" | "root" | "nodes" | "setClusterEdges">;
  readonly canvas: Pick<GraphCanvasApi, "screenPosition" | "replaceEdges">;
  readonly expandHistory: Place[];
  openGraph(graph: string, root?: string, opts?: { cluster?: string }): Promise<void>;
}

/** The box a zoomed-in view has come to: the one nearest the centre that is at least
 *  `OPEN_AT` of the canvas wide on screen, if any. `scale` is screen pixels per layout pixel. */
export function zoomedInto(boxes: Iterable<{ id: string, w: number }>, at: (id: string) => { x: number, y: number } | null,
  scale: number, width: number, height: number): string | null {
  let best: string | null = null;
  let dist = Infinity;
  for (const b of boxes) {
    if (b.w * scale < OPEN_AT * width) continue;
    const p = at(b.id);
    if (!p || p.x < 0 || p.y < 0 || p.x > width || p.y > height) continue;
    const d = Math.hypot(p.x - width / 2, p.y - height / 2);
    if (d < dist) {
      dist = d;
      best = b.id;
    }
  }
  return best;
}

/** How far past the view's first zoom the camera must go before a box opens by zooming. */
export const ZOOMED_IN = 1.3;

export class ClusterNav {
  private opening = false;
  /** The scale the current view was first drawn at (null: not drawn yet). */
  private base: number | null = null;

  constructor(private readonly host: ClusterNavHost) {}

  /** Opens box `id` when it is a cluster's; false when it is not (a node to select). */
  open(id: string): boolean {
    const { graph, model } = this.host;
    if (!graph || !isCluster(model.nodes.get(id)) || this.opening) return false;
    this.opening = true;
    this.host.expandHistory.push(placeOf(model.mode, model.root));
    void this.host.openGraph(graph, undefined, { cluster: id }).finally(() => { this.opening = false; });
    return true;
  }

  /** A new view was drawn: zooming is measured from its first scale. */
  viewShown(): void {
    this.base = null;
  }

  /** A cluster view arrived with its boxes: the edges between them follow (counting them
   *  takes seconds on a large graph); `current` says whether the view is still shown. */
  async loadEdges(graph: string, cluster: string | null, current: () => boolean): Promise<void> {
    let edges;
    try {
      edges = await this.host.backend.clusterEdges(cluster ? { graph, cluster } : { graph });
    } catch {
      return; // the boxes stand without their edges
    }
    if (!current()) return;
    // The view's live stream may have brought newer counts of some: the latest wins.
    const changed = this.host.model.setClusterEdges(edges);
    if (changed.length) this.host.canvas.replaceEdges(changed);
  }

  /** The camera moved: in a cluster view zoomed in on one box, that box opens. */
  viewChanged(scale: number, width: number, height: number): void {
    if (this.host.model.mode !== "clusters" || this.opening) return;
    // A view of one big box opens fitted: only the user's zooming in opens a box.
    if (this.base === null) this.base = scale;
    if (scale < this.base * ZOOMED_IN) return;
    const boxes = [...this.host.model.nodes.values()].filter(isCluster);
    const id = zoomedInto(boxes, (b) => this.host.canvas.screenPosition(b), scale, width, height);
    if (id) this.open(id);
  }
}
