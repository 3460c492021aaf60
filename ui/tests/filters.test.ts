// The one canvas visibility predicate built from the filter menu and the timeline.

import { describe, expect, it } from "vitest";
import { NONE, emptyFilters, facetValues, isFiltering, visibility } from "../src/graph/filters";
import { node } from "./helpers";

const stmt = node("s", 0, { label: "Statement", agent: "urn:agent:gpt-5", status: "valid", context: "ctx-1" });
const forged = node("v", 1, { label: "Verification", agent: "urn:agent:mallory", status: "invalid" });
const call = node("l", 2, { label: "LlmCall", base_type: "ProvActivity", agent: "urn:agent:gpt-5", context: "ctx-2" });
const all = [stmt, forged, call];

function shown(pred: ReturnType<typeof visibility>): string[] {
  return all.filter((n) => (pred ? pred(n) : true)).map((n) => n.id);
}

describe("filter predicate", () => {
  it("is null when nothing is hidden and the timeline is live", () => {
    expect(visibility(emptyFilters(), null)).toBeNull();
    expect(isFiltering(emptyFilters())).toBe(false);
  });

  it("hides nodes by label", () => {
    const f = emptyFilters();
    f.label.add("Verification");
    expect(shown(visibility(f, null))).toEqual(["s", "l"]);
  });

  it("combines dimensions: a node is hidden if any of its values is hidden", () => {
    const f = emptyFilters();
    f.agent.add("urn:agent:gpt-5");
    f.status.add("invalid");
    expect(shown(visibility(f, null))).toEqual([]);
    const g = emptyFilters();
    g.context.add("ctx-2");
    g.base_type.add("ProvActivity");
    expect(shown(visibility(g, null))).toEqual(["s", "v"]);
  });

  it("treats a missing value as its own choice", () => {
    const f = emptyFilters();
    f.context.add(NONE);
    expect(shown(visibility(f, null))).toEqual(["s", "l"]);
    f.context.clear();
    f.status.add(NONE);
    expect(shown(visibility(f, null))).toEqual(["s", "v"]);
  });

  it("adds the timeline position: later arrivals are hidden", () => {
    expect(shown(visibility(emptyFilters(), 1))).toEqual(["s", "v"]);
    expect(shown(visibility(emptyFilters(), 0))).toEqual(["s"]);
    const f = emptyFilters();
    f.label.add("Statement");
    expect(shown(visibility(f, 1))).toEqual(["v"]);
  });

  it("counts facet values, most frequent first", () => {
    expect(facetValues(all, "agent")).toEqual([["urn:agent:gpt-5", 2], ["urn:agent:mallory", 1]]);
    expect(facetValues(all, "context")).toEqual([[NONE, 1], ["ctx-1", 1], ["ctx-2", 1]]);
  });
});
