// The Export menu of the top bar: the drawing as PNG or SVG, the selected nodes as JSON,
// and the whole graph as W3C PROV (PROV-JSON, PROV-N, PROV-O). Its own module so the top
// bar does not need the canvas or the selection.

import type { Backend } from "../api/backend";
import type { GraphCanvasApi } from "../canvas/types";
import type { GraphModel } from "../graph/model";
import type { Notifier } from "../shared/host";
import { download, h, safeName } from "../shared/dom";

/** The PROV formats the server writes, with their menu labels. */
export const PROV_FORMATS: readonly (readonly [string, string])[] = [
  ["prov-json", "PROV-JSON"],
  ["prov-n", "PROV-N"],
  ["prov-o-turtle", "PROV-O (Turtle)"],
  ["prov-o-jsonld", "PROV-O (JSON-LD)"],
];

/** What the Export menu needs of the app. */
export interface ExportHost {
  readonly backend: Pick<Backend, "node" | "exportProv" | "bundle">;
  readonly graph: string | null;
  readonly model: Pick<GraphModel, "nodes" | "edgeList" | "seq">;
  readonly canvas: Pick<GraphCanvasApi, "toPNG" | "toSVG">;
  readonly selection: readonly string[];
  readonly toasts: Notifier;
}

export class ExportMenu {
  readonly summary = h("summary", { class: "btn", testid: "export-menu" }, "Export");
  readonly body: HTMLElement;
  private keyPath = h("input", {
    class: "input", testid: "bundle-key", placeholder: "optional: /path/to/key.json on the server", "aria-label": "Key file to sign the bundle with", spellcheck: "false",
  });

  /** `closeMenus` closes the top bar's menus once an export starts. */
  constructor(private readonly app: ExportHost, private readonly closeMenus: () => void) {
    this.body = h("div", { class: "menu-body export" },
      h("button", { class: "menu-item", testid: "export-png", onclick: () => void this.exportPng() }, "View as PNG"),
      h("button", { class: "menu-item", testid: "export-svg", onclick: () => this.exportSvg() }, "View as SVG"),
      h("button", { class: "menu-item", testid: "export-selection", onclick: () => void this.exportSelection() }, "Selection as JSON"),
      h("div", { class: "menu-heading", role: "presentation" }, "Audit bundle"),
      h("label", { class: "field menu-field" }, h("span", null, "Sign with key file"), this.keyPath),
      h("button", { class: "menu-item", testid: "export-bundle", title: "The selected claims (or every claim), their verifications, sources and keys, verifiable offline", onclick: () => void this.exportBundle() }, "Audit bundle (JSON-LD)"),
      h("div", { class: "menu-heading", role: "presentation" }, "Graph as W3C PROV"),
      ...PROV_FORMATS.map(([format, label]) =>
        h("button", { class: "menu-item", testid: `export-${format}`, onclick: () => void this.exportProv(format) }, label)));
  }

  /** The whole graph as W3C PROV, as the server writes it (`provex export`). */
  private async exportProv(format: string): Promise<void> {
    this.closeMenus();
    const graph = this.app.graph;
    if (!graph) {
      this.app.toasts.info("Open a graph first.");
      return;
    }
    try {
      const doc = await this.app.backend.exportProv({ graph, format });
      download(doc.file_name, new Blob([doc.text], { type: doc.media_type }));
    } catch (e) {
      this.app.toasts.error(e, `Exporting ${graph} as ${format}`);
    }
  }

  /** An audit bundle of the selected claims (every claim when none is selected), signed
   *  with the key file named, as `provex bundle` writes it. */
  private async exportBundle(): Promise<void> {
    this.closeMenus();
    const graph = this.app.graph;
    if (!graph) {
      this.app.toasts.info("Open a graph first.");
      return;
    }
    const statements = [...new Set(this.app.selection)].filter((id) => this.app.model.nodes.get(id)?.label === "Statement");
    const key = this.keyPath.value.trim();
    try {
      const doc = await this.app.backend.bundle({ graph, statements, ...(key ? { key } : {}) });
      download(doc.file_name, new Blob([doc.text], { type: doc.media_type }));
      this.app.toasts.info(`${statements.length > 0 ? `${statements.length} selected claim${statements.length === 1 ? "" : "s"}` : "Every claim"} bundled${key ? ", signed" : " (unsigned: it verifies only once signed)"}.`);
    } catch (e) {
      this.app.toasts.error(e, "Writing the audit bundle");
    }
  }

  private fileBase(): string {
    return `provex-${safeName(this.app.graph ?? "graph")}`;
  }

  private async exportPng(): Promise<void> {
    this.closeMenus();
    try {
      download(`${this.fileBase()}.png`, await this.app.canvas.toPNG());
    } catch (e) {
      this.app.toasts.error(e, "Exporting PNG");
    }
  }

  private exportSvg(): void {
    this.closeMenus();
    try {
      download(`${this.fileBase()}.svg`, new Blob([this.app.canvas.toSVG()], { type: "image/svg+xml" }));
    } catch (e) {
      this.app.toasts.error(e, "Exporting SVG");
    }
  }

  /** The selected nodes as drawn, their stored properties, and the edges among them. */
  private async exportSelection(): Promise<void> {
    this.closeMenus();
    const ids = [...new Set(this.app.selection)];
    const graph = this.app.graph;
    if (ids.length === 0 || !graph) {
      this.app.toasts.info(graph
        ? "Nothing is selected, so there is nothing to export: click a node (shift-click adds more), then choose Selection as JSON again."
        : "Nothing is selected: open a graph and click a node first.");
      return;
    }
    const m = this.app.model;
    const chosen = new Set(ids);
    try {
      const records = await Promise.all(ids.map((id) => this.app.backend.node({ graph, id })));
      const data = {
        graph,
        seq: m.seq,
        nodes: ids.map((id, i) => ({ ...m.nodes.get(id), ...records[i] })),
        edges: m.edgeList().filter((e) => chosen.has(e.source) && chosen.has(e.target)),
      };
      download(`${this.fileBase()}-selection.json`, new Blob([JSON.stringify(data, null, 2)], { type: "application/json" }));
    } catch (e) {
      this.app.toasts.error(e, "Exporting the selection");
    }
  }
}
