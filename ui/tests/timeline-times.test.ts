// The Timeline's order: records by when they happened, not by when they were loaded.

import { describe, expect, it } from "vitest";
import { effectiveTimes, inTimeOrder, timesQuery, toMs } from "../src/timeline/timeline-times";

describe("the Timeline's times", () => {
  it("reads milliseconds, seconds and ISO 8601 text", () => {
    expect(toMs(1760518865240)).toBe(1760518865240);
    expect(toMs(1760518865)).toBe(1760518865000);
    expect(toMs("2025-10-15T09:01:12Z")).toBe(Date.UTC(2025, 9, 15, 9, 1, 12));
    expect(toMs("not a time")).toBeNull();
    expect(toMs(null)).toBeNull();
  });

  it("gives a node without a time its neighbours' earliest, else the one loaded before it's", () => {
    // m-31 was loaded before m-30, but m-30's processing started first.
    const nodes = [{ id: "boot" }, { id: "m-31" }, { id: "m-30" }, { id: "p-31" }, { id: "p-30" }, { id: "quote" }];
    const edges = [{ source: "m-31", target: "p-31" }, { source: "m-30", target: "p-30" }];
    const own = new Map([["boot", 100], ["p-31", 868], ["p-30", 865]]);
    const times = effectiveTimes(nodes, edges, own);
    expect(times.get("m-30")).toBe(865);
    expect(times.get("m-31")).toBe(868);
    expect(times.get("quote")).toBe(865);
    expect(inTimeOrder(nodes, times).map((n) => n.id)).toEqual(["boot", "m-30", "p-30", "quote", "m-31", "p-31"]);
  });

  it("keeps load order for equal times and puts records before any time first", () => {
    const nodes = [{ id: "a" }, { id: "b" }, { id: "c" }];
    const times = effectiveTimes(nodes, [], new Map([["b", 5]]));
    expect(times.has("a")).toBe(false);
    expect(times.get("c")).toBe(5);
    expect(inTimeOrder(nodes, times).map((n) => n.id)).toEqual(["a", "b", "c"]);
  });

  it("asks only for nodes that have a time", () => {
    expect(timesQuery()).toMatch(/^MATCH \(n\) WITH n, coalesce\(n\.`prov:startTime`, .*\) AS t WHERE t IS NOT NULL RETURN n\.name AS id, t AS time$/);
  });
});
