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

/** The entry of `folder` ("" for src, else "panels/") a module is under: a file of the
 *  folder ("app.ts") or one of its subfolders ("panels/"); none when it is outside. */
function entryOf(folder: string, module: string): string | undefined {
  if (!module.startsWith(folder)) return undefined;
  const rest = module.slice(folder.length);
  const slash = rest.indexOf("/");
  return slash < 0 ? rest : rest.slice(0, slash + 1);
}

/** Inside every folder of ui/src (found from the modules, so a new folder is checked
 *  without being listed), its files and subfolders as nodes, an import from a module
 *  under one to a module under another as an edge: every cycle, with the imports that
 *  make it. */
function folderCycles(g: Map<string, string[]>): { folder: string; members: string[]; edges: string[] }[] {
  const folders = new Set<string>([""]);
  for (const m of g.keys()) {
    const parts = m.split("/");
    for (let i = 1; i < parts.length; i++) folders.add(parts.slice(0, i).join("/") + "/");
  }
  const out: { folder: string; members: string[]; edges: string[] }[] = [];
  for (const folder of [...folders].sort()) {
    const level = new Map<string, string[]>();
    const why: string[] = [];
    for (const [from, deps] of g) {
      const a = entryOf(folder, from);
      if (a === undefined) continue;
      if (!level.has(a)) level.set(a, []);
      for (const to of deps) {
        const b = entryOf(folder, to);
        if (b === undefined || b === a) continue;
        if (!level.get(a)!.includes(b)) level.get(a)!.push(b);
        why.push(`${from} → ${to}`);
      }
    }
    for (const members of cycles(level)) {
      const edges = why.filter((w) => {
        const [from, to] = w.split(" → ");
        return members.includes(entryOf(folder, from)!) && members.includes(entryOf(folder, to)!);
      });
      out.push({ folder, members, edges: edges.sort() });
    }
  }
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

  it("has no cycles between the folders and files of any folder", () => {
    expect(folderCycles(graph())).toEqual([]);
  });

  it("finds a folder cycle made of files that do not form one", () => {
    // a/x → b/y and b/z → a/w: no file cycle, but the folders a and b lean on each other.
    const g = new Map([["a/x.ts", ["b/y.ts"]], ["b/z.ts", ["a/w.ts"]], ["a/w.ts", []], ["b/y.ts", []], ["c.ts", ["a/x.ts"]]]);
    expect(cycles(g)).toEqual([]);
    expect(folderCycles(g)).toEqual([{ folder: "", members: ["a/", "b/"], edges: ["a/x.ts → b/y.ts", "b/z.ts → a/w.ts"] }]);
  });

  it("only the entry point imports the app", () => {
    const importers = [...graph()].filter(([, deps]) => deps.includes("app.ts")).map(([k]) => k);
    expect(importers).toEqual(["main.ts"]);
  });
});
