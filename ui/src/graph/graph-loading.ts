// Loading a graph's view, and remembering which graph is open (in the URL and in local
// storage) so a reload opens it again. The app decides what to do with the view.

import { BackendError, type Backend } from "../api/backend";
import type { View } from "../api/contract";

/** Depth of the neighbourhood loaded when a node of a large graph is expanded. */
export const EXPAND_DEPTH = 2;

/** The canvas's size in CSS pixels: the core packs a drawing to its aspect ratio. */
export interface Viewport { width: number, height: number }

/** The view of `graph` (around `root` if given); with `wait`, when a job has just been
 *  started into a new graph, waits a few seconds for the graph to exist rather than failing
 *  at once. `current()` says whether the load is still wanted. */
export async function loadView(backend: Pick<Backend, "view">, graph: string, root: string | undefined, wait: boolean,
  current: () => boolean, viewport: Viewport | null = null, cluster?: string): Promise<View> {
  const size = viewport && viewport.width >= 1 && viewport.height >= 1
    ? { viewport_width: Math.round(viewport.width), viewport_height: Math.round(viewport.height) }
    : {};
  const limit = wantedLimit();
  // In columns: a quarter of the bytes, decoded without an object per record (view-columns.ts).
  const extra = { ...size, ...(limit ? { limit } : {}), ...(cluster ? { cluster } : {}), columns: true };
  for (let attempt = 0; ; attempt++) {
    try {
      return await backend.view(root ? { graph, root, depth: EXPAND_DEPTH, ...extra } : { graph, ...extra });
    } catch (e) {
      const missing = e instanceof BackendError && /not.?found/i.test(e.code);
      if (!wait || !missing || attempt >= 12 || !current()) throw e;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

/** The view of the graph the URL names, asked for as the page starts (beside the health
 *  check, the graph list and the canvas's set-up), for the first open of that graph. */
export interface EarlyView {
  graph: string;
  view: Promise<View>;
}

/** The canvas's size as the page's frame will make it in a window of this size, for a view
 *  asked for before the frame is built (main.ts): the side panel's column and the bars above
 *  and below the canvas, as shell/layout.css and shell/status.css size them. Only a graph laid
 *  out for the first time uses it (its drawing is packed to this aspect ratio). */
export function estimatedViewport(width = window.innerWidth, height = window.innerHeight): Viewport {
  const side = width <= 1100 ? 360 : Math.min(480, Math.max(360, 0.34 * width));
  return { width: Math.max(0, width - side), height: Math.max(0, height - FRAME_BARS_HEIGHT) };
}

/** The height of the top bar and the status bar together, in CSS px. */
export const FRAME_BARS_HEIGHT = 77;

/** Asks for the view of the URL's `?graph=` now, if it names one. */
export function askEarly(backend: Pick<Backend, "view">, viewport: Viewport): EarlyView | null {
  const graph = new URL(window.location.href).searchParams.get("graph");
  if (!graph) return null;
  const view = loadView(backend, graph, undefined, false, () => true, viewport);
  view.catch(() => {}); // an error is the first open's to report, or nobody's
  return { graph, view };
}

/** The most nodes a view draws whole, from the URL's `?limit=` (none: the server's default;
 *  above it a graph opens as clusters). */
export function wantedLimit(): number | null {
  const n = Number(new URL(window.location.href).searchParams.get("limit"));
  return Number.isInteger(n) && n > 0 ? n : null;
}

/** The graph to open first: the URL's `?graph=`, else the one open last time. */
export function wantedGraph(): string | null {
  return new URL(window.location.href).searchParams.get("graph") ?? safeGet("provex.graph");
}

/** Remembers the open graph in local storage and in the URL (without a history entry). */
export function rememberGraph(graph: string): void {
  safeSet("provex.graph", graph);
  const url = new URL(window.location.href);
  url.searchParams.set("graph", graph);
  window.history.replaceState(window.history.state, "", url.toString());
}

function safeGet(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

function safeSet(key: string, value: string): void {
  try {
    localStorage.setItem(key, value);
  } catch {
    // not remembered
  }
}
