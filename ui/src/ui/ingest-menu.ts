// The Ingest menu of the top bar: upload a file, follow a growing file, run the council
// demo, each into the graph named in its "Into graph" field. Its own module so the top bar
// does not need the backend's ingest operations or the jobs.

import type { Backend } from "../api/backend";
import type { Job } from "../api/contract";
import type { Notifier } from "../host";
import { h } from "./dom";

/** What the Ingest menu needs of the app. */
export interface IngestHost {
  readonly backend: Pick<Backend, "upload" | "follow" | "demo">;
  readonly graph: string | null;
  readonly toasts: Notifier;
  refreshGraphs(): Promise<void>;
  openGraph(graph: string, root?: string, opts?: { waitForGraph?: boolean }): Promise<void>;
  /** A job was started: show it and watch it until it ends. */
  jobStarted(job: Job): void;
}

export class IngestMenu {
  readonly summary = h("summary", { class: "btn", testid: "ingest-menu" }, "Ingest");
  readonly body: HTMLElement;
  private target = h("input", { class: "input", testid: "ingest-graph", "aria-label": "Target graph", placeholder: "graph name", spellcheck: "false" });

  /** `closeMenus` closes the top bar's menus once an action starts. */
  constructor(private readonly app: IngestHost, private readonly closeMenus: () => void) {
    const file = h("input", { type: "file", class: "sr-only", testid: "upload-input", accept: ".jsonl,.json,.jsonld,.ndjson,.txt,application/json,application/ld+json" });
    const format = h("select", { class: "input", "aria-label": "Format" },
      h("option", { value: "" }, "detect"), h("option", { value: "a2a" }, "A2A events"), h("option", { value: "a2ap" }, "A2AP documents"));
    const path = h("input", { class: "input", placeholder: "/path/to/events.jsonl", "aria-label": "Path to follow", spellcheck: "false" });
    const pace = h("input", { class: "input input-narrow", type: "number", min: "0", step: "50", value: "200", "aria-label": "Pace in milliseconds" });
    file.addEventListener("change", () => {
      const f = file.files?.[0];
      file.value = "";
      if (f) void this.upload(f, format.value || undefined);
    });
    this.body = h("div", { class: "menu-body ingest" },
      h("label", { class: "field" }, h("span", null, "Into graph"), this.target),
      h("div", { class: "menu-section" },
        h("h3", null, "Upload a file"),
        h("p", { class: "hint" }, "A2A runtime events or A2AP documents (JSON lines)."),
        h("div", { class: "row" }, format,
          h("button", { class: "btn", testid: "upload-button", onclick: () => file.click() }, "Choose file…"), file)),
      h("div", { class: "menu-section" },
        h("h3", null, "Follow a growing file"),
        h("p", { class: "hint" }, "A path on the server's machine; new lines appear live."),
        h("div", { class: "row" }, path,
          h("button", { class: "btn", testid: "follow-button", onclick: () => void this.follow(path.value.trim(), format.value || null) }, "Follow"))),
      h("div", { class: "menu-section" },
        h("h3", null, "Council meeting demo"),
        h("p", { class: "hint" }, "Streams a city-council meeting: a transcript, AI summaries with evidence, and signed verifications."),
        h("div", { class: "row" },
          h("label", { class: "inline" }, "one record every ", pace, " ms"),
          h("button", { class: "btn btn-primary", testid: "demo-button", onclick: () => void this.demo(Number(pace.value)) }, "Run demo"))));
  }

  /** The graph list was loaded: an empty target becomes the open graph (or "council"). */
  defaultTarget(current: string | null): void {
    if (!this.target.value) this.target.value = current ?? "council";
  }

  /** A graph was opened: ingest goes into it unless told otherwise. */
  setTarget(graph: string): void {
    this.target.value = graph;
  }

  private targetGraph(fallback: string): string {
    const g = this.target.value.trim() || fallback;
    this.target.value = g;
    return g;
  }

  private async upload(file: File, format: string | undefined): Promise<void> {
    const graph = this.targetGraph(this.app.graph ?? "uploads");
    this.closeMenus();
    this.app.toasts.info(`Uploading ${file.name} into “${graph}”…`, 3000);
    try {
      const report = await this.app.backend.upload({ graph, name: file.name, format }, file);
      const rejected = report.rejected > 0 ? `, ${report.rejected} rejected (see the server's rejects file)` : "";
      this.app.toasts.info(`${file.name}: ${report.events} events into “${report.graph}”${rejected}, ${report.nodes_written} nodes and ${report.edges_written} edges written in ${(report.elapsed_ms / 1000).toFixed(1)} s.`, 8000);
      await this.app.refreshGraphs();
      if (graph !== this.app.graph) await this.app.openGraph(graph);
    } catch (e) {
      this.app.toasts.error(e, `Uploading ${file.name}`);
    }
  }

  private async follow(path: string, format: string | null): Promise<void> {
    if (!path) {
      this.app.toasts.info("Type the path of the file to follow.");
      return;
    }
    const graph = this.targetGraph(this.app.graph ?? "live");
    this.closeMenus();
    try {
      const job = await this.app.backend.follow({ graph, path, format: format ?? undefined });
      this.app.jobStarted(job);
      if (graph !== this.app.graph) await this.app.openGraph(graph, undefined, { waitForGraph: true });
    } catch (e) {
      this.app.toasts.error(e, `Following ${path}`);
    }
  }

  private async demo(paceMs: number): Promise<void> {
    const graph = this.targetGraph("council");
    this.closeMenus();
    try {
      const job = await this.app.backend.demo({ graph, pace_ms: Number.isFinite(paceMs) && paceMs > 0 ? Math.round(paceMs) : undefined });
      this.app.jobStarted(job);
      // Watch it arrive: open the graph now, the stream brings the rest.
      await this.app.openGraph(graph, undefined, { waitForGraph: true });
      await this.app.refreshGraphs();
    } catch (e) {
      this.app.toasts.error(e, "Council demo");
    }
  }
}
