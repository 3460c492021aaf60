// The Details tab: the selected node's properties and neighbours, tracing up or down from
// it, and the path between two selected nodes, highlighted on the canvas.

import type { Backend } from "../api/backend";
import type { EdgeRecord, JsonValue, KnowledgeChange, NodeRecord, Subgraph, TraceDirection } from "../api/contract";
import type { GraphModel } from "../graph/model";
import type { AgentNames, Notifier, SelectFn, Tab } from "../shared/host";
import { nodeTitle, signatureText } from "../trail/labels";
import { h, replace } from "../shared/dom";
import { knowledgeSection } from "../knowledge/knowledge-view";
import { errorState } from "../shared/error-state";
import { ClaimsOverview } from "./claims";
import { LogLine } from "../log/log-line";

const LONG = 280;

/** What the Details tab needs of the app. */
export interface DetailsHost extends AgentNames {
  readonly backend: Pick<Backend, "node" | "neighbours" | "trace" | "path" | "trail" | "knowledge" | "logInclusion">;
  readonly graph: string | null;
  readonly model: Pick<GraphModel, "nodes">;
  readonly toasts: Notifier;
  select: SelectFn;
  /** Highlights these nodes on the canvas (null: none). */
  highlight(ids: Set<string> | null): void;
  showTab(tab: Tab): void;
}

export class DetailsPanel {
  readonly el = h("div", { class: "panel details", testid: "details" });
  private token = 0;
  private depth = 3;
  private note = h("div", { class: "highlight-note", hidden: true });
  private readonly claims: ClaimsOverview;
  private empty = true;
  /** The knowledge-graph resource whose statements are shown, if any. */
  private resource: string | null = null;
  private knowledge = h("div", { class: "knowledge-slot" });
  private refreshing = false;
  private again = false;
  /** Statements of the resource shown that changed since it was selected, with how. */
  private readonly justChanged = new Map<string, string>();
  /** The node's place in the graph's tamper-evident log, with Verify. */
  private readonly logLine: LogLine;

  constructor(private readonly app: DetailsHost) {
    this.claims = new ClaimsOverview({
      get graph() { return app.graph; },
      get model() { return app.model; },
      get names() { return app.names; },
      resolveNames: (ids) => app.resolveNames(ids),
      trailOf: (graph, statement) => app.backend.trail({ graph, statement }),
      openClaim: (id) => void app.select(id, { focus: true, from: "panel" }).then(() => app.showTab("trail")),
    });
    this.logLine = new LogLine({ get backend() { return app.backend; } });
    this.renderEmpty();
  }

  /** Another graph is being opened: the last one's node and claims go. */
  graphSwitched(): void {
    this.token += 1;
    this.resource = null;
    this.claims.reset();
    this.logLine.clear();
    // Its claims are read once the next graph's view is drawn (`graphChanged`).
    this.renderEmpty(false);
  }

  /** The open graph changed (opened, or grew): the claims at a glance follow it. */
  graphChanged(): void {
    if (this.empty) this.renderEmpty();
    this.claims.changed();
  }

  /** Shows the last of the selected ids (loading its record and neighbours). */
  async show(ids: string[]): Promise<void> {
    const token = ++this.token;
    const id = ids[ids.length - 1];
    const graph = this.app.graph;
    if (!id || !graph) {
      this.renderEmpty();
      return;
    }
    this.empty = false;
    const drawn = this.app.model.nodes.get(id);
    replace(this.el, this.header(id, drawn?.label ?? "…", drawn?.base_type ?? null, drawn?.text ?? null), h("p", { class: "muted" }, "Loading…"));
    let record: NodeRecord;
    let neighbours: Subgraph;
    try {
      [record, neighbours] = await Promise.all([this.app.backend.node({ graph, id }), this.app.backend.neighbours({ graph, id })]);
    } catch (e) {
      if (token !== this.token) return;
      this.app.toasts.error(e, "Loading node");
      replace(this.el, this.header(id, drawn?.label ?? "?", drawn?.base_type ?? null, drawn?.text ?? null),
        errorState("load this node", e, () => void this.show(ids)));
      return;
    }
    if (token !== this.token) return;
    this.render(ids, record, neighbours);
  }

  /** Knowledge-graph changes arrived on the stream (the events `knowledge/subscribe` sends):
   *  those naming the resource shown refresh its statements and mark the ones changed. */
  knowledgeChanged(changes: readonly KnowledgeChange[]): void {
    const resource = this.resource;
    if (!resource) return;
    const mine = changes.filter((c) => c.subject === resource || c.object === resource);
    if (mine.length === 0) return;
    for (const c of mine) {
      this.justChanged.set(c.statement, c.op);
      // A replace names the statements it took the place of in its event's changeMetadata.
      const replaced = (c.event as { changeMetadata?: { replaced?: unknown } } | null)?.changeMetadata?.replaced;
      if (Array.isArray(replaced)) for (const id of replaced) if (typeof id === "string") this.justChanged.set(id, "remove");
    }
    void this.loadKnowledge();
  }

