// The side panel: its tabs (tabs.ts) and the panels in them (Details, Trail, Timeline,
// Walkthrough, Console, Lineages, Reasoning, Traces), made for the app and told together when the
// graph is switched, redrawn or grows. The one trail view is shown in whichever of its two
// homes is open: the Trail tab, or under the Walkthrough's step.

import type { ViewNode } from "../api/contract";
import { ConsolePanel, type ConsoleHost } from "../console/console-panel";
import { DetailsPanel, type DetailsHost } from "../details/details-panel";
import { LineagesPanel, type LineagesHost } from "../lineage/lineages-panel";
import { ReasoningPanel, type ReasoningHost } from "../reasoning/reasoning-panel";
import { h } from "../shared/dom";
import type { Tab } from "../shared/host";
import { Tabs } from "./tabs";
import { TimelinePanel, type TimelineHost } from "../timeline/timeline-panel";
import { TracesPanel, type TracesHost } from "../traces/traces-panel";
import { TrailView, type TrailHost } from "../trail/trail-view";
import { WalkthroughPanel, type WalkthroughHost } from "../walkthrough/walkthrough-panel";

/** What the side panel's panels need of the app, together. */
export type SidePanelHost = ConsoleHost & DetailsHost & LineagesHost & ReasoningHost & TimelineHost & TracesHost & TrailHost & WalkthroughHost;

export class SidePanel {
  readonly details: DetailsPanel;
  readonly trail: TrailView;
  readonly timeline: TimelinePanel;
  readonly walkthrough: WalkthroughPanel;
  readonly console: ConsolePanel;
  readonly lineages: LineagesPanel;
  readonly reasoning: ReasoningPanel;
  readonly traces: TracesPanel;
  readonly tabs: Tabs;
  /** The trail view's home when the Trail tab is open (the Walkthrough has the other). */
  private readonly trailTab = h("div", { class: "panel-body" });

  /** `onShow`: a tab was chosen by a click (the app shows it, see `show`). */
  constructor(host: SidePanelHost, onShow: (tab: Tab) => void) {
    this.lineages = new LineagesPanel(host);
    this.reasoning = new ReasoningPanel(host);
    this.traces = new TracesPanel(host);
    this.details = new DetailsPanel(host);
    this.trail = new TrailView(host);
    this.timeline = new TimelinePanel(host);
    this.walkthrough = new WalkthroughPanel(host, this.trail, this.reasoning.view);
    this.console = new ConsolePanel(host);
    this.tabs = new Tabs({
      details: this.details.el,
      trail: this.trailTab,
      timeline: this.timeline.el,
      walkthrough: this.walkthrough.el,
      console: this.console.el,
      lineages: this.lineages.el,
      reasoning: this.reasoning.el,
      traces: this.traces.el,
    }, onShow);
    this.trailTab.appendChild(this.trail.el);
  }

  get active(): Tab {
    return this.tabs.active;
  }

  show(tab: Tab): void {
    this.tabs.show(tab);
    if (tab === "walkthrough") this.walkthrough.adoptTrail(this.trail.el);
    else if (tab === "trail") this.trailTab.appendChild(this.trail.el);
    if (tab === "walkthrough") void this.walkthrough.opened();
    if (tab === "timeline") this.timeline.render();
  }

  /** Offers a tab or takes it away; taking away the open one shows Details. */
  setAvailable(tab: Tab, available: boolean): void {
    this.tabs.setAvailable(tab, available);
    if (!available && this.active === tab) this.show("details");
  }

  /** Another graph is being opened: what belonged to the last one goes. */
  graphSwitched(): void {
    this.trail.resetGraph();
    this.details.graphSwitched();
    this.walkthrough.resetGraph();
    this.timeline.stop();
  }

  /** A view of the graph was drawn (opened, re-centred, reloaded). */
  viewShown(): void {
    this.timeline.viewShown();
    this.walkthrough.graphChanged();
    this.details.graphChanged();
    this.lineages.graphOpened();
    this.reasoning.graphOpened();
    this.traces.graphOpened();
  }

  /** Live changes settled (at most every few hundred ms): lists follow, a stale trail reloads. */
  liveChanged(): void {
    this.walkthrough.graphChanged();
    this.details.graphChanged();
    if (this.trail.isStale()) void this.trail.refresh();
  }

  /** Nodes arrived on the live stream. */
  nodesArrived(nodes: readonly ViewNode[]): void {
    this.lineages.nodesArrived(nodes);
    this.reasoning.nodesArrived(nodes);
    this.traces.nodesArrived(nodes);
  }

  /** The cluster view grew (its boxes do not say which nodes arrived). */
  clustersChanged(): void {
    this.lineages.clustersChanged();
    this.reasoning.clustersChanged();
    this.traces.clustersChanged();
  }
}
