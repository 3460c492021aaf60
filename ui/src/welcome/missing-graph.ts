// What the page says when its address asks for a graph the server does not have: the name
// asked for, and the graphs there are, each a click away. Nothing else opens in its place and
// the address is left as it was, so a mistyped or stale link never shows another graph.

import { h, replace } from "../shared/dom";

/** What the notice needs of the app. */
export interface MissingGraphHost {
  openGraph(graph: string): Promise<void>;
}

export class MissingGraph {
  readonly el = h("section", {
    class: "welcome missing-graph", testid: "missing-graph", role: "alert", "aria-labelledby": "provex-missing-title", hidden: true,
  });

  constructor(private readonly app: MissingGraphHost) {}

  /** Says that `name` does not exist, and lists `graphs`. */
  show(name: string, graphs: readonly string[]): void {
    replace(this.el,
      h("h2", { id: "provex-missing-title", testid: "missing-graph-title" }, `No graph named ${name}`),
      h("p", null, graphs.length === 0
        ? "This server has no graphs yet: ingest a file or run the council demo from the Ingest menu."
        : `The address asks for “${name}”, which this server does not have. Open one of its ${graphs.length} graph${graphs.length === 1 ? "" : "s"}:`),
      graphs.length === 0 ? null : h("ul", { class: "missing-graph-list", testid: "missing-graph-list" },
        graphs.map((g) => h("li", null,
          h("button", { class: "btn", testid: "missing-graph-open", "data-graph": g, onclick: () => void this.app.openGraph(g) }, g)))));
    this.el.hidden = false;
  }

  hide(): void {
    this.el.hidden = true;
  }

  get shown(): boolean {
    return !this.el.hidden;
  }
}