  private async loadKnowledge(): Promise<void> {
    const graph = this.app.graph;
    const resource = this.resource;
    if (!graph || !resource) return;
    if (this.refreshing) {
      this.again = true; // one more read once this one is back
      return;
    }
    this.refreshing = true;
    try {
      const k = await this.app.backend.knowledge({ graph, id: resource });
      if (this.resource === resource) replace(this.knowledge, knowledgeSection(k, this.justChanged));
    } catch (e) {
      if (this.resource === resource) replace(this.knowledge, errorState("load this resource's statements", e, () => void this.loadKnowledge()));
    } finally {
      this.refreshing = false;
    }
    if (this.again) {
      this.again = false;
      void this.loadKnowledge();
    }
  }

  clearHighlightNote(): void {
    this.note.hidden = true;
  }

  private renderEmpty(withClaims = true): void {
    this.empty = true;
    const graph = this.app.graph;
    const nodes = this.app.model.nodes.size;
    const hint = !graph
      ? [h("p", null, "No graph is open."), h("p", { class: "muted" }, "Pick one in the graph menu above, or use Ingest ▸ to load a file or run the council demo.")]
      : nodes === 0
        ? [h("p", null, "This graph has no nodes yet."), h("p", { class: "muted" }, "Ingest a file (Ingest ▸) or follow a live one; nodes appear here as they arrive.")]
        : [h("p", null, "Select a node on the canvas, or search for one."),
          h("p", { class: "muted" }, "Shift-click a second node to find the path between them.")];
    const claims = withClaims && this.claims.hasClaims();
    replace(this.el, h("div", { class: "empty-state" }, ...hint), claims ? this.claims.el : null);
    if (claims && !this.claims.el.firstChild) void this.claims.load();
  }

  private header(id: string, label: string, baseType: string | null, text: string | null): HTMLElement {
    const status = this.app.model.nodes.get(id)?.status ?? null;
    return h("div", { class: "node-head" },
      h("div", { class: "chips" },
        h("span", { class: `chip chip-label`, "data-base": baseType ?? "" }, label),
        baseType ? h("span", { class: "chip chip-muted" }, baseType.replace(/^Prov/, "prov:")) : null,
        status ? h("span", { class: "badge sig", "data-sig": status }, signatureText(status)) : null),
      text ? h("p", { class: "node-text" }, text) : null,
      h("code", { class: "node-id", title: "Node id" }, id));
  }

  private render(ids: string[], rec: NodeRecord, sub: Subgraph): void {
    const id = rec.id;
    const drawn = this.app.model.nodes.get(id);
    const pair = ids.length >= 2 ? ids.slice(-2) : null;
    const depth = h("select", { class: "input input-narrow", "aria-label": "Depth", title: "How many steps to follow",
      onchange: (ev) => { this.depth = Number((ev.target as HTMLSelectElement).value); } },
    [1, 2, 3, 5, 8, 12].map((d) => h("option", { value: String(d) }, `depth ${d}`)));
    depth.value = String(this.depth);
    const neighbours = this.neighbourRows(id, sub);
    // A knowledge-graph resource (or statement): its statements and their history.
    const subject = rec.properties?.["kg:subject"];
    const resource = rec.label === "KGResource" ? id : rec.label === "KGStatement" && typeof subject === "string" ? subject : null;
    if (resource !== this.resource) this.justChanged.clear();
    this.resource = resource;
    replace(this.knowledge);
    if (this.resource) void this.loadKnowledge();
    if (this.app.graph) void this.logLine.show(this.app.graph, id);
    replace(this.el,
      this.header(id, rec.label, rec.base_type ?? drawn?.base_type ?? null, drawn?.text ?? null),
      h("div", { class: "actions" },
        h("button", { class: "btn", testid: "trace-up", title: "Everything this came from", onclick: () => void this.trace(id, "up") }, "↑ Trace up"),
        h("button", { class: "btn", testid: "trace-down", title: "Everything that came from this", onclick: () => void this.trace(id, "down") }, "↓ Trace down"),
        depth,
        pair ? h("button", { class: "btn btn-primary", testid: "path-button", onclick: () => void this.path(pair[0], pair[1]) }, "Path between the two") : null),
      pair ? h("p", { class: "hint" }, `Selected: ${pair.map((p) => this.name(p)).join("  and  ")}`) : null,
      this.logLine.el,
      this.note,
      this.resource ? this.knowledge : null,
      h("h3", null, "Properties"),
      this.properties(rec),
      h("h3", null, `Neighbours (${neighbours.length})`),
      h("ul", { class: "neighbours", testid: "neighbours" }, neighbours));
  }

