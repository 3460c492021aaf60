// A view's nodes and edges from its compact form (docs/FORMATS.md "Views in columns"):
// columns instead of an object per record, short strings through one table, edges by node
// index. The UI asks every view in columns; a view in records (tests, older servers) is
// taken as it is.

import type { View, ViewColumns, ViewEdge, ViewNode } from "../api/contract";

/** A view's records: its nodes (in the view's order) and its edges; from columns, also
 *  each edge's ends as indexes into `nodes` and its type as an index into `types`, so the
 *  model keys edges by numbers without looking an id up. */
export interface ViewRecords {
  nodes: ViewNode[];
  edges: ViewEdge[];
  numbered?: {
    source: ArrayLike<number>;
    target: ArrayLike<number>;
    type: ArrayLike<number>;
    /** The columns' string table: `types[type[i]]` is edge i's type. */
    types: readonly string[];
  };
}

/** The records of a view: decoded from its columns when it has them, else its own lists. */
export function viewRecords(view: View): ViewRecords {
  return view.columns ? decodeColumns(view.columns) : { nodes: view.nodes, edges: view.edges };
}

/** Columns that do not fit together (a server fault): says which column and where. */
export class ColumnsError extends Error {}

/** Decodes a view's columns: one record per node and edge, each string shared with the
 *  table (an edge's ends are its nodes' own id strings). */
export function decodeColumns(c: ViewColumns): ViewRecords {
  const s = c.strings, n = c.nodes, e = c.edges;
  const count = n.id.length;
  for (const [name, col] of Object.entries(n)) {
    if (col !== undefined) sameLength(`nodes.${name}`, (col as unknown[]).length, count);
  }
  const edgeCount = e.source.length;
  for (const [name, col] of Object.entries(e)) sameLength(`edges.${name}`, (col as unknown[]).length, edgeCount);
  const str = (column: string, i: number): string => {
    const v = i > 0 ? s[i] : undefined;
    if (v === undefined) throw new ColumnsError(`${column}: ${i} is not an entry of the string table (${s.length} entries)`);
    return v;
  };
  const opt = (column: string, i: number): string | null => (i === 0 ? null : str(column, i));
  const { id, label, base_type, x, y, w, h, layer, arrival, agent, context, status, text, standing } = n;
  const cluster = n.cluster ?? null;
  const nodes: ViewNode[] = new Array(count);
  for (let i = 0; i < count; i++) {
    const node: ViewNode = {
      id: id[i], label: str("label", label[i]), base_type: opt("base_type", base_type[i]),
      x: x[i], y: y[i], w: w[i], h: h[i], layer: layer[i], arrival: arrival[i],
      agent: opt("agent", agent[i]), context: opt("context", context[i]), status: opt("status", status[i]),
      text: opt("text", text[i]),
    };
    // As in a record: present only when set.
    if (standing[i] !== 0) node.standing = str("standing", standing[i]);
    const box = cluster?.[i];
    if (box) node.cluster = box;
    nodes[i] = node;
  }
  const { source, target, type, prov, a2a } = e;
  const edges: ViewEdge[] = new Array(edgeCount);
  for (let i = 0; i < edgeCount; i++) {
    const from = nodes[source[i]], to = nodes[target[i]];
    if (!from) throw new ColumnsError(`edges.source: ${source[i]} is not a node (${count} nodes)`);
    if (!to) throw new ColumnsError(`edges.target: ${target[i]} is not a node (${count} nodes)`);
    edges[i] = {
      source: from.id, target: to.id, type: str("type", type[i]), prov: opt("prov", prov[i]), a2a: opt("a2a", a2a[i]),
    };
  }
  return { nodes, edges, numbered: { source, target, type, types: s } };
}

function sameLength(name: string, len: number, count: number): void {
  if (len !== count) throw new ColumnsError(`${name} has ${len} entries, not ${count}`);
}
