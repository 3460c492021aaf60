// Views in columns: decoded to the same records as the per-node form, ends shared with their
// nodes, faults named; and the model built from them straight.

import { describe, expect, it } from "vitest";
import type { ClusterInfo, View, ViewColumns } from "../src/api/contract";
import { GraphModel } from "../src/graph/model";
import { ColumnsError, decodeColumns, viewRecords } from "../src/graph/view-columns";
import { edge, inColumns, node, view } from "./helpers";

const box: ClusterInfo = { title: "agent 1", members: 12, labels: [["LlmCall", 12]], statuses: [], opens: "members" };

describe("view columns", () => {
  it("decode the columns the core sends (the Rust test's view) to its records", () => {
    // `a_view_in_columns_decodes_to_the_same_records_and_shares_its_strings` in
    // src/api/columns_tests.rs asserts this table and these edge columns.
    const c: ViewColumns = {
      strings: ["", "LlmCall", "ProvActivity", "ctx-bench", "claude-sonnet-4", "USED", "used"],
      nodes: {
        id: ["a", "b", "c"], label: [1, 1, 1], base_type: [2, 2, 2], x: [560, 561, 562], y: [-276.5, -276.5, -276.5],
        w: [40, 40, 40], h: [36, 36, 36], layer: [3, 3, 3], arrival: [0, 1, 2], agent: [0, 0, 0], context: [3, 3, 3],
        status: [0, 0, 0], text: [4, 4, 4], standing: [0, 0, 0],
      },
      edges: { source: [0, 1, 2], target: [1, 2, 0], type: [5, 5, 5], prov: [6, 0, 6], a2a: [0, 0, 0] },
    };
    const { nodes, edges } = decodeColumns(c);
    const llm = (id: string, i: number) => node(id, i, {
      label: "LlmCall", base_type: "ProvActivity", x: 560 + i, y: -276.5, w: 40, h: 36, layer: 3,
      context: "ctx-bench", text: "claude-sonnet-4",
    });
    expect(nodes).toStrictEqual([llm("a", 0), llm("b", 1), llm("c", 2)]);
    expect(edges).toStrictEqual([
      { ...edge("a", "b"), prov: "used" }, edge("b", "c"), { ...edge("c", "a"), prov: "used" },
    ]);
    // An edge's ends are its nodes' own id strings, not copies.
    expect(edges[0].source).toBe(nodes[0].id);
  });

  it("round-trip every field: optional ones, empty strings, standings and cluster boxes", () => {
    const nodes = [
      node("a", 0, { agent: "", status: "invalid", standing: "verified", text: "A claim" }),
      node("b", 1, { base_type: null, context: "ctx", cluster: box }),
      node("c", 2, { label: "Statement", agent: "urn:agent:1" }),
    ];
    const edges = [edge("a", "b"), { ...edge("b", "c", "DERIVED"), a2a: "derived_from" }, edge("c", "zz")];
    const v = inColumns(view(nodes, edges));
    expect(v.nodes).toEqual([]);
    // The edge to a node not in the view is not sent.
    const records = viewRecords(v);
    expect({ nodes: records.nodes, edges: records.edges }).toStrictEqual({ nodes, edges: edges.slice(0, 2) });
    // Each edge also comes as numbers: its ends' places among the nodes, its type in the table.
    const numbered = records.numbered!;
    expect(Array.from(numbered.source)).toEqual([0, 1]);
    expect(Array.from(numbered.target)).toEqual([1, 2]);
    expect(Array.from(numbered.type).map((k) => numbered.types[k])).toEqual(["USED", "DERIVED"]);
    // A view without cluster boxes has no cluster column; decoding it adds no `cluster` key.
    const plain = inColumns(view([node("a", 0)]));
    expect(plain.columns!.nodes.cluster).toBeUndefined();
    expect(Object.keys(viewRecords(plain).nodes[0])).not.toContain("cluster");
    expect(Object.keys(viewRecords(plain).nodes[0])).not.toContain("standing");
  });

  it("take a view in records as it is", () => {
    const v = view([node("a", 0)], []);
    expect(viewRecords(v).nodes).toBe(v.nodes);
  });

  it("name the column that does not fit", () => {
    const good = () => inColumns(view([node("a", 0), node("b", 1)], [edge("a", "b")])).columns!;
    const short = good();
    short.nodes.y.pop();
    expect(() => decodeColumns(short)).toThrow(new ColumnsError("nodes.y has 1 entries, not 2"));
    const far = good();
    far.edges.target[0] = 2;
    expect(() => decodeColumns(far)).toThrow("edges.target: 2 is not a node (2 nodes)");
    const none = good();
    none.nodes.label[0] = 0;
    expect(() => decodeColumns(none)).toThrow("label: 0 is not an entry of the string table");
    const off = good();
    off.edges.prov[0] = 99;
    expect(() => decodeColumns(off)).toThrow("prov: 99 is not an entry");
  });

  it("build the model: nodes by id in arrival order without sorting, edges by key, the rest of the view", () => {
    const v: View = inColumns(view([node("a", 0), node("b", 1), node("c", 2)], [edge("b", "a"), edge("c", "b")], { seq: 5 }));
    const m = new GraphModel();
    m.applyView(v);
    expect(m.seq).toBe(5);
    expect(m.byArrival().map((n) => n.id)).toEqual(["a", "b", "c"]);
    expect(m.edgeList()).toEqual([edge("b", "a"), edge("c", "b")]);
    expect(m.nodes.get("b")).toEqual(node("b", 1));
    // A view whose nodes are not in arrival order (a neighbourhood) is still sorted.
    m.applyView(inColumns(view([node("b", 1), node("a", 0)], [], { mode: "neighbourhood" })));
    expect(m.byArrival().map((n) => n.id)).toEqual(["a", "b"]);
  });
});
