//! Whether two builds of the UI draw the same pixels: the 50,000-node graph of the pan/zoom
//! pass opened by each, its canvas captured at rest at a few zooms (nodes 3, 10 and 40 px
//! tall: the level of detail, arrow heads and long edges split, every node drawn by the
//! shader), and the pixels that differ counted. For a change meant to make frames cheaper
//! without changing them (a shader's quads trimmed, a program split).
//!
//!   PROVEX_BIN=target/release/provex node bench/ui/same-pixels.mjs <ui/dist A> <ui/dist B>
//!
//! Exits 1 when any pixel differs.

import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const [A, B] = process.argv.slice(2).map((p) => resolve(p));
if (!A || !B) {
  console.error("usage: node bench/ui/same-pixels.mjs <ui dist A> <ui dist B>");
  process.exit(2);
}
// One server for both builds: its --ui is a link switched between them.
const dir = mkdtempSync(join(tmpdir(), "same-pixels-"));
const link = join(dir, "ui");
symlinkSync(A, link);
process.env.PROVEX_UI = link;
const { startServer, launchBrowser } = await import("../../ui/e2e/harness.mjs");
const { openAndTimeFirstPaint } = await import("./first-paint.mjs");
const { decodePng } = await import("../../ui/e2e/png.mjs");
const { tasksFor, writeRun } = await import("./synthetic.mjs");

const ZOOMS = [3, 10, 40];
const server = await startServer();
const browser = await launchBrowser();
let differ = false;
try {
  const file = join(dir, "run-50k.jsonl");
  writeRun(file, tasksFor(50_000));
  await server.cli("ingest", "-g", "same", "--format", "a2a", file);
  const stats = await server.api("/api/graphs/same/stats");
  const shots = {};
  for (const [name, ui] of [["A", A], ["B", B]]) {
    rmSync(link, { force: true });
    symlinkSync(ui, link);
    const r = await openAndTimeFirstPaint(browser, server, "same", stats.nodes);
    for (const px of ZOOMS) {
      await r.page.evaluate(async (px) => {
        const c = window.provex.canvas;
        c.fit();
        c.zoomBy(px / (c.scene.maxNodeHeight * c.camera.scale));
        // At rest: the level of detail's merged picture is drawn again pixel for pixel.
        await new Promise((done) => setTimeout(done, 1500));
      }, px);
      shots[name + px] = decodePng(await r.page.locator("canvas.provex-graph-canvas").screenshot());
    }
    await r.context.close();
  }
  for (const px of ZOOMS) {
    const a = shots["A" + px], b = shots["B" + px];
    if (a.width !== b.width || a.height !== b.height || a.channels !== b.channels) throw new Error("the captures differ in size");
    let diff = 0, max = 0;
    const n = a.channels;
    for (let i = 0; i < a.data.length; i += n) {
      let d = 0;
      for (let k = 0; k < n; k++) d = Math.max(d, Math.abs(a.data[i + k] - b.data[i + k]));
      if (d > 0) diff++;
      if (d > max) max = d;
    }
    if (diff > 0) differ = true;
    console.log(`nodes ${px} px tall: ${diff} of ${a.width * a.height} pixels differ (largest difference ${max} of 255)`);
  }
} finally {
  await browser.close();
  await server.stop?.();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(differ ? 1 : 0);
