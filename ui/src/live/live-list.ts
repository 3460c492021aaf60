// What the Reasoning and Lineages tabs share: a list of things of the open graph (sessions,
// lineages) that the live stream adds to. The tab is offered only when the list has some;
// a new graph closes the open view and lists anew; nodes of the listed kinds arriving live
// re-fetch the list and reload the open view once per burst, not once per batch.

import type { ViewNode } from "../api/contract";
import type { GraphModel } from "../graph/model";
import { Coalesced } from "./stream";

/** What a live list needs of its panel and the app. */
export interface LiveListHost<T> {
  readonly graph: string | null;
  readonly model: Pick<GraphModel, "nodes" | "mode">;
  /** Labels of the nodes the listed things are made of. */
  readonly labels: ReadonlySet<string>;
  /** How long after the first such node of a burst the list re-fetches. */
  readonly delayMs: number;
  fetch(graph: string): Promise<T[]>;
  /** The open view: closed when another graph opens, reloaded with the list. */
  readonly view: { close(): void; refresh(): Promise<void> };
  /** Offers the tab (or takes it away). */
  available(yes: boolean): void;
  render(): void;
  /** Listing failed: show why, with a way to try again. */
  failed(e: unknown): void;
}

export class LiveList<T> {
  items: T[] = [];
  private shownFor: string | null = null;
  private token = 0;
  private readonly live: Coalesced;

  constructor(private readonly host: LiveListHost<T>) {
    this.live = new Coalesced(host.delayMs, () => void this.refresh());
  }

  /** A view of the graph was loaded: a new graph closes the open view and lists anew. */
  graphOpened(): void {
    const host = this.host;
    if (host.graph !== this.shownFor) {
      this.shownFor = host.graph;
      host.view.close();
      this.items = [];
      host.available(false);
      host.render();
    }
    if (this.mayHaveSome()) void this.refresh();
  }

  /** Nodes arrived on the live stream: those of the listed kinds refresh (once per burst). */
  nodesArrived(nodes: readonly ViewNode[]): void {
    if (nodes.some((n) => this.host.labels.has(n.label))) this.live.schedule();
  }

  /** The cluster view grew: its boxes do not say which nodes arrived, so refresh anyway. */
  clustersChanged(): void {
    this.live.schedule();
  }

  /** Whether asking is worth it: the whole graph is drawn and has nodes of the listed
   *  kinds, or it is too large to tell from what is drawn. */
  private mayHaveSome(): boolean {
    const { graph, model, labels } = this.host;
    if (!graph || model.nodes.size === 0) return false;
    if (model.mode !== "whole") return true;
    for (const n of model.nodes.values()) if (labels.has(n.label)) return true;
    return false;
  }

  /** Lists again and reloads the open view. */
  async refresh(): Promise<void> {
    const host = this.host;
    const graph = host.graph;
    if (!graph) return;
    const token = ++this.token;
    const reloading = host.view.refresh();
    try {
      const items = await host.fetch(graph);
      if (token !== this.token || graph !== host.graph) return;
      this.items = items;
      host.available(items.length > 0);
      host.render();
    } catch (e) {
      if (token === this.token) host.failed(e);
    }
    await reloading;
  }
}
