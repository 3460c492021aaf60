// The app: owns the backend, the graph model, the canvas and the open graph, and keeps the
// panels, bars and stream in step with them. Each panel is given only the narrow "host"
// interface its module declares (the app implements them all), so no panel imports this
// file; the app never reaches into a panel's DOM. The selection (details/selection.ts), the
// stream (live/stream.ts), the jobs (ingest/jobs.ts), agent names (trail/agent-names.ts), view
// loading (graph/graph-loading.ts), the canvas's overlays (canvas-area/), prompt lineages
// (lineage/) and reasoning sessions (reasoning/) live in modules of their own.

import type { Backend } from "./api/backend";
import type { CrossLink, Health, Job, StreamMessage } from "./api/contract";
import { CanvasArea, type CanvasAreaHost } from "./canvas-area/canvas-area";
import { createCanvas } from "./canvas-area/canvas-host";
import type { GraphCanvasApi, Theme } from "./canvas/types";
import { focusIds } from "./canvas/first-view";
import { loadView, rememberGraph, wantedGraph } from "./graph/graph-loading";
import { placeOf, type Place } from "./graph/clusters";
import { ClusterNav } from "./clusters/cluster-nav";
import { emptyFilters, visibility, type FilterState } from "./graph/filters";
import { GraphModel, type ModelChange } from "./graph/model";
import type { SelectOptions, StreamState, Tab } from "./shared/host";
import { JobWatcher, type JobsHost } from "./ingest/jobs";
import { AgentNameCache, type NamesHost } from "./trail/agent-names";
import { ConsolePanel, type ConsoleHost } from "./console/console-panel";
import { DetailsPanel, type DetailsHost } from "./details/details-panel";
import { LineagesPanel, type LineagesHost } from "./lineage/lineages-panel";
import { ReasoningPanel, type ReasoningHost } from "./reasoning/reasoning-panel";
import { TimelinePanel, type TimelineHost } from "./timeline/timeline-panel";
import { TrailView, type TrailHost } from "./trail/trail-view";
import { WalkthroughPanel, type WalkthroughHost } from "./walkthrough/walkthrough-panel";
import { NodeSelection, statementFor, type SelectionHost } from "./details/selection";
import { Coalesced, LiveStream, type StreamHost } from "./live/stream";
import { h, replace } from "./shared/dom";
import { HelpOverlay } from "./shell/help";
import { onKey, type KeyHost } from "./shell/key-actions";
import { NeighbourhoodNotice, type NoticeHost } from "./clusters/neighbourhood-notice";
import { StatusBar, type DatabaseState, type StatusHost } from "./shell/statusbar";
import { Tabs } from "./shell/tabs";
import { applyTheme, initialTheme } from "./shell/theme";
import { Toasts } from "./shared/toast";
import { TopBar, type TopBarHost } from "./shell/topbar";
import { Breadcrumb } from "./shell/breadcrumb";
import { HoverCard } from "./canvas-area/hover-card";
import { Minimap, minimapColours } from "./canvas-area/minimap";
import { ComparePanel, type CompareHost } from "./compare/compare-panel";
import { Welcome, welcomed, type WelcomeHost } from "./welcome/welcome";
import { MissingGraph } from "./welcome/missing-graph";
import { OwnLayout, type OwnLayoutHost } from "./tidy/own-layout";
import { demoWithWalkthrough, uploadFile } from "./welcome/first-run";
import { inTauri } from "./shared/backends";

export type { SelectOptions, StreamState, Tab } from "./shared/host";

/** How often the status bar and timeline follow a live stream. */
const CHROME_MS = 100;
/** How often the filters, the walkthrough and a stale trail follow a live stream. */
const REFRESH_MS = 400;

