// The app: owns the backend, the graph model, the canvas and the open graph, and keeps the
// panels, bars and stream in step with them. Each panel is given only the narrow "host"
// interface its module declares (the app implements them all), so no panel imports this
// file; the app never reaches into a panel's DOM. The selection (details/selection.ts), the
// stream (live/stream.ts) and what its messages change (stream-changes.ts), the jobs, agent
// names, view loading (graph/graph-loading.ts), the canvas's overlays (canvas-area/), prompt
// lineages (lineage/) and reasoning sessions (reasoning/) live in modules of their own.

import type { Backend } from "./api/backend";
import type { CrossLink, Health, ReasoningChain, StreamMessage, Trail } from "./api/contract";
import { CanvasArea, type CanvasAreaHost } from "./canvas-area/canvas-area";
import { createCanvas } from "./canvas-area/canvas-host";
import { Subject, type SubjectHost } from "./canvas-area/subject";
import type { GraphCanvasApi, Theme } from "./canvas/types";
import { focusIds } from "./canvas/first-view";
import { askEarly, loadView, rememberGraph, type EarlyView } from "./graph/graph-loading";
import { placeOf, type Place } from "./graph/clusters";
import { ClusterNav } from "./clusters/cluster-nav";
import { emptyFilters, visibility, type FilterState } from "./graph/filters";
import { GraphModel, type ModelChange } from "./graph/model";
import type { SelectOptions, StreamState, Tab } from "./shared/host";
import { JobWatcher, type JobsHost } from "./ingest/jobs";
import { AgentNameCache, type NamesHost } from "./trail/agent-names";
import { SidePanel, type SidePanelHost } from "./side-panel/side-panel";
import { NodeSelection, statementFor, type SelectionHost } from "./details/selection";
import { LiveStream, type StreamHost } from "./live/stream";
import { h, replace } from "./shared/dom";
import { HelpOverlay } from "./shell/help";
import { onKey, type KeyHost } from "./shell/key-actions";
import { NeighbourhoodNotice, type NoticeHost } from "./clusters/neighbourhood-notice";
import { StatusBar, type DatabaseState, type StatusHost } from "./shell/statusbar";
import { applyTheme, initialTheme } from "./shell/theme";
import { Toasts } from "./shared/toast";
import { TopBar, type TopBarHost } from "./shell/topbar";
import { Breadcrumb } from "./shell/breadcrumb";
import { ComparePanel, type CompareHost } from "./compare/compare-panel";
import { Welcome, type WelcomeHost } from "./welcome/welcome";
import { MissingGraph } from "./welcome/missing-graph";
import { OwnLayout, type OwnLayoutHost } from "./tidy/own-layout";
import { demoWithWalkthrough, openFirstGraph, uploadFile } from "./welcome/first-run";
import { inTauri } from "./shared/backends";
import { LogBanner } from "./log/log-banner";
import { StreamChanges } from "./stream-changes";
import { RunsView } from "./runs/runs-view";
export type { SelectOptions, StreamState, Tab } from "./shared/host";

