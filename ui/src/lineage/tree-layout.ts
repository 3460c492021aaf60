// Where each version of a prompt lineage goes in the explorer's version tree:
// top-down, one row per chain position (a merge goes below both its parents), one lane
// (column) per branch, so a fork steps to the right and a merge comes back in. Edges are
// routed so they never pass through a box: down their lane, then across at the child
// (a merge's second parent), across at the parent, then down (a fork), or else down the
// gutter between two lanes. Pure: no DOM.

import type { EvolutionView, LineageGraph, PromptView } from "../api/contract";

/** Box size and spacing, in CSS pixels. */
export const BOX_W = 176;
export const BOX_H = 52;
export const LANE_W = 226;
export const ROW_H = 80;
export const PAD = 16;

export interface LaidBox {
  id: string;
  prompt: PromptView;
  /** 0 for the root's row; children are always on a later row than their parents. */
  row: number;
  lane: number;
  /** Top-left corner. */
  x: number;
  y: number;
  /** Position in creation (time) order, 0 first: what a replay shows at each step. */
  order: number;
}

export interface LaidEdge {
  evolution: EvolutionView;
  /** SVG path data, from the parent's box to the child's. */
  path: string;
  /** Where the label's left middle goes (its right middle, with `anchor: "end"`). */
  label: { x: number; y: number };
  anchor?: "start" | "end";
  /** How the edge was routed: a straight line when both are in one lane, down then across
   *  (a merge's other parent), across then down (a fork), or down a gutter between lanes. */
  route: "straight" | "fork" | "merge" | "gutter";
}

export interface LineageLayout {
  boxes: LaidBox[];
  edges: LaidEdge[];
  width: number;
  height: number;
  rows: number;
  lanes: number;
}

/** "2026-11-02T09:12:00+00:00" then id: the order versions were created in. */
export function byTime(a: PromptView, b: PromptView): number {
  const ta = Date.parse(a.timestamp), tb = Date.parse(b.timestamp);
  if (ta !== tb && !Number.isNaN(ta) && !Number.isNaN(tb)) return ta - tb;
  return a.timestamp < b.timestamp ? -1 : a.timestamp > b.timestamp ? 1 : a.id.localeCompare(b.id);
}

/** The evolutions into each prompt, the primary parent first. */
export function parentsOf(g: Pick<LineageGraph, "evolutions">): Map<string, EvolutionView[]> {
  const m = new Map<string, EvolutionView[]>();
  for (const e of g.evolutions) {
    const list = m.get(e.child) ?? [];
    list.push(e);
    m.set(e.child, list);
  }
  for (const list of m.values()) list.sort((a, b) => Number(b.primary) - Number(a.primary));
  return m;
}

/** Row of each prompt: its chain position (1 → row 0), pushed below its lowest parent. */
function rowsOf(prompts: PromptView[], parents: Map<string, EvolutionView[]>): Map<string, number> {
  const byId = new Map(prompts.map((p) => [p.id, p]));
  const rows = new Map<string, number>();
  const visiting = new Set<string>();
  const rowOf = (id: string): number => {
    const known = rows.get(id);
    if (known !== undefined) return known;
    const p = byId.get(id);
    if (!p || visiting.has(id)) return -1; // a parent outside the lineage, or a cycle
    visiting.add(id);
    let row = Math.max(0, p.chain_position - 1);
    for (const e of parents.get(id) ?? []) row = Math.max(row, rowOf(e.parent) + 1);
    visiting.delete(id);
    rows.set(id, row);
    return row;
  };
  for (const p of prompts) rowOf(p.id);
  // A lineage drawn in part (its oldest versions left out) starts on the first row too.
  const top = Math.min(...rows.values());
  if (top > 0) for (const [id, r] of rows) rows.set(id, r - top);
  return rows;
}

