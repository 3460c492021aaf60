// What the first-run screen's buttons do: the council demo opened on its
// walkthrough, and a file opened as a graph named after it. Kept out of app.ts, with the
// narrow part of the app they need.

import type { Backend } from "../api/backend";
import type { Job } from "../api/contract";
import type { Tab } from "../shared/host";
import type { Toasts } from "../shared/toast";
import { graphNameFor } from "./welcome";

/** What the first-run actions need of the app. */
export interface FirstRunHost {
  readonly backend: Backend;
  readonly toasts: Toasts;
  /** The graph on screen. */
  readonly graph: string | null;
  jobStarted(job: Job): void;
  openGraph(graph: string, root?: string, opts?: { waitForGraph?: boolean }): Promise<void>;
  refreshGraphs(): Promise<void>;
  showTab(tab: Tab): void;
}

/** The council demo into graph "council", opened on its walkthrough once every claim is in. */
export async function demoWithWalkthrough(host: FirstRunHost, buildWalkthrough: () => Promise<void>): Promise<void> {
  const graph = "council";
  try {
    const job = await host.backend.demo({ graph });
    host.jobStarted(job);
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
