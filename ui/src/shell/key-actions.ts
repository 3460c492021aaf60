// What the keyboard shortcuts (keys.ts) do to the app: search, fit, zoom, pan or walk the
// selection along edges, tidy, escape (which closes the lineage, reasoning or trace view, then leaves "Show on graph", first), help, theme,
// legend.

import type { GraphCanvasApi, Theme } from "../canvas/types";
import { neighbourToward } from "../graph/along-edges";
import type { GraphModel } from "../graph/model";
import type { SelectFn } from "../shared/host";
import type { HelpOverlay } from "./help";
import { keyAction } from "./keys";
import type { Legend } from "../canvas-area/legend";
import type { TopBar } from "./topbar";

/** What the shortcuts need of the app. */
export interface KeyHost {
  readonly canvas: Pick<GraphCanvasApi, "zoomBy" | "panBy" | "nearestToCentre">;
  readonly model: Pick<GraphModel, "nodes" | "edges">;
  readonly selection: string[];
  readonly topbar: Pick<TopBar, "focusSearch" | "closeMenus">;
  readonly canvasArea: { readonly legend: Pick<Legend, "setOpen" | "isOpen"> };
  readonly help: Pick<HelpOverlay, "open" | "toggle">;
  readonly lineages: { readonly view: { readonly isOpen: boolean; close(): void } };
  readonly reasoning: { readonly view: { readonly isOpen: boolean; close(): void } };
  readonly traces: { readonly view: { readonly isOpen: boolean; close(): void } };
  /** What "Show on graph" shows alone; Escape brings the whole graph back. */
  readonly subject: { readonly active: boolean; clear(): void };
  readonly theme: Theme;
  select: SelectFn;
  shownFilter(): ((id: string) => boolean) | null;
  fitView(): void;
  tidy(): Promise<void>;
  clearSelection(): void;
  setTheme(theme: Theme): void;
}

export function onKey(app: KeyHost, ev: KeyboardEvent): void {
  // A control that has the keyboard used the key itself (a waterfall's rows walk with arrows).
  if (ev.defaultPrevented) return;
  const action = keyAction(ev);
  if (!action) return;
  // Enter belongs to whatever has focus (a button, a link) unless that is the graph.
  const onGraph = (ev.target as Element | null)?.classList?.contains("provex-graph-canvas") ?? false;
  if (action.kind === "enter" && !onGraph) return;
  ev.preventDefault();
  switch (action.kind) {
    case "search": app.topbar.focusSearch(); break;
    case "fit": app.fitView(); break;
    case "zoom": app.canvas.zoomBy(action.factor); break;
    case "pan": {
      // With a selection, arrows walk along its edges; without one (or with Shift), they pan.
      const from = app.selection[app.selection.length - 1];
      const to = from && action.arrow
        ? neighbourToward(app.model.nodes, app.model.edges.values(), from, action.arrow, app.shownFilter())
        : null;
      if (to) void app.select(to, { focus: true, from: "canvas" });
      else if (!from || !action.arrow) app.canvas.panBy(action.dx, action.dy);
      break;
    }
    case "tidy": void app.tidy(); break;
    case "enter": {
      const id = app.canvas.nearestToCentre?.();
      if (id) void app.select(id, { focus: true, from: "canvas" });
      break;
    }
    case "escape":
      if (app.help.open) app.help.toggle(false);
      else if (app.reasoning.view.isOpen) app.reasoning.view.close();
      else if (app.lineages.view.isOpen) app.lineages.view.close();
      else if (app.traces.view.isOpen) app.traces.view.close();
      else if (app.subject.active) app.subject.clear();
      else if (app.topbar.closeMenus()) { /* a menu was closed */ }
      else app.clearSelection();
      break;
    case "help": app.help.toggle(); break;
    case "theme": app.setTheme(app.theme === "dark" ? "light" : "dark"); break;
    case "legend": app.canvasArea.legend.setOpen(!app.canvasArea.legend.isOpen); break;
  }
}