/** Lays out a lineage: boxes by row and lane, and each evolution's routed edge. */
export function layoutLineage(g: Pick<LineageGraph, "prompts" | "evolutions">): LineageLayout {
  const parents = parentsOf(g);
  const rows = rowsOf(g.prompts, parents);
  const timeOrder = [...g.prompts].sort(byTime);
  const orderOf = new Map(timeOrder.map((p, i) => [p.id, i]));
  const placing = [...g.prompts].sort((a, b) => (rows.get(a.id)! - rows.get(b.id)!) || byTime(a, b));

  // Which rows each lane has a box on, and the rows its edges run down through.
  const boxesIn: Array<Set<number>> = [];
  const runsIn: Array<Array<[number, number]>> = [];
  const lane = (l: number) => {
    while (boxesIn.length <= l) {
      boxesIn.push(new Set());
      runsIn.push([]);
    }
  };
  const free = (l: number, from: number, to: number): boolean => {
    lane(l);
    for (let r = from; r <= to; r++) if (boxesIn[l].has(r)) return false;
    return runsIn[l].every(([a, b]) => b < from || a > to);
  };
  const crossable = (row: number, a: number, b: number): boolean => {
    for (let l = Math.min(a, b) + 1; l < Math.max(a, b); l++) if (!free(l, row, row)) return false;
    return true;
  };
  const reserve = (l: number, from: number, to: number) => {
    if (to >= from) runsIn[l].push([from, to]);
  };

  const boxes = new Map<string, LaidBox>();
  const continued = new Set<string>();
  for (const p of placing) {
    const row = rows.get(p.id)!;
    const ins = parents.get(p.id) ?? [];
    const pe = ins.find((e) => boxes.has(e.parent));
    const pb = pe ? boxes.get(pe.parent)! : null;
    let at = -1;
    if (pb && pe && !continued.has(pb.id) && pe.evolution_type !== "forks"
      && (p.branch ?? "") === (pb.prompt.branch ?? "") && free(pb.lane, pb.row + 1, row)) {
      at = pb.lane;
      continued.add(pb.id);
    } else {
      // The first lane clear from below the parent down to this row (the line runs down
      // it), reachable across the parent's row; else the first clear one (a new lane is).
      const from = pb ? pb.row + 1 : row;
      const clear = (l: number) => (!pb || l !== pb.lane) && free(l, from, row);
      const lanes = boxesIn.length;
      for (let l = 0; at < 0 && l <= lanes; l++) if (clear(l) && (!pb || crossable(pb.row, pb.lane, l))) at = l;
      for (let l = 0; at < 0; l++) if (clear(l)) at = l;
    }
    lane(at);
    boxesIn[at].add(row);
    if (pb) reserve(at, pb.row + 1, row - 1);
    // A merge's other parents come down their own lanes to its row, when those are clear.
    for (const e of ins) {
      const sb = boxes.get(e.parent);
      if (!sb || sb === pb || sb.lane === at) continue;
      if (free(sb.lane, sb.row + 1, row) && crossable(row, sb.lane, at)) reserve(sb.lane, sb.row + 1, row);
    }
    boxes.set(p.id, { id: p.id, prompt: p, row, lane: at, x: PAD + at * LANE_W, y: PAD + row * ROW_H, order: orderOf.get(p.id)! });
  }

  const laid = [...boxes.values()].sort((a, b) => a.order - b.order);
  const place = new Map(laid.map((b) => [`${b.lane}/${b.row}`, b]));
  const edges: LaidEdge[] = [];
  for (const e of g.evolutions) {
    const pb = boxes.get(e.parent), cb = boxes.get(e.child);
    if (pb && cb) edges.push(route(e, pb, cb, (lane, row) => place.get(`${lane}/${row}`)));
  }
  const lanes = laid.reduce((m, b) => Math.max(m, b.lane + 1), 0);
  const rowCount = laid.reduce((m, b) => Math.max(m, b.row + 1), 0);
  return {
    boxes: laid, edges, rows: rowCount, lanes,
    width: PAD * 2 + Math.max(0, lanes - 1) * LANE_W + BOX_W + (lanes > 0 ? LANE_W - BOX_W : 0),
    height: PAD * 2 + Math.max(0, rowCount - 1) * ROW_H + BOX_H,
  };
}

