//! A small layered drawing of a few dozen nodes for "Show on graph" (subject.ts): what the
//! user asked to see is a DAG (a reasoning chain and the claims it cites; a claim's maker,
//! the claim, its quotes and verifications, their verifiers), and reads best drawn as one,
//! with several nodes side by side where it branches. Layers by longest path from the
//! roots, order within a layer by the barycentre of the neighbours (a few sweeps, which is
//! all a graph this small needs), top-down or left-to-right, whichever fits the canvas
//! larger. The whole graph's layout is the server's (src/layout/); this one only places the
//! few nodes shown alone, and only on the canvas.

/** A node to place: its id and size (world px). */
export interface LayeredNode {
  readonly id: string;
  readonly w: number;
  readonly h: number;
}

/** An edge of the DAG, read from `from` to `to` (the reading order, not the stored one). */
export interface LayeredEdge {
  readonly from: string;
  readonly to: string;
}

/** Layers one under another ("down") or one beside another ("right"). */
export type Direction = "down" | "right";

export interface LayeredDrawing {
  readonly direction: Direction;
  /** Each layer's node ids, in order across it. */
  readonly layers: string[][];
  /** Each node's centre (world px), the drawing centred on the origin. */
  readonly at: Map<string, { x: number, y: number }>;
  readonly width: number;
  readonly height: number;
}

/** Gaps (world px): between layers, and between nodes of a layer, for each direction. The
 *  gap between layers leaves room for an arrow; across, for a label's overhang. */
const GAPS: Record<Direction, { layer: number, across: number }> = {
  down: { layer: 84, across: 36 },
  right: { layer: 110, across: 30 },
};
/** Barycentre sweeps (down then up counts as two). */
const SWEEPS = 6;

/** The layer of each node: 0 for a node nothing leads to, else one past the deepest node
 *  that leads to it. Edges that would close a cycle (found depth first, in input order) and
 *  edges to or from unknown nodes are left out. */
export function assignLayers(ids: readonly string[], edges: readonly LayeredEdge[]): Map<string, number> {
  const known = new Set(ids);
  const out = new Map<string, string[]>(ids.map((id) => [id, []]));
  for (const e of edges) if (known.has(e.from) && known.has(e.to) && e.from !== e.to) out.get(e.from)!.push(e.to);
  // Depth first, iteratively (the input is bounded, but a stack never overflows): an edge
  // into a node still on the path closes a cycle and is dropped.
  const state = new Map<string, 1 | 2>();
  const order: string[] = [];
  const kept = new Map<string, string[]>(ids.map((id) => [id, []]));
  for (const root of ids) {
    if (state.has(root)) continue;
    const stack: { id: string, next: number }[] = [{ id: root, next: 0 }];
    state.set(root, 1);
    while (stack.length) {
      const top = stack[stack.length - 1];
      const succ = out.get(top.id)!;
      if (top.next < succ.length) {
        const to = succ[top.next++];
        const s = state.get(to);
        if (s === 1) continue; // back edge
        kept.get(top.id)!.push(to);
        if (s === undefined) {
          state.set(to, 1);
          stack.push({ id: to, next: 0 });
        }
      } else {
        state.set(top.id, 2);
        order.push(top.id);
        stack.pop();
      }
    }
  }
  // Reverse finishing order is a topological order of the kept edges.
  const layer = new Map<string, number>(ids.map((id) => [id, 0]));
  for (let i = order.length - 1; i >= 0; i--) {
    const from = order[i], l = layer.get(from)!;
    for (const to of kept.get(from)!) if (layer.get(to)! < l + 1) layer.set(to, l + 1);
  }
  return layer;
}

/** The nodes in layers, each layer ordered to keep edges short and uncrossed: first in
 *  input order, then sorted by the mean place of each node's neighbours in the layers
 *  before it (sweeping down) and after it (sweeping up). */
