// The Ingest menu of the top bar: upload a file, follow a growing file, run the council
// demo. A file goes into a new graph named after it unless the user names a graph or chooses
// to merge it into the open one. Its own module so the top bar does not need the backend's
// ingest operations or the jobs.

import type { Backend } from "../api/backend";
import type { Job } from "../api/contract";
import type { Notifier } from "../shared/host";
import { h } from "../shared/dom";
import { graphNameFor } from "../welcome/welcome";

/** Every format the core reads, as `provex ingest --format` names it (docs/FORMATS.md), with
 *  what the menu calls it; "" detects it from the file's first record. */
export const INGEST_FORMATS: readonly (readonly [string, string])[] = [
  ["", "Detect from the file"],
  ["a2a", "A2A runtime events"],
  ["a2ap", "A2AP documents or audit bundle"],
  ["prov-json", "W3C PROV-JSON"],
  ["prov-o", "W3C PROV-O (Turtle)"],
  ["lineage", "Prompt-lineage records"],
  ["trustgraph", "TrustGraph explain stream"],
  ["otlp", "OpenTelemetry traces (OTLP JSON)"],
];

/** `base`, or `base-2`, `base-3`… : the first that is not among `taken`. */
export function freshName(base: string, taken: readonly string[]): string {
  if (!taken.includes(base)) return base;
  for (let i = 2; ; i++) {
    const name = `${base}-${i}`;
    if (!taken.includes(name)) return name;
  }
}

/** What the Ingest menu needs of the app. */
export interface IngestHost {
  readonly backend: Pick<Backend, "upload" | "follow" | "demo">;
  readonly graph: string | null;
  readonly toasts: Notifier;
  /** The graphs the server has, as last listed. */
  knownGraphs(): readonly string[];
  refreshGraphs(): Promise<void>;
  openGraph(graph: string, root?: string, opts?: { waitForGraph?: boolean }): Promise<void>;
  /** The server's jobs: one started is shown and watched until it ends. */
  readonly jobs: { started(job: Job): void };
}

export class IngestMenu {
  readonly summary = h("summary", { class: "btn", testid: "ingest-menu" }, "Ingest");
  readonly body: HTMLElement;
  private target = h("input", {
    class: "input", testid: "ingest-graph", "aria-label": "Into graph", placeholder: "a new graph named after the file", spellcheck: "false",
  });
  private merge = h("input", { type: "checkbox", testid: "ingest-merge", disabled: true });
  private mergeName = h("span", { testid: "ingest-merge-name" }, "the open graph");

  /** `closeMenus` closes the top bar's menus once an action starts. */
  constructor(private readonly app: IngestHost, private readonly closeMenus: () => void) {
    const file = h("input", { type: "file", class: "sr-only", testid: "upload-input", accept: ".jsonl,.json,.jsonld,.ndjson,.txt,application/json,application/ld+json" });
    const format = h("select", { class: "input", testid: "ingest-format", "aria-label": "Format" },
      INGEST_FORMATS.map(([value, name]) => h("option", { value }, name)));
    this.merge.addEventListener("change", () => this.mergeChanged());
    const path = h("input", { class: "input", placeholder: "/path/to/events.jsonl", "aria-label": "Path to follow", spellcheck: "false" });
    const pace = h("input", { class: "input input-narrow", type: "number", min: "0", step: "50", value: "200", "aria-label": "Pace in milliseconds" });
    file.addEventListener("change", () => {
      const f = file.files?.[0];
      file.value = "";
      if (f) void this.upload(f, format.value || undefined);
    });
    this.body = h("div", { class: "menu-body ingest" },
      h("label", { class: "field" }, h("span", null, "Into graph"), this.target),
      h("label", { class: "inline ingest-merge" }, this.merge, " Merge into ", this.mergeName, " instead"),
      h("div", { class: "menu-section" },
        h("h3", null, "Upload a file"),
        h("p", { class: "hint" }, "A2A runtime events, A2AP documents or an audit bundle, W3C PROV-JSON, prompt-lineage records or a TrustGraph explain stream."),
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

  /** A graph was opened: it can be merged into, when chosen; a new graph stays the default. */
  graphOpened(graph: string): void {
    this.merge.disabled = false;
    this.mergeName.textContent = `“${graph}”`;
    if (this.merge.checked) this.target.value = graph;
  }

  private mergeChanged(): void {
    const open = this.app.graph;
    const merging = this.merge.checked && !!open;
    this.target.disabled = merging;
    this.target.value = merging ? open : "";
  }

  /** The graph to write into: the open one when merging, the one typed, else a new graph
   *  named after `source` (a file's name), made unique among the graphs there are. */
  private targetGraph(source: string): string {
    if (this.merge.checked && this.app.graph) return this.app.graph;
    const typed = this.target.value.trim();
    if (typed) return typed;
    return freshName(graphNameFor(source), this.app.knownGraphs());
  }

  private async upload(file: File, format: string | undefined): Promise<void> {
    const graph = this.targetGraph(file.name);
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
    const graph = this.targetGraph(path.split(/[\\/]/).pop() || "live");
    this.closeMenus();
    try {
      const job = await this.app.backend.follow({ graph, path, format: format ?? undefined });
      this.app.jobs.started(job);
      if (graph !== this.app.graph) await this.app.openGraph(graph, undefined, { waitForGraph: true });
    } catch (e) {
      this.app.toasts.error(e, `Following ${path}`);
    }
  }

  private async demo(paceMs: number): Promise<void> {
    const graph = this.merge.checked && this.app.graph ? this.app.graph : this.target.value.trim() || "council";
    this.closeMenus();
    try {
      const job = await this.app.backend.demo({ graph, pace_ms: Number.isFinite(paceMs) && paceMs > 0 ? Math.round(paceMs) : undefined });
      this.app.jobs.started(job);
      // Watch it arrive: open the graph now, the stream brings the rest.
      await this.app.openGraph(graph, undefined, { waitForGraph: true });
      await this.app.refreshGraphs();
    } catch (e) {
      this.app.toasts.error(e, "Council demo");
    }
  }
}
