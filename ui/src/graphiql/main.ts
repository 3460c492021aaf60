// The GraphQL query page (`/graphql` sends browsers here): GraphiQL from npm over
// `/graphql?graph=G`, with the graph from the page's URL and the API token the explorer
// keeps for this tab (`?token=`, then sessionStorage), sent as `Authorization: Bearer`.

import "graphiql/setup-workers/vite";
import "graphiql/style.css";
import "./page.css";

import { GraphiQL } from "graphiql";
import { createElement } from "react";
import { createRoot } from "react-dom/client";

import { takeToken } from "../shared/backends";
import { endpoint, exampleQuery, fetcherFor, graphFromUrl, watchQuery } from "./fetcher";

const graph = graphFromUrl(new URL(window.location.href));
const token = takeToken();
const host = document.getElementById("graphiql");
if (!host) throw new Error("no #graphiql element");

const bar = document.createElement("header");
bar.className = "pv-gql-bar";
const form = document.createElement("form");
form.innerHTML = `<strong>Provex GraphQL</strong> <label>graph <input name="graph" spellcheck="false"></label> <button>Open</button>`;
const input = form.querySelector("input")!;
input.value = graph ?? "";
form.addEventListener("submit", (e) => {
  e.preventDefault();
  const url = new URL(window.location.href);
  url.searchParams.set("graph", input.value.trim());
  window.location.assign(url.toString());
});
bar.append(form);
const note = document.createElement("span");
note.className = "pv-gql-note";
note.textContent = graph ? `POST ${endpoint(graph)}` : "Name a graph to query.";
bar.append(note);
document.body.prepend(bar);

createRoot(host).render(
  createElement(GraphiQL, {
    fetcher: fetcherFor(graph ?? "", token),
    defaultQuery: exampleQuery,
    // A second tab watches knowledge-graph changes (a subscription, streamed over SSE).
    defaultTabs: [{ query: exampleQuery }, { query: watchQuery }],
    defaultEditorToolsVisibility: true,
  }),
);
