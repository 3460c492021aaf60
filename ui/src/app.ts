// The app: owns the backend, the graph model, the canvas and the selection, and keeps the
// panels, bars and stream in step with them. Panels call back into it; it never reaches
// into a panel's DOM.

import { BackendError, type Backend, type Subscription } from "./api/backend";
import type { Health, Job } from "./api/contract";
import { createCanvas } from "./canvas-host";
import type { GraphCanvasApi, Theme } from "./canvas/types";
import { emptyFilters, visibility, type FilterState } from "./graph/filters";
import { GraphModel, type ModelChange } from "./graph/model";
import { ConsolePanel } from "./panels/console";
import { DetailsPanel } from "./panels/details";
import { TimelinePanel } from "./panels/timeline";
import { TrailView } from "./panels/trail";
import { WalkthroughPanel } from "./panels/walkthrough";
import { agentName, nodeTitle } from "./trail/labels";
import { h, replace } from "./ui/dom";
import { HelpOverlay } from "./ui/help";
import { keyAction } from "./ui/keys";
import { StatusBar } from "./ui/statusbar";
import { applyTheme, initialTheme } from "./ui/theme";
import { Toasts } from "./ui/toast";
import { TopBar } from "./ui/topbar";

export type Tab = "details" | "trail" | "timeline" | "walkthrough" | "console";
const TABS: Array<[Tab, string]> = [
  ["details", "Details"], ["trail", "Trail"], ["timeline", "Timeline"], ["walkthrough", "Walkthrough"], ["console", "Console"],
];

export type StreamState = "open" | "reconnecting" | "closed" | "off";

export interface SelectOptions {
  /** Shift-click: add to (or remove from) the selection instead of replacing it. */
  additive?: boolean;
  /** Centre the canvas on the node. */
  focus?: boolean;
  /** Who asked: the walkthrough keeps its own tab open. */
  from?: "canvas" | "panel" | "walkthrough" | "search";
}

/** Depth of the neighbourhood loaded when a node of a large graph is expanded. */
const EXPAND_DEPTH = 2;
/** How often the status bar and timeline follow a live stream. */
const CHROME_MS = 100;

export class App {
  readonly model = new GraphModel();
  readonly toasts = new Toasts();
  canvas!: GraphCanvasApi;
  graph: string | null = null;
  health: Health | null = null;
  selection: string[] = [];
  filters: FilterState = emptyFilters();
  /** Timeline position: nodes with a later arrival are hidden. Null: show all (live). */
  timelineAt: number | null = null;
  theme: Theme = initialTheme();
  activeTab: Tab = "details";
  streamState: StreamState = "off";
  jobs: Job[] = [];
  /** Agent id → display name, filled from agent nodes as trails need them. */
  readonly names = new Map<string, string>();
  /** Roots of the neighbourhoods expanded before the current one, for "Back". */
  readonly expandHistory: Array<string | null> = [];

  readonly details: DetailsPanel;
  readonly trail: TrailView;
  readonly timeline: TimelinePanel;
  readonly walkthrough: WalkthroughPanel;
  readonly console: ConsolePanel;
  readonly topbar: TopBar;
  readonly statusbar: StatusBar;
  readonly help = new HelpOverlay();

  private sub: Subscription | null = null;
  private loadToken = 0;
  private trailTab = h("div", { class: "panel-body" });
  private tabButtons = new Map<Tab, HTMLButtonElement>();
  private tabBodies = new Map<Tab, HTMLElement>();
  private notice = h("div", { class: "notice", testid: "notice", hidden: true });
  private canvasEl = h("section", { class: "canvas", testid: "canvas", "aria-label": "Provenance graph" });
  private canvasMessage = h("div", { class: "canvas-message", hidden: true });
  /** New nodes placed outside the view: the camera never moves by itself (nothing drawn
   *  jumps), so say so and offer to fit. */
  private offscreen = h("button", { class: "offscreen-hint", testid: "offscreen-hint", hidden: true, onclick: () => this.fitView() });
  private offscreenCount = 0;
  private jobTimer: ReturnType<typeof setInterval> | null = null;
  private refreshTimer: ReturnType<typeof setTimeout> | null = null;
  private chromeTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(private readonly root: HTMLElement, readonly backend: Backend) {
    applyTheme(this.theme);
    this.details = new DetailsPanel(this);
    this.trail = new TrailView(this);
    this.timeline = new TimelinePanel(this);
    this.walkthrough = new WalkthroughPanel(this);
    this.console = new ConsolePanel(this);
    this.topbar = new TopBar(this);
    this.statusbar = new StatusBar(this);
  }

