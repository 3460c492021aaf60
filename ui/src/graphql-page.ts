// The query page of `/graphql` (issue 14 §1): a GraphQL query (seed 001's statementsAbout,
// evidenceChain, agentReputation, consensusOn, seed 004's triples) against the graph named
// in `?graph=`, with variables, run over `POST /graphql` with the tab's API token.

import { takeToken } from "./backends";

const EXAMPLE = `# Seed 001 §5.1 and seed 004 over this graph. Ctrl+Enter runs.
query Zoning($topic: String!) {
  statementsAbout(topic: $topic) {
    id
    claimText
    consensusScore
    verified
    signature
    generatedBy { id name reputation }
    evidence { text timestampStart document { title } }
  }
}`;

function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

const CSS = `
body { margin: 0; font: 14px/1.45 system-ui, sans-serif; color: #1f2430; background: #f6f7f9; }
.gql-page { display: grid; grid-template-columns: 1fr 1fr; grid-template-rows: auto 1fr auto; gap: 12px; height: 100vh; box-sizing: border-box; padding: 12px 16px; }
header { grid-column: 1 / 3; display: flex; align-items: center; gap: 12px; }
header h1 { font-size: 17px; margin: 0; }
header label { display: flex; gap: 6px; align-items: center; }
textarea, pre { font: 13px/1.5 ui-monospace, SFMono-Regular, Menlo, monospace; border: 1px solid #cfd4dc; border-radius: 6px; padding: 10px; background: #fff; margin: 0; box-sizing: border-box; }
.left { display: grid; grid-template-rows: 1fr auto; gap: 8px; min-height: 0; }
#query { width: 100%; height: 100%; resize: none; }
#variables { width: 100%; height: 90px; resize: vertical; }
#result { overflow: auto; white-space: pre-wrap; min-height: 0; }
#result.error { border-color: #c0392b; }
button { font: inherit; padding: 6px 14px; border-radius: 6px; border: 1px solid #3056d3; background: #3056d3; color: #fff; cursor: pointer; }
input { font: inherit; padding: 4px 8px; border: 1px solid #cfd4dc; border-radius: 6px; }
footer { grid-column: 1 / 3; color: #5b6270; font-size: 12px; }
`;

export function mount(root: HTMLElement): void {
  const style = el("style");
  style.textContent = CSS;
  document.head.appendChild(style);
  const params = new URLSearchParams(location.search);
  const token = takeToken();
  const graph = el("input", { id: "graph", value: params.get("graph") ?? "council", "aria-label": "Graph" });
  const run = el("button", { id: "run", type: "button" }, "Run ▶");
  const header = el("header");
  header.append(el("h1", {}, "Provex GraphQL"), el("label", {}, "Graph"), graph, run);
  header.children[1].appendChild(graph);
  const query = el("textarea", { id: "query", spellcheck: "false", "aria-label": "Query" });
  query.value = params.get("query") ?? EXAMPLE;
  const variables = el("textarea", { id: "variables", spellcheck: "false", "aria-label": "Variables (JSON)" });
  variables.value = params.get("variables") ?? '{ "topic": "zoning" }';
  const left = el("div", { class: "left" });
  left.append(query, variables);
  const result = el("pre", { id: "result", "aria-live": "polite", "aria-label": "Result" }, "Press Run (or Ctrl+Enter).");
  const footer = el("footer", {}, "POST /graphql?graph=… with {query, variables}. Also served to agents as knowledge/query at /a2a/<graph> (seed 004).");
  root.append(header, left, result, footer);

  async function go(): Promise<void> {
    result.classList.remove("error");
    result.textContent = "Running…";
    let vars: unknown = undefined;
    try {
      vars = variables.value.trim() ? JSON.parse(variables.value) : undefined;
    } catch (e) {
      result.classList.add("error");
      result.textContent = `The variables are not JSON: ${(e as Error).message}`;
      return;
    }
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (token) headers.authorization = `Bearer ${token}`;
    try {
      const r = await fetch(`/graphql?graph=${encodeURIComponent(graph.value)}`, {
        method: "POST", headers, body: JSON.stringify({ query: query.value, variables: vars }),
      });
      const body = (await r.json()) as { errors?: unknown[] };
      result.classList.toggle("error", !r.ok || (Array.isArray(body.errors) && body.errors.length > 0));
      result.textContent = JSON.stringify(body, null, 2);
    } catch (e) {
      result.classList.add("error");
      result.textContent = `The server did not answer: ${(e as Error).message}`;
    }
  }
  run.addEventListener("click", () => void go());
  query.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) void go();
  });
}

const root = document.getElementById("graphql");
if (root) mount(root);
