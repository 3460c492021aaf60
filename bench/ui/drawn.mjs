// What the live passes of run.mjs share (event→pixels, explain, spans.mjs): a page watching a
// graph's stream, a hook that times every node a stream batch brings to the frame that drew
// it (`window.__seen`), and those times split where the server batched the node and where
// the page received it.

import { newPage, until } from "../../ui/e2e/harness.mjs";

/** A page on `graph` whose live stream is open. The caller closes `context`. */
export async function watchGraph(browser, server, graph, viewport) {
  const { context, page, errors } = await newPage(browser, { viewport });
  try {
    await page.goto(server.url(`/?graph=${graph}`));
    await page.waitForSelector('html[data-ready="true"]');
    await until(async () => (await page.getByTestId("stream-state").getAttribute("data-state")) === "open", { what: "the stream open" });
  } catch (e) {
    await context.close();
    throw e;
  }
  return { context, page, errors };
}

/** Records, for every node a stream batch brings, when the page received it, when the app
 *  applied it (model + canvas) and when the frame that drew it ran (`window.__seen`). */
export async function hookDrawn(page) {
  // The hook: every stream batch, after the app applied it (model + canvas), and the
  // frame that drew it.
  await page.evaluate(() => {
    const app = window.provex.app;
    const canvas = () => window.provex.canvas;
    const orig = app.onStreamMessage.bind(app);
    window.__seen = new Map();
    window.__messages = 0;
    app.onStreamMessage = (msg) => {
      const received = performance.timeOrigin + performance.now();
      const change = orig(msg);
      window.__messages++;
      if (msg.kind === "batch" && msg.nodes.length > 0) {
        const applied = performance.timeOrigin + performance.now();
        const ids = msg.nodes.map((n) => n.id);
        const frames = canvas().stats().frames;
        const check = () => {
          if (canvas().stats().frames <= frames) return requestAnimationFrame(check);
          const drawn = performance.timeOrigin + performance.now();
          for (const id of ids) if (!window.__seen.has(id)) window.__seen.set(id, [drawn, applied, received, msg.time_ms]);
        };
        requestAnimationFrame(check);
      }
      return change;
    };
  });
}

/** For each node written at `written.get(id)` (epoch ms) and drawn as `seen` (the hook's
 *  `window.__seen`) says: written → drawn (`lat`), written → the server's batch
 *  (`toServer`), batch → the page (`toPage`), the page → drawn (`toDraw`); `missing` counts
 *  the nodes never drawn. */
export function delays(written, seen) {
  const lat = [], toServer = [], toPage = [], toDraw = [];
  let missing = 0;
  for (const [id, w] of written) {
    const s = seen.get(id);
    if (!s) { missing++; continue; }
    const [drawn, , received, serverMs] = s;
    lat.push(drawn - w);
    toServer.push(serverMs - w);
    toPage.push(received - serverMs);
    toDraw.push(drawn - received);
  }
  return { lat, toServer, toPage, toDraw, missing };
}
