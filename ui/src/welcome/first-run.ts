// What opens first, and what the first-run screen's buttons do: the graph the address names
// (or the one open last time, or the first), the council demo opened on its walkthrough, and
// a file opened as a graph named after it. Kept out of app.ts, with the narrow part of the
// app they need.

import type { Backend } from "../api/backend";
import type { Job } from "../api/contract";
import type { Tab } from "../shared/host";
import type { Toasts } from "../shared/toast";
import { wantedGraph } from "../graph/graph-loading";
import type { MissingGraph } from "./missing-graph";
import { graphNameFor, welcomed, type Welcome } from "./welcome";

/** What opening the first graph needs of the app. */
export interface FirstGraphHost {
  readonly welcome: Pick<Welcome, "show">;
  readonly missing: Pick<MissingGraph, "show">;
  openGraph(graph: string): Promise<void>;
  /** Draws no graph. */
  showNothing(): void;
}

/** Opens the graph the address names, else the one open last time, else the first of
 *  `graphs`. A graph the address names that is not there is said so, and nothing opens in its
 *  place; a first visit that did not ask for a graph gets the welcome over it. */
export async function openFirstGraph(host: FirstGraphHost, graphs: readonly string[]): Promise<void> {
  const wanted = wantedGraph();
  const asked = new URL(window.location.href).searchParams.get("graph");
  const first = wanted && graphs.includes(wanted) ? wanted : graphs[0] ?? null;
  if (asked !== null && !graphs.includes(asked)) {
    host.showNothing();
    host.missing.show(asked, graphs);
  } else if (first) {
    if (!welcomed() && !asked) host.welcome.show();
    await host.openGraph(first);
  } else {
    host.showNothing();
    host.welcome.show();
  }
}

/** What the first-run actions need of the app. */
export interface FirstRunHost {
  readonly backend: Backend;
  readonly toasts: Toasts;
  /** The graph on screen. */
  readonly graph: string | null;
  /** The server's jobs: one started is shown and watched until it ends. */
  readonly jobs: { started(job: Job): void };
  openGraph(graph: string, root?: string, opts?: { waitForGraph?: boolean }): Promise<void>;
  refreshGraphs(): Promise<void>;
  showTab(tab: Tab): void;
}

/** The council demo into graph "council", opened on its walkthrough once every claim is in. */
export async function demoWithWalkthrough(host: FirstRunHost, buildWalkthrough: () => Promise<void>): Promise<void> {
  const graph = "council";
  try {
    const job = await host.backend.demo({ graph });
    host.jobs.started(job);
    await host.openGraph(graph, undefined, { waitForGraph: true });
    await host.refreshGraphs();
    // The walkthrough tells the story of every claim: wait for the demo to write them all
    // (a second or two; the graph fills in meanwhile).
    for (let waited = 0; waited < 60_000; waited += 250) {
      const jobs = await host.backend.jobs();
      if (jobs.find((j) => j.id === job.id)?.state !== "running") break;
      await new Promise((r) => setTimeout(r, 250));
    }
    if (host.graph !== graph) return;
    host.showTab("walkthrough");
    await buildWalkthrough();
  } catch (e) {
    host.toasts.error(e, "Council demo");
  }
}

/** Uploads a file into a graph named after it, and opens that graph. */
export async function uploadFile(host: FirstRunHost, file: File): Promise<void> {
  const graph = graphNameFor(file.name);
  host.toasts.info(`Opening ${file.name} as graph “${graph}”…`, 3000);
  try {
    const report = await host.backend.upload({ graph, name: file.name }, file);
    const rejected = report.rejected > 0 ? `, ${report.rejected} lines rejected` : "";
    host.toasts.info(`${file.name}: ${report.events} events${rejected}.`, 6000);
    await host.refreshGraphs();
    await host.openGraph(graph);
  } catch (e) {
    host.toasts.error(e, `Opening ${file.name}`);
  }
}