  /** Builds the page, makes the canvas, and opens the graph named in the URL (or the first). */
  async start(): Promise<void> {
    this.buildLayout();
    const made = createCanvas(this.canvasEl, {
      onSelect: (id, additive) => void this.select(id, { additive, from: "canvas" }),
      onHover: (id) => this.statusbar.hover(id ? this.model.nodes.get(id) ?? null : null),
      onActivate: (id) => void this.activate(id),
    }, this.theme);
    this.canvas = made.canvas;
    if (made.problem) this.showCanvasMessage(made.problem);
    document.addEventListener("keydown", (ev) => this.onKey(ev));
    this.backend.health().then((hl) => {
      this.health = hl;
      this.statusbar.render();
    }, (e) => this.toasts.error(e, "Health check"));
    await this.refreshGraphs();
    const wanted = new URL(window.location.href).searchParams.get("graph") ?? safeGet("provex.graph");
    const graphs = this.topbar.graphs;
    const first = wanted && graphs.includes(wanted) ? wanted : graphs[0] ?? null;
    if (first) await this.openGraph(first);
    else this.showEmpty();
    void this.pollJobs();
  }

  private buildLayout(): void {
    const tabBar = h("div", { class: "tabs", role: "tablist" });
    const bodies = h("div", { class: "tab-bodies" });
    const contents: Record<Tab, HTMLElement> = {
      details: this.details.el,
      trail: this.trailTab,
      timeline: this.timeline.el,
      walkthrough: this.walkthrough.el,
      console: this.console.el,
    };
    this.trailTab.appendChild(this.trail.el);
    for (const [tab, title] of TABS) {
      const b = h("button", { class: "tab", role: "tab", testid: `tab-${tab}`, onclick: () => this.showTab(tab) }, title);
      this.tabButtons.set(tab, b);
      tabBar.appendChild(b);
      const body = h("div", { class: "tab-body", role: "tabpanel", hidden: true }, contents[tab]);
      this.tabBodies.set(tab, body);
      bodies.appendChild(body);
    }
    this.canvasEl.appendChild(this.canvasMessage);
    this.canvasEl.appendChild(this.offscreen);
    replace(this.root,
      h("div", { class: "app" },
        this.topbar.el,
        this.notice,
        h("main", { class: "workspace" },
          this.canvasEl,
          h("aside", { class: "side" }, tabBar, bodies)),
        this.statusbar.el),
      this.toasts.el,
      this.help.el);
    this.showTab("details");
  }

  showTab(tab: Tab): void {
    this.activeTab = tab;
    for (const [t, b] of this.tabButtons) {
      b.classList.toggle("active", t === tab);
      b.setAttribute("aria-selected", String(t === tab));
    }
    for (const [t, body] of this.tabBodies) body.hidden = t !== tab;
    // One trail view, shown in whichever of its two homes is open.
    if (tab === "walkthrough") this.walkthrough.adoptTrail(this.trail.el);
    else if (tab === "trail") this.trailTab.appendChild(this.trail.el);
    if (tab === "walkthrough") void this.walkthrough.opened();
    if (tab === "timeline") this.timeline.render();
  }

  // ---------------------------------------------------------------- graphs and views

  async refreshGraphs(): Promise<void> {
    try {
      this.topbar.setGraphs(await this.backend.graphs(), this.graph);
    } catch (e) {
      this.toasts.error(e, "Listing graphs");
    }
  }