export class App implements
  SidePanelHost, TopBarHost, StatusHost, NoticeHost, CanvasAreaHost, SelectionHost, StreamHost, JobsHost, NamesHost,
  WelcomeHost, CompareHost, KeyHost, OwnLayoutHost, SubjectHost {
  readonly model = new GraphModel();
  readonly toasts = new Toasts();
  readonly welcome: Welcome;
  private readonly breadcrumb: Breadcrumb;
  readonly compare: ComparePanel = new ComparePanel(this);
  readonly runs: RunsView = new RunsView(this);
  private readonly clusterNav = new ClusterNav(this);
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
  /** What "Show on graph" made the canvas's subject (a reasoning chain), shown alone. */
  readonly subject = new Subject(this);

  /** The tabs beside the canvas and their panels. */
  private readonly side: SidePanel;
  readonly topbar: TopBar;
  private readonly statusbar: StatusBar;
  private readonly notice: NeighbourhoodNotice;
  /** Says at the top when the graph's store disagrees with its tamper-evident log. */
  private readonly logBanner: LogBanner = new LogBanner(this);
  readonly canvasArea: CanvasArea;
  private readonly selected: NodeSelection;
  private readonly stream: LiveStream;
  /** The server's jobs (follow, demo): listed in the status bar, watched until they end. */
  readonly jobs: JobWatcher;
  private readonly nameCache: AgentNameCache;
  private readonly changes: StreamChanges;
  private loadToken = 0;
  /** The URL's graph's view, asked for as the page starts; the first openGraph takes it. */
  private early: EarlyView | null = null;

  constructor(private readonly root: HTMLElement, readonly backend: Backend) {
    applyTheme(this.theme);
    this.nameCache = new AgentNameCache(this);
    this.stream = new LiveStream(this);
    this.jobs = new JobWatcher(this);
    this.side = new SidePanel(this, (tab) => this.showTab(tab));
    this.topbar = new TopBar(this);
    this.statusbar = new StatusBar(this);
    this.canvasArea = new CanvasArea(this, this.theme);
    this.welcome = new Welcome(this, inTauri());
    this.canvasArea.el.appendChild(this.welcome.el);
    this.canvasArea.el.appendChild(this.missing.el);
    this.canvasArea.el.appendChild(this.ownLayout.el);
    this.canvasArea.el.appendChild(this.subject.el);
    this.canvasArea.el.append(this.canvasArea.hoverCard.el, this.canvasArea.minimapDock.el, this.compare.marksEl, this.compare.el, this.lineages.view.el, this.reasoning.view.el);
    // One overlay over the canvas at a time.
    const overlays = [this.lineages.view, this.reasoning.view, this.traces.view];
    for (const o of overlays) o.onOpen = () => { for (const other of overlays) if (other !== o) other.close(); };
    this.breadcrumb = new Breadcrumb({ fitView: () => this.fitView(), select: (id) => void this.select(id, { focus: true, from: "panel" }) });
    // A verifier is named as its agent node says (as on the canvas), else as a trail found it.
    this.breadcrumb.nameOf = (id) => this.model.nodes.get(id)?.text ?? this.names.get(id);

    this.notice = new NeighbourhoodNotice(this);
    this.selected = new NodeSelection(this, this.side.details, this.side.trail);
    this.changes = new StreamChanges(this, { side: this.side, statusbar: this.statusbar, notice: this.notice, topbar: this.topbar });
  }

  /** Builds the page, makes the canvas, opens the URL's graph (its view `early` if asked). */
  async start(early?: EarlyView | null): Promise<void> {
    this.buildLayout();
    this.early = early !== undefined ? early : askEarly(this.backend, this.viewport());
    const made = createCanvas(this.canvasArea.el, {
      onSelect: (id, additive) => void this.select(id, { additive, from: "canvas" }),
      onHover: (id) => {
        const n = id ? this.model.nodes.get(id) ?? null : null;
        this.statusbar.hover(n);
        this.canvasArea.hover(n, this.names);
      },
      onActivate: (id) => void this.activate(id),
      onView: (v, cost) => {
        this.canvasArea.viewMoved(v, cost);
        this.compare.reposition();
        if (this.model.mode !== "clusters") return; // sizes read only where a box opens on zoom
        const w = this.canvasArea.el.clientWidth;
        if (w > 0 && v.maxX > v.minX) this.clusterNav.viewChanged(w / (v.maxX - v.minX), w, this.canvasArea.el.clientHeight);
      },
    }, this.theme);
    this.canvas = made.canvas;
    if (made.problem) this.canvasArea.showMessage(made.problem);
    document.addEventListener("keydown", (ev) => onKey(this, ev));
    this.backend.health().then((hl) => { this.health = hl; this.statusbar.render(); }, (e) => this.toasts.error(e, "Health check"));
    await this.refreshGraphs();
    await openFirstGraph(this, this.topbar.graphs);
    this.early = null;
    this.started = true;
    void this.jobs.poll();
  }

  private buildLayout(): void {
    replace(this.root,
      h("div", { class: "app" },
        this.topbar.el,
        this.notice.el,
        this.logBanner.el,
        h("main", { class: "workspace" },
          // An open trace sits under the canvas, which shrinks to the space above it.
          h("div", { class: "canvas-column" }, this.canvasArea.el, this.traces.view.el),
          h("aside", { class: "side" }, this.breadcrumb.el, this.side.tabs.bar, this.side.tabs.bodies)),
        this.statusbar.el),
      this.toasts.el,
      this.help.el);
    this.root.querySelector(".workspace")?.append(this.runs.el);
    this.showTab("details");
  }

  /** The minimap in the canvas's corner. */
  get minimap(): CanvasArea["minimap"] {
    return this.canvasArea.minimap;
  }

  get activeTab(): Tab {
    return this.side.active;
  }

  showTab(tab: Tab): void {
    this.side.show(tab);
  }

  /** The Lineages tab's panel (its view opens over the canvas). */
  get lineages(): SidePanel["lineages"] {
    return this.side.lineages;
  }

  /** The Traces tab's panel (its trace view opens over the lower part of the canvas). */
  get traces(): SidePanel["traces"] {
    return this.side.traces;
  }

  /** The Reasoning tab's panel (its view opens over the canvas). */
  get reasoning(): SidePanel["reasoning"] {
    return this.side.reasoning;
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
      this.side.graphSwitched();
      this.notice.graphSwitched();
      this.filters = emptyFilters();
      this.timelineAt = null;
    }
    const switching = graph !== this.graph;
    this.graph = graph;
    this.topbar.setCurrent(graph);
    rememberGraph(graph);
    let view;
    try {
      const early = this.early;
      this.early = null;
      view = early && early.graph === graph && !root && !opts.cluster && !opts.waitForGraph
        ? await early.view
        : await loadView(this.backend, graph, root, opts.waitForGraph ?? false, () => token === this.loadToken, this.viewport(), opts.cluster);
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
    const { edges, ends } = this.model.drawnEdges();
    this.canvas.setGraph(nodes, edges, view.mode === "whole" ? focusIds(nodes) : [], ends);
    if (switching) this.minimap.setNodes([]);
    this.canvasArea.forgetOffscreen();
    if (switching) this.clearSelection();
    else this.selected.keepDrawn();
    this.canvasArea.hideMessage();
    this.afterViewChange(false);
    this.logBanner.graphShown(switching);
    // The view just loaded, so the database answers.
    this.database = null;
    if (view.mode === "whole") this.stream.open(graph, view.seq);
    // A graph's top-level clusters grow live too; an opened cluster does not.
    else if (view.mode === "clusters" && !view.root) this.stream.open(graph, view.seq, true);
    else this.stream.close();
    this.clusterNav.viewShown();
    if (view.mode === "clusters") void this.clusterNav.loadEdges(graph, view.root, () => token === this.loadToken);
    // The minimap and side panels wait for the canvas's first frame (at 50k, tens of ms).
    await this.canvas.afterFrame?.();
    if (token !== this.loadToken) return;
    this.minimapChanged();
    this.side.viewShown();
  }

  private afterViewChange(sidePanelsToo = true): void {
    this.subject.forget();
    this.ownLayout.viewShown();
    this.applyVisibility();
    this.canvas.setHighlight(null);
    this.notice.render();
    this.topbar.refreshFilters();
    this.statusbar.render();
    if (sidePanelsToo) this.side.viewShown();
    this.compare.graphChanged();
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

  /** Draws no graph (none to open, or the one asked for is not there). */
  showNothing(): void {
    this.model.clear();
    this.canvas.setGraph([], []);
    this.statusbar.render();
  }

  /** The first-run screen's demo: the council demo, opened on its walkthrough. */
  demoWithWalkthrough(): Promise<void> {
    return demoWithWalkthrough(this, () => this.side.walkthrough.build(true));
  }

  /** The first-run screen's "Open a file". */
  uploadFile(file: File): Promise<void> {
    return uploadFile(this, file);
  }

  /** Fits the whole graph in view (or, while "Show on graph" shows a subject alone, the
   *  subject), and forgets new nodes that were out of it. */
  fitView(): void {
    if (this.subject.fit()) return;
    this.canvasArea.fit();
  }

  // ---------------------------------------------------------------- the stream

  get streamState(): StreamState {
    return this.stream.state;
  }

  streamStateChanged(): void {
    this.statusbar.render();
  }

  /** Applies one stream message to the model and passes the change on (stream-changes.ts). */
  onStreamMessage(msg: StreamMessage): ModelChange {
    return this.changes.apply(msg);
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
    // A span picked on the canvas is picked in its trace's waterfall.
    if (picked && this.traces.isSpan(id)) void this.traces.openFor(id);
    return this.selected.select(id, opts);
  }

  selectionChanged(ids: string[]): void {
    const id = ids[ids.length - 1];
    const node = id ? this.model.nodes.get(id) ?? null : null;
    const claim = id ? statementFor(this.model, id) : null;
    this.breadcrumb.render(this.graph, node, claim ? this.model.nodes.get(claim) ?? null : null);
  }

  lineagesAvailable(available: boolean): void {
    this.side.setAvailable("lineages", available);
  }

  tracesAvailable(available: boolean): void {
    this.side.setAvailable("traces", available);
  }

  reasoningAvailable(available: boolean): void {
    this.side.setAvailable("reasoning", available);
  }

  /** A node a reasoning step names: a statement shows its trail (the chain stays open over
   *  the canvas); another node is selected. */
  async openLink(link: CrossLink): Promise<void> {
    await this.select(link.id, { focus: true, from: "panel" });
    // The walkthrough shows the trail in its own tab.
    if (link.label === "Statement" && this.activeTab !== "walkthrough") this.showTab("trail");
  }

  /** "Show on graph" for a reasoning chain: alone on the canvas (see subject.ts), the step
   *  asked for selected. */
  showChain(chain: ReasoningChain): void {
    this.subject.showChain(chain);
    if (this.model.nodes.has(chain.selected)) void this.select(chain.selected, { from: "panel" });
  }

  /** "Show on graph" for a claim's trail: alone on the canvas (see subject.ts). */
  showTrail(t: Trail): void {
    this.subject.showTrail(t);
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
    const shown = visibility(this.filters, this.timelineAt);
    const subject = this.subject.filter();
    this.canvas.setVisible(subject && shown ? (n) => subject(n) && shown(n) : subject ?? shown);
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

  jobsChanged(): void {
    this.statusbar.render();
  }

  // ---------------------------------------------------------------- commands

  setTheme(theme: Theme): void {
    this.theme = theme;
    applyTheme(theme);
    this.canvas.setTheme(theme);
    this.canvasArea.setTheme(theme);
    this.topbar.renderTheme();
  }

  /** Tidies the layout for this viewer alone (see tidy/own-layout.ts). */
  tidy(): Promise<void> {
    return this.ownLayout.tidy();
  }

  nodesMoved(): void {
    this.minimapChanged();
  }

  /** The minimap maps what is drawn: while "Show on graph" shows a subject alone, only it,
   *  where it is drawn; else the whole graph. */
  minimapChanged(): void {
    this.minimap.setNodes(this.subject.minimapNodes() ?? this.model.nodeList());
  }

  /** The canvas's size in CSS px. */
  viewport(): { width: number, height: number } {
    return { width: this.canvasArea.el.clientWidth, height: this.canvasArea.el.clientHeight };
  }
}
