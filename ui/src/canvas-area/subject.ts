//! "Show on graph": what was asked for becomes the canvas's subject. A reasoning chain (and
//! the claims it cites) or a claim's trail (its maker, the claim, its quotes and
//! verifications, their verifiers) is shown alone, everything else hidden, drawn as its own
//! DAG (layered.ts: layers top-down or left-to-right, several nodes side by side where it
//! branches) and fitted to the canvas below the subject's bar; one click puts the whole
//! graph back as it was. While it is shown, the status bar counts what is shown and the
//! minimap maps only it. The moves are the canvas's only: the model (and so the shared
//! layout) keeps its positions.

import type { NodeMove, ReasoningChain, Trail, ViewNode } from "../api/contract";
import type { GraphCanvasApi } from "../canvas/types";
import type { GraphModel } from "../graph/model";
import { h } from "../shared/dom";
import { bestDrawing, type Direction, type LayeredEdge } from "./layered";

/** What the subject needs of the app. */
export interface SubjectHost {
  readonly canvas: Pick<GraphCanvasApi, "applyMoves" | "fitTo" | "fit" | "setVisible">;
  readonly model: Pick<GraphModel, "nodes" | "edges">;
  /** Draws the nodes the app's filters and timeline show (this subject's filter with them). */
  applyVisibility(): void;
  /** The canvas's size (CSS px), to choose the drawing's direction. */
  viewport(): { width: number, height: number };
  /** The nodes the minimap maps changed (the subject's, where it draws them, or all). */
  minimapChanged(): void;
}

/** How long the nodes take to move to their places and back. */
const MOVE_MS = 450;
/** Room kept between the subject's bar and the drawing (CSS px). */
const BAR_GAP = 12;

export class Subject {
  private readonly text = h("span", { testid: "subject-text" });
  readonly el = h("div", { class: "subject-bar", testid: "subject-bar", role: "status", hidden: true },
    this.text,
    h("button", { class: "btn btn-small", testid: "subject-back", title: "Show the whole graph again, as it was", onclick: () => this.clear() }, "← Whole graph"));
  private ids: Set<string> | null = null;
  /** Where the subject's nodes are drawn while it is shown (world px). */
  private places = new Map<string, { x: number, y: number }>();

  constructor(private readonly host: SubjectHost) {}

  get active(): boolean {
    return this.ids !== null;
  }

  /** Whether a node is drawn while a subject is shown (null: no subject). */
  filter(): ((n: ViewNode) => boolean) | null {
    const ids = this.ids;
    return ids ? (n) => ids.has(n.id) : null;
  }

  /** What is shown alone: its nodes and the edges between them (null: the whole graph). */
  shown(): { nodes: number, edges: number } | null {
    const ids = this.ids;
    if (!ids) return null;
    let edges = 0;
    for (const e of this.host.model.edges.values()) if (ids.has(e.source) && ids.has(e.target)) edges++;
    return { nodes: ids.size, edges };
  }

  /** The nodes the minimap maps while the subject is shown: its own, where they are drawn
   *  (null: the whole graph, where the model has it). */
  minimapNodes(): ViewNode[] | null {
    if (!this.ids) return null;
    const out: ViewNode[] = [];
    for (const id of this.ids) {
      const n = this.host.model.nodes.get(id), at = this.places.get(id);
      if (n && at) out.push({ ...n, x: at.x, y: at.y });
    }
    return out;
  }

