// What the Lineages and Reasoning tabs share around their live list (live-list.ts): the
// tab's element, the list kept current with the open view, what a failed listing shows,
// and the frame a tab draws (what to ingest when the graph has none; otherwise a hint, a
// counted heading and the rows).

import type { ViewNode } from "../api/contract";
import { errorState } from "../shared/error-state";
import { h, replace } from "../shared/dom";
import { LiveList, type LiveListHost } from "./live-list";

/** What a list tab lists, and the view its rows open. */
export type ListSource<T> = Omit<LiveListHost<T>, "render" | "failed">;

/** What a list tab is called: its element's class and test id, and what failed listing says. */
export interface ListTab {
  readonly class: string;
  readonly testid: string;
  /** "list the …": what could not be done, for the error state. */
  readonly doing: string;
}

export abstract class ListPanel<T> {
  readonly el: HTMLElement;
  private readonly liveList: LiveList<T>;

  constructor(tab: ListTab, source: ListSource<T>) {
    this.el = h("div", { class: `panel ${tab.class}`, testid: tab.testid });
    const panel = this;
    this.liveList = new LiveList<T>({
      get graph() { return source.graph; },
      get model() { return source.model; },
      labels: source.labels,
      delayMs: source.delayMs,
      fetch: (graph) => source.fetch(graph),
      view: source.view,
      available: (yes) => source.available(yes),
      render: () => panel.render(),
      failed: (e) => replace(panel.el, errorState(tab.doing, e, () => void panel.refresh())),
    });
  }

  /** The things listed, as last fetched. */
  protected get list(): readonly T[] {
    return this.liveList.items;
  }

  /** A view of the graph was loaded: a new graph closes the open view and lists anew. */
  graphOpened(): void {
    this.liveList.graphOpened();
  }

  /** Nodes arrived on the live stream: those of the listed kinds refresh the list and view. */
  nodesArrived(nodes: readonly ViewNode[]): void {
    this.liveList.nodesArrived(nodes);
  }

  /** The cluster view grew: its boxes do not say which nodes arrived, so refresh anyway. */
  clustersChanged(): void {
    this.liveList.clustersChanged();
  }

  /** Lists again and reloads the open view. */
  refresh(): Promise<void> {
    return this.liveList.refresh();
  }

  protected abstract render(): void;

  /** Draws the tab: `empty` (what the graph lacks, what to ingest) when the list is empty,
   *  otherwise the hint, the heading with the count, and the rows. */
  protected draw(empty: readonly [string, string], hint: string, heading: string, rows: () => HTMLElement): void {
    if (this.list.length === 0) {
      replace(this.el, h("div", { class: "empty-state" }, h("p", null, empty[0]), h("p", { class: "muted" }, empty[1])));
      return;
    }
    replace(this.el, h("p", { class: "hint" }, hint), h("h3", null, `${heading} (${this.list.length})`), rows());
  }
}
