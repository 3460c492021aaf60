// The prompt-lineage view (issue 13 §4): the version tree's layout (rows by chain position,
// a merge below both its parents, branches in lanes of their own, no line through a box),
// what the tree shows (versions, branches, heads, labelled edges), the side-by-side word
// diff and the confidence breakdown, and the view's pick / compare / replay / live reload.

import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Comparison, LineageGraph } from "../src/api/contract";
import { confidenceParts, diffCounts, diffSides, weight } from "../src/lineage/version-diff";
import { BOX_H, BOX_W, confidenceBand, edgeLabel, latestPart, layoutLineage, type LaidBox, type LineageLayout } from "../src/lineage/tree-layout";
import { comparisonCard } from "../src/lineage/lineage-side";
import { LineageTree } from "../src/lineage/lineage-tree";
import { LineageView, MAX_DRAWN, REPLAY_MS } from "../src/lineage/lineage-view";
import { evolution, exampleWeek, prompt } from "./lineage-fixture";

/** The segments of a path: M/L/H/V exactly, Q by its end (its corner is small), C sampled. */
function segments(d: string): Array<[number, number, number, number]> {
  const out: Array<[number, number, number, number]> = [];
  let x = 0, y = 0;
  for (const m of d.matchAll(/([MLVHQC])([^MLVHQC]*)/g)) {
    const n = m[2].trim().split(/[\s,]+/).filter(Boolean).map(Number);
    const to = (nx: number, ny: number) => { out.push([x, y, nx, ny]); x = nx; y = ny; };
    if (m[1] === "M") { x = n[0]; y = n[1]; }
    else if (m[1] === "L") to(n[0], n[1]);
    else if (m[1] === "V") to(x, n[0]);
    else if (m[1] === "H") to(n[0], y);
    else if (m[1] === "Q") to(n[2], n[3]);
    else {
      const [x0, y0] = [x, y];
      for (let t = 0.1; t <= 1.0001; t += 0.1) {
        const u = 1 - t;
        to(u ** 3 * x0 + 3 * u * u * t * n[0] + 3 * u * t * t * n[2] + t ** 3 * n[4], u ** 3 * y0 + 3 * u * u * t * n[1] + 3 * u * t * t * n[3] + t ** 3 * n[5]);
      }
    }
  }
  return out;
}

/** Whether a segment passes through the inside of a box (sampled every 2 px). */
function crosses([x0, y0, x1, y1]: [number, number, number, number], b: LaidBox): boolean {
  const steps = Math.max(1, Math.ceil(Math.hypot(x1 - x0, y1 - y0) / 2));
  for (let i = 0; i <= steps; i++) {
    const x = x0 + ((x1 - x0) * i) / steps, y = y0 + ((y1 - y0) * i) / steps;
    if (x > b.x + 1 && x < b.x + BOX_W - 1 && y > b.y + 1 && y < b.y + BOX_H - 1) return true;
  }
  return false;
}

/** Lines that pass through a box not at their ends. */
function linesThroughBoxes(l: LineageLayout): string[] {
  const bad: string[] = [];
  for (const e of l.edges) {
    for (const b of l.boxes) {
      if (b.id === e.evolution.child || b.id === e.evolution.parent) continue;
      if (segments(e.path).some((s) => crosses(s, b))) bad.push(`${e.evolution.parent}→${e.evolution.child} through ${b.id}`);
    }
  }
  return bad;
}