export function orderLayers(ids: readonly string[], edges: readonly LayeredEdge[], layer: ReadonlyMap<string, number>): string[][] {
  const layers: string[][] = [];
  for (const id of ids) {
    const l = layer.get(id);
    if (l === undefined) continue;
    while (layers.length <= l) layers.push([]);
    if (!layers[l].includes(id)) layers[l].push(id);
  }
  const up = new Map<string, string[]>(), down = new Map<string, string[]>();
  for (const e of edges) {
    const a = layer.get(e.from), b = layer.get(e.to);
    if (a === undefined || b === undefined || a === b) continue;
    const [hi, lo] = a < b ? [e.from, e.to] : [e.to, e.from];
    (down.get(hi) ?? down.set(hi, []).get(hi)!).push(lo);
    (up.get(lo) ?? up.set(lo, []).get(lo)!).push(hi);
  }
  // A node's place across its layer, from 0 to 1, so layers of different sizes compare.
  const place = new Map<string, number>();
  const measure = (row: string[]) => row.forEach((id, i) => place.set(id, (i + 0.5) / row.length));
  layers.forEach(measure);
  for (let s = 0; s < SWEEPS; s++) {
    const downward = s % 2 === 0;
    const seq = downward ? layers.keys() : [...layers.keys()].reverse();
    for (const l of seq) {
      const row = layers[l], by = downward ? up : down;
      // Nodes with no neighbour that way keep their slots (so a claim's quotes stay
      // together beside its verifications); the others are sorted into the rest. Stable:
      // ties keep their order.
      const key = new Map<string, number>();
      for (const id of row) {
        const ns = (by.get(id) ?? []).map((n) => place.get(n)!);
        if (ns.length) key.set(id, ns.reduce((a, b) => a + b, 0) / ns.length);
      }
      const moving = row.filter((id) => key.has(id)).sort((a, b) => key.get(a)! - key.get(b)!);
      for (let i = 0, m = 0; i < row.length; i++) if (key.has(row[i])) row[i] = moving[m++];
      measure(row);
    }
  }
  return layers;
}

/** The drawing in one direction: layers one after another, each centred across. */
export function layeredDrawing(nodes: readonly LayeredNode[], edges: readonly LayeredEdge[], direction: Direction): LayeredDrawing {
  const size = new Map(nodes.map((n) => [n.id, n]));
  const ids = [...size.keys()];
  const layers = orderLayers(ids, edges, assignLayers(ids, edges)).filter((r) => r.length > 0);
  const gap = GAPS[direction];
  const down = direction === "down";
  // Along: the layer's depth (tallest or widest node); across: the sum of its nodes and gaps.
  const depth = layers.map((r) => Math.max(...r.map((id) => (down ? size.get(id)!.h : size.get(id)!.w))));
  const span = layers.map((r) => r.reduce((a, id) => a + (down ? size.get(id)!.w : size.get(id)!.h), 0) + gap.across * (r.length - 1));
  const along = depth.reduce((a, b) => a + b, 0) + gap.layer * Math.max(0, layers.length - 1);
  const across = Math.max(0, ...span);
  const at = new Map<string, { x: number, y: number }>();
  let u = -along / 2;
  layers.forEach((row, l) => {
    const mid = u + depth[l] / 2;
    let v = -span[l] / 2;
    for (const id of row) {
      const n = size.get(id)!, extent = down ? n.w : n.h;
      const c = v + extent / 2;
      at.set(id, down ? { x: c, y: mid } : { x: mid, y: c });
      v += extent + gap.across;
    }
    u += depth[l] + gap.layer;
  });
  return { direction, layers, at, width: down ? across : along, height: down ? along : across };
}

/** The drawing, top-down or left-to-right, that shows its nodes largest in a `width` ×
 *  `height` view (CSS px, `pad` kept free around it) at no more than `maxScale`; top-down
 *  when both reach it, or when the view has no size. */
export function bestDrawing(nodes: readonly LayeredNode[], edges: readonly LayeredEdge[],
  view: { width: number, height: number }, pad = 64, maxScale = 1.5): LayeredDrawing {
  const scale = (d: LayeredDrawing) => Math.min(maxScale,
    Math.max(view.width - 2 * pad, 1) / Math.max(d.width, 1), Math.max(view.height - 2 * pad, 1) / Math.max(d.height, 1));
  const down = layeredDrawing(nodes, edges, "down");
  // A canvas with no size yet (hidden, not laid out) has no shape to fit.
  if (!(view.width > 2 * pad) || !(view.height > 2 * pad)) return down;
  const right = layeredDrawing(nodes, edges, "right");
  return scale(right) > scale(down) + 1e-9 ? right : down;
}
