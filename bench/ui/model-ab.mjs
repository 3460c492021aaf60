//! The script part of a first paint, in Node, compared between two trees of the UI's sources:
//! a saved view (in columns, as the explorer asks for it) parsed, taken by the graph model
//! (`applyView`: the columns decoded, nodes and edges keyed), listed for the canvas, and made
//! into the canvas's scene (`Scene.reset`), each timed; rounds alternate between the trees
//! (A B B A …), with a garbage collection before each. No browser, no GPU: what the page's
//! main thread spends on the model and scene, without the machine's other noise in between.
//!
//!   node --expose-gc bench/ui/model-ab.mjs --a UI_DIR_A --b UI_DIR_B --view VIEW.json [--rounds 15]
//!
//! UI_DIR is a `ui/` folder (its src/ is bundled with esbuild). VIEW.json: e.g. the 50k run's
//! view, `GET /api/graphs/G/view?columns=true&viewport_width=924&viewport_height=823`.

import { mkdtemp, rm } from "node:fs/promises";
import { readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const here = dirname(fileURLToPath(import.meta.url));
const { build } = await import(join(here, "../../ui/node_modules/esbuild/lib/main.js"));
const { values: opt } = parseArgs({
  options: { a: { type: "string" }, b: { type: "string" }, view: { type: "string" }, rounds: { type: "string", default: "15" } },
});
if (!opt.a || !opt.b || !opt.view) throw new Error("--a, --b (ui folders) and --view (a saved view) are needed");
if (typeof globalThis.gc !== "function") throw new Error("run with node --expose-gc");

/** What one round does with a tree's modules: the steps of App.openGraph up to the canvas. */
const ENTRY = `
import { GraphModel } from "SRC/graph/model.ts";
import { Scene } from "SRC/canvas/scene.ts";
import { focusIds } from "SRC/canvas/first-view.ts";
export function open(text) {
  const t0 = performance.now();
  const view = JSON.parse(text);
  const t1 = performance.now();
  const model = new GraphModel();
  model.applyView(view);
  const t2 = performance.now();
  const nodes = model.nodeList();
  // Before the edges came with their ends as numbers, the app passed the edge list alone.
  const { edges, ends } = model.drawnEdges ? model.drawnEdges() : { edges: model.edgeList(), ends: null };
  focusIds(nodes);
  const t3 = performance.now();
  const scene = new Scene();
  scene.reset(nodes, edges, ends);
  const t4 = performance.now();
  if (scene.nodeCount !== nodes.length || scene.edgeCount !== edges.length) throw new Error("scene does not hold the view");
  return { parse: t1 - t0, model: t2 - t1, lists: t3 - t2, scene: t4 - t3, total: t4 - t0 };
}
`;

const scratch = await mkdtemp(join(tmpdir(), "provex-model-ab-"));
try {
  const sides = {};
  for (const [side, dir] of [["A", opt.a], ["B", opt.b]]) {
    const entry = join(scratch, `${side}-entry.mjs`), out = join(scratch, `${side}.mjs`);
    writeFileSync(entry, ENTRY.replaceAll("SRC", join(resolve(dir), "src")));
    await build({ entryPoints: [entry], bundle: true, format: "esm", platform: "node", outfile: out, logLevel: "warning" });
    sides[side] = await import(pathToFileURL(out).href);
  }
  const text = readFileSync(opt.view, "utf8");
  // Warm-up: each side's code compiled and optimised before anything is timed.
  for (let i = 0; i < 3; i++) for (const side of ["A", "B"]) sides[side].open(text);
  const runs = { A: [], B: [] };
  const rounds = Number(opt.rounds);
  for (let i = 0; i < rounds; i++) {
    for (const side of i % 2 === 0 ? ["A", "B"] : ["B", "A"]) {
      globalThis.gc();
      runs[side].push(sides[side].open(text));
    }
  }
  const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor((xs.length - 1) / 2)];
  for (const side of ["A", "B"]) {
    const r = runs[side];
    const m = (k) => median(r.map((x) => x[k])).toFixed(1);
    console.log(`${side} (${opt[side.toLowerCase()]}): median of ${rounds}: parse ${m("parse")} ms, model ${m("model")} ms, `
      + `lists ${m("lists")} ms, scene ${m("scene")} ms, total ${m("total")} ms`);
  }
} finally {
  await rm(scratch, { recursive: true, force: true });
}
