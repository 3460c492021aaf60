//! "Show on graph": what was asked for becomes the canvas's subject. A reasoning chain (or
//! any list of steps with nodes beside them) is shown alone, everything else hidden, laid
//! out as its own column read top to bottom (question first, each step's cited statements
//! beside it), and fitted to the canvas; one click puts the whole graph back as it was. The
//! moves are the canvas's only: the model (and so the shared layout) keeps its positions.

import type { NodeMove, ReasoningChain, Trail, ViewNode } from "../api/contract";
import type { GraphCanvasApi } from "../canvas/types";
import type { GraphModel } from "../graph/model";
import { h } from "../shared/dom";

/** What the subject needs of the app. */
export interface SubjectHost {
  readonly canvas: Pick<GraphCanvasApi, "applyMoves" | "fitTo" | "fit" | "setVisible">;
  readonly model: Pick<GraphModel, "nodes">;
  /** Draws the nodes the app's filters and timeline show (this subject's filter with them). */
  applyVisibility(): void;
}

/** One step of the subject, top to bottom, and the nodes drawn beside it. */
export interface SubjectStep {
  id: string;
  beside?: readonly string[];
}

/** Gaps between steps and between a step and what sits beside it (world px). */
const ROW_GAP = 56, SIDE_GAP = 90, MOVE_MS = 450;

/** Where each node of the column goes: the steps one under another, centred on x, from y;
 *  beside each step its other nodes, stacked. Nodes the model lacks are left out. */
export function columnLayout(steps: readonly SubjectStep[], nodes: ReadonlyMap<string, ViewNode>, x: number, y: number): NodeMove[] {
  const moves: NodeMove[] = [];
  const placed = new Set<string>();
  const column = steps.filter((s) => nodes.has(s.id) && !placed.has(s.id) && placed.add(s.id));
  const width = Math.max(0, ...column.map((s) => nodes.get(s.id)?.w ?? 0));
  let top = y;
  for (const s of column) {
    const n = nodes.get(s.id) as ViewNode;
    const side = (s.beside ?? []).filter((id) => nodes.has(id) && !placed.has(id) && placed.add(id)).map((id) => nodes.get(id) as ViewNode);
    const sideH = side.reduce((a, b) => a + b.h, 0) + ROW_GAP * Math.max(0, side.length - 1);
    const rowH = Math.max(n.h, sideH);
    const mid = top + rowH / 2;
    moves.push({ id: n.id, x, y: mid });
    let sy = mid - sideH / 2;
    for (const b of side) {
      moves.push({ id: b.id, x: x + width / 2 + SIDE_GAP + b.w / 2, y: sy + b.h / 2 });
      sy += b.h + ROW_GAP;
    }
    top += rowH + ROW_GAP;
  }
  return moves;
}

export class Subject {
  private readonly text = h("span", { testid: "subject-text" });
  readonly el = h("div", { class: "subject-bar", testid: "subject-bar", role: "status", hidden: true },
    this.text,
    h("button", { class: "btn btn-small", testid: "subject-back", title: "Show the whole graph again, as it was", onclick: () => this.clear() }, "← Whole graph"));
  private ids: Set<string> | null = null;

  constructor(private readonly host: SubjectHost) {}

  get active(): boolean {
    return this.ids !== null;
  }

  /** Whether a node is drawn while a subject is shown (null: no subject). */
  filter(): ((n: ViewNode) => boolean) | null {
    const ids = this.ids;
    return ids ? (n) => ids.has(n.id) : null;
  }

  /** Shows `steps` (and what sits beside them) alone, as a column, fitted; `title` says what. */
  show(title: string, steps: readonly SubjectStep[]): void {
    const nodes = this.host.model.nodes;
    if (this.ids) this.restore(0);
    const members = steps.flatMap((s) => [s.id, ...(s.beside ?? [])]).filter((id) => nodes.has(id));
    if (members.length === 0) return;
    // The column stands where its nodes were, on average, so the camera travels little.
    let sx = 0, sy = 0;
    for (const id of members) {
      const n = nodes.get(id) as ViewNode;
      sx += n.x;
      sy += n.y;
    }
    const moves = columnLayout(steps, nodes, sx / members.length, sy / members.length);
    const height = moves.reduce((a, m) => Math.max(a, m.y), -Infinity) - moves.reduce((a, m) => Math.min(a, m.y), Infinity);
    for (const m of moves) m.y -= height / 2;
    this.ids = new Set(moves.map((m) => m.id));
    this.host.applyVisibility();
    this.host.canvas.applyMoves(moves, MOVE_MS);
    this.host.canvas.fitTo([...this.ids], MOVE_MS);
    this.text.textContent = `${title}: ${this.ids.size} node${this.ids.size === 1 ? "" : "s"} laid out on their own, the rest of the graph hidden. `;
    this.el.hidden = false;
  }

  /** A reasoning chain: its steps from the question down, the statements each cites beside it. */
  showChain(chain: ReasoningChain): void {
    const steps = chain.chain.map((s) => ({ id: s.id, beside: chain.links.filter((l) => l.from === s.id).map((l) => l.id) }));
    this.show(`The reasoning chain${chain.question ? ` for “${short(chain.question)}”` : ""}`, steps);
  }

  /** A claim's trail: who made it, the claim with its quotes beside it, then each
   *  verification (in time order) with its verifier beside it. */
  showTrail(t: Trail): void {
    const verifications = [...t.verifications].sort((a, b) => (a.time ?? "").localeCompare(b.time ?? ""));
    this.show(`The trail of “${short(t.claim.text)}”`, [
      { id: t.agent },
      { id: t.statement_id, beside: t.evidence.map((e) => e.chunk_id) },
      ...verifications.map((v) => ({ id: v.verification_id, beside: [v.agent] })),
    ]);
  }

  /** Fits the subject in view (the whole graph's fit while it is shown); false: none shown. */
  fit(): boolean {
    if (!this.ids) return false;
    this.host.canvas.fitTo([...this.ids]);
    return true;
  }

  /** Back to the whole graph: the nodes where the model has them, all drawn, fitted. */
  clear(): void {
    if (!this.ids) return;
    this.restore(MOVE_MS);
    this.host.canvas.fit();
  }

  /** Another view was drawn (its nodes where the model has them): nothing to put back. */
  forget(): void {
    this.ids = null;
    this.el.hidden = true;
  }

  private restore(ms: number): void {
    const ids = this.ids ?? new Set<string>();
    const moves: NodeMove[] = [];
    for (const id of ids) {
      const n = this.host.model.nodes.get(id);
      if (n) moves.push({ id, x: n.x, y: n.y });
    }
    this.ids = null;
    this.el.hidden = true;
    this.host.canvas.applyMoves(moves, ms);
    this.host.applyVisibility();
  }
}

/** Text cut to 60 characters for the subject's bar. */
function short(text: string): string {
  return text.length > 60 ? `${text.slice(0, 59)}…` : text;
}