  private properties(rec: NodeRecord): HTMLElement {
    const props = Object.entries(rec.properties ?? {}).sort(([a], [b]) => a.localeCompare(b));
    if (props.length === 0) return h("p", { class: "muted" }, "No properties.");
    return h("table", { class: "props" },
      h("tbody", null, props.map(([k, v]) => h("tr", null, h("th", null, k), h("td", null, this.value(v))))));
  }

  private value(v: JsonValue | undefined): HTMLElement | string {
    if (v === null || v === undefined) return h("span", { class: "muted" }, "null");
    const text = typeof v === "string" ? v : JSON.stringify(v, null, typeof v === "object" ? 1 : 0);
    if (text.length <= LONG) return typeof v === "object" ? h("code", { class: "json" }, text) : text;
    return h("details", { class: "long" }, h("summary", null, `${text.slice(0, 120)}…`), h("pre", null, text));
  }

  private neighbourRows(id: string, sub: Subgraph): HTMLElement[] {
    const byId = new Map(sub.nodes.map((n) => [n.id, n]));
    const rows: HTMLElement[] = [];
    const seen = new Set<string>();
    for (const e of sub.edges) {
      const out = e.source === id;
      const other = out ? e.target : e.source;
      if (other === id) continue;
      const key = `${out}|${e.type}|${other}`;
      if (seen.has(key)) continue;
      seen.add(key);
      rows.push(this.neighbourRow(other, e, out, byId.get(other)));
    }
    // Nodes the backend listed without an edge to this one (should not happen, but show them).
    for (const n of sub.nodes) {
      if (n.id === id || sub.edges.some((e) => e.source === n.id || e.target === n.id)) continue;
      rows.push(this.neighbourRow(n.id, null, true, n));
    }
    return rows;
  }

  private neighbourRow(other: string, e: EdgeRecord | null, out: boolean, rec: NodeRecord | undefined): HTMLElement {
    const label = rec?.label ?? this.app.model.nodes.get(other)?.label ?? "";
    return h("li", null,
      h("button", { class: "neighbour", testid: "neighbour", "data-id": other, onclick: () => void this.app.select(other, { focus: true, from: "panel" }) },
        h("span", { class: "edge-type", title: out ? "outgoing" : "incoming" }, e ? `${out ? "→" : "←"} ${e.type}` : "—"),
        h("span", { class: "chip" }, label),
        h("span", { class: "neighbour-name" }, this.name(other))));
  }

  private name(id: string): string {
    const n = this.app.model.nodes.get(id);
    return n ? nodeTitle(n, 70) : id;
  }

  private async trace(id: string, dir: TraceDirection): Promise<void> {
    const graph = this.app.graph;
    if (!graph) return;
    try {
      const sub = await this.app.backend.trace({ graph, id, dir, depth: this.depth });
      const ids = new Set(sub.nodes.map((n) => n.id));
      ids.add(id);
      this.app.highlight(ids);
      const offView = [...ids].filter((x) => !this.app.model.nodes.has(x)).length;
      this.showNote(`Trace ${dir} (depth ${this.depth}): ${ids.size} nodes, ${sub.edges.length} edges` +
        (offView > 0 ? `; ${offView} outside this view` : ""));
    } catch (e) {
      this.app.toasts.error(e, `Trace ${dir}`);
    }
  }

  private async path(from: string, to: string): Promise<void> {
    const graph = this.app.graph;
    if (!graph) return;
    try {
      const p = await this.app.backend.path({ graph, from, to });
      if (!p) {
        this.app.highlight(null);
        this.showNote(`No path between ${this.name(from)} and ${this.name(to)}.`);
        return;
      }
      this.app.highlight(new Set(p.nodes.map((n) => n.id)));
      const steps = p.nodes.map((n, i) => {
        const e = p.edges[i];
        return [
          h("li", { class: "path-node" }, h("span", { class: "chip" }, n.label), " ", this.name(n.id)),
          e ? h("li", { class: "path-edge" }, `${e.source === n.id ? "→" : "←"} ${e.type}`) : null,
        ];
      });
      this.showNote(`Path of ${p.edges.length} edge${p.edges.length === 1 ? "" : "s"}:`, h("ol", { class: "path", testid: "path" }, steps));
    } catch (e) {
      this.app.toasts.error(e, "Path");
    }
  }

  private showNote(text: string, extra?: HTMLElement): void {
    replace(this.note,
      h("div", { class: "row" },
        h("span", null, text),
        h("button", { class: "btn btn-small", onclick: () => { this.app.highlight(null); this.note.hidden = true; } }, "Clear")),
      extra ?? null);
    this.note.hidden = false;
  }
}
