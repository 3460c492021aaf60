//! First paint as the benchmarks time it: navigation start → the first frame the canvas
//! draws after the app hands it the whole graph (`setGraph`), with the page's resource
//! timing of the view. Used by run.mjs (its first-paint, pan-zoom, big and views passes)
//! and first-paint-ab.mjs.

const { newPage, until } = await import("../../ui/e2e/harness.mjs");
const { startProfile, CPU_CATEGORIES } = await import("./profile.mjs");

/** The page's size in CSS px, at DPR 1. */
export const VIEWPORT = { width: 1400, height: 900 };

/**
 * Installed before the page's scripts: when the app publishes `window.provex`, wraps its
 * canvas's setGraph to record when the graph was handed to the canvas and when the first
 * frame after that was drawn (an animation-frame callback queued after the canvas's own
 * frame request runs right after that frame is drawn), and when the model took the view.
 */
export function firstPaintProbe() {
  let value;
  window.__paint = { setGraph: [] };
  Object.defineProperty(window, "provex", {
    configurable: true,
    get: () => value,
    set: (v) => {
      value = v;
      const canvas = v.canvas;
      const orig = canvas.setGraph.bind(canvas);
      // When the model took the view (the columns decoded, nodes and edges keyed).
      const model = v.model, apply = model.applyView.bind(model);
      model.applyView = (view) => {
        const modelStart = performance.now();
        apply(view);
        window.__paint.model = { modelStart, modelEnd: performance.now() };
      };
      // Every argument passed on (the first view's focus, the edges' ends): the page draws
      // what it would unwatched.
      canvas.setGraph = (...args) => {
        const nodes = args[0], start = performance.now();
        orig(...args);
        const rec = { n: nodes.length, start, at: performance.now(), frames: canvas.stats().frames, drawnAt: null, ...window.__paint.model };
        window.__paint.setGraph.push(rec);
        const check = () => {
          if (canvas.stats().frames > rec.frames) rec.drawnAt = performance.now();
          else requestAnimationFrame(check);
        };
        requestAnimationFrame(check);
      };
    },
  });
}

/** Opens `graph` in a new page and times its first paint; with `profile` (a file), the page
 *  is traced meanwhile (profile.mjs) and `profiled` holds its heaviest functions; with
 *  `trace` (a file), the page is traced for its threads' CPU time only (profile.mjs
 *  `mainThreadCpu` reads it). */
export async function openAndTimeFirstPaint(browser, server, graph, nodes, limit = null, waitMs = 120_000, profile = null, trace = null) {
  const { context, page, errors } = await newPage(browser, { viewport: VIEWPORT });
  await page.addInitScript(firstPaintProbe);
  try {
    const stopProfile = profile ? await startProfile(browser, page, profile) : null;
    if (trace) await browser.startTracing(page, { path: trace, categories: CPU_CATEGORIES });
    await page.goto(server.url(`/?graph=${encodeURIComponent(graph)}${limit ? `&limit=${limit}` : ""}`));
    // `nodes` null: a cluster view, whose box count is not known beforehand.
    const rec = await until(() => page.evaluate((n) => window.__paint.setGraph.find((r) => (n === null ? window.provex.model.mode === "clusters" && r.n > 0 : r.n === n) && r.drawnAt !== null) ?? null, nodes),
      { ms: waitMs, every: 50, what: `${graph} drawn with ${nodes} nodes` });
    const t = await page.evaluate((g) => {
      const nav = performance.getEntriesByType("navigation")[0];
      const view = performance.getEntriesByType("resource").find((r) => r.name.includes(`/api/graphs/${g}/view`));
      const s = window.provex.canvas.stats();
      return { html: nav?.responseEnd ?? NaN, domReady: nav?.domContentLoadedEventEnd ?? NaN,
        viewStart: view?.startTime ?? NaN, viewEnd: view?.responseEnd ?? NaN,
        // The server's own time for the view (its `Server-Timing: op;dur=…`).
        viewServer: view?.serverTiming?.find((t) => t.name === "op")?.duration ?? NaN, nodes: s.nodes, edges: s.edges };
    }, graph);
    if (trace) await browser.stopTracing();
    if (errors.length) throw new Error(`page errors: ${errors.join("; ")}`);
    const profiled = stopProfile ? await stopProfile() : undefined;
    return { profiled, firstPaint: rec.drawnAt, setGraph: rec.at, setGraphStart: rec.start, modelStart: rec.modelStart, modelEnd: rec.modelEnd, ...t, page, context };
  } catch (e) {
    await context.close();
    throw e;
  }
}