export class App implements
  ConsoleHost, DetailsHost, TimelineHost, TrailHost, WalkthroughHost, TopBarHost, StatusHost,
  NoticeHost, CanvasAreaHost, SelectionHost, StreamHost, JobsHost, NamesHost, WelcomeHost, CompareHost, KeyHost, LineagesHost,
  ReasoningHost, OwnLayoutHost {
  readonly model = new GraphModel();
  readonly toasts = new Toasts();
  readonly welcome: Welcome;
  private readonly breadcrumb: Breadcrumb;
  private readonly hoverCard = new HoverCard();
  readonly minimap = new Minimap({ centerOn: (x, y) => this.canvas.centerOn(x, y) });
  readonly compare: ComparePanel = new ComparePanel(this);
  private readonly clusterNav = new ClusterNav(this);
  readonly lineages: LineagesPanel = new LineagesPanel(this);
  readonly reasoning: ReasoningPanel = new ReasoningPanel(this);
  /** Set once start() has opened the first graph: later opens are the user's. */
  private started = false;
  canvas!: GraphCanvasApi;
  /** The open graph. */
  graph: string | null = null;
  health: Health | null = null;
  /** The database's trouble while it lasts (restarting, failed), as the stream said it. */
  database: DatabaseState | null = null;
  filters: FilterState = emptyFilters();
  /** Timeline position: nodes with a later arrival are hidden. Null: show all (live). */
  timelineAt: number | null = null;
  theme: Theme = initialTheme();
  /** Roots of the neighbourhoods expanded before the current one, for "Back". */
  readonly expandHistory: Place[] = [];
  readonly help = new HelpOverlay();
  /** Said when the address names a graph the server does not have. */
  readonly missing = new MissingGraph(this);
  /** This viewer's own layout (a tidy-up kept in this browser), over the shared one. */
  readonly ownLayout = new OwnLayout(this);

  private readonly details: DetailsPanel;
  private readonly trail: TrailView;
  private readonly timeline: TimelinePanel;
  private readonly walkthrough: WalkthroughPanel;
  private readonly console: ConsolePanel;
  readonly topbar: TopBar;
  private readonly statusbar: StatusBar;
  private readonly tabs: Tabs;
  private readonly notice: NeighbourhoodNotice;
  readonly canvasArea: CanvasArea;
  private readonly selected: NodeSelection;
  private readonly stream: LiveStream;
  private readonly jobWatcher: JobWatcher;
  private readonly nameCache: AgentNameCache;
  private readonly chrome: Coalesced;
  private readonly refresh: Coalesced;
  private loadToken = 0;
  /** The trail view's home when the Trail tab is open (the Walkthrough has the other). */
  private trailTab = h("div", { class: "panel-body" });

  constructor(private readonly root: HTMLElement, readonly backend: Backend) {
    applyTheme(this.theme);
    this.nameCache = new AgentNameCache(this);
    this.stream = new LiveStream(this);
    this.jobWatcher = new JobWatcher(this);
    this.details = new DetailsPanel(this);
    this.trail = new TrailView(this);
    this.timeline = new TimelinePanel(this);
    this.walkthrough = new WalkthroughPanel(this, this.trail);
    this.console = new ConsolePanel(this);
    this.topbar = new TopBar(this);
    this.statusbar = new StatusBar(this);
    this.canvasArea = new CanvasArea(this, this.theme);
    this.welcome = new Welcome(this, inTauri());
    this.canvasArea.el.appendChild(this.welcome.el);
    this.canvasArea.el.appendChild(this.missing.el);
    this.canvasArea.el.appendChild(this.ownLayout.el);
    this.canvasArea.el.appendChild(this.hoverCard.el);
    this.canvasArea.el.append(this.minimap.el, this.compare.marksEl, this.compare.el, this.lineages.view.el, this.reasoning.view.el);
    // One overlay over the canvas at a time.
    this.lineages.view.onOpen = () => this.reasoning.view.close();
    this.reasoning.view.onOpen = () => this.lineages.view.close();
    this.minimap.setColours(minimapColours(this.theme));
    this.breadcrumb = new Breadcrumb({ fitView: () => this.fitView(), select: (id) => void this.select(id, { focus: true, from: "panel" }) });

    this.notice = new NeighbourhoodNotice(this);
    this.selected = new NodeSelection(this, this.details, this.trail);
    this.tabs = new Tabs({
      details: this.details.el,
      trail: this.trailTab,
      timeline: this.timeline.el,
      walkthrough: this.walkthrough.el,
      console: this.console.el,
      lineages: this.lineages.el,
      reasoning: this.reasoning.el,
    }, (tab) => this.showTab(tab));
    // After live batches: the status bar and the timeline. Batches come up to a hundred
    // times a second; re-rendering those for each would keep the page's one thread from
    // drawing the graph and reading the stream.
    this.chrome = new Coalesced(CHROME_MS, () => {
      this.timeline.grew();
      this.statusbar.render();
    });
    // After live changes: filters' value lists, and the open trail when results arrived.
    this.refresh = new Coalesced(REFRESH_MS, () => {
      this.minimap.setNodes(this.model.nodes.values());
      this.topbar.refreshFilters();
      this.walkthrough.graphChanged();
      this.details.graphChanged();
      if (this.trail.isStale()) void this.trail.refresh();
    });
  }

  /** Builds the page, makes the canvas, and opens the graph named in the URL (or the first). */
  async start(): Promise<void> {
    this.buildLayout();
    const made = createCanvas(this.canvasArea.el, {
      onSelect: (id, additive) => void this.select(id, { additive, from: "canvas" }),
      onHover: (id) => {
        const n = id ? this.model.nodes.get(id) ?? null : null;
        this.statusbar.hover(n);
        const area = this.canvasArea.el;
        this.hoverCard.show(n, id ? this.canvas.screenPosition(id) : null, area.clientWidth, area.clientHeight, this.names);
      },
      onActivate: (id) => void this.activate(id),
      onView: (v, cost) => {
        if (cost) {
          cost.time("minimap", () => this.minimap.setView(v));
          cost.layers.minimap.drawCalls += this.minimap.lastOps;
          cost.upload("minimap", this.minimap.lastUploadBytes);
        } else {
          this.minimap.setView(v);
        }
        this.compare.reposition();
        const w = this.canvasArea.el.clientWidth;
        if (w > 0 && v.maxX > v.minX) this.clusterNav.viewChanged(w / (v.maxX - v.minX), w, this.canvasArea.el.clientHeight);
      },
    }, this.theme);
    this.canvas = made.canvas;
    if (made.problem) this.canvasArea.showMessage(made.problem);
    document.addEventListener("keydown", (ev) => onKey(this, ev));
    this.backend.health().then((hl) => {
      this.health = hl;
      this.statusbar.render();
    }, (e) => this.toasts.error(e, "Health check"));
    await this.refreshGraphs();
    const wanted = wantedGraph();
    const graphs = this.topbar.graphs;
    const asked = new URL(window.location.href).searchParams.get("graph");
    const first = wanted && graphs.includes(wanted) ? wanted : graphs[0] ?? null;
    if (asked !== null && !graphs.includes(asked)) {
      // The address names a graph that is not there: say so, and open nothing in its place.
      this.model.clear();
      this.canvas.setGraph([], []);
      this.statusbar.render();
      this.missing.show(asked, graphs);
    } else if (first) {
      // A first visit that did not ask for a graph gets the welcome over it.
      if (!welcomed() && !new URL(window.location.href).searchParams.get("graph")) this.welcome.show();
      await this.openGraph(first);
    } else {
      this.showEmpty();
    }
    this.started = true;
    void this.jobWatcher.poll();
  }

  private buildLayout(): void {
    this.trailTab.appendChild(this.trail.el);
    replace(this.root,
      h("div", { class: "app" },
        this.topbar.el,
        this.notice.el,
        h("main", { class: "workspace" },
          this.canvasArea.el,
          h("aside", { class: "side" }, this.breadcrumb.el, this.tabs.bar, this.tabs.bodies)),
        this.statusbar.el),
      this.toasts.el,
      this.help.el);
    this.showTab("details");
  }

  get activeTab(): Tab {
    return this.tabs.active;
  }

  showTab(tab: Tab): void {
    this.tabs.show(tab);
    // One trail view, shown in whichever of its two homes is open.
    if (tab === "walkthrough") this.walkthrough.adoptTrail(this.trail.el);
    else if (tab === "trail") this.trailTab.appendChild(this.trail.el);
    if (tab === "walkthrough") void this.walkthrough.opened();
    if (tab === "timeline") this.timeline.render();
  }

  // ---------------------------------------------------------------- graphs and views

  knownGraphs(): readonly string[] {
    return this.topbar.graphs;
  }

  async refreshGraphs(): Promise<void> {
    try {
      this.topbar.setGraphs(await this.backend.graphs(), this.graph);
    } catch (e) {
      this.toasts.error(e, "Listing graphs");
    }
  }

  /** Shows a graph: loads its view, draws it, and follows its stream. */
  async openGraph(graph: string, root?: string, opts: { waitForGraph?: boolean, cluster?: string } = {}): Promise<void> {
    const token = ++this.loadToken;
    if (this.started) this.welcome.hide();
    this.missing.hide();
    this.stream.close();
    if (graph !== this.graph) {
      this.expandHistory.length = 0;
      this.nameCache.names.clear();
      this.trail.resetGraph();
      this.walkthrough.resetGraph();
      this.filters = emptyFilters();
      this.timeline.stop();
      this.timelineAt = null;
    }
    const switching = graph !== this.graph;
    this.graph = graph;
    this.topbar.setCurrent(graph);
    rememberGraph(graph);
    let view;
    try {
      const viewport = { width: this.canvasArea.el.clientWidth, height: this.canvasArea.el.clientHeight };
      view = await loadView(this.backend, graph, root, opts.waitForGraph ?? false, () => token === this.loadToken, viewport, opts.cluster);
    } catch (e) {
      if (token !== this.loadToken) return;
      this.toasts.error(e, `Opening graph “${graph}”`);
      this.model.clear();
      this.model.graph = graph;
      this.canvas.setGraph([], []);
      this.afterViewChange();
      return;
    }
    if (token !== this.loadToken) return;
    this.model.applyView(view);
    const nodes = this.model.nodeList();
    this.canvas.setGraph(nodes, this.model.edgeList(), view.mode === "whole" ? focusIds(nodes) : []);
    this.minimap.setNodes(nodes);
    this.canvasArea.forgetOffscreen();
    if (switching) this.clearSelection();
    else this.selected.keepDrawn();
    this.canvasArea.hideMessage();
    this.afterViewChange();
    // The view just loaded, so the database answers.
    this.database = null;
    if (view.mode === "whole") this.stream.open(graph, view.seq);
    // A graph's top-level clusters grow live too; an opened cluster does not.
    else if (view.mode === "clusters" && !view.root) this.stream.open(graph, view.seq, true);
    else this.stream.close();
    this.clusterNav.viewShown();
    if (view.mode === "clusters") void this.clusterNav.loadEdges(graph, view.root, () => token === this.loadToken);
  }

  private afterViewChange(): void {
    this.ownLayout.viewShown();
    this.applyVisibility();
    this.canvas.setHighlight(null);
    this.notice.render();
    this.topbar.refreshFilters();
    this.timeline.render();
    this.statusbar.render();
    this.walkthrough.graphChanged();
    this.details.graphChanged();
    this.compare.graphChanged();
    this.lineages.graphOpened();
    this.reasoning.graphOpened();
    if (this.model.nodes.size === 0 && this.model.mode === "whole") {
      this.canvasArea.showMessage("This graph is empty. Nodes appear here as they arrive.");
    }
  }

  /** Double-click: in a neighbourhood view, re-centre on the node; otherwise open its trail. */
  async activate(id: string): Promise<void> {
    if (this.model.mode === "neighbourhood") {
      await this.expand(id);
      return;
    }
    const statement = statementFor(this.model, id);
    if (statement) {
      await this.select(id, { focus: true });
      this.showTab("trail");
    }
  }

  /** Replaces the drawn neighbourhood with the one around `id` (see README: each
   *  neighbourhood is laid out on its own, so two cannot share one drawing). */
  async expand(id: string): Promise<void> {
    if (!this.graph) return;
    this.expandHistory.push(placeOf(this.model.mode, this.model.root));
    await this.openGraph(this.graph, id);
    if (this.model.nodes.has(id)) await this.select(id, { focus: true, from: "panel" });
  }

  async back(): Promise<void> {
    if (!this.graph || this.expandHistory.length === 0) return;
    const place = this.expandHistory.pop() ?? {};
    await this.openGraph(this.graph, place.root, { cluster: place.cluster });
  }

  private showEmpty(): void {
    this.model.clear();
    this.canvas.setGraph([], []);
    this.statusbar.render();
    this.welcome.show();
  }

  /** The first-run screen's demo: the council demo, opened on its walkthrough. */
  demoWithWalkthrough(): Promise<void> {
    return demoWithWalkthrough(this, () => this.walkthrough.build(true));
  }

  /** The first-run screen's "Open a file". */
  uploadFile(file: File): Promise<void> {
    return uploadFile(this, file);
  }

  /** Fits the whole graph in view, and forgets new nodes that were out of it. */
  fitView(): void {
    this.canvasArea.fit();
  }

  // ---------------------------------------------------------------- the stream

  get streamState(): StreamState {
    return this.stream.state;
  }

  streamStateChanged(): void {
    this.statusbar.render();
  }

  /** Applies one stream message to the model and passes the change on. */
  onStreamMessage(msg: StreamMessage): ModelChange {
    const change = this.model.apply(msg);
    switch (change.kind) {
      case "ignored":
        break;
      case "reset":
        this.trail.invalidate();
        if (this.graph) void this.openGraph(this.graph, this.model.mode === "neighbourhood" ? this.model.root ?? undefined : undefined);
        break;
      case "moves":
        // While this viewer's own layout is shown, the shared layout's moves wait behind it.
        if (this.ownLayout.sharedMoved(change.moves)) break;
        this.canvas.applyMoves(change.moves, 600);
        this.statusbar.render();
        this.refresh.schedule();
        break;
      case "clusters":
        if (change.added.length || change.updated.length) this.canvas.addBatch([...change.added, ...change.updated], []);
        if (change.edges.length) this.canvas.replaceEdges(change.edges);
        this.lineages.clustersChanged();
        this.reasoning.clustersChanged();
        this.minimap.setNodes(this.model.nodeList());
        this.statusbar.render();
        this.notice.render();
        break;
      case "knowledge":
        this.details.knowledgeChanged(change.changes);
        break;
      case "database":
        this.database = change.state === "up" ? null : { state: change.state, message: change.message };
        this.statusbar.render();
        break;
      case "batch": {
        const nodes = [...change.added, ...change.updated];
        if (nodes.length > 0 || change.edges.length > 0) this.canvas.addBatch(nodes, change.edges);
        this.lineages.nodesArrived(nodes);
        this.reasoning.nodesArrived(nodes);
        // The canvas applies the current filters to new nodes itself.
        if (change.added.length > 0) {
          this.canvasArea.hideMessage();
          this.canvasArea.noteOffscreen(change.added);
        }
        this.chrome.schedule();
        if (change.verifications.length > 0 || change.updated.length > 0) this.trail.invalidate();
        this.refresh.schedule();
        break;
      }
    }
    return change;
  }

  // ---------------------------------------------------------------- selection

  /** The selected node ids, the last one primary. */
  get selection(): string[] {
    return this.selected.ids;
  }

  /** Selects a node (null: clears), updates the canvas and loads Details and Trail.
   *  Resolves when the panels have loaded. */
  select(id: string | null, opts: SelectOptions = {}): Promise<void> {
    // A cluster's box opens into what it holds (semantic zoom).
    if (id && this.clusterNav.open(id)) return Promise.resolve();
    // A prompt clicked or found opens its lineage over the canvas.
    const picked = !!id && !opts.additive && (opts.from === "canvas" || opts.from === "search");
    if (picked && this.model.nodes.get(id)?.label === "Prompt") void this.lineages.openFor(id);
    // A reasoning step (or dialog message) opens its session's chain over the canvas.
    if (picked && this.reasoning.isReasoningNode(id)) void this.reasoning.openFor(id);
    return this.selected.select(id, opts);
  }

  selectionChanged(ids: string[]): void {
    const id = ids[ids.length - 1];
    const node = id ? this.model.nodes.get(id) ?? null : null;
    const claim = id ? statementFor(this.model, id) : null;
    this.breadcrumb.render(this.graph, node, claim ? this.model.nodes.get(claim) ?? null : null);
  }

  lineagesAvailable(available: boolean): void {
    this.tabs.setAvailable("lineages", available);
    if (!available && this.activeTab === "lineages") this.showTab("details");
  }

  reasoningAvailable(available: boolean): void {
    this.tabs.setAvailable("reasoning", available);
    if (!available && this.activeTab === "reasoning") this.showTab("details");
  }

  /** The walkthrough's research step: the answer's chain, pointing at the claims it drew on. */
  openReasoning(answer: string, point: readonly string[], current: string | null): Promise<void> {
    return this.reasoning.view.open(answer, { point, current });
  }

  closeReasoning(): void {
    this.reasoning.view.close();
  }

  /** A node a reasoning step names: a statement shows its trail (the chain stays open over
   *  the canvas); another node is selected. */
  async openLink(link: CrossLink): Promise<void> {
    await this.select(link.id, { focus: true, from: "panel" });
    // The walkthrough shows the trail in its own tab.
    if (link.label === "Statement" && this.activeTab !== "walkthrough") this.showTab("trail");
  }

  clearSelection(): void {
    this.selected.clear();
  }

  highlight(ids: Set<string> | null): void {
    this.canvas.setHighlight(ids);
  }

  // ---------------------------------------------------------------- visibility

  setFilters(f: FilterState): void {
    this.filters = f;
    this.applyVisibility();
  }

  setTimeline(at: number | null): void {
    this.timelineAt = at;
    this.applyVisibility();
  }

  /** Whether a node is shown under the filters and the timeline (null: all are). */
  shownFilter(): ((id: string) => boolean) | null {
    const f = visibility(this.filters, this.timelineAt);
    if (!f) return null;
    return (id) => {
      const n = this.model.nodes.get(id);
      return !!n && f(n);
    };
  }

  applyVisibility(): void {
    this.canvas.setVisible(visibility(this.filters, this.timelineAt));
    this.statusbar.render();
  }

  // ---------------------------------------------------------------- names

  /** Agent id → display name, filled from agent nodes as trails need them. */
  get names(): ReadonlyMap<string, string> {
    return this.nameCache.names;
  }

  /** Fills `names` for these agent ids from their nodes' `agent_name`. */
  resolveNames(ids: Iterable<string>): Promise<void> {
    return this.nameCache.resolve(ids);
  }

  // ---------------------------------------------------------------- jobs

  get jobs(): readonly Job[] {
    return this.jobWatcher.jobs;
  }

  /** A job was started from the Ingest menu: show it and watch it until it ends. */
  jobStarted(job: Job): void {
    this.jobWatcher.started(job);
  }

  jobsChanged(): void {
    this.statusbar.render();
  }

  stopJob(id: string): Promise<void> {
    return this.jobWatcher.stop(id);
  }

  // ---------------------------------------------------------------- commands

  setTheme(theme: Theme): void {
    this.theme = theme;
    applyTheme(theme);
    this.canvas.setTheme(theme);
    this.canvasArea.legend.setTheme(theme);
    this.minimap.setColours(minimapColours(theme));
    this.topbar.renderTheme();
  }

  /** Tidies the layout for this viewer alone (see tidy/own-layout.ts). */
  tidy(): Promise<void> {
    return this.ownLayout.tidy();
  }

  nodesMoved(): void {
    this.minimap.setNodes(this.model.nodeList());
  }
}
