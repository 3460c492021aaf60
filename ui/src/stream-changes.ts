// What the app does with each change a stream message makes to its graph model: the canvas
// draws what changed, the panels hear of it, and the status bar, timeline and filters follow
// at most every CHROME_MS and REFRESH_MS. Kept apart from app.ts, which owns the parts this
// steers and hands them over (see App.onStreamMessage).

import type { StreamMessage } from "./api/contract";
import type { CanvasArea } from "./canvas-area/canvas-area";
import type { GraphCanvasApi } from "./canvas/types";
import type { NeighbourhoodNotice } from "./clusters/neighbourhood-notice";
import type { GraphModel, ModelChange } from "./graph/model";
import { Coalesced } from "./live/stream";
import type { DatabaseState, StatusBar } from "./shell/statusbar";
import type { TopBar } from "./shell/topbar";
import type { SidePanel } from "./side-panel/side-panel";
import type { OwnLayout } from "./tidy/own-layout";

/** How often the status bar and timeline follow a live stream. */
const CHROME_MS = 100;
/** How often the filters, the walkthrough and a stale trail follow a live stream. */
const REFRESH_MS = 400;

/** The app as the stream's changes reach it. */
export interface StreamChangesHost {
  readonly model: GraphModel;
  readonly canvas: GraphCanvasApi;
  readonly canvasArea: CanvasArea;
  readonly ownLayout: OwnLayout;
  readonly graph: string | null;
  database: DatabaseState | null;
  openGraph(graph: string, root?: string): Promise<void>;
  minimapChanged(): void;
}

/** The app's own parts the changes update. */
export interface ChangedParts {
  readonly side: SidePanel;
  readonly statusbar: StatusBar;
  readonly notice: NeighbourhoodNotice;
  readonly topbar: TopBar;
}

export class StreamChanges {
  private readonly chrome: Coalesced;
  private readonly refresh: Coalesced;

  constructor(private readonly app: StreamChangesHost, private readonly parts: ChangedParts) {
    const { side, statusbar, topbar } = parts;
    // After live batches: the status bar and the timeline. Batches come up to a hundred
    // times a second; re-rendering those for each would keep the page's one thread from
    // drawing the graph and reading the stream.
    this.chrome = new Coalesced(CHROME_MS, () => {
      side.timeline.grew();
      statusbar.render();
    });
    // After live changes: filters' value lists, and the open trail when results arrived.
    this.refresh = new Coalesced(REFRESH_MS, () => {
      app.minimapChanged();
      topbar.refreshFilters();
      side.liveChanged();
    });
  }

  /** Applies one stream message to the model and passes the change on. */
  apply(msg: StreamMessage): ModelChange {
    const { app } = this;
    const { side, statusbar, notice } = this.parts;
    const change = app.model.apply(msg);
    switch (change.kind) {
      case "ignored":
        break;
      case "reset":
        side.trail.invalidate();
        if (app.graph) void app.openGraph(app.graph, app.model.mode === "neighbourhood" ? app.model.root ?? undefined : undefined);
        break;
      case "moves":
        // While this viewer's own layout is shown, the shared layout's moves wait behind it.
        if (app.ownLayout.sharedMoved(change.moves)) break;
        app.canvas.applyMoves(change.moves, 600);
        statusbar.render();
        this.refresh.schedule();
        break;
      case "clusters":
        if (change.added.length || change.updated.length) app.canvas.addBatch([...change.added, ...change.updated], []);
        if (change.edges.length) app.canvas.replaceEdges(change.edges);
        side.clustersChanged();
        app.minimapChanged();
        statusbar.render();
        notice.render();
        break;
      case "knowledge":
        side.details.knowledgeChanged(change.changes);
        break;
      case "database":
        app.database = change.state === "up" ? null : { state: change.state, message: change.message };
        statusbar.render();
        break;
      case "batch": {
        const nodes = [...change.added, ...change.updated];
        if (nodes.length > 0 || change.edges.length > 0) app.canvas.addBatch(nodes, change.edges);
        side.nodesArrived(nodes);
        // The canvas applies the current filters to new nodes itself.
        if (change.added.length > 0) {
          app.canvasArea.hideMessage();
          app.canvasArea.noteOffscreen(change.added);
        }
        this.chrome.schedule();
        if (change.verifications.length > 0 || change.updated.length > 0) side.trail.invalidate();
        this.refresh.schedule();
        break;
      }
    }
    return change;
  }
}
