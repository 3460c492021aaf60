// The graph model: views, stream batches, moves, resets, and sequence de-duplication.

import { describe, expect, it } from "vitest";
import { GraphModel } from "../src/graph/model";
import { batch, edge, inColumns, node, view } from "./helpers";

function loaded(): GraphModel {
  const m = new GraphModel();
  m.applyView(view([node("b", 1), node("a", 0), node("c", 2)], [edge("b", "a")], { seq: 5 }));
  return m;
}

describe("GraphModel", () => {
  it("applies a view: nodes by id, edges, seq, and arrival order regardless of input order", () => {
    const m = loaded();
    expect(m.graph).toBe("g");
    expect(m.seq).toBe(5);
    expect([...m.nodes.keys()].sort()).toEqual(["a", "b", "c"]);
    expect(m.byArrival().map((n) => n.id)).toEqual(["a", "b", "c"]);
    expect(m.maxArrival()).toBe(2);
    expect(m.edgeList()).toHaveLength(1);
  });

  it("a second view replaces everything", () => {
    const m = loaded();
    m.applyView(view([node("z", 0)], [], { seq: 9 }));
    expect([...m.nodes.keys()]).toEqual(["z"]);
    expect(m.edges.size).toBe(0);
    expect(m.seq).toBe(9);
  });

  it("adds new nodes and edges from a batch and reports only what is new", () => {
    const m = loaded();
    const change = m.apply(batch(6, [node("d", 3)], [edge("d", "c"), edge("b", "a")]));
    expect(change.kind).toBe("batch");
    if (change.kind !== "batch") return;
    expect(change.added.map((n) => n.id)).toEqual(["d"]);
    expect(change.updated).toEqual([]);
    // b→a was already there: not reported again, not duplicated.
    expect(change.edges).toEqual([edge("d", "c")]);
    expect(m.edges.size).toBe(2);
    expect(m.seq).toBe(6);
    expect(m.byArrival().map((n) => n.id)).toEqual(["a", "b", "c", "d"]);
  });

  it("takes the database's state in sequence: nothing drawn changes, the next batch follows on", () => {
    const m = loaded();
    const down = m.apply({ kind: "database", graph: "g", seq: 6, state: "restarting", message: "the server stopped" });
    expect(down).toEqual({ kind: "database", state: "restarting", message: "the server stopped" });
    expect(m.seq).toBe(6);
    expect(m.apply({ kind: "database", graph: "g", seq: 7, state: "up", message: "back" }).kind).toBe("database");
    expect(m.nodes.size).toBe(3);
    // Seen again (a reconnect's backlog): ignored; the batch after it is no gap.
    expect(m.apply({ kind: "database", graph: "g", seq: 6, state: "restarting", message: "x" }).kind).toBe("ignored");
    const next = m.apply(batch(8, [node("d", 3)]));
    expect(next.kind).toBe("batch");
    expect(m.seq).toBe(8);
  });

  it("updates a known node's data but keeps its position", () => {
    const m = loaded();
    const before = { ...m.nodes.get("b")! };
    const change = m.apply(batch(6, [node("b", 1, { x: 999, y: 999, status: "invalid", text: "changed" })]));
    if (change.kind !== "batch") throw new Error(change.kind);
    expect(change.added).toEqual([]);
    expect(change.updated.map((n) => n.id)).toEqual(["b"]);
    const b = m.nodes.get("b")!;
    expect(b.status).toBe("invalid");
    expect(b.text).toBe("changed");
    expect([b.x, b.y]).toEqual([before.x, before.y]);
  });

  it("applies a verification update's signature to the node and reports it as updated", () => {
    const m = loaded();
    const change = m.apply({
      kind: "batch", graph: "g", seq: 6, time_ms: 0, nodes: [], edges: [],
      verifications: [{ id: "c", kind: "statement", signature: "unknown_key", verdict: null, consensus: 0.4, verified: false }],
    });
    if (change.kind !== "batch") throw new Error(change.kind);
    expect(change.updated.map((n) => n.id)).toEqual(["c"]);
    expect(m.nodes.get("c")!.status).toBe("unknown_key");
    expect(m.verifications.get("c")?.consensus).toBe(0.4);
  });

  it("inserts a node that arrives out of order at its arrival position", () => {
    const m = new GraphModel();
    m.applyView(view([node("a", 0), node("c", 4)], [], { seq: 1 }));
    m.apply(batch(2, [node("b", 2)]));
    m.apply(batch(3, [node("e", 9), node("d", 5)]));
    expect(m.byArrival().map((n) => n.id)).toEqual(["a", "b", "c", "d", "e"]);
  });

  it("moves nodes it knows and ignores moves of unknown ones", () => {
    const m = loaded();
    const change = m.apply({ kind: "moves", graph: "g", seq: 6, moves: [{ id: "a", x: 1, y: 2 }, { id: "ghost", x: 3, y: 4 }] });
    expect(change).toEqual({ kind: "moves", moves: [{ id: "a", x: 1, y: 2 }] });
    expect(m.nodes.get("a")).toMatchObject({ x: 1, y: 2 });
  });

  it("passes knowledge-graph changes on, counts them in the sequence, and draws nothing for them", () => {
    const m = loaded();
    const changes = [{ statement: "kg:1", op: "add", subject: "ex:a", object: null, event: { op: "add" } }];
    expect(m.apply({ kind: "knowledge", graph: "g", seq: 6, changes })).toEqual({ kind: "knowledge", changes });
    expect(m.seq).toBe(6);
    expect(m.nodes.size).toBe(3);
    expect(m.apply(batch(7, [node("d", 3)])).kind).toBe("batch");
    expect(m.apply({ kind: "knowledge", graph: "g", seq: 7, changes })).toEqual({ kind: "ignored", reason: "old" });
  });

  it("ignores messages at or below its seq, so a replayed message changes nothing", () => {
    const m = loaded();
    expect(m.apply(batch(5, [node("old", 7)]))).toEqual({ kind: "ignored", reason: "old" });
    expect(m.apply(batch(3, [node("older", 8)]))).toEqual({ kind: "ignored", reason: "old" });
    expect(m.nodes.has("old")).toBe(false);
    m.apply(batch(6, [node("d", 3)]));
    expect(m.apply(batch(6, [node("dup", 4)])).kind).toBe("ignored");
    expect(m.nodes.has("dup")).toBe(false);
    expect(m.seq).toBe(6);
  });

  it("ignores another graph's messages", () => {
    const m = loaded();
    expect(m.apply(batch(6, [node("x", 3)], [], "other"))).toEqual({ kind: "ignored", reason: "other-graph" });
    expect(m.seq).toBe(5);
  });

  it("reports a reset, and treats a gap in seq as one", () => {
    const m = loaded();
    expect(m.apply({ kind: "reset", graph: "g", seq: 6, reason: "rebuilt" })).toEqual({ kind: "reset", reason: "rebuilt" });
    const gap = m.apply(batch(9, [node("late", 5)]));
    expect(gap.kind).toBe("reset");
    // The batch after the gap is not half-applied.
    expect(m.nodes.has("late")).toBe(false);
  });

  it("takes a reset with a lower seq (a restarted server's rebuilt view)", () => {
    const m = loaded();
    expect(m.apply({ kind: "reset", graph: "g", seq: 0, reason: "the view was rebuilt" })).toEqual({
      kind: "reset",
      reason: "the view was rebuilt",
    });
    expect(m.seq).toBe(0);
  });

  it("keeps total counts at least the drawn counts in a whole view", () => {
    const m = loaded();
    m.apply(batch(6, [node("d", 3), node("e", 4)], [edge("e", "d")]));
    expect(m.totalNodes).toBe(5);
    expect(m.totalEdges).toBe(2);
  });
});