  /** Shows `ids` alone, drawn as the DAG `edges` make of them, fitted below the bar;
   *  `title` says what. Returns the direction the layers run in (null: nothing to show). */
  show(title: string, ids: readonly string[], edges: readonly LayeredEdge[]): Direction | null {
    const nodes = this.host.model.nodes;
    if (this.ids) this.restore(0);
    const members = [...new Set(ids)].filter((id) => nodes.has(id)).map((id) => nodes.get(id) as ViewNode);
    if (members.length === 0) return null;
    this.text.textContent = `${title}: ${members.length} node${members.length === 1 ? "" : "s"} laid out on their own, the rest of the graph hidden. `;
    this.el.hidden = false;
    const top = this.barBottom();
    const { width, height } = this.host.viewport();
    const drawing = bestDrawing(members, edges, { width, height: Math.max(1, height - top) });
    // The drawing stands where its nodes were, on average, so the camera travels little.
    let sx = 0, sy = 0;
    for (const n of members) {
      sx += n.x;
      sy += n.y;
    }
    const cx = sx / members.length, cy = sy / members.length;
    const moves: NodeMove[] = members.map((n) => {
      const at = drawing.at.get(n.id) ?? { x: 0, y: 0 };
      return { id: n.id, x: cx + at.x, y: cy + at.y };
    });
    this.ids = new Set(members.map((n) => n.id));
    this.places = new Map(moves.map((m) => [m.id, { x: m.x, y: m.y }]));
    this.el.dataset.direction = drawing.direction;
    this.el.dataset.layers = String(drawing.layers.length);
    this.host.applyVisibility();
    this.host.canvas.applyMoves(moves, MOVE_MS);
    this.host.canvas.fitTo([...this.ids], MOVE_MS, { top });
    this.host.minimapChanged();
    return drawing.direction;
  }

  /** A reasoning chain: from the question down each step to the steps derived from it (a
   *  step that names none follows the one before it in the chain), and from each step to
   *  the statements it cites. */
  showChain(chain: ReasoningChain): Direction | null {
    const steps = new Set(chain.chain.map((s) => s.id));
    const edges: LayeredEdge[] = [
      ...chain.chain.flatMap((s, i) => {
        const from = s.derived_from.filter((d) => steps.has(d) && d !== s.id);
        if (from.length === 0 && i > 0) from.push(chain.chain[i - 1].id);
        return from.map((d) => ({ from: d, to: s.id }));
      }),
      ...chain.links.map((l) => ({ from: l.from, to: l.id })),
    ];
    const ids = [...chain.chain.map((s) => s.id), ...chain.links.map((l) => l.id)];
    return this.show(`The reasoning chain${chain.question ? ` for “${short(chain.question)}”` : ""}`, ids, edges);
  }

  /** A claim's trail: who made it, the claim, its quotes and its verifications (in time
   *  order), and each verification's verifier. */
  showTrail(t: Trail): Direction | null {
    const verifications = [...t.verifications].sort((a, b) => (a.time ?? "").localeCompare(b.time ?? ""));
    const claim = t.statement_id;
    const edges: LayeredEdge[] = [
      { from: t.agent, to: claim },
      ...t.evidence.map((e) => ({ from: claim, to: e.chunk_id })),
      ...verifications.flatMap((v) => [{ from: claim, to: v.verification_id }, { from: v.verification_id, to: v.agent }]),
    ];
    const ids = [t.agent, claim, ...t.evidence.map((e) => e.chunk_id), ...verifications.flatMap((v) => [v.verification_id, v.agent])];
    return this.show(`The trail of “${short(t.claim.text)}”`, ids, edges);
  }

  /** Fits the subject in view (the whole graph's fit while it is shown); false: none shown. */
  fit(): boolean {
    if (!this.ids) return false;
    this.host.canvas.fitTo([...this.ids], undefined, { top: this.barBottom() });
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
    const was = this.ids !== null;
    this.ids = null;
    this.places.clear();
    this.el.hidden = true;
    if (was) this.host.minimapChanged();
  }

  /** How far down the canvas the subject's bar reaches (CSS px), with a gap under it. */
  private barBottom(): number {
    const el = this.el;
    return el.hidden ? 0 : el.offsetTop + el.offsetHeight + BAR_GAP;
  }

  private restore(ms: number): void {
    const ids = this.ids ?? new Set<string>();
    const moves: NodeMove[] = [];
    for (const id of ids) {
      const n = this.host.model.nodes.get(id);
      if (n) moves.push({ id, x: n.x, y: n.y });
    }
    this.ids = null;
    this.places.clear();
    this.el.hidden = true;
    this.host.canvas.applyMoves(moves, ms);
    this.host.applyVisibility();
    this.host.minimapChanged();
  }
}

/** Text cut to 60 characters for the subject's bar. */
function short(text: string): string {
  return text.length > 60 ? `${text.slice(0, 59)}…` : text;
}
