// The version tree of a prompt lineage, drawn from its layout
// (tree-layout.ts): one button per version (its number, branch, date; the head and the
// root marked), the evolutions as lines labelled with their type and confidence. Clicking a
// version picks it; Shift- or Ctrl-click picks a second one to compare. A replay hides the
// versions not created yet and marks the one just created.

import type { LaidBox, LaidEdge, LineageLayout } from "./tree-layout";
import { BOX_H, BOX_W, confidenceBand, confidenceDoubt, edgeLabel, versionLabel, when } from "./tree-layout";
import { h, replace, svg } from "../shared/dom";

export interface TreeState {
  /** The versions picked: A, then B. */
  selected: readonly string[];
  /** During a replay: the last version shown (by creation order); null shows all. */
  replayAt: number | null;
  /** Versions that arrived since the last drawing (they flash once). */
  fresh: ReadonlySet<string>;
}

export class LineageTree {
  readonly el = h("div", { class: "lineage-tree", testid: "lineage-tree" });

  /** `pick(id, additive)`: a version was clicked (additive: with Shift, Ctrl or ⌘). */
  constructor(private readonly pick: (id: string, additive: boolean) => void) {}

  render(layout: LineageLayout, state: TreeState): void {
    this.el.style.width = `${layout.width}px`;
    this.el.style.height = `${layout.height}px`;
    const order = new Map(layout.boxes.map((b) => [b.id, b.order]));
    const shown = (id: string) => state.replayAt === null || (order.get(id) ?? Infinity) <= state.replayAt;
    const lines = svg("svg", { class: "lineage-lines", width: layout.width, height: layout.height, "aria-hidden": "true" },
      svg("defs", {}, svg("marker", { id: "lineage-arrow", viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" },
        svg("path", { d: "M0,0 L10,5 L0,10 z", class: "lineage-arrowhead" }))),
      ...layout.edges.map((e) => this.line(e, shown(e.evolution.child) && shown(e.evolution.parent))));
    replace(this.el,
      lines,
      layout.edges.map((e) => this.label(e, shown(e.evolution.child) && shown(e.evolution.parent))),
      layout.boxes.map((b) => this.box(b, state, shown(b.id))));
  }

  private line(e: LaidEdge, visible: boolean): SVGElement {
    const ev = e.evolution;
    const el = svg("path", {
      d: e.path, class: `lineage-line${ev.primary ? "" : " secondary"}${confidenceDoubt(ev.confidence) ? " doubtful" : ""}`, "data-type": ev.evolution_type,
      "data-child": ev.child, "data-parent": ev.parent, "marker-end": "url(#lineage-arrow)",
    });
    if (!visible) el.setAttribute("visibility", "hidden");
    return el;
  }

  private label(e: LaidEdge, visible: boolean): HTMLElement {
    const ev = e.evolution;
    const el = h("span", {
      class: `lineage-edge-label${confidenceDoubt(ev.confidence) ? " doubtful" : ""}`, testid: "lineage-edge-label", "data-type": ev.evolution_type, "data-child": ev.child, "data-parent": ev.parent,
      "data-confidence": ev.confidence === null ? "" : String(ev.confidence), "data-primary": String(ev.primary),
      "data-band": ev.confidence === null ? "" : confidenceBand(ev.confidence),
      title: `${ev.evolution_type}${ev.confidence === null ? "" : `, confidence ${ev.confidence.toFixed(3)} (${confidenceBand(ev.confidence)})`}${ev.primary ? "" : " (second parent of a merge)"}${ev.reason ? `: ${ev.reason}` : ""}`,
      hidden: !visible,
    }, edgeLabel(ev));
    el.style.left = `${Math.round(e.label.x)}px`;
    if (e.anchor === "end") el.classList.add("anchor-end");
    el.style.top = `${Math.round(e.label.y)}px`;
    return el;
  }

  private box(b: LaidBox, state: TreeState, visible: boolean): HTMLElement {
    const p = b.prompt;
    const pickedAs = state.selected.indexOf(p.id);
    const current = state.replayAt !== null && b.order === state.replayAt;
    const cls = ["lineage-box", p.is_head ? "head" : "", p.is_root ? "root" : "", pickedAs === 0 ? "picked-a" : "", pickedAs === 1 ? "picked-b" : "",
      current ? "current" : "", state.fresh.has(p.id) ? "fresh" : ""].filter(Boolean).join(" ");
    // The name is the text shown (version, A or B, HEAD, root, branch, date); the title says
    // what a click does; aria-pressed says whether it is picked.
    const el = h("button", {
      class: cls, type: "button", testid: "lineage-box", "data-id": p.id, "data-version": p.version, "data-head": String(p.is_head),
      "data-root": String(p.is_root), "data-branch": p.branch ?? "", "data-order": String(b.order), "aria-pressed": String(pickedAs >= 0),
      title: `Version ${p.version}, created ${when(p.timestamp, true)}. Click to read it; Shift-click (or Ctrl-click) a second version to compare the two.`,
      hidden: !visible,
      onclick: (ev: Event) => {
        const m = ev as MouseEvent;
        this.pick(p.id, m.shiftKey || m.ctrlKey || m.metaKey);
      },
    },
    h("span", { class: "lineage-box-top" },
      h("span", { class: "lineage-version" }, versionLabel(p)),
      pickedAs >= 0 ? h("span", { class: `lineage-pick pick-${pickedAs === 0 ? "a" : "b"}` }, pickedAs === 0 ? "A" : "B") : null,
      p.is_head ? h("span", { class: "lineage-badge head" }, "HEAD") : null,
      p.is_root ? h("span", { class: "lineage-badge root" }, "root") : null),
    p.branch ? h("span", { class: "lineage-branch" }, branchIcon(), p.branch) : null,
    h("span", { class: "lineage-when" }, when(p.timestamp)));
    el.style.left = `${b.x}px`;
    el.style.top = `${b.y}px`;
    el.style.width = `${BOX_W}px`;
    el.style.height = `${BOX_H}px`;
    return el;
  }
}

/** A small fork glyph drawn as lines (font glyphs for it are missing on many systems). */
export function branchIcon(): SVGElement {
  return svg("svg", { class: "lineage-branch-icon", width: 10, height: 11, viewBox: "0 0 10 11", "aria-hidden": "true" },
    svg("circle", { cx: 2.5, cy: 2, r: 1.4 }), svg("circle", { cx: 2.5, cy: 9, r: 1.4 }), svg("circle", { cx: 7.5, cy: 2, r: 1.4 }),
    svg("path", { d: "M2.5,3.4 V7.6 M7.5,3.4 C7.5,6 2.5,5.5 2.5,7.6" }));
}