describe("GraphModel's edges by number", () => {
  const nodes = () => [node("a", 0), node("b", 1), node("c", 2), node("d", 3)];
  const edges = () => [edge("a", "b"), edge("b", "c"), edge("a", "b", "DERIVED"), edge("c", "a"), edge("d", "a")];

  it("hold the same edges from a view in columns as from the view in records, one per ends and type", () => {
    const records = new GraphModel(), columns = new GraphModel();
    records.applyView(view(nodes(), [...edges(), edge("a", "b")]));
    columns.applyView(inColumns(view(nodes(), edges())));
    expect(records.edgeList()).toEqual(edges());
    expect(columns.edgeList()).toEqual(edges());
    expect(columns.edges.size).toBe(5);
    // A batch's edge already held (same ends and type) is not new; another type is.
    for (const m of [records, columns]) {
      const change = m.apply(batch(1, [], [edge("c", "a"), edge("c", "a", "DERIVED")]));
      if (change.kind !== "batch") throw new Error(change.kind);
      expect(change.edges).toEqual([edge("c", "a", "DERIVED")]);
      expect(m.edges.size).toBe(6);
    }
  });

  it("give the canvas each edge's ends as places in nodeList()", () => {
    for (const v of [view(nodes(), edges()), inColumns(view(nodes(), edges()))]) {
      const m = new GraphModel();
      m.applyView(v);
      m.apply(batch(1, [node("e", 4)], [edge("e", "b")]));
      const list = m.nodeList(), { edges: drawn, ends } = m.drawnEdges();
      expect(drawn).toEqual(m.edgeList());
      expect(ends).not.toBeNull();
      expect(drawn.map((_e, i) => [list[ends!.source[i]].id, list[ends!.target[i]].id])).toEqual(drawn.map((e) => [e.source, e.target]));
    }
  });

  it("keep an edge whose end has not come yet, and then give the canvas no numbers to trust", () => {
    const m = new GraphModel();
    m.applyView(inColumns(view(nodes(), edges())));
    const change = m.apply(batch(1, [], [edge("a", "later")]));
    if (change.kind !== "batch") throw new Error(change.kind);
    expect(change.edges).toEqual([edge("a", "later")]);
    m.apply(batch(2, [node("later", 4)], [edge("a", "later")]));
    expect(m.edges.size).toBe(6);
    expect(m.drawnEdges().ends).toBeNull();
    // A new view numbers everything afresh.
    m.applyView(inColumns(view(nodes(), edges())));
    expect(m.drawnEdges().ends).not.toBeNull();
  });

  it("a view whose records name a node twice keeps one, and its edges by id", () => {
    const m = new GraphModel();
    m.applyView(view([node("a", 0), node("b", 1), node("a", 2, { text: "again" })], [edge("a", "b"), edge("b", "a")]));
    expect(m.nodeList().map((n) => n.id)).toEqual(["a", "b"]);
    const list = m.nodeList(), { edges: drawn, ends } = m.drawnEdges();
    expect(drawn.map((_e, i) => [list[ends!.source[i]].id, list[ends!.target[i]].id])).toEqual([["a", "b"], ["b", "a"]]);
  });
});