  /** Shows a graph: loads its view, draws it, and follows its stream. */
  async openGraph(graph: string, root?: string, opts: { waitForGraph?: boolean } = {}): Promise<void> {
    const token = ++this.loadToken;
    this.closeStream();
    if (graph !== this.graph) {
      this.expandHistory.length = 0;
      this.names.clear();
      this.trail.resetGraph();
      this.walkthrough.resetGraph();
      this.filters = emptyFilters();
      this.timeline.stop();
      this.timelineAt = null;
    }
    const switching = graph !== this.graph;
    this.graph = graph;
    this.topbar.setCurrent(graph);
    safeSet("provex.graph", graph);
    const url = new URL(window.location.href);
    url.searchParams.set("graph", graph);
    window.history.replaceState(window.history.state, "", url.toString());
    let view;
    try {
      view = await this.loadView(graph, root, opts.waitForGraph ?? false, token);
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
    this.canvas.setGraph(this.model.nodeList(), this.model.edgeList());
    this.offscreenCount = 0;
    this.offscreen.hidden = true;
    if (switching) this.clearSelection();
    else this.keepSelection();
    this.hideCanvasMessage();
    this.afterViewChange();
    if (view.mode === "whole") this.openStream(graph, view.seq);
    else this.setStreamState("off");
  }

  /** The view; when a job has just been started into a new graph, waits a few seconds
   *  for the graph to exist rather than failing at once. */
  private async loadView(graph: string, root: string | undefined, wait: boolean, token: number) {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.backend.view(graph, root ? { root, depth: EXPAND_DEPTH } : {});
      } catch (e) {
        const missing = e instanceof BackendError && /not.?found/i.test(e.code);
        if (!wait || !missing || attempt >= 12 || token !== this.loadToken) throw e;
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  }

  private afterViewChange(): void {
    this.applyVisibility();
    this.canvas.setHighlight(null);
    this.renderNotice();
    this.topbar.refreshFilters();
    this.timeline.render();
    this.statusbar.render();
    this.walkthrough.graphChanged();
    if (this.model.nodes.size === 0 && this.model.mode === "whole") {
      this.showCanvasMessage("This graph is empty. Nodes appear here as they arrive.");
    }
  }

  /** Double-click: in a neighbourhood view, re-centre on the node; otherwise open its trail. */
  async activate(id: string): Promise<void> {
    if (this.model.mode === "neighbourhood") {
      await this.expand(id);
      return;
    }
    const statement = this.statementFor(id);
    if (statement) {
      await this.select(id, { focus: true });
      this.showTab("trail");
    }
  }

  /** Replaces the drawn neighbourhood with the one around `id` (see README: each
   *  neighbourhood is laid out on its own, so two cannot share one drawing). */
  async expand(id: string): Promise<void> {
    if (!this.graph) return;
    this.expandHistory.push(this.model.root);
    await this.openGraph(this.graph, id);
    if (this.model.nodes.has(id)) await this.select(id, { focus: true, from: "panel" });
  }

  async back(): Promise<void> {
    if (!this.graph || this.expandHistory.length === 0) return;
    const root = this.expandHistory.pop() ?? undefined;
    await this.openGraph(this.graph, root);
  }

  private renderNotice(): void {
    if (this.model.mode !== "neighbourhood") {
      this.notice.hidden = true;
      return;
    }
    const root = this.model.root;
    const rootNode = root ? this.model.nodes.get(root) : undefined;
    const name = rootNode ? nodeTitle(rootNode, 60) : root ?? "a node";
    replace(this.notice,
      h("span", { class: "notice-icon", "aria-hidden": "true" }, "ⓘ"),
      h("span", null,
        `This graph has ${this.model.totalNodes.toLocaleString("en")} nodes; showing the neighbourhood of `,
        h("strong", null, name),
        ". Double-click a node to expand."),
      this.expandHistory.length > 0 ? h("button", { class: "btn btn-small", onclick: () => void this.back() }, "← Back") : null);
    this.notice.hidden = false;
  }

  private showEmpty(): void {
    this.model.clear();
    this.canvas.setGraph([], []);
    this.statusbar.render();
    this.showCanvasMessage("No graphs yet. Use Ingest to upload a file, follow a growing log, or run the council demo.");
  }

  /** Fits the whole graph in view, and forgets new nodes that were out of it. */
  fitView(): void {
    this.canvas.fit();
    this.offscreenCount = 0;
    this.offscreen.hidden = true;
  }

  /** Counts newly drawn nodes that landed outside the visible canvas. */
  private noteOffscreen(added: { id: string }[]): void {
    const w = this.canvasEl.clientWidth;
    const hgt = this.canvasEl.clientHeight;
    if (w === 0 || hgt === 0) return;
    for (const n of added) {
      const at = this.canvas.screenPosition(n.id);
      if (at && (at.x < 0 || at.y < 0 || at.x > w || at.y > hgt)) this.offscreenCount++;
    }
    if (this.offscreenCount > 0) {
      const n = this.offscreenCount;
      this.offscreen.textContent = `${n.toLocaleString("en")} new node${n === 1 ? "" : "s"} out of view · Fit (F)`;
      this.offscreen.hidden = false;
    }
  }

  private showCanvasMessage(text: string): void {
    this.canvasMessage.textContent = text;
    this.canvasMessage.hidden = false;
  }

  private hideCanvasMessage(): void {
    this.canvasMessage.hidden = true;
  }

  // ---------------------------------------------------------------- the stream

  private openStream(graph: string, since: number): void {
    this.closeStream();
    this.setStreamState("reconnecting");
    this.sub = this.backend.subscribe(graph, since, {
      onMessage: (msg) => this.onStreamMessage(msg),
      onStatus: (s) => this.setStreamState(s),
    });
  }

  private closeStream(): void {
    const sub = this.sub;
    this.sub = null;
    sub?.close();
    this.setStreamState("off");
  }

  private setStreamState(s: StreamState): void {
    if (s === "closed" && this.sub) return; // an old subscription's goodbye
    this.streamState = s;
    this.statusbar.render();
  }

  /** Applies one stream message to the model and passes the change on. */
  onStreamMessage(msg: Parameters<GraphModel["apply"]>[0]): ModelChange {
    const change = this.model.apply(msg);
    switch (change.kind) {
      case "ignored":
        break;
      case "reset":
        this.trail.invalidate();
        if (this.graph) void this.openGraph(this.graph, this.model.mode === "neighbourhood" ? this.model.root ?? undefined : undefined);
        break;
      case "moves":
        this.canvas.applyMoves(change.moves, 600);
        this.statusbar.render();
        break;
      case "batch": {
        const nodes = [...change.added, ...change.updated];
        if (nodes.length > 0 || change.edges.length > 0) this.canvas.addBatch(nodes, change.edges);
        // The canvas applies the current filters to new nodes itself.
        if (change.added.length > 0) {
          this.hideCanvasMessage();
          this.noteOffscreen(change.added);
        }
        this.scheduleChrome();
        this.scheduleRefresh(change.verifications.length > 0 || change.updated.length > 0);
        break;
      }
    }
    return change;
  }

  /** After live batches: the status bar and the timeline. Batches come up to a hundred
   *  times a second; re-rendering those for each would keep the page's one thread from
   *  drawing the graph and reading the stream. */
  private scheduleChrome(): void {
    if (this.chromeTimer !== null) return;
    this.chromeTimer = setTimeout(() => {
      this.chromeTimer = null;
      this.timeline.grew();
      this.statusbar.render();
    }, CHROME_MS);
  }

  /** After live changes: filters' value lists, and the open trail when results arrived. */
  private scheduleRefresh(trailsChanged: boolean): void {
    if (trailsChanged) this.trail.invalidate();
    if (this.refreshTimer !== null) return;
    this.refreshTimer = setTimeout(() => {
      this.refreshTimer = null;
      this.topbar.refreshFilters();
      this.walkthrough.graphChanged();
      if (this.trail.isStale()) void this.trail.refresh();
    }, 400);
  }

  // ---------------------------------------------------------------- selection

  /** Selects a node (null: clears), updates the canvas and loads Details and Trail.
   *  Resolves when the panels have loaded. */
  async select(id: string | null, opts: SelectOptions = {}): Promise<void> {
    if (id === null) {
      if (!opts.additive) this.clearSelection();
      return;
    }
    // A large graph shows one neighbourhood: going to a node outside it re-centres there.
    if (this.model.mode === "neighbourhood" && !this.model.nodes.has(id) && opts.from !== "canvas") {
      await this.expand(id);
      return;
    }
    if (opts.additive) {
      const at = this.selection.indexOf(id);
      if (at >= 0) this.selection.splice(at, 1);
      else this.selection.push(id);
    } else {
      this.selection = [id];
    }
    this.canvas.setSelection(this.selection);
    const primary = this.selection[this.selection.length - 1];
    if (!primary) {
      this.clearSelection();
      return;
    }
    if (opts.focus) this.canvas.focus(primary, 450);
    const statement = this.statementFor(primary);
    const label = this.model.nodes.get(primary)?.label;
    if (opts.from !== "walkthrough") {
      if (label === "Statement" && this.activeTab === "details") this.showTab("trail");
      else if (!statement && this.activeTab === "trail") this.showTab("details");
    }
    const verification = label === "Verification" ? primary : null;
    await Promise.all([
      this.details.show(this.selection),
      // The walkthrough shows its own step's trail.
      opts.from === "walkthrough" ? null : this.trail.show(statement, { verification }),
    ]);
  }

  clearSelection(): void {
    this.selection = [];
    this.canvas.setSelection([]);
    this.canvas.setHighlight(null);
    this.details.clearHighlightNote();
    void this.details.show([]);
  }

  /** After a view reload: keeps the selected nodes that are still drawn. */
  private keepSelection(): void {
    this.selection = this.selection.filter((id) => this.model.nodes.has(id));
    this.canvas.setSelection(this.selection);
  }

  /** The statement whose trail a node belongs to: itself, the statement a verification
   *  validates, or the statement citing a chunk. */
  statementFor(id: string): string | null {
    const n = this.model.nodes.get(id);
    if (!n) return null;
    if (n.label === "Statement") return id;
    for (const e of this.model.edges.values()) {
      if (n.label === "Verification" && e.source === id && e.type === "VALIDATES") return e.target;
      if (n.label === "Chunk" && e.target === id && e.type === "CITES") return e.source;
    }
    return null;
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

  applyVisibility(): void {
    this.canvas.setVisible(visibility(this.filters, this.timelineAt));
    this.statusbar.render();
  }

  // ---------------------------------------------------------------- names

  /** Fills `names` for these agent ids from their nodes' `agent_name`. */
  async resolveNames(ids: Iterable<string>): Promise<void> {
    const graph = this.graph;
    if (!graph) return;
    const missing = [...new Set(ids)].filter((id) => !this.names.has(id));
    await Promise.all(missing.map(async (id) => {
      try {
        const rec = await this.backend.node(graph, id);
        const props = rec.properties ?? {};
        const name = props.agent_name ?? props.name;
        this.names.set(id, typeof name === "string" && name !== id ? name : agentName(id));
      } catch (e) {
        // A verifier named in a trail need not have a node of its own; only report real failures.
        this.names.set(id, agentName(id));
        if (!(e instanceof BackendError && /not.?found/i.test(e.code))) this.toasts.error(e, `Looking up agent ${id}`);
      }
    }));
  }

  // ---------------------------------------------------------------- commands

  setTheme(theme: Theme): void {
    this.theme = theme;
    applyTheme(theme);
    this.canvas.setTheme(theme);
    this.topbar.renderTheme();
  }

  async tidy(): Promise<void> {
    if (!this.graph) return;
    try {
      await this.backend.tidy(this.graph);
      if (this.model.mode !== "whole") this.toasts.info("Tidy-up moves arrive on the live stream, which a neighbourhood view does not follow.");
    } catch (e) {
      this.toasts.error(e, "Tidy-up");
    }
  }

  /** A job was started from the Ingest menu: show it and watch it until it ends. */
  jobStarted(job: Job): void {
    this.jobs = [...this.jobs.filter((j) => j.id !== job.id), job];
    this.statusbar.render();
    void this.pollJobs();
  }

  private async pollJobs(): Promise<void> {
    if (this.jobTimer !== null) return;
    const tick = async (): Promise<void> => {
      let jobs: Job[];
      try {
        jobs = await this.backend.jobs();
      } catch (e) {
        this.stopPolling();
        this.toasts.error(e, "Listing jobs");
        return;
      }
      for (const j of jobs) {
        const before = this.jobs.find((x) => x.id === j.id);
        if (before?.state === "running" && j.state !== "running") {
          if (j.state === "failed") this.toasts.error(new BackendError("job_failed", j.detail ?? "failed"), `${cap(j.kind)} into “${j.graph}”`);
          else this.toasts.info(`${cap(j.kind)} into “${j.graph}” ${j.state}${j.detail ? `: ${j.detail}` : ""}`);
          void this.refreshGraphs();
        }
      }
      this.jobs = jobs;
      this.statusbar.render();
      if (!jobs.some((j) => j.state === "running")) this.stopPolling();
    };
    this.jobTimer = setInterval(() => void tick(), 1500);
    await tick();
  }

  private stopPolling(): void {
    if (this.jobTimer !== null) clearInterval(this.jobTimer);
    this.jobTimer = null;
  }

  async stopJob(id: string): Promise<void> {
    try {
      const job = await this.backend.stopJob(id);
      this.jobs = this.jobs.map((j) => (j.id === id ? job : j));
      this.statusbar.render();
    } catch (e) {
      this.toasts.error(e, "Stopping job");
    }
  }

  // ---------------------------------------------------------------- keyboard

  private onKey(ev: KeyboardEvent): void {
    const action = keyAction(ev);
    if (!action) return;
    ev.preventDefault();
    switch (action.kind) {
      case "search": this.topbar.focusSearch(); break;
      case "fit": this.fitView(); break;
      case "zoom": this.canvas.zoomBy(action.factor); break;
      case "pan": this.canvas.panBy(action.dx, action.dy); break;
      case "tidy": void this.tidy(); break;
      case "escape":
        if (this.help.open) this.help.toggle(false);
        else if (this.topbar.closeMenus()) { /* a menu was closed */ }
        else this.clearSelection();
        break;
      case "help": this.help.toggle(); break;
      case "theme": this.setTheme(this.theme === "dark" ? "light" : "dark"); break;
    }
  }
}

function cap(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function safeGet(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

function safeSet(key: string, value: string): void {
  try {
    localStorage.setItem(key, value);
  } catch {
    // not remembered
  }
}
