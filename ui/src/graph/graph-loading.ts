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
  const extra = { ...size, ...(limit ? { limit } : {}), ...(cluster ? { cluster } : {}) };
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
