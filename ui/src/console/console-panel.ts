// The Console tab: a question in plain language (`ask`: a chat endpoint writes the Cypher,
// which is shown in the editor) or read-only Cypher against the open graph, results as a
// table, errors with their code. Ids in the results that are drawn nodes can be clicked.

import type { Answer, JsonValue, Table } from "../api/contract";
import { BackendError, type Backend } from "../api/backend";
import type { GraphModel } from "../graph/model";
import type { Notifier, SelectFn } from "../shared/host";
import { h, replace } from "../shared/dom";

const MAX_ROWS = 1000;

const EXAMPLES: Array<[string, string]> = [
  ["Claims by consensus", "MATCH (s:Statement)\nRETURN s.name AS id, s.claim_text AS claim, s.consensus_score AS consensus, s.verified AS verified\nORDER BY consensus"],
  ["Verifications and signatures", "MATCH (v:Verification)-[:VALIDATES]->(s:Statement)\nRETURN v.verdict AS verdict, v.confidence AS confidence, v.signature_status AS signature, s.claim_text AS claim"],
  ["Nodes per label", "MATCH (n)\nRETURN labels(n)[0] AS label, count(*) AS nodes\nORDER BY nodes DESC"],
  ["Relationships per type", "MATCH ()-[r]->()\nRETURN type(r) AS type, count(*) AS edges\nORDER BY edges DESC"],
];

/** What the console needs of the app. */
export interface ConsoleHost {
  readonly backend: Pick<Backend, "query" | "ask">;
  /** The open graph, if any. */
  readonly graph: string | null;
  readonly model: Pick<GraphModel, "nodes">;
  readonly toasts: Notifier;
  select: SelectFn;
}

export class ConsolePanel {
  readonly el = h("div", { class: "panel console" });
  private input = h("textarea", {
    class: "console-input", testid: "console-input", rows: "5", spellcheck: "false",
    placeholder: "MATCH (n) RETURN n.name, labels(n) LIMIT 25", "aria-label": "Cypher query",
  });
  private result = h("div", { class: "console-result", testid: "console-result" });
  private runButton = h("button", { class: "btn btn-primary", testid: "console-run", title: "Run (Ctrl+Enter)" }, "Run");
  private question = h("input", {
    class: "input ask-input", testid: "ask-input", type: "text", "aria-label": "Question in plain language",
    placeholder: "Ask in plain words: which claims did Claude challenge?",
  });
  private askButton = h("button", { class: "btn btn-primary", testid: "ask-run", title: "Ask (Enter)" }, "Ask");

  constructor(private readonly app: ConsoleHost) {
    this.runButton.addEventListener("click", () => void this.run());
    this.askButton.addEventListener("click", () => void this.ask());
    this.question.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter") {
        ev.preventDefault();
        void this.ask();
      }
    });
    this.input.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter" && (ev.ctrlKey || ev.metaKey)) {
        ev.preventDefault();
        void this.run();
      }
    });
    const examples = h("select", { class: "input", "aria-label": "Example queries",
      onchange: (ev) => {
        const sel = ev.target as HTMLSelectElement;
        const ex = EXAMPLES[Number(sel.value)];
        if (ex) this.input.value = ex[1];
        sel.value = "";
      } },
    h("option", { value: "" }, "Examples…"), EXAMPLES.map(([name], i) => h("option", { value: String(i) }, name)));
    examples.value = "";
    replace(this.el,
      h("div", { class: "row ask-row" }, this.question, this.askButton),
      h("p", { class: "hint" }, "A question goes to the chat endpoint set up for Provex, which writes the Cypher below from this graph's labels and properties; it runs read-only. Or write read-only Cypher yourself: nodes' ", h("code", null, "name"), " is their id."),
      this.input,
      h("div", { class: "row" }, this.runButton, examples),
      this.result);
  }

  async run(): Promise<void> {
    const cypher = this.input.value.trim();
    const graph = this.app.graph;
    if (!cypher) return;
    if (!graph) {
      this.showError(new BackendError("no_graph", "Open a graph first."));
      return;
    }
    this.runButton.disabled = true;
    replace(this.result, h("p", { class: "muted" }, "Running…"));
    const started = performance.now();
    try {
      const table = await this.app.backend.query({ graph, cypher });
      this.showTable(table, performance.now() - started);
    } catch (e) {
      this.showError(e);
      this.app.toasts.error(e, "Query");
    } finally {
      this.runButton.disabled = false;
    }
  }

  /** Sends the question; the Cypher it ran goes in the editor, its rows in the table. */
  async ask(): Promise<void> {
    const question = this.question.value.trim();
    const graph = this.app.graph;
    if (!question) return;
    if (!graph) {
      this.showError(new BackendError("no_graph", "Open a graph first."));
      return;
    }
    this.askButton.disabled = true;
    replace(this.result, h("p", { class: "muted" }, "Asking…"));
    try {
      const a: Answer = await this.app.backend.ask({ graph, question });
      this.input.value = a.cypher;
      this.showTable({ columns: a.columns, rows: a.rows }, a.elapsed_ms,
        h("p", { class: "ask-answer", testid: "ask-cypher" }, "Cypher written by ", h("strong", null, a.model), " and run read-only: ", h("code", null, a.cypher)));
    } catch (e) {
      this.showError(e);
    } finally {
      this.askButton.disabled = false;
    }
  }

  private showError(e: unknown): void {
    const code = e instanceof BackendError ? e.code : "error";
    const message = e instanceof Error ? e.message : String(e);
    replace(this.result, h("div", { class: "console-error", "data-code": code }, h("code", null, code), " ", message));
  }

  private showTable(t: Pick<Table, "columns" | "rows">, ms: number, before: HTMLElement | null = null): void {
    const rows = t.rows.slice(0, MAX_ROWS);
    replace(this.result,
      before,
      h("p", { class: "muted" }, `${t.rows.length} row${t.rows.length === 1 ? "" : "s"} in ${Math.round(ms)} ms`,
        t.rows.length > MAX_ROWS ? ` (first ${MAX_ROWS} shown)` : ""),
      t.columns.length === 0 ? null : h("div", { class: "table-wrap" },
        h("table", { class: "results" },
          h("thead", null, h("tr", null, t.columns.map((c) => h("th", null, c)))),
          h("tbody", null, rows.map((r) => h("tr", null, r.map((v) => h("td", null, this.cell(v)))))))));
  }

  private cell(v: JsonValue): HTMLElement | string {
    if (v === null) return h("span", { class: "muted" }, "null");
    if (typeof v === "string") {
      if (this.app.model.nodes.has(v)) {
        return h("button", { class: "link", title: "Select this node", onclick: () => void this.app.select(v, { focus: true, from: "panel" }) }, v);
      }
      return v;
    }
    // 0.9199999999999999 reads as 0.92; integers stay exact.
    if (typeof v === "number") return Number.isInteger(v) ? String(v) : String(Number(v.toPrecision(12)));
    if (typeof v === "boolean") return String(v);
    return h("code", { class: "json" }, JSON.stringify(v));
  }
}
