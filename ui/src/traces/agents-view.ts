// A trace's agent view: each agent (or, for spans of no agent, its service) a box with its
// spans, model and tool calls, errors and busy time; arrows for the work handed from one to
// another: delegations (a span of one is the parent of a span of the other), span links, and
// messages one produced and the other read, each with its count and time. Boxes are placed in
// rows by how many delegations lie before them (the delegating agent above).

import type { AgentBox, HandOff, TraceAgents } from "../api/contract";
import { h, svg } from "../shared/dom";
import { count, duration } from "./trace-format";

const W = 210, H = 86, GAP_X = 40, GAP_Y = 84, PAD = 24;

const KIND_VERB: Record<string, string> = { delegation: "delegated", link: "linked", message: "passed messages", on_behalf: "on its behalf" };

/** Row of each agent: the longest chain of delegations leading to it (bounded). */
export function levels(agents: readonly AgentBox[], hands: readonly HandOff[]): Map<string, number> {
  const col = new Map(agents.map((a) => [a.id, 0]));
  const del = hands.filter((x) => x.kind === "delegation" || x.kind === "on_behalf");
  for (let round = 0; round < agents.length; round++) {
    let changed = false;
    for (const e of del) {
      const c = (col.get(e.from) ?? 0) + 1;
      if (c < agents.length && c > (col.get(e.to) ?? 0)) {
        col.set(e.to, c);
        changed = true;
      }
    }
    if (!changed) break;
  }
  return col;
}

export function agentsView(a: TraceAgents, opts: { selected: string | null; pick(agent: AgentBox): void }): HTMLElement {
  if (a.agents.length === 0) {
    return h("div", { class: "agents-view empty-state", testid: "agents-view" }, h("p", null, "No agent or service is recorded on this trace's spans."));
  }
  const row = levels(a.agents, a.hand_offs);
  const inRow = new Map<number, number>();
  const pos = new Map<string, { x: number; y: number }>();
  for (const b of a.agents) {
    const r = row.get(b.id) ?? 0;
    const c = inRow.get(r) ?? 0;
    inRow.set(r, c + 1);
    pos.set(b.id, { x: PAD + c * (W + GAP_X), y: PAD + r * (H + GAP_Y) });
  }
  // Room on the right for the label beside the last arrow.
  const width = PAD * 2 + Math.max(...inRow.values()) * (W + GAP_X) - GAP_X + 60;
  const height = PAD * 2 + (Math.max(...row.values()) + 1) * (H + GAP_Y) - GAP_Y;
  const root = svg("svg", { class: "agents-svg", viewBox: `0 0 ${width} ${height}`, width, height, role: "group", "aria-label": "Agents and the work handed between them" });
  root.appendChild(svg("defs", {}, svg("marker", { id: "agent-arrow", viewBox: "0 0 10 10", refX: "9", refY: "5", markerWidth: "8", markerHeight: "8", orient: "auto-start-reverse" },
    svg("path", { d: "M0,0 L10,5 L0,10 z", class: "agent-arrow-head" }))));
  // Arrows first, under the boxes; several kinds between one pair bend apart.
  const pairs = new Map<string, number>();
  for (const e of a.hand_offs) {
    const from = pos.get(e.from), to = pos.get(e.to);
    if (!from || !to) continue;
    const key = [e.from, e.to].sort().join("\u0000");
    const nth = pairs.get(key) ?? 0;
    pairs.set(key, nth + 1);
    const off = [0, -50, 50, -90, 90][nth % 5];
    let x1: number, y1: number, x2: number, y2: number, mx: number, my: number;
    if (from.y === to.y) {
      // Same row: from the side of one to the facing side of the other.
      const right = to.x > from.x;
      x1 = right ? from.x + W : from.x; y1 = from.y + H / 2;
      x2 = right ? to.x : to.x + W; y2 = to.y + H / 2;
      mx = (x1 + x2) / 2; my = y1 + off + (off === 0 ? -30 : 0);
    } else {
      // Between rows: from the bottom (or top) of one to the top (or bottom) of the other.
      const down = to.y > from.y;
      x1 = from.x + W / 2; y1 = down ? from.y + H : from.y;
      x2 = to.x + W / 2; y2 = down ? to.y : to.y + H;
      mx = (x1 + x2) / 2 + off * 1.6; my = (y1 + y2) / 2;
    }
    const label = `${KIND_VERB[e.kind] ?? e.kind} ×${e.count}${e.total_ms ? ` · ${duration(e.total_ms)}` : ""}`;
    const g = svg("g", { class: `handoff handoff-${e.kind}`, "data-testid": "handoff", "data-from": e.from, "data-to": e.to, "data-kind": e.kind });
    g.appendChild(svg("path", { d: `M${x1},${y1} Q${mx},${my} ${x2},${y2}`, class: "handoff-line", "marker-end": "url(#agent-arrow)" }));
    // Between rows the label sits just before the arrow's head (two arrows from one box
    // part towards their own targets); within a row, above the curve's middle.
    const down = y2 > y1;
    const across = from.y === to.y;
    const tx = across ? (x1 + 2 * mx + x2) / 4 : x2 + 8;
    const ty = across ? (y1 + 2 * my + y2) / 4 - 6 : down ? y2 - 28 - nth * 15 : y2 + 34 + nth * 15;
    const text = svg("text", { x: tx, y: ty, class: "handoff-label", "text-anchor": across ? "middle" : "start" });
    text.textContent = label;
    g.appendChild(svg("title", {}));
    g.lastChild!.textContent = `${e.from} → ${e.to}: ${label}`;
    g.appendChild(text);
    root.appendChild(g);
  }
  for (const b of a.agents) {
    const p = pos.get(b.id)!;
    const g = svg("g", { class: `agent-box${b.id === opts.selected ? " selected" : ""}${b.errors ? " has-errors" : ""}`, "data-testid": "agent-box", "data-agent": b.id, tabindex: "0", role: "button" });
    g.appendChild(svg("rect", { x: p.x, y: p.y, width: W, height: H, rx: 8 }));
    const lines: Array<[string, string]> = [
      [b.id.length > 24 ? `${b.id.slice(0, 23)}…` : b.id, "agent-name"],
      [`${count(b.spans, "span")} · ${count(b.llm_calls, "LLM call")}`, "agent-meta"],
      [`${count(b.tool_calls, "tool call")}${b.errors ? ` · ${count(b.errors, "error")}` : ""}`, b.errors ? "agent-meta agent-errors" : "agent-meta"],
      [b.node ? `busy ${duration(b.busy_ms)}` : "no agent recorded (service)", "agent-meta"],
    ];
    lines.forEach(([t, cls], i) => {
      const text = svg("text", { x: p.x + 12, y: p.y + 22 + i * 18, class: cls });
      text.textContent = t;
      g.appendChild(text);
    });
    const title = svg("title", {});
    title.textContent = b.id;
    g.appendChild(title);
    g.addEventListener("click", () => opts.pick(b));
    g.addEventListener("keydown", (ev) => { if ((ev as KeyboardEvent).key === "Enter") opts.pick(b); });
    root.appendChild(g);
  }
  return h("div", { class: "agents-view", testid: "agents-view" },
    h("p", { class: "hint" }, "Each box is an agent of this trace; an arrow is work it handed to another agent (delegations, span links, messages passed), with how often and how long."),
    root,
    a.truncated ? h("p", { class: "wf-truncated" }, "Only the trace's first spans were read.") : null);
}
