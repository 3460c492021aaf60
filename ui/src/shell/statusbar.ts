// The bottom bar: what is drawn (nodes, edges, seq), the stream's state, the hovered node,
// running jobs, and which server this is.

import type { Health, Job, ViewNode } from "../api/contract";
import type { GraphModel } from "../graph/model";
import type { StreamState } from "../shared/host";
import { h, replace } from "../shared/dom";
import { isFiltering, type FilterState } from "../graph/filters";

const STREAM_TEXT = {
  open: "Live",
  reconnecting: "Reconnecting…",
  closed: "Disconnected",
  off: "Not streaming",
} as const;

/** The database's state while it is not answering, as the graph's stream says it. */
export interface DatabaseState {
  state: string;
  message: string;
}

const DATABASE_TEXT: Record<string, string> = {
  restarting: "Database restarting…",
  failed: "Database down",
};

/** What "seq N" in the status bar means. */
export function seqHelp(seq: number): string {
  return `Update ${seq}: this view holds every change the server has streamed for the graph up to its update number ${seq}. `
    + "Each batch of new records (or a saved tidy-up) is one update; if one were missed, the view would load again.";
}

/** What the status bar shows, and the one thing it can do (stop a job). */
export interface StatusHost {
  readonly model: Pick<GraphModel, "nodes" | "edges" | "seq" | "mode" | "totalNodes">;
  readonly streamState: StreamState;
  readonly filters: FilterState;
  readonly timelineAt: number | null;
  /** The server's jobs, and stopping one. */
  readonly jobs: { readonly jobs: readonly Job[]; stop(id: string): Promise<void> };
  readonly health: Health | null;
  readonly database: DatabaseState | null;
  /** What "Show on graph" shows alone (null: the whole graph is drawn). */
  readonly subject?: { shown(): { nodes: number, edges: number } | null };
}

export class StatusBar {
  readonly el: HTMLElement;
  private counts = h("span", { class: "status-counts", testid: "status" });
  private stream = h("span", { class: "status-stream", testid: "stream-state" });
  private view = h("span", { class: "status-view" });
  private hovered = h("span", { class: "status-hover" });
  private jobs = h("span", { class: "status-jobs", testid: "jobs" });
  private server = h("span", { class: "status-server" });

  constructor(private readonly app: StatusHost) {
    this.el = h("footer", { class: "statusbar" }, this.counts, this.stream, this.view, this.hovered, h("span", { class: "spacer" }), this.jobs, this.server);
  }

  render(): void {
    const m = this.app.model;
    const alone = m.mode === "clusters" ? null : this.app.subject?.shown() ?? null;
    const n = (x: number) => x.toLocaleString("en");
    replace(this.counts,
      m.mode === "clusters"
        ? `${n(m.nodes.size)} clusters of ${n(m.totalNodes)} nodes · `
        : alone ? `${n(alone.nodes)} of ${n(m.nodes.size)} nodes shown · ${n(alone.edges)} of ${n(m.edges.size)} edges · `
          : `${n(m.nodes.size)} nodes · ${n(m.edges.size)} edges · `,
      h("abbr", { class: "status-seq", testid: "status-seq", title: seqHelp(m.seq) }, `seq ${m.seq}`));
    const s = this.app.streamState;
    this.stream.textContent = s !== "off" || m.mode === "whole" ? STREAM_TEXT[s]
      : m.mode === "neighbourhood" ? "Neighbourhood view (not live)" : "Cluster view (not live)";
    this.stream.dataset.state = s;
    this.stream.title = "";
    const db = this.app.database;
    if (db && s !== "off") {
      this.stream.textContent = DATABASE_TEXT[db.state] ?? `Database ${db.state}`;
      this.stream.dataset.state = db.state === "failed" ? "closed" : "reconnecting";
      this.stream.title = db.message;
    }
    const notes: string[] = [];
    if (isFiltering(this.app.filters)) notes.push("filtered");
    if (this.app.timelineAt !== null) notes.push(`timeline at #${this.app.timelineAt}`);
    this.view.textContent = notes.join(" · ");
    const running = this.app.jobs.jobs.filter((j) => j.state === "running");
    replace(this.jobs, running.map((j) =>
      h("span", { class: "job" },
        h("span", { class: "spinner", "aria-hidden": "true" }),
        `${j.kind} → ${j.graph}${j.detail ? ` (${j.detail})` : ""}`,
        h("button", { class: "btn btn-small btn-ghost", testid: "job-stop", onclick: () => void this.app.jobs.stop(j.id) }, "Stop"))));
    const hl = this.app.health;
    this.server.textContent = hl ? `Provex ${hl.version}${hl.private_server ? " · private FalkorDB" : ""}` : "";
    if (hl?.replica) this.server.textContent += hl.replica.link_up ? ` · reading from a replica, ${(hl.replica.behind_ms / 1000).toFixed(1)} s behind` : " · reading from a replica, its link to the primary is down";
    this.server.title = hl ? hl.database : "";
  }

  hover(n: ViewNode | null): void {
    this.hovered.textContent = n ? `${n.label}: ${n.text ? n.text.slice(0, 90) : n.id}` : "";
  }
}
