// Arrow keys along edges (graph/along-edges.ts).

import { describe, expect, it } from "vitest";
import { neighbourToward } from "../src/graph/along-edges";

const nodes = new Map(Object.entries({
  c: { x: 0, y: 0 },
  parent: { x: 10, y: -100 },
  farParent: { x: 300, y: -110 },
  child: { x: -20, y: 100 },
  right: { x: 200, y: 20 },
  stranger: { x: 0, y: -50 }, // above, but joined by no edge
}));
const edges = [
  { source: "c", target: "parent" },
  { source: "c", target: "farParent" },
  { source: "child", target: "c" },
  { source: "right", target: "c" },
];

describe("moving the selection along edges", () => {
  it("goes to the neighbour lying most nearly that way, never to a node without an edge", () => {
    expect(neighbourToward(nodes, edges, "c", "up")).toBe("parent");
    expect(neighbourToward(nodes, edges, "c", "down")).toBe("child");
    expect(neighbourToward(nodes, edges, "c", "right")).toBe("right");
    expect(neighbourToward(nodes, edges, "c", "left")).toBe(null);
    expect(neighbourToward(nodes, edges, "parent", "down")).toBe("c");
  });

  it("skips filtered-out nodes and unknown starts", () => {
    expect(neighbourToward(nodes, edges, "c", "up", (id) => id !== "parent")).toBe("farParent");
    expect(neighbourToward(nodes, edges, "nope", "up")).toBe(null);
  });
});
