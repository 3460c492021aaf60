// Entry point: picks the backend (Tauri IPC in the desktop window, HTTP in a browser),
// starts the app, and exposes `window.provex` for end-to-end tests and the curious.

import "./style.css";
import type { Backend } from "./api/backend";
import { App } from "./app";
import { askEarly, estimatedViewport } from "./graph/graph-loading";
import { pickBackend } from "./shared/backends";
import type { GraphModel } from "./graph/model";
import type { GraphCanvasApi } from "./canvas/types";

declare global {
  interface Window {
    provex?: {
      model: GraphModel;
      canvas: GraphCanvasApi;
      backend: Backend;
      app: App;
      /** Selects a node as a click would, centres on it, and resolves when its panels have loaded. */
      select(id: string): Promise<void>;
    };
  }
}

async function main(): Promise<void> {
  const root = document.getElementById("app");
  if (!root) throw new Error("index.html has no #app");
  let backend: Backend;
  try {
    backend = await pickBackend();
  } catch (e) {
    root.textContent = `Provex cannot start: ${e instanceof Error ? e.message : String(e)}`;
    throw e;
  }
  // The URL's graph's view is asked for before the page is built: the server sends it
  // while the app makes its panels and canvas.
  const early = askEarly(backend, estimatedViewport());
  const app = new App(root, backend);
  const started = app.start(early);
  window.provex = {
    model: app.model,
    get canvas() {
      return app.canvas;
    },
    backend,
    app,
    select: (id: string) => app.select(id, { focus: true, from: "panel" }),
  };
  await started;
  document.documentElement.dataset.ready = "true";
}

void main();