describe("the version tree's layout", () => {
  const l = layoutLineage(exampleWeek());

  it("puts each version on the row of its chain position, top-down, a fork in a lane of its own", () => {
    const rows = Object.fromEntries(l.boxes.map((b) => [b.prompt.version, [b.row, b.lane]]));
    expect(rows).toEqual({
      "1.0.0": [0, 0], "1.0.1": [1, 0], "1.0.2": [2, 0],
      "1.1.0": [3, 1], "1.1.1": [4, 1], "1.0.3": [3, 0],
      // The merge's chain position is 5, as its branch parent's: it goes below it.
      "2.0.0": [5, 0], "2.0.1": [6, 0], "2.0.2": [7, 0], "2.1.0": [8, 0],
    });
    for (const b of l.boxes) expect([b.x, b.y]).toEqual([16 + b.lane * 226, 16 + b.row * 80]);
    expect([l.rows, l.lanes]).toEqual([9, 2]);
    // Creation order is kept for the replay.
    expect(l.boxes.map((b) => b.prompt.version)).toEqual(["1.0.0", "1.0.1", "1.0.2", "1.1.0", "1.1.1", "1.0.3", "2.0.0", "2.0.1", "2.0.2", "2.1.0"]);
    expect(l.boxes.map((b) => b.order)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it("draws a merge with two incoming lines, the branch's coming across into its side", () => {
    const into = l.edges.filter((e) => e.evolution.child === "p2.0.0");
    expect(into.map((e) => [e.evolution.parent, e.evolution.primary, e.route])).toEqual([
      ["p1.0.3", true, "straight"], ["p1.1.1", false, "merge"],
    ]);
    const fork = l.edges.find((e) => e.evolution.child === "p1.1.0")!;
    expect(fork.route).toBe("fork");
    expect(l.edges.filter((e) => e.route === "gutter")).toEqual([]);
    expect(linesThroughBoxes(l)).toEqual([]);
  });

  it("labels each edge with its type and confidence, and places the label beside its line", () => {
    expect(l.edges.map((e) => edgeLabel(e.evolution))).toEqual([
      "refines 0.72", "refines 0.86", "forks 0.66", "refines 0.82", "evolves 0.88", "merges 0.64", "merges 0.64", "refines 0.81", "reverts 0.81", "derives 0.89",
    ]);
    expect(edgeLabel({ evolution_type: "derives", confidence: null })).toBe("derives");
    // A step below 0.5 leads with what is wrong with it (the lineage format's bands).
    expect(edgeLabel({ evolution_type: "derives", confidence: 0.5 })).toBe("derives 0.50");
    expect(edgeLabel({ evolution_type: "derives", confidence: 0.42 })).toBe("⚠ tentative · derives 0.42");
    expect(edgeLabel({ evolution_type: "refines", confidence: 0.21 })).toBe("⚠ unlikely related · refines 0.21");
    expect([0.95, 0.9, 0.75, 0.55, 0.3, 0.29].map(confidenceBand)).toEqual(["strong", "strong", "moderate", "weak", "tentative", "minimal"]);
    // Labels sit in the gap between rows (or beside a long line), never on a box.
    for (const e of l.edges) {
      for (const b of l.boxes) {
        const inside = e.label.x >= b.x && e.label.x <= b.x + BOX_W && e.label.y >= b.y && e.label.y <= b.y + BOX_H;
        expect(inside, `${edgeLabel(e.evolution)} on ${b.prompt.version}`).toBe(false);
      }
    }
  });

  it("for any lineage: one box per place, children below parents, no line through a box", () => {
    const types = ["refines", "evolves", "derives", "forks", "merges", "reverts"];
    fc.assert(fc.property(
      fc.array(fc.record({ parent: fc.nat(), second: fc.option(fc.nat(), { nil: null }), type: fc.constantFrom(...types), branch: fc.constantFrom(undefined, "a", "b") }), { minLength: 1, maxLength: 30 }),
      (steps) => {
        const prompts = [prompt("0", "2026-01-01T00:00:00Z", 1)];
        const evolutions = [];
        const pos = new Map([["p0", 1]]);
        for (const [i, s] of steps.entries()) {
          const v = String(i + 1);
          const parent = prompts[s.parent % prompts.length];
          const cp = pos.get(parent.id)! + 1;
          pos.set(`p${v}`, cp);
          prompts.push(prompt(v, `2026-01-01T00:${String(i + 1).padStart(2, "0")}:00Z`, cp, { branch: s.branch }));
          evolutions.push(evolution(v, parent.version, s.type, 0.5));
          const other = s.second === null ? null : prompts[s.second % (prompts.length - 1)];
          if (other && other.id !== parent.id) evolutions.push(evolution(v, other.version, "merges", 0.5, false));
        }
        const l = layoutLineage({ prompts, evolutions });
        const places = new Set(l.boxes.map((b) => `${b.row}/${b.lane}`));
        expect(places.size).toBe(prompts.length);
        const row = new Map(l.boxes.map((b) => [b.id, b.row]));
        for (const e of evolutions) expect(row.get(e.child)!).toBeGreaterThan(row.get(e.parent)!);
        for (const b of l.boxes) {
          expect(b.x + BOX_W).toBeLessThanOrEqual(l.width);
          expect(b.y + BOX_H).toBeLessThanOrEqual(l.height);
        }
        expect(linesThroughBoxes(l)).toEqual([]);
      }), { numRuns: 200 });
  });
});

describe("a long lineage", () => {
  /** A chain of `n` versions with a side branch every tenth. */
  function long(n: number): LineageGraph {
    const prompts = [], evolutions = [];
    for (let i = 0; i < n; i++) {
      const t = new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString();
      prompts.push(prompt(String(i), t, i + 1, { is_head: i === n - 1, branch: i % 10 === 5 ? "side" : undefined }));
      if (i > 0) evolutions.push(evolution(String(i), String(i % 10 === 6 ? i - 2 : i - 1), i % 10 === 5 ? "forks" : "refines", 0.8));
    }
    return { focus: "p0", lineage_id: "L", prompts, evolutions };
  }

  it("is drawn from its latest versions only, starting on the first row, quickly", () => {
    const { graph, total } = latestPart(long(5000), MAX_DRAWN);
    expect(total).toBe(5000);
    expect(graph.prompts).toHaveLength(MAX_DRAWN);
    expect(graph.prompts[0].version).toBe("4600");
    expect(graph.evolutions.every((e) => graph.prompts.some((p) => p.id === e.parent))).toBe(true);
    const started = performance.now();
    const l = layoutLineage(graph);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(Math.min(...l.boxes.map((b) => b.row))).toBe(0);
    expect(l.lanes).toBe(2);
    expect(linesThroughBoxes(l)).toEqual([]);
    expect(latestPart(exampleWeek(), MAX_DRAWN).graph).toEqual(exampleWeek());
  });
});

describe("the tree as drawn", () => {
  const draw = (state: Partial<Parameters<LineageTree["render"]>[1]> = {}) => {
    const picked: Array<[string, boolean]> = [];
    const tree = new LineageTree((id, additive) => picked.push([id, additive]));
    document.body.replaceChildren(tree.el);
    tree.render(layoutLineage(exampleWeek()), { selected: [], replayAt: null, fresh: new Set(), ...state });
    const boxes = [...tree.el.querySelectorAll<HTMLButtonElement>('[data-testid="lineage-box"]')];
    return { tree, boxes, picked, labels: [...tree.el.querySelectorAll<HTMLElement>('[data-testid="lineage-edge-label"]')] };
  };

  it("shows each version's number, its branch, and marks the head and the root", () => {
    const { boxes } = draw();
    expect(boxes.map((b) => b.querySelector(".lineage-version")!.textContent)).toEqual(
      ["v1.0.0", "v1.0.1", "v1.0.2", "v1.1.0", "v1.1.1", "v1.0.3", "v2.0.0", "v2.0.1", "v2.0.2", "v2.1.0"]);
    const heads = boxes.filter((b) => b.classList.contains("head"));
    expect(heads.map((b) => b.dataset.version)).toEqual(["2.1.0"]);
    expect(heads[0].textContent).toContain("HEAD");
    // What is shown is what a screen reader says.
    expect(heads[0].textContent).toBe("v2.1.0HEAD8 Nov 15:30");
    expect(heads[0].getAttribute("aria-label")).toBeNull();
    expect(heads[0].title).toMatch(/^Version 2\.1\.0, created 8 Nov 2026 15:30 UTC\. Click to read it; Shift-click/);
    expect(boxes.filter((b) => b.dataset.root === "true").map((b) => b.dataset.version)).toEqual(["1.0.0"]);
    expect(boxes.filter((b) => b.dataset.branch).map((b) => [b.dataset.version, b.querySelector(".lineage-branch")!.textContent])).toEqual([
      ["1.1.0", "experiment/bullets"], ["1.1.1", "experiment/bullets"]]);
    expect(boxes[0].querySelector(".lineage-when")!.textContent).toBe("2 Nov 09:12");
  });

  it("labels every evolution, the merge's two parents among them", () => {
    const { labels } = draw();
    expect(labels).toHaveLength(10);
    const merge = labels.filter((l) => l.dataset.child === "p2.0.0");
    expect(merge.map((l) => [l.dataset.parent, l.textContent, l.dataset.primary])).toEqual([
      ["p1.0.3", "merges 0.64", "true"], ["p1.1.1", "merges 0.64", "false"]]);
    expect(labels.find((l) => l.dataset.child === "p2.0.2")!.textContent).toBe("reverts 0.81");
  });

  it("a click picks a version, Shift-click adds a second; picks are marked A and B", () => {
    const { boxes, picked } = draw({ selected: ["p1.0.2", "p1.0.3"] });
    boxes[0].click();
    boxes[1].dispatchEvent(new MouseEvent("click", { shiftKey: true, bubbles: true }));
    boxes[2].dispatchEvent(new MouseEvent("click", { ctrlKey: true, bubbles: true }));
    expect(picked).toEqual([["p1.0.0", false], ["p1.0.1", true], ["p1.0.2", true]]);
    expect(boxes.filter((b) => b.getAttribute("aria-pressed") === "true").map((b) => [b.dataset.version, b.querySelector(".lineage-pick")!.textContent]))
      .toEqual([["1.0.2", "A"], ["1.0.3", "B"]]);
  });

  it("during a replay shows the versions made so far, the last one marked, and their edges only", () => {
    const { boxes, labels } = draw({ replayAt: 3 });
    expect(boxes.filter((b) => !b.hidden).map((b) => b.dataset.version)).toEqual(["1.0.0", "1.0.1", "1.0.2", "1.1.0"]);
    expect(boxes.filter((b) => b.classList.contains("current")).map((b) => b.dataset.version)).toEqual(["1.1.0"]);
    expect(labels.filter((l) => !l.hidden).map((l) => l.textContent)).toEqual(["refines 0.72", "refines 0.86", "forks 0.66"]);
  });
});

const A = "You are the clerk's assistant. Keep it under 300 words. Cover every item.";
const B = "You are the clerk's assistant. Keep it under 200 words. Cover every item. Cite the minute.";
const comparison = (over: Partial<Comparison> = {}): Comparison => ({
  a: "pa", b: "pb", jaccard: 0.75, edit_ratio: 0.6848249027237354, semantic: null, confidence: 0.7249326548937445,
  note: "semantic similarity unavailable (no embeddings endpoint): Jaccard and edit ratio renormalised",
  suggested_type: "derives", suggestion_rule: "refines if edit_ratio > 0.7 and jaccard > 0.6; else evolves if 0.3 < jaccard < 0.7; else derives",
  diff: [
    { op: "equal", text: "You are the clerk's assistant. Keep it under " }, { op: "delete", text: "300" }, { op: "insert", text: "200" },
    { op: "equal", text: " words. Cover every item." }, { op: "insert", text: " Cite the minute." },
  ],
  ...over,
});

describe("the word diff and the confidence breakdown", () => {
  it("splits the diff into A's side (deletions) and B's side (insertions), each reading as its text", () => {
    const { left, right } = diffSides(comparison().diff!);
    expect(left).toEqual([{ kind: "same", text: "You are the clerk's assistant. Keep it under " }, { kind: "del", text: "300" }, { kind: "same", text: " words. Cover every item." }]);
    expect(right.map((s) => s.kind)).toEqual(["same", "ins", "same", "ins"]);
    expect(left.map((s) => s.text).join("")).toBe(A);
    expect(right.map((s) => s.text).join("")).toBe(B);
    expect(diffCounts(comparison().diff!)).toEqual({ deleted: 1, inserted: 4 });
    // Runs of one kind are joined.
    expect(diffSides([{ op: "delete", text: "a " }, { op: "delete", text: "b" }]).left).toEqual([{ kind: "del", text: "a b" }]);
  });

  it("renders deletions struck on the left and insertions on the right, with the API's numbers", () => {
    const a = prompt("1.0.0", "2026-11-02T09:12:00Z", 1, { content: A });
    const b = prompt("1.0.1", "2026-11-02T15:40:00Z", 2, { content: B });
    const close = vi.fn();
    const card = comparisonCard(a, b, comparison(), evolution("1.0.1", "1.0.0", "refines", 0.7249), close);
    document.body.replaceChildren(card);
    const left = card.querySelector('[data-testid="lineage-diff-left"]')!, right = card.querySelector('[data-testid="lineage-diff-right"]')!;
    expect([...left.querySelectorAll("del")].map((d) => d.textContent)).toEqual(["300"]);
    expect(left.querySelectorAll("ins")).toHaveLength(0);
    expect([...right.querySelectorAll("ins")].map((d) => d.textContent)).toEqual(["200", " Cite the minute."]);
    expect(right.querySelectorAll("del")).toHaveLength(0);
    expect(left.querySelector(".lineage-diff-text")!.textContent).toBe(A);
    expect(right.querySelector(".lineage-diff-text")!.textContent).toBe(B);
    expect(left.querySelector(".lineage-diff-head")!.textContent).toBe("A · v1.0.0 −1 word");
    expect(right.querySelector(".lineage-diff-head")!.textContent).toBe("B · v1.0.1 +4 words");
    const cell = (id: string) => card.querySelector<HTMLElement>(`[data-testid="${id}"]`)!;
    expect([cell("lineage-jaccard").textContent, cell("lineage-semantic").textContent, cell("lineage-edit-ratio").textContent, cell("lineage-confidence").textContent])
      .toEqual(["0.750", "unavailable", "0.685", "0.725"]);
    expect(Number(cell("lineage-confidence").dataset.value)).toBe(0.7249326548937445);
    const rows = [...card.querySelectorAll("tbody tr")].map((r) => [...r.querySelectorAll("td")].map((td) => td.textContent));
    expect(rows).toEqual([["0.750", "×0.40 → ×0.615", "0.462"], ["unavailable", "×0.35", "—"], ["0.685", "×0.25 → ×0.385", "0.263"]]);
    expect(cell("lineage-note").textContent).toContain("semantic similarity unavailable");
    expect(cell("lineage-suggested").textContent).toBe("derives");
    expect(cell("lineage-stored").textContent).toBe("Recorded evolution: refines 0.72 — why 1.0.1");
    cell("lineage-compare-close").click();
    expect(close).toHaveBeenCalledOnce();
  });

  it("weights the parts 0.40 / 0.35 / 0.25, or the two others by their share of 0.65, adding up to the confidence", () => {
    const without = confidenceParts(comparison());
    expect(without.renormalised).toBe(true);
    expect(without.parts.map((p) => [p.key, p.weight, p.used])).toEqual([["jaccard", 0.4, 0.4 / 0.65], ["semantic", 0.35, null], ["edit_ratio", 0.25, 0.25 / 0.65]]);
    expect(without.parts.reduce((s, p) => s + (p.adds ?? 0), 0)).toBeCloseTo(0.7249326548937445, 12);
    const sem = comparison({ semantic: 0.9, confidence: 0.4 * 0.75 + 0.35 * 0.9 + 0.25 * 0.6848249027237354 });
    const withSem = confidenceParts(sem);
    expect(withSem.renormalised).toBe(false);
    expect(withSem.parts.map((p) => p.used)).toEqual([0.4, 0.35, 0.25]);
    expect(withSem.parts.reduce((s, p) => s + (p.adds ?? 0), 0)).toBeCloseTo(sem.confidence, 12);
    expect([weight(0.4), weight(0.25), weight(0.4 / 0.65)]).toEqual(["×0.40", "×0.25", "×0.615"]);
  });
});

describe("the lineage view", () => {
  afterEach(() => vi.useRealTimers());

  function setup(g: LineageGraph = exampleWeek()) {
    const backend = {
      lineage: vi.fn(async () => g),
      lineageCompare: vi.fn(async (r: { a: string, b: string }) => comparison({ a: r.a, b: r.b })),
    };
    const select = vi.fn(async () => {});
    const view = new LineageView({ backend, graph: "lin", select });
    document.body.replaceChildren(view.el);
    const q = (id: string) => [...view.el.querySelectorAll<HTMLElement>(`[data-testid="${id}"]`)];
    const box = (v: string) => q("lineage-box").find((b) => b.dataset.version === v)!;
    return { backend, view, select, q, box, g };
  }

  it("opens a prompt's lineage with it picked, and says what the lineage is", async () => {
    const { backend, view, q, box } = setup();
    await view.open("prompt:p2.0.1", true);
    expect(backend.lineage).toHaveBeenCalledWith({ graph: "lin", id: "p2.0.1" });
    expect(view.isOpen).toBe(true);
    expect(q("lineage-box")).toHaveLength(10);
    expect(q("lineage-summary")[0].textContent).toBe("10 versions · 1 head · 10 evolutions · 2 Nov 09:12 – 8 Nov 15:30 UTC");
    expect(q("lineage-title")[0].textContent).toBe("“Prompt text of version 1.0.0.”");
    expect(box("2.0.1").getAttribute("aria-pressed")).toBe("true");
    expect(q("lineage-version")[0].textContent).toContain("v2.0.1");
    expect(q("lineage-text")[0].textContent).toBe("Prompt text of version 2.0.1.");
    view.close();
    expect(view.isOpen).toBe(false);
  });

  it("compares two versions picked in either order, the older as A", async () => {
    const { backend, view, q, box } = setup();
    await view.open("p1.0.0");
    expect(q("lineage-help")).toHaveLength(1);
    box("2.0.0").click();
    box("1.0.3").dispatchEvent(new MouseEvent("click", { shiftKey: true, bubbles: true }));
    await vi.waitFor(() => expect(q("lineage-compare")).toHaveLength(1));
    expect(backend.lineageCompare).toHaveBeenCalledWith({ graph: "lin", a: "p1.0.3", b: "p2.0.0" });
    expect(box("1.0.3").querySelector(".lineage-pick")!.textContent).toBe("A");
    expect(box("2.0.0").querySelector(".lineage-pick")!.textContent).toBe("B");
    expect(q("lineage-stored")[0].textContent).toBe("Recorded evolution: merges 0.64 — why 2.0.0");
    // From the card of one version: compare with the version chosen.
    q("lineage-compare-close")[0].click();
    expect(q("lineage-version")).toHaveLength(1);
    (q("lineage-compare-with")[0] as HTMLSelectElement).value = "p2.1.0";
    q("lineage-compare-button")[0].click();
    await vi.waitFor(() => expect(backend.lineageCompare).toHaveBeenLastCalledWith({ graph: "lin", a: "p1.0.3", b: "p2.1.0" }));
  });

  it("replays the versions one by one in creation order, and can be stopped", async () => {
    const { view, q } = setup();
    await view.open("p1.0.0");
    vi.useFakeTimers();
    q("lineage-replay")[0].click();
    const shown = () => q("lineage-box").filter((b) => !b.hidden).map((b) => b.dataset.version);
    expect(q("lineage-step")[0].textContent).toBe("Step 1 of 10");
    expect(shown()).toEqual(["1.0.0"]);
    expect(q("lineage-caption")[0].textContent).toBe("v1.0.0, 2 Nov 2026 09:12 UTC: the first version.");
    vi.advanceTimersByTime(REPLAY_MS * 3);
    expect(q("lineage-step")[0].textContent).toBe("Step 4 of 10");
    expect(shown()).toEqual(["1.0.0", "1.0.1", "1.0.2", "1.1.0"]);
    expect(q("lineage-caption")[0].textContent).toBe("v1.1.0 on experiment/bullets, 4 Nov 2026 11:20 UTC: forks 0.66 from v1.0.2 — why 1.1.0");
    expect(q("lineage-replay")[0].textContent).toBe("■ Stop");
    q("lineage-replay")[0].click();
    expect(view.replaying).toBe(false);
    expect(q("lineage-step")[0].textContent).toBe("Replay stopped");
    expect(shown()).toHaveLength(10);
    q("lineage-replay")[0].click();
    vi.advanceTimersByTime(REPLAY_MS * 12);
    expect(view.replaying).toBe(false);
    expect(q("lineage-step")[0].textContent).toBe("Replayed 10 versions");
  });

  it("reloads when told prompts arrived, marking the new version", async () => {
    const g = exampleWeek();
    const { backend, view, q, box } = setup(g);
    await view.open("p2.1.0", true);
    const grown: LineageGraph = {
      ...g,
      prompts: [...g.prompts.map((p) => ({ ...p, is_head: false })), prompt("2.1.1", "2026-11-09T10:00:00+00:00", 9, { is_head: true })],
      evolutions: [...g.evolutions, evolution("2.1.1", "2.1.0", "refines", 0.9)],
    };
    backend.lineage.mockResolvedValue(grown);
    await view.refresh();
    expect(q("lineage-box")).toHaveLength(11);
    expect(box("2.1.1").classList.contains("fresh")).toBe(true);
    expect(box("2.1.1").classList.contains("head")).toBe(true);
    expect(box("2.1.0").classList.contains("head")).toBe(false);
    // The pick is kept.
    expect(box("2.1.0").getAttribute("aria-pressed")).toBe("true");
    expect(q("lineage-summary")[0].textContent).toMatch(/^11 versions · 1 head · 11 evolutions/);
  });

  it("says why when the lineage cannot be loaded, and tries again", async () => {
    const { backend, view, q } = setup();
    backend.lineage.mockRejectedValueOnce(Object.assign(new Error("no prompt p9"), { code: "not_found" }));
    await view.open("p9");
    expect(q("error-state")[0].textContent).toContain("Could not load this prompt's lineage: no prompt p9 (not_found)");
    q("retry")[0].click();
    await vi.waitFor(() => expect(q("lineage-box")).toHaveLength(10));
  });
});