/** The box at a lane and row, if any. */
type BoxAt = (lane: number, row: number) => LaidBox | undefined;

/** Whether any box other than `a` and `b` is in `lane` on a row in [from, to]. */
function blocked(at: BoxAt, lane: number, from: number, to: number, a: LaidBox, b: LaidBox): boolean {
  for (let r = from; r <= to; r++) {
    const x = at(lane, r);
    if (x && x !== a && x !== b) return true;
  }
  return false;
}

/** Whether any box is on `row` strictly between lanes `a` and `b`. */
function between(at: BoxAt, row: number, a: number, b: number): boolean {
  for (let l = Math.min(a, b) + 1; l < Math.max(a, b); l++) if (at(l, row)) return true;
  return false;
}

const R = 10;
const f = (n: number) => String(Math.round(n * 10) / 10);

function route(e: EvolutionView, p: LaidBox, c: LaidBox, boxes: BoxAt): LaidEdge {
  const pcx = p.x + BOX_W / 2, ccx = c.x + BOX_W / 2;
  const pBottom = p.y + BOX_H, cTop = c.y;
  if (p.lane === c.lane && !blocked(boxes, p.lane, p.row + 1, c.row - 1, p, c)) {
    return { evolution: e, route: "straight", path: `M${f(pcx)},${f(pBottom)} V${f(cTop)}`, label: { x: pcx + 8, y: (pBottom + cTop) / 2 } };
  }
  const right = c.lane > p.lane;
  // A merge's other parent: down its own lane to the child's row, then across into its side.
  const mergeOk = p.lane !== c.lane && !blocked(boxes, p.lane, p.row + 1, c.row, p, c) && !between(boxes, c.row, p.lane, c.lane);
  // A fork: across from the parent's side to the child's lane, then down into its top.
  const forkOk = p.lane !== c.lane && !blocked(boxes, c.lane, p.row, c.row - 1, p, c) && !between(boxes, p.row, p.lane, c.lane);
  const preferMerge = !e.primary;
  if (mergeOk && (preferMerge || !forkOk)) {
    const cy = c.y + BOX_H / 2;
    const side = right ? c.x : c.x + BOX_W;
    const dir = right ? 1 : -1;
    return {
      evolution: e, route: "merge",
      path: `M${f(pcx)},${f(pBottom)} V${f(cy - R)} Q${f(pcx)},${f(cy)} ${f(pcx + dir * R)},${f(cy)} H${f(side)}`,
      label: { x: pcx + 8, y: (pBottom + c.y) / 2 },
    };
  }
  if (forkOk) {
    const py = p.y + BOX_H / 2;
    const side = right ? p.x + BOX_W : p.x;
    const dir = right ? 1 : -1;
    return {
      evolution: e, route: "fork",
      path: `M${f(side)},${f(py)} H${f(ccx - dir * R)} Q${f(ccx)},${f(py)} ${f(ccx)},${f(py + R)} V${f(cTop)}`,
      label: { x: ccx + 8, y: (p.y + BOX_H + cTop) / 2 },
    };
  }
  // Nothing clear: across the gap below the parent to the gutter between two lanes, down
  // the gutter (no box is ever there), and across the gap above the child into its top.
  const half = (ROW_H - BOX_H) / 2, margin = (LANE_W - BOX_W) / 2;
  const gx = c.lane > p.lane ? c.x - margin : p.lane > c.lane ? c.x + BOX_W + margin : p.x + BOX_W + margin;
  const gy1 = pBottom + half, gy2 = cTop - half;
  const fromLeft = gx < ccx;
  return {
    evolution: e, route: "gutter",
    path: rounded([[pcx, pBottom], [pcx, gy1], [gx, gy1], [gx, gy2], [ccx, gy2], [ccx, cTop]]),
    label: { x: fromLeft ? ccx + 8 : ccx - 8, y: gy2 }, anchor: fromLeft ? "start" : "end",
  };
}

