// Comparing two graphs: the list of differences, which side shows what, the marks on the
// drawn graph, and the panel's stepping (selecting what the open graph has).

import { describe, expect, it, vi } from "vitest";
import type { GraphDiff } from "../src/api/contract";
import { claimGroups, diffItems, edgeEnds, nodeMarks, showChange, showValue, sideOf, visibleOn } from "../src/compare/diff-overlay";
import { ComparePanel, type CompareHost } from "../src/compare/compare-panel";
import { node } from "./helpers";

const DIFF: GraphDiff = {
  summary: {
    claims_added: [], claims_removed: [{ name: "s9", text: "An old claim", agent: "urn:agent:a", claim: null, claim_text: "An old claim" }],
    verifications_added: [{ name: "v-new", text: "VALIDATED", agent: "urn:agent:b", claim: "s1", claim_text: "Claim one" }],
    verifications_removed: [{ name: "v-dropped", text: "VALIDATED", agent: null, claim: "s2", claim_text: null }],
    changes: [{ what: "quote", claim: "s3", claim_text: "Claim three", label: "CITES", name: "s3", target: "c1", property: "quote_text", before: "one point two", after: "one point five" }],
  },
  nodes: {
    added: [{ label: "Verification", name: "v-new", rank: 1, props: { verdict: "VALIDATED" } }],
    removed: [{ label: "Verification", name: "v-dropped", rank: 1, props: { verdict: "VALIDATED", confidence: 0.9 } }],
    changed: [{ label: "Statement", name: "s1", rank: 0, before: { quote: "one point two", consensus: 0.9 }, after: { quote: "one point five", consensus: 0.9, extra: true } }],
  },
  edges: {
    added: [],
    removed: [{ source: "v-dropped", type: "VALIDATES", kind: null, target: "s2", rank: 1, props: {} }],
    changed: [{ source: "s3", type: "CITES", kind: null, target: "c1", rank: 0, before: { w: 1 }, after: { w: 2 } }],
  },
};

describe("diff overlay", () => {
  it("lists by importance (claims first), then nodes before edges, added, removed, changed, with only the properties that differ", () => {
    const items = diffItems(DIFF);
    expect(items.map((i) => `${i.change} ${i.what} ${i.key}`)).toEqual([
      "changed node s1", "changed edge s3 -CITES-> c1",
      "added node v-new", "removed node v-dropped", "removed edge v-dropped -VALIDATES-> s2",
    ]);
    expect(items[0].props).toEqual([["extra", undefined, true], ["quote", "one point two", "one point five"]]);
    expect(items[3].props).toEqual([["confidence", 0.9, undefined], ["verdict", "VALIDATED", undefined]]);
    expect(items[4].focus).toBe("v-dropped");
    expect(edgeEnds(items[1].key)).toEqual(["s3", "c1"]);
  });

  it("says what the diff means for claims, by claim", () => {
    const groups = claimGroups(DIFF);
    expect(groups.map((g) => [g.claim, g.claimText, g.lines.map((l) => `${l.change} ${l.what} ${l.text}`)])).toEqual([
      ["s9", "An old claim", ["removed claim-removed Claim removed by urn:agent:a"]],
      ["s1", "Claim one", ["added verification-added Verification added: VALIDATED by urn:agent:b"]],
      ["s2", null, ["removed verification-removed Verification removed: VALIDATED"]],
      ["s3", "Claim three", ["changed quote Quote"]],
    ]);
    expect(groups[3].lines[0]).toMatchObject({ before: "one point two", after: "one point five" });
  });

  it("draws additions on the other graph and removals on the base, changes on both", () => {
    const items = diffItems(DIFF);
    expect(sideOf("b", "a", "b")).toBe("b");
    expect(sideOf("a", "a", "b")).toBe("a");
    expect(sideOf("x", "a", "b")).toBeNull();
    expect(items.filter((i) => visibleOn(i, "b")).map((i) => i.key)).toEqual(["s1", "s3 -CITES-> c1", "v-new"]);
    expect(items.filter((i) => visibleOn(i, "a")).map((i) => i.key)).toEqual(["s1", "s3 -CITES-> c1", "v-dropped", "v-dropped -VALIDATES-> s2"]);
    expect(items.filter((i) => visibleOn(i, null))).toEqual([]);
  });

  it("marks drawn nodes with their own change, and an edge's ends as changed", () => {
    const items = diffItems(DIFF);
    const drawnA = new Set(["v-dropped", "s1", "s2", "s3", "c1"]);
    expect([...nodeMarks(items, "a", (id) => drawnA.has(id))]).toEqual([
      ["s1", "changed"], ["s3", "changed"], ["c1", "changed"], ["v-dropped", "removed"], ["s2", "changed"],
    ]);
    const drawnB = new Set(["v-new", "s1"]);
    expect([...nodeMarks(items, "b", (id) => drawnB.has(id))]).toEqual([["s1", "changed"], ["v-new", "added"]]);
  });

  it("shows values in a line", () => {
    expect(showValue(undefined)).toBe("—");
    expect(showValue("x")).toBe("x");
    expect(showValue({ a: 1 })).toBe('{"a":1}');
    expect(showValue("y".repeat(200), 10)).toBe(`${"y".repeat(9)}…`);
  });
});

