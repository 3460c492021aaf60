// The import graph of ui/src: no module cycles, and only the entry point imports the app
// (the panels take narrow host interfaces instead; see src/host.ts).

import { describe, expect, it } from "vitest";

const sources = import.meta.glob("../src/**/*.ts", { query: "?raw", import: "default", eager: true }) as Record<string, string>;

/** "../src/trail/trail-view.ts" → "trail/trail-view.ts" */
const key = (path: string) => path.replace(/^\.\.\/src\//, "");

/** Relative imports (value and type) of a module, as keys; other imports are left out. */
function importsOf(from: string, text: string, known: Set<string>): string[] {
  const out: string[] = [];
  const re = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s*"(\.[^"]+)"|(?:^|\n)\s*import\s*"(\.[^"]+)"/g;
  for (const m of text.matchAll(re)) {
    const spec = m[1] ?? m[2];
    const parts = from.split("/").slice(0, -1);
    for (const p of spec.split("/")) {
      if (p === "..") parts.pop();
      else if (p !== ".") parts.push(p);
    }
    const base = parts.join("/");
    const hit = [base, `${base}.ts`, `${base}/index.ts`].find((k) => known.has(k));
    if (hit) out.push(hit);
    else if (!/\.(css|svg|png)$/.test(base)) throw new Error(`${from}: cannot resolve ${spec}`);
  }
  return out;
}

function graph(): Map<string, string[]> {
  const known = new Set(Object.keys(sources).map(key));
  return new Map(Object.entries(sources).map(([path, text]) => [key(path), importsOf(key(path), text, known)]));
}

/** Strongly connected components with more than one module (Tarjan). */
function cycles(g: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    on.add(v);
    for (const w of g.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || (g.get(v) ?? []).includes(v)) out.push(scc.sort());
    }
  };
  for (const v of [...g.keys()].sort()) if (!index.has(v)) visit(v);
  return out;
}

describe("the import graph of ui/src", () => {
  it("reads every module", () => {
    const g = graph();
    expect(g.get("app.ts")).toContain("side-panel/side-panel.ts");
    expect(g.get("side-panel/side-panel.ts")).toContain("trail/trail-view.ts");
    expect(g.get("walkthrough/walkthrough-panel.ts")).toEqual(["api/backend.ts", "api/contract.ts", "graph/model.ts", "shared/host.ts", "shared/dom.ts", "shared/error-state.ts", "walkthrough/steps.ts", "reasoning/reasoning-view.ts", "trail/trail-view.ts"]);
  });

  it("finds a cycle when there is one", () => {
    expect(cycles(new Map([["a", ["b"]], ["b", ["c"]], ["c", ["a"]], ["d", ["a"]]]))).toEqual([["a", "b", "c"]]);
  });

  it("has no cycles", () => {
    expect(cycles(graph())).toEqual([]);
  });

  it("has no cycles between folders", () => {
    // A module at the top (main.ts, app.ts) is its own node; a folder's modules are one.
    const folderOf = (k: string) => (k.includes("/") ? k.slice(0, k.indexOf("/")) : k);
    const folders = new Map<string, string[]>();
    for (const [from, deps] of graph()) {
      const out = folders.get(folderOf(from)) ?? [];
      for (const d of deps) if (folderOf(d) !== folderOf(from) && !out.includes(folderOf(d))) out.push(folderOf(d));
      folders.set(folderOf(from), out);
    }
    expect(cycles(folders)).toEqual([]);
  });

  it("only the entry point imports the app", () => {
    const importers = [...graph()].filter(([, deps]) => deps.includes("app.ts")).map(([k]) => k);
    expect(importers).toEqual(["main.ts"]);
  });
});