/** An orthogonal polyline as SVG path data, its corners rounded. */
function rounded(points: Array<[number, number]>): string {
  const pts = points.filter((q, i) => i === 0 || q[0] !== points[i - 1][0] || q[1] !== points[i - 1][1]);
  let d = `M${f(pts[0][0])},${f(pts[0][1])}`;
  for (let i = 1; i < pts.length; i++) {
    const [x, y] = pts[i];
    const next = pts[i + 1];
    if (!next) {
      d += ` L${f(x)},${f(y)}`;
      break;
    }
    const [px, py] = pts[i - 1];
    const r = Math.min(R, Math.hypot(x - px, y - py) / 2, Math.hypot(next[0] - x, next[1] - y) / 2);
    const ax = x - Math.sign(x - px) * r, ay = y - Math.sign(y - py) * r;
    const bx = x + Math.sign(next[0] - x) * r, by = y + Math.sign(next[1] - y) * r;
    d += ` L${f(ax)},${f(ay)} Q${f(x)},${f(y)} ${f(bx)},${f(by)}`;
  }
  return d;
}

/** The part of a lineage drawn: all of it, or its latest `max` versions (by creation) and
 *  the evolutions among them; `total` is how many versions it has. */
export function latestPart(g: LineageGraph, max: number): { graph: LineageGraph; total: number } {
  const total = g.prompts.length;
  if (total <= max) return { graph: g, total };
  const keep = new Set([...g.prompts].sort(byTime).slice(-max).map((p) => p.id));
  return {
    total,
    graph: { ...g, prompts: g.prompts.filter((p) => keep.has(p.id)), evolutions: g.evolutions.filter((e) => keep.has(e.child) && keep.has(e.parent)) },
  };
}

/** What a confidence says of a lineage step, in the lineage format's bands (docs/FORMATS.md,
 *  “Prompt lineage”): strong from 0.9, moderate from 0.7, weak from 0.5, tentative from 0.3
 *  (“inspired by”), minimal below (“unlikely related”). The same rule as the CLI's. */
export type ConfidenceBand = "strong" | "moderate" | "weak" | "tentative" | "minimal";
export function confidenceBand(c: number): ConfidenceBand {
  return c >= 0.9 ? "strong" : c >= 0.7 ? "moderate" : c >= 0.5 ? "weak" : c >= 0.3 ? "tentative" : "minimal";
}

/** What a step below 0.5 says first, or null: its headline is the worst thing true of it. */
export function confidenceDoubt(c: number | null | undefined): string | null {
  if (c === null || c === undefined) return null;
  const band = confidenceBand(c);
  return band === "tentative" ? "tentative" : band === "minimal" ? "unlikely related" : null;
}

/** The words an evolution type is shown with on an edge ("refines 0.87"; a step below 0.5
 *  leads with its doubt: "⚠ unlikely related · refines 0.21"). */
export function edgeLabel(e: Pick<EvolutionView, "evolution_type" | "confidence">): string {
  if (e.confidence === null || e.confidence === undefined) return e.evolution_type;
  const doubt = confidenceDoubt(e.confidence);
  return `${doubt ? `⚠ ${doubt} · ` : ""}${e.evolution_type} ${e.confidence.toFixed(2)}`;
}

/** "v2.0.1". */
export function versionLabel(p: Pick<PromptView, "version">): string {
  return `v${p.version}`;
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** A timestamp in UTC: "8 Nov 15:30", with the year ("8 Nov 2026 15:30 UTC") when `long`. */
export function when(iso: string, long = false): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const hm = `${String(d.getUTCHours()).padStart(2, "0")}:${String(d.getUTCMinutes()).padStart(2, "0")}`;
  return long
    ? `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()} ${hm} UTC`
    : `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${hm}`;
}