describe("ComparePanel", () => {
  function host(graph: string, ids: string[]) {
    const nodes = new Map(ids.map((id, i) => [id, node(id, i)]));
    return {
      backend: { diff: vi.fn(async () => DIFF), graphs: vi.fn(async () => ["a", "b", "c"]) },
      graph,
      model: { nodes },
      canvas: { setHighlight: vi.fn(), screenPosition: vi.fn((id: string) => ({ x: 10 * nodes.get(id)!.arrival, y: 40 })) },
      select: vi.fn(async () => {}),
      openGraph: vi.fn(async () => {}),
    } satisfies CompareHost;
  }

  it("compares the open graph with the one picked, marks and highlights what differs, and steps through it", async () => {
    const app = host("b", ["v-new", "s1", "s3", "c1"]);
    const p = new ComparePanel(app);
    await p.open();
    expect(p.isOpen).toBe(true);
    const options = [...p.el.querySelectorAll("option")].map((o) => o.value);
    expect(options).toEqual(["a", "c"]);
    p.el.querySelector<HTMLSelectElement>('[data-testid="compare-other"]')!.value = "a";
    p.el.querySelector<HTMLButtonElement>('[data-testid="compare-run"]')!.click();
    await vi.waitFor(() => expect(app.backend.diff).toHaveBeenCalledWith({ a: "a", b: "b" }));
    await vi.waitFor(() => expect(p.el.querySelector('[data-testid="compare-summary"]')?.textContent)
      .toBe("b against a: nodes +1 added · −1 removed · ~1 changed; edges +0 added · −1 removed · ~1 changed."));
    // b is drawn: the added node, the changed one and the changed edge's ends are marked.
    const highlighted = app.canvas.setHighlight.mock.calls.at(-1)![0] as Set<string>;
    expect([...highlighted].sort()).toEqual(["c1", "s1", "s3", "v-new"]);
    expect([...p.marksEl.querySelectorAll(".diff-mark")].map((m) => `${(m as HTMLElement).dataset.id}${m.textContent}`).sort())
      .toEqual(["c1~", "s1~", "s3~", "v-new+"]);
    // What it means for claims comes first; a line's claim is shown when it is drawn.
    expect(p.el.querySelector(".compare-body")?.firstElementChild?.getAttribute("data-testid")).toBe("compare-claims");
    const quote = p.el.querySelector<HTMLButtonElement>('[data-claim="s3"] .claim-of')!;
    expect(quote.disabled).toBe(false);
    quote.click();
    expect(app.select).toHaveBeenLastCalledWith("s3", { focus: true, from: "panel" });
    expect(p.el.querySelector<HTMLButtonElement>('[data-claim="s2"] .claim-of')!.disabled).toBe(true);
    app.select.mockClear();
    await p.step(0); // the changed claim s1, with its properties before and after
    expect(app.select).toHaveBeenLastCalledWith("s1", { focus: true, from: "panel" });
    expect(p.el.querySelector('[data-testid="compare-position"]')?.textContent).toBe("1 of 5");
    const rows = [...p.el.querySelectorAll('[data-testid="compare-detail"] tbody tr')].map((r) => r.textContent);
    expect(rows).toEqual(["extra—true", "quoteone point twoone point five"]);
    await p.step(2); // added v-new: selected and centred
    expect(app.select).toHaveBeenLastCalledWith("v-new", { focus: true, from: "panel" });
    await p.step(3); // removed v-dropped is only in a: nothing selected, and it says so
    expect(app.select).toHaveBeenCalledTimes(2);
    expect(p.el.querySelector('[data-testid="compare-detail"]')?.textContent).toContain("Not in the drawn graph: open a to see it.");
    await p.step(-1); // wraps to the last
    expect(p.el.querySelector('[data-testid="compare-position"]')?.textContent).toBe("5 of 5");
    p.el.querySelector<HTMLButtonElement>('[data-testid="compare-swap"]')!.click();
    expect(app.openGraph).toHaveBeenCalledWith("a");
    // Once a is open, the graphs offered to compare with are the others.
    (app as { graph: string }).graph = "a";
    p.graphChanged();
    await vi.waitFor(() => expect([...p.el.querySelectorAll("option")].map((o) => o.value)).toEqual(["b", "c"]));
    expect(p.el.querySelector<HTMLSelectElement>('[data-testid="compare-other"]')!.value).toBe("b");
    p.close();
    expect(p.isOpen).toBe(false);
    expect(app.canvas.setHighlight).toHaveBeenLastCalledWith(null);
    expect(p.marksEl.childElementCount).toBe(0);
  });

  it("on the base graph, marks what was removed", async () => {
    const app = host("a", ["v-dropped", "s1", "s2"]);
    const p = new ComparePanel(app);
    await p.open();
    await p.run("a", "b");
    expect([...p.marksEl.querySelectorAll(".diff-mark")].map((m) => `${(m as HTMLElement).dataset.id}${m.textContent}`).sort())
      .toEqual(["s1~", "s2~", "v-dropped−"]);
  });

  it("shows the error and retries when the diff fails", async () => {
    const app = host("a", ["s1"]);
    app.backend.diff = vi.fn(async () => { throw { code: "not_found", message: "no graph zz" }; });
    const p = new ComparePanel(app);
    await p.open();
    await p.run("zz", "a");
    expect(p.el.querySelector(".error-text")?.textContent).toBe("Could not compare a with zz: no graph zz (not_found)");
    p.el.querySelector<HTMLButtonElement>('[data-testid="retry"]')!.click();
    await vi.waitFor(() => expect(app.backend.diff).toHaveBeenCalledTimes(2));
  });
});

describe("showChange", () => {
  it("cuts long texts around their first difference", () => {
    const a = `${"x".repeat(300)}one point two million${"y".repeat(300)}`;
    const b = `${"x".repeat(300)}one point five million${"y".repeat(300)}`;
    const [was, is] = showChange(a, b, 60);
    expect(was).toBe(`…${"x".repeat(10)}one point two million${"y".repeat(29)}…`);
    expect(is).toBe(`…${"x".repeat(10)}one point five million${"y".repeat(28)}…`);
  });

  it("leaves short values and absent ones as showValue does", () => {
    expect(showChange("a", "b")).toEqual(["a", "b"]);
    expect(showChange(undefined, { k: 1 })).toEqual(["—", '{"k":1}']);
  });
});
