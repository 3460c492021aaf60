// The app wired to an in-memory backend and a recording canvas: what the panels show and
// what reaches the canvas, for the council data.

import { beforeEach, describe, expect, it, vi } from "vitest";
import { BackendError, backendOver } from "../src/api/backend";
import type {
  OperationName, Requests, Responses, StreamHandlers, StreamMessages, StreamName, StreamRequests, Subscription, Transport,
} from "../src/api/client";
import type {
  GraphRequest, NodeMove, NodeRecord, NodeRequest, GraphHit, SearchHit, StreamMessage, TidyRequest, TidyResult, Trail, View, ViewEdge, ViewNode, ViewRequest,
} from "../src/api/contract";
import { App } from "../src/app";
import { batch, councilFile, edge, inColumns, node, trail, verification, view } from "./helpers";
import { evolution, exampleWeek, prompt } from "./lineage-fixture";

const recorded = vi.hoisted(() => ({ canvases: [] as unknown[] }));

vi.mock("../src/canvas-area/canvas-host", async () => {
  const { NullCanvas } = await vi.importActual<typeof import("../src/canvas-area/canvas-host")>("../src/canvas-area/canvas-host");
  class RecordingCanvas extends NullCanvas {
    calls: Array<[string, unknown[]]> = [];
    events: unknown = null;
    visible: ((n: ViewNode) => boolean) | null = null;
    highlight: Set<string> | null = null;
    selection: string[] = [];
    override setGraph(nodes: ViewNode[], edges: ViewEdge[]) { this.calls.push(["setGraph", [nodes, edges]]); super.setGraph(nodes, edges); }
    override addBatch(nodes: ViewNode[], edges: ViewEdge[]) { this.calls.push(["addBatch", [nodes, edges]]); super.addBatch(nodes, edges); }
    override applyMoves(moves: NodeMove[], ms: number) { this.calls.push(["applyMoves", [moves, ms]]); }
    override setVisible(f: ((n: ViewNode) => boolean) | null) { this.visible = f; }
    override setHighlight(ids: Set<string> | null) { this.highlight = ids; }
    override setSelection(ids: string[]) { this.selection = [...ids]; }
    override focus(id: string) { this.calls.push(["focus", [id]]); }
    far = new Set<string>();
    override screenPosition(id: string) { return this.far.has(id) ? { x: 5000, y: 40 } : { x: 40, y: 40 }; }
    override fit() { this.calls.push(["fit", []]); }
    override fitTo(ids: readonly string[]) { this.calls.push(["fitTo", [[...ids]]]); }
  }
  return {
    NullCanvas,
    createCanvas: (_el: HTMLElement, events: unknown) => {
      const canvas = new RecordingCanvas();
      canvas.events = events;
      recorded.canvases.push(canvas);
      return { canvas, problem: null };
    },
  };
});

type Rec = { calls: Array<[string, unknown[]]>; visible: ((n: ViewNode) => boolean) | null; highlight: Set<string> | null; selection: string[] };

const transcript = await councilFile("council-transcript.txt");
const DOC = "urn:doc:riverton-council:2025-10-14";

function evidence(start: number, end: number, quote: string, status: "match" | "mismatch", reasons?: string[]) {
  return {
    chunk_id: `chunk-${start}`, quote, byte_range: { start, end }, timestamp: { start: "00:00:00", end: "00:00:00" },
    document: { id: DOC, title: "Riverton City Council — Regular Meeting", available: true, source: null, source_name: null, source_url: null },
    status, reasons,
  };
}

const councilTrail: Trail = trail("s1", {
  agent: "urn:agent:gpt-5",
  generated_at: "2025-10-15T09:00:09Z",
  claim: { text: "The council approved Ordinance 2025-31 by a 4–1 vote.", confidence: 0.93, content_hash: null, generation_method: null },
  evidence: [
    evidence(1433, 1530, "Ortega, yes. Raman, yes. Becker, no. Nguyen, yes. Whitfield, yes. The motion carries four to one.", "match"),
    evidence(507, 626, "Parking on our block is fine.", "mismatch", ["quote differs from the document bytes"]),
  ],
  verifications: [
    verification("v1", "urn:agent:claude", { time: "2025-10-15T09:00:21Z", confidence: 0.62, consensus_after: 0.62, verified_after: false }),
    verification("v2", "urn:agent:mallory", { time: "2025-10-15T09:00:30Z", signature: "invalid", counted: false, excluded_reason: "signature invalid", consensus_after: 0.62, verified_after: false }),
  ],
  consensus: 0.62, verified: false, threshold: 0.7,
});

/** An in-memory transport: each operation is a mock taking the request object, as the
 *  generated client sends it. The app talks to it through the real generated `Client`. */
/** Every operation as a method taking its request and answering its response, as the
 *  generated operation map types them: a fake whose answer has the wrong shape does not compile. */
type OperationHandlers = { [K in OperationName]: (req: Requests[K]) => Promise<Responses[K]> };

class FakeTransport implements Transport, OperationHandlers {
  readonly kind = "http" as const;
  views: View[] = [];
  viewCalls: ViewRequest[] = [];
  subs: Array<{ graph: string; since: number; handlers: StreamHandlers<StreamMessage>; closed: boolean }> = [];
  hits: SearchHit[] = [];
  health = vi.fn(async () => ({ version: "0.9", database: "redis://127.0.0.1", private_server: true, auth: false }));
  graphs = vi.fn(async () => ["council", "other"]);
  runs = vi.fn(async () => ({ version: 0, rows: [] }));
  delete_graph = vi.fn(async () => null);
  stats = vi.fn(async (r: GraphRequest) => ({ graph: r.graph, nodes: 0, edges: 0, labels: {}, relationships: {} }));
  view = vi.fn(async (r: ViewRequest): Promise<View> => {
    this.viewCalls.push(r);
    const v = this.views.shift();
    if (!v) throw new BackendError("not_found", `no view for ${r.graph}`);
    // Asked in columns (as the app asks): answered in columns, as the server does.
    return r.columns ? inColumns(v) : v;
  });
  node = vi.fn(async (r: NodeRequest): Promise<NodeRecord> => ({
    id: r.id, label: r.id.startsWith("urn:agent") ? "Agent" : "Statement",
    properties: r.id === "urn:agent:claude" ? { agent_name: "Claude 4.5 Sonnet" } : { claim_text: "x" },
  }));
  neighbours = vi.fn(async (r: NodeRequest) => ({
    nodes: [{ id: r.id, label: "Statement" }, { id: "v1", label: "Verification" }],
    edges: [{ source: "v1", target: r.id, type: "VALIDATES" }],
  }));
  trace = vi.fn(async () => ({ nodes: [{ id: "a", label: "Agent" }, { id: "s1", label: "Statement" }], edges: [] }));
  path = vi.fn(async () => null);
  diff = vi.fn();
  query = vi.fn(async (): Promise<never> => { throw new BackendError("query", "writes are not allowed"); });
  trail = vi.fn(async () => councilTrail);
  source = vi.fn(async (r: NodeRequest) => ({ id: r.id, title: "Riverton City Council", text: transcript }));
  search = vi.fn(async () => this.hits);
  allHits: GraphHit[] = [];
  search_all = vi.fn(async () => this.allHits);
  upload = vi.fn();
  follow = vi.fn();
  events = vi.fn();
  demo = vi.fn();
  jobs = vi.fn(async () => []);
  stop_job = vi.fn();
  tidy = vi.fn(async (r: TidyRequest): Promise<TidyResult> => ({ moves: [], saved: r.save ?? false }));
  cluster_edges = vi.fn(async () => []);
  export_prov = vi.fn(async (r: { graph: string, format: string }) => ({ format: r.format, media_type: "application/json", file_name: `provex-${r.graph}.json`, text: "{}" }));
  bundle = vi.fn();
  sessions = vi.fn(async () => []);
  ask = vi.fn();
  knowledge = vi.fn();
  reasoning = vi.fn();
  lineages = vi.fn(async () => []);
  lineage = vi.fn();
  lineage_compare = vi.fn();
  traces = vi.fn(async () => ({ traces: [], total: 0, offset: 0 }));
  trace_spans = vi.fn();
  trace_agents = vi.fn();
  span = vi.fn();
  message_origin = vi.fn();
  log_inclusion = vi.fn(async (r: NodeRequest) => ({ graph: r.graph, node: r.id, label: "Statement", leaves: [], checkpoint: null, checkpoint_at: null, tree_size: 0, verifier_key: "", record: null, stored: null }));
  log_status = vi.fn(async (r: GraphRequest) => ({ graph: r.graph, tree_size: 0, checkpoint_size: null, checkpoint_at: null, checkpoint_matches: true, pending: 0, nodes_checked: 0, complete: true, differing: 0, mismatches: [] }));
  ingest_files = vi.fn();
  get_settings = vi.fn();
  save_settings = vi.fn();
  save_file = vi.fn();
  call<K extends OperationName>(op: K, req: Requests[K]): Promise<Responses[K]> {
    const handlers: OperationHandlers = this;
    return (handlers[op] as (r: Requests[K]) => Promise<Responses[K]>)(req);
  }
  subscribe<K extends StreamName>(_stream: K, req: StreamRequests[K], handlers: StreamHandlers<StreamMessages[K]>): Subscription {
    const sub = { graph: req.graph, since: req.since ?? 0, handlers, closed: false };
    this.subs.push(sub);
    return { close: () => { sub.closed = true; } };
  }
  push(msg: StreamMessage): void {
    const live = this.subs.filter((s) => !s.closed);
    live[live.length - 1].handlers.onMessage(msg);
  }
}

const councilView = () => view([
  node("urn:agent:gpt-5", 0, { label: "Agent", base_type: "ProvAgent" }),
  node("s1", 1, { label: "Statement", text: "The council approved Ordinance 2025-31", status: "valid" }),
  node("v1", 2, { label: "Verification", status: "valid" }),
], [edge("s1", "urn:agent:gpt-5", "GENERATED"), edge("v1", "s1", "VALIDATES")], { graph: "council", seq: 4 });

function byTestId(id: string): HTMLElement[] {
  return [...document.querySelectorAll<HTMLElement>(`[data-testid="${id}"]`)];
}
function one(id: string): HTMLElement {
  const all = byTestId(id);
  expect(all, `exactly one [data-testid=${id}]`).toHaveLength(1);
  return all[0];
}

let backend: FakeTransport;
let app: App;
let canvas: Rec;

/** Boots on `first`, with the fake set up by `setup` before the app asks anything. */
async function boot(first: View = councilView(), setup?: (b: FakeTransport) => void): Promise<void> {
  document.body.innerHTML = '<div id="app"></div>';
  window.history.replaceState(null, "", "/");
  localStorage.clear();
  backend = new FakeTransport();
  setup?.(backend);
  backend.views.push(first);
  app = new App(document.getElementById("app")!, backendOver(backend));
  await app.start();
  canvas = recorded.canvases[recorded.canvases.length - 1] as Rec;
}

beforeEach(() => {
  recorded.canvases = [];
});

describe("the app", () => {
  it("opens the first graph, draws its view, and follows its stream from the view's seq", async () => {
    await boot();
    expect((one("graph-picker") as HTMLSelectElement).value).toBe("council");
    expect(canvas.calls.filter(([k]) => k === "setGraph")).toHaveLength(1);
    expect(one("status").textContent).toBe("3 nodes · 2 edges · seq 4");
    expect(backend.subs.map((s) => [s.graph, s.since])).toEqual([["council", 4]]);
  });

  it("sends new stream batches to the canvas, ignores replays, and reloads on reset", async () => {
    await boot();
    backend.push(batch(5, [node("v2", 3, { label: "Verification" })], [edge("v2", "s1", "VALIDATES")], "council"));
    backend.push(batch(5, [node("dup", 4)], [], "council"));
    const adds = canvas.calls.filter(([k]) => k === "addBatch");
    expect(adds).toHaveLength(1);
    expect((adds[0][1][0] as ViewNode[]).map((n) => n.id)).toEqual(["v2"]);
    // The status bar follows within a tenth of a second, not once per batch.
    expect(one("status").textContent).not.toBe("4 nodes · 3 edges · seq 5");
    await vi.waitFor(() => expect(one("status").textContent).toBe("4 nodes · 3 edges · seq 5"));

    backend.views.push(view([node("fresh", 0)], [], { graph: "council", seq: 20 }));
    backend.push({ kind: "reset", graph: "council", seq: 6, reason: "rebuilt" });
    await vi.waitFor(() => expect(one("status").textContent).toBe("1 nodes · 0 edges · seq 20"));
    expect(backend.subs[0].closed).toBe(true);
    expect(backend.subs[backend.subs.length - 1].since).toBe(20);
  });

  it("a moving camera outside a cluster view does not read the canvas area's size (a layout each frame)", async () => {
    await boot();
    const area = one("canvas");
    let reads = 0;
    for (const k of ["clientWidth", "clientHeight"]) Object.defineProperty(area, k, { get: () => { reads++; return 800; }, configurable: true });
    const events = (canvas as Rec & { events: { onView(v: { minX: number, minY: number, maxX: number, maxY: number }): void } }).events;
    for (let k = 0; k < 5; k++) events.onView({ minX: k, minY: 0, maxX: 400 + k, maxY: 300 });
    expect(reads).toBe(0);
  });

  it("says when new nodes land out of view, without moving the camera, and fits on request", async () => {
    await boot();
    const c = canvas as unknown as Rec & { far: Set<string> };
    const area = one("canvas");
    Object.defineProperty(area, "clientWidth", { value: 800, configurable: true });
    Object.defineProperty(area, "clientHeight", { value: 600, configurable: true });
    const hint = one("offscreen-hint");
    backend.push(batch(5, [node("near", 3)], [], "council"));
    expect(hint.hidden).toBe(true);
    c.far.add("far1").add("far2");
    backend.push(batch(6, [node("far1", 4), node("far2", 5)], [], "council"));
    expect(hint.hidden).toBe(false);
    expect(hint.textContent).toContain("2 new nodes out of view");
    expect(c.calls.filter(([k]) => k === "fit")).toHaveLength(0);
    hint.click();
    expect(c.calls.filter(([k]) => k === "fit")).toHaveLength(1);
    expect(hint.hidden).toBe(true);
  });

  it("shows a statement's trail: quotes in transcript context, mismatches, signatures and consensus", async () => {
    await boot();
    await app.select("s1", { focus: true });
    expect(app.activeTab).toBe("trail");
    expect(canvas.selection).toEqual(["s1"]);
    const rows = byTestId("evidence");
    expect(rows.map((r) => r.dataset.status)).toEqual(["match", "mismatch"]);
    // Time and speaker come from the transcript line the byte range falls in.
    expect(rows[0].querySelector('[data-testid="evidence-time"]')?.textContent).toBe("00:02:36");
    expect(rows[0].querySelector('[data-testid="evidence-speaker"]')?.textContent).toBe("CITY CLERK MARIA SANTOS");
    expect(rows[0].querySelector(".ctx-hit mark")?.textContent).toBe("Ortega, yes. Raman, yes. Becker, no. Nguyen, yes. Whitfield, yes. The motion carries four to one.");
    expect(rows[1].textContent).toContain("quote differs from the document bytes");
    expect(rows[1].textContent).toContain("Parking on our block is already impossible after six");
    const verifications = byTestId("verification");
    expect(verifications.map((v) => [v.dataset.signature, v.dataset.verdict, v.dataset.counted])).toEqual([
      ["valid", "VALIDATED", "true"], ["invalid", "VALIDATED", "false"],
    ]);
    expect(verifications[0].textContent).toContain("Claude 4.5 Sonnet");
    expect(verifications[1].textContent).toContain("not counted: signature invalid");
    const consensus = one("consensus").textContent!;
    expect(consensus).toContain("0.62");
    expect(consensus).toContain("not verified");
    expect(one("consensus").querySelectorAll("circle")).toHaveLength(2);

    // Clicking the quote marks it in the transcript.
    (rows[0].querySelector("button.quote") as HTMLButtonElement).click();
    const flashed = one("transcript").querySelectorAll("mark.flash");
    expect([...flashed].map((m) => m.textContent).join("")).toContain("The motion carries four to one.");
  });

  it("Show on graph in a trail: who made the claim, the claim, its verifications, alone and top to bottom", async () => {
    await boot();
    await app.select("s1", { focus: true });
    one("trail-show-on-graph").click();
    const shown = (id: string) => canvas.visible?.(app.model.nodes.get(id)!) ?? true;
    expect(["urn:agent:gpt-5", "s1", "v1"].every(shown)).toBe(true);
    const moves = canvas.calls.filter(([k]) => k === "applyMoves").pop()![1][0] as NodeMove[];
    const y = new Map(moves.map((m) => [m.id, m.y]));
    expect(y.get("urn:agent:gpt-5")!).toBeLessThan(y.get("s1")!);
    expect(y.get("s1")!).toBeLessThan(y.get("v1")!);
    expect(one("subject-text").textContent).toContain("The council approved Ordinance 2025-31");
    // F fits what is shown: the trail, not the whole graph with it hidden.
    const fits = canvas.calls.filter(([k]) => k === "fit").length;
    app.fitView();
    expect(canvas.calls.filter(([k]) => k === "fit").length).toBe(fits);
    expect(canvas.calls[canvas.calls.length - 1]).toEqual(["fitTo", [expect.arrayContaining(["urn:agent:gpt-5", "s1", "v1"])]]);
    one("subject-back").click();
    expect(canvas.visible).toBeNull();
  });

  it("Escape leaves Show on graph: the whole graph is back and the selection kept", async () => {
    await boot();
    await app.select("s1", { focus: true });
    one("trail-show-on-graph").click();
    expect(canvas.visible).not.toBeNull();
    document.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape" }));
    expect(canvas.visible).toBeNull();
    expect(one("subject-bar").hidden).toBe(true);
    expect(app.selection).toContain("s1");
  });

  it("selecting a verification shows its statement's trail with that row marked", async () => {
    await boot();
    await app.select("v1");
    expect(backend.trail).toHaveBeenCalledWith({ graph: "council", statement: "s1" });
    expect(document.querySelector('[data-testid="verification"].current')?.getAttribute("data-id")).toBe("v1");
  });

  it("traces and highlights, and shows errors in a toast with their code", async () => {
    await boot();
    await app.select("s1");
    app.showTab("details");
    (one("trace-up") as HTMLButtonElement).click();
    await vi.waitFor(() => expect(canvas.highlight).toEqual(new Set(["a", "s1"])));
    expect(backend.trace).toHaveBeenCalledWith({ graph: "council", id: "s1", dir: "up", depth: 3 });

    app.showTab("console");
    (one("console-input") as HTMLTextAreaElement).value = "CREATE (n)";
    one("console-run").click();
    await vi.waitFor(() => expect(one("console-result").textContent).toContain("query"));
    expect(byTestId("toast").some((t) => t.textContent!.includes("query") && t.textContent!.includes("writes are not allowed"))).toBe(true);
  });

  it("scrubs the timeline: later arrivals are hidden", async () => {
    await boot();
    app.showTab("timeline");
    const slider = one("timeline-slider") as HTMLInputElement;
    expect(slider.max).toBe("2");
    slider.value = "1";
    slider.dispatchEvent(new Event("input"));
    const visible = canvas.visible!;
    expect(app.model.nodeList().filter(visible).map((n) => n.id)).toEqual(["urn:agent:gpt-5", "s1"]);
    slider.value = "2";
    slider.dispatchEvent(new Event("input"));
    expect(canvas.visible).toBeNull();
  });

  it("maps a new view on the minimap after the canvas's first frame", async () => {
    await boot();
    let drawn!: () => void;
    const frame = vi.fn(() => new Promise<void>((resolve) => { drawn = resolve; }));
    (app.canvas as { afterFrame?: () => Promise<void> }).afterFrame = frame;
    const minimap = app.minimap.el as HTMLElement;
    expect(minimap.hidden).toBe(false);
    backend.views.push(view([node("x", 0), node("y", 1)], [], { graph: "other" }));
    const opened = app.openGraph("other");
    await vi.waitFor(() => expect(frame).toHaveBeenCalled());
    // Drawn on the canvas; the minimap is cleared until the frame is.
    expect(canvas.calls.filter(([k]) => k === "setGraph")).toHaveLength(2);
    expect(minimap.hidden).toBe(true);
    drawn();
    await opened;
    expect(minimap.hidden).toBe(false);
    expect(app.minimap.countIn({ minX: -1e9, minY: -1e9, maxX: 1e9, maxY: 1e9 })).toBe(2);
  });

  it("lists a view's records on the Timeline when the tab is shown, not while it is hidden", async () => {
    await boot();
    // Details is the tab shown: the hidden Timeline only moves its slider.
    expect(one("timeline-slider").getAttribute("max")).toBe("2");
    expect(one("timeline-events").querySelectorAll("li.event")).toHaveLength(0);
    app.showTab("timeline");
    expect(one("timeline-events").querySelectorAll("li.event")).toHaveLength(3);
  });

  it("walks through the claims, selecting each step's node", async () => {
    await boot();
    app.showTab("walkthrough");
    one("walkthrough-next").click();
    await vi.waitFor(() => expect(one("walkthrough-caption").textContent).toMatch(/^gpt-5 claims “The council approved/));
    expect(canvas.selection).toEqual(["s1"]);
    one("walkthrough-next").click();
    await vi.waitFor(() => expect(one("walkthrough-caption").textContent).toBe("Claude 4.5 Sonnet confirms it (confidence 0.62) — consensus now 0.62"));
    expect(canvas.selection).toEqual(["v1"]);
    // The one trail view moved into the walkthrough tab.
    expect(one("trail").closest(".walkthrough")).not.toBeNull();
  });

  it("selects the first search hit on Enter", async () => {
    await boot();
    backend.hits = [{ id: "v1", label: "Verification", field: "verdict", snippet: "VALIDATED" }, { id: "s1", label: "Statement", field: "claim_text", snippet: "…" }];
    const input = one("search-input") as HTMLInputElement;
    input.value = "valid";
    input.dispatchEvent(new Event("input"));
    input.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter" }));
    await vi.waitFor(() => expect(canvas.selection).toEqual(["v1"]));
    expect(canvas.calls).toContainEqual(["focus", ["v1"]]);
    expect(byTestId("search-result")).toHaveLength(2);
  });

  it("runs the council demo from the Ingest menu: starts the job, shows it running, and opens its graph", async () => {
    await boot();
    const job = { id: "j1", kind: "demo" as const, graph: "council2", state: "running" as const, detail: "one record every 50 ms" };
    backend.demo.mockResolvedValue(job);
    backend.jobs.mockResolvedValue([job] as never);
    backend.views.push(view([node("a", 0)], [], { graph: "council2", seq: 3 }));
    const target = one("ingest-graph") as HTMLInputElement;
    // Nothing is filled in for the open graph: ingest makes a new graph unless merging is chosen.
    expect(target.value).toBe("");
    expect((one("ingest-merge") as HTMLInputElement).checked).toBe(false);
    target.value = "council2";
    (document.querySelector('[aria-label="Pace in milliseconds"]') as HTMLInputElement).value = "50";
    one("demo-button").click();
    await vi.waitFor(() => expect(one("status").textContent).toBe("1 nodes · 0 edges · seq 3"));
    expect(backend.demo).toHaveBeenCalledWith({ graph: "council2", pace_ms: 50 });
    expect(backend.viewCalls[backend.viewCalls.length - 1]).toEqual({ graph: "council2", columns: true });
    expect((one("graph-picker") as HTMLSelectElement).value).toBe("council2");
    expect(one("jobs").textContent).toBe("demo → council2 (one record every 50 ms)Stop");
    expect(backend.subs.map((s) => [s.graph, s.since, s.closed])).toEqual([["council", 4, true], ["council2", 3, false]]);
  });

  it("in a large graph shows the neighbourhood notice, does not stream, and re-centres on double-click", async () => {
    await boot(view([node("root", 0, { text: "Root task" }), node("n1", 1)], [edge("n1", "root")],
      { graph: "council", mode: "neighbourhood", root: "root", total_nodes: 120000, limit: 5000, seq: 9 }));
    expect(one("notice").textContent).toContain("This graph has 120,000 nodes; showing the neighbourhood of Root task. Double-click a node to expand.");
    expect(backend.subs).toHaveLength(0);
    backend.views.push(view([node("n1", 1), node("n2", 2)], [], { graph: "council", mode: "neighbourhood", root: "n1", total_nodes: 120000, seq: 9 }));
    await app.activate("n1");
    expect(backend.viewCalls[backend.viewCalls.length - 1]).toEqual({ graph: "council", root: "n1", depth: 2, columns: true });
    expect([...app.model.nodes.keys()]).toEqual(["n1", "n2"]);
    expect(one("notice").textContent).toContain("← Back");
  });
});

describe("prompt lineages in the app", () => {
  const week = exampleWeek();
  const promptNodes = (ids: string[], from = 0) => ids.map((id, i) => node(`prompt:${id}`, from + i, { label: "Prompt" }));
  const lineageView = () => view(promptNodes(week.prompts.map((p) => p.id)), [edge("prompt:p1.0.1", "prompt:p1.0.0", "WAS_REFINED_FROM")], { graph: "council", seq: 4 });
  const summary = (prompts: number) => [{
    lineage_id: week.lineage_id, root: "p1.0.0", title: "Prompt text of version 1.0.0.", prompts, heads: 1,
    first: "2026-11-02T09:12:00+00:00", last: "2026-11-08T15:30:00+00:00",
  }];

  async function bootWithLineages(): Promise<void> {
    recorded.canvases = [];
    document.body.innerHTML = '<div id="app"></div>';
    window.history.replaceState(null, "", "/");
    localStorage.clear();
    backend = new FakeTransport();
    backend.views.push(lineageView());
    backend.lineages.mockResolvedValue(summary(10) as never);
    backend.lineage.mockResolvedValue(week);
    backend.lineage_compare.mockImplementation(async (r: { a: string, b: string }) => ({ a: r.a, b: r.b, jaccard: 0.5, edit_ratio: 0.5, semantic: null, confidence: 0.5, diff: [] }));
    app = new App(document.getElementById("app")!, backendOver(backend));
    await app.start();
    canvas = recorded.canvases[recorded.canvases.length - 1] as Rec;
  }

  it("does not ask for lineages, nor offer the tab, when the graph has no prompts", async () => {
    await boot();
    expect(backend.lineages).not.toHaveBeenCalled();
    expect(one("tab-lineages").hidden).toBe(true);
  });

  it("lists the lineages in their tab; one opens over the canvas, two versions compare, Esc closes", async () => {
    await bootWithLineages();
    await vi.waitFor(() => expect(one("tab-lineages").hidden).toBe(false));
    expect(backend.lineages).toHaveBeenCalledWith({ graph: "council" });
    app.showTab("lineages");
    const row = one("lineage-row");
    expect(row.textContent).toBe("“Prompt text of version 1.0.0.”10 versions · 1 head · 2 Nov 09:12 – 8 Nov 15:30 UTC");
    row.click();
    await vi.waitFor(() => expect(byTestId("lineage-box")).toHaveLength(10));
    expect(backend.lineage).toHaveBeenCalledWith({ graph: "council", id: "p1.0.0" });
    expect(one("lineage-view").parentElement).toBe(one("canvas"));
    expect(one("lineage-row").classList.contains("current")).toBe(true);
    const box = (v: string) => byTestId("lineage-box").find((b) => b.dataset.version === v)!;
    box("2.0.1").click();
    box("1.1.0").dispatchEvent(new MouseEvent("click", { shiftKey: true, bubbles: true }));
    await vi.waitFor(() => expect(byTestId("lineage-compare")).toHaveLength(1));
    expect(backend.lineage_compare).toHaveBeenCalledWith({ graph: "council", a: "p1.1.0", b: "p2.0.1" });
    document.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape" }));
    expect(one("lineage-view").hidden).toBe(true);
    expect(one("lineage-row").classList.contains("current")).toBe(false);
  });

  it("a Prompt node clicked on the canvas opens its lineage with it picked", async () => {
    await bootWithLineages();
    await app.select("prompt:p1.0.3", { from: "canvas" });
    await vi.waitFor(() => expect(byTestId("lineage-box")).toHaveLength(10));
    expect(backend.lineage).toHaveBeenCalledWith({ graph: "council", id: "p1.0.3" });
    expect(byTestId("lineage-box").filter((b) => b.getAttribute("aria-pressed") === "true").map((b) => b.dataset.version)).toEqual(["1.0.3"]);
    // "Show on the graph" closes it and selects the node, without opening it again.
    one("lineage-show-node").click();
    expect(one("lineage-view").hidden).toBe(true);
    await vi.waitFor(() => expect(canvas.selection).toEqual(["prompt:p1.0.3"]));
    expect(one("lineage-view").hidden).toBe(true);
  });

  it("re-fetches the list and the open lineage once per burst of streamed prompts", async () => {
    await bootWithLineages();
    await vi.waitFor(() => expect(backend.lineages).toHaveBeenCalledTimes(1));
    one("tab-lineages").click();
    one("lineage-row").click();
    await vi.waitFor(() => expect(byTestId("lineage-box")).toHaveLength(10));
    const grown = {
      ...week,
      prompts: [...week.prompts.map((p) => ({ ...p, is_head: false })), prompt("2.1.1", "2026-11-09T10:00:00+00:00", 9, { is_head: true })],
      evolutions: [...week.evolutions, evolution("2.1.1", "2.1.0", "refines", 0.9)],
    };
    backend.lineage.mockResolvedValue(grown);
    backend.lineages.mockResolvedValue(summary(11) as never);
    // Other nodes do not count; two batches with prompts make one re-fetch.
    backend.push(batch(5, [node("other", 20)], [], "council"));
    backend.push(batch(6, promptNodes(["p2.1.1"], 21), [], "council"));
    backend.push(batch(7, [], [edge("prompt:p2.1.1", "prompt:p2.1.0", "WAS_REFINED_FROM")], "council"));
    await vi.waitFor(() => expect(byTestId("lineage-box")).toHaveLength(11), { timeout: 3000 });
    expect(backend.lineage).toHaveBeenCalledTimes(2);
    expect(backend.lineages).toHaveBeenCalledTimes(2);
    expect(one("lineage-row").textContent).toContain("11 versions");
    expect(byTestId("lineage-box").find((b) => b.dataset.version === "2.1.1")!.classList.contains("head")).toBe(true);
  });
});

describe("reasoning sessions in the app", () => {
  const Q = "urn:trustgraph:agent:zoning";
  const ANSWER = `${Q}/final`;
  const explainStep = (id: string, types: string[]) => ({ id, types, label: null, properties: {}, derived_from: [], parts: [], failed: false, placeholder: false });
  const chain = {
    session: Q, question: "What did they say about zoning?", status: "answered", selected: ANSWER,
    chain: [explainStep(Q, ["Question", "AgentQuestion"]), explainStep(ANSWER, ["Conclusion", "Answer"])],
    latest: ANSWER, dialog: [], links: [{ from: ANSWER, id: "s1", label: "Statement", text: "The council approved Ordinance 2025-31" }],
  };
  const reasoningView = () => view([
    ...councilView().nodes,
    node(Q, 3, { label: "Explain", text: "What did they say about zoning?" }),
    node(ANSWER, 4, { label: "Explain", text: "Conclusion" }),
  ], [edge(ANSWER, Q, "WAS_DERIVED_FROM"), edge(ANSWER, "s1", "WAS_DERIVED_FROM")], { graph: "council", seq: 4 });

  async function bootWithSessions(): Promise<void> {
    recorded.canvases = [];
    document.body.innerHTML = '<div id="app"></div>';
    window.history.replaceState(null, "", "/");
    localStorage.clear();
    backend = new FakeTransport();
    backend.views.push(reasoningView());
    backend.sessions.mockResolvedValue([{ id: Q, kind: "agent", question: "What did they say about zoning?", status: "answered", steps: 1, started: null, answer: ANSWER }] as never);
    backend.reasoning.mockResolvedValue(chain);
    app = new App(document.getElementById("app")!, backendOver(backend));
    await app.start();
    canvas = recorded.canvases[recorded.canvases.length - 1] as Rec;
  }

  it("does not ask for sessions, nor offer the tab, when the graph has no reasoning nodes", async () => {
    await boot();
    expect(backend.sessions).not.toHaveBeenCalled();
    expect(one("tab-reasoning").hidden).toBe(true);
  });

  it("an answer clicked on the canvas opens its chain over it; a linked statement opens its trail; Esc closes", async () => {
    await bootWithSessions();
    await vi.waitFor(() => expect(one("tab-reasoning").hidden).toBe(false));
    await app.select(ANSWER, { from: "canvas" });
    await vi.waitFor(() => expect(byTestId("reasoning-step")).toHaveLength(2));
    expect(backend.reasoning).toHaveBeenCalledWith({ graph: "council", id: ANSWER });
    expect(one("reasoning-view").parentElement).toBe(one("canvas"));
    one("reasoning-link").click();
    await vi.waitFor(() => expect(app.activeTab).toBe("trail"));
    await vi.waitFor(() => expect(backend.trail).toHaveBeenCalledWith({ graph: "council", statement: "s1" }));
    expect(canvas.selection).toEqual(["s1"]);
    expect(one("reasoning-view").hidden).toBe(false);
    document.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape" }));
    expect(one("reasoning-view").hidden).toBe(true);
  });

  it("Show on graph: the chain alone, laid out in layers from the question down to what it cites, fitted; one click back", async () => {
    await bootWithSessions();
    await vi.waitFor(() => expect(one("tab-reasoning").hidden).toBe(false));
    await app.select(ANSWER, { from: "canvas" });
    await vi.waitFor(() => expect(byTestId("reasoning-step")).toHaveLength(2));
    one("reasoning-show-node").click();
    expect(one("reasoning-view").hidden).toBe(true);
    // Only the chain's nodes are drawn.
    const shown = (id: string) => canvas.visible?.(app.model.nodes.get(id)!) ?? true;
    expect([Q, ANSWER, "s1"].every(shown)).toBe(true);
    expect(["urn:agent:gpt-5", "v1"].some(shown)).toBe(false);
    // Laid out as a DAG in layers: the question above the answer, the cited statement a layer below it.
    const moves = canvas.calls.filter(([k]) => k === "applyMoves").pop()![1][0] as NodeMove[];
    const at = new Map(moves.map((m) => [m.id, m]));
    expect(at.get(Q)!.y).toBeLessThan(at.get(ANSWER)!.y);
    expect(at.get(ANSWER)!.y).toBeLessThan(at.get("s1")!.y);
    expect(one("subject-bar").dataset.direction).toBe("down");
    expect(canvas.calls.filter(([k]) => k === "fitTo").pop()![1][0]).toEqual(expect.arrayContaining([Q, ANSWER, "s1"]));
    expect(one("subject-bar").hidden).toBe(false);
    expect(one("subject-text").textContent).toContain("What did they say about zoning?");
    await vi.waitFor(() => expect(canvas.selection).toEqual([ANSWER]));
    // The model keeps the shared layout's positions.
    expect(app.model.nodes.get(Q)!.x).toBe(30);
    // One click back: every node where it was, all drawn, the whole graph fitted.
    const fits = canvas.calls.filter(([k]) => k === "fit").length;
    one("subject-back").click();
    const back = canvas.calls.filter(([k]) => k === "applyMoves").pop()![1][0] as NodeMove[];
    expect(back).toEqual(expect.arrayContaining([{ id: Q, x: 30, y: 0 }, { id: ANSWER, x: 40, y: 0 }, { id: "s1", x: 10, y: 0 }]));
    expect(canvas.visible).toBeNull();
    expect(canvas.calls.filter(([k]) => k === "fit").length).toBe(fits + 1);
    expect(one("subject-bar").hidden).toBe(true);
  });

  it("the Reasoning tab lists the sessions; a streamed reasoning step refreshes the list and the open chain", async () => {
    await bootWithSessions();
    await vi.waitFor(() => expect(backend.sessions).toHaveBeenCalledTimes(1));
    one("tab-reasoning").click();
    expect(one("session-row").textContent).toContain("What did they say about zoning?");
    one("session-row").click();
    await vi.waitFor(() => expect(byTestId("reasoning-step")).toHaveLength(2));
    backend.push(batch(5, [node(`${Q}/i1`, 5, { label: "Explain" })], [], "council"));
    await vi.waitFor(() => expect(backend.sessions).toHaveBeenCalledTimes(2), { timeout: 3000 });
    expect(backend.reasoning).toHaveBeenCalledTimes(2);
  });

  it("one overlay at a time: the chain closes when a lineage opens", async () => {
    await bootWithSessions();
    backend.lineage.mockResolvedValue(exampleWeek());
    await app.select(ANSWER, { from: "canvas" });
    await vi.waitFor(() => expect(one("reasoning-view").hidden).toBe(false));
    await app.lineages.openFor("p1.0.0");
    expect(one("reasoning-view").hidden).toBe(true);
    expect(one("lineage-view").hidden).toBe(false);
  });
});

/** A promise resolved from outside: an answer that comes when the test says. */
function later<T>(): { promise: Promise<T>, resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => { resolve = r; });
  return { promise, resolve };
}

/** A trail whose claim reads `text`, with this standing. */
const trailSaying = (text: string, standing: Trail["standing"]) =>
  trail("s1", { claim: { text, confidence: null, content_hash: null, generation_method: null }, standing });

describe("switching graphs: what is shown is about the graph on screen", () => {
  // "council" is opened first, then "other".
  const bundleView = (graph: string) => view([
    node(`audit bundle of ${graph}`, 0, { label: "AuditBundle" }),
    node("s1", 1, { label: "Statement", text: `a claim of ${graph}` }),
  ], [], { graph, seq: 1 });
  const bundleRecord = (graph: string, verdict: string, headline: string): NodeRecord => ({
    id: `audit bundle of ${graph}`, label: "AuditBundle", properties: { verdict, headline },
  });
  const OLD = bundleRecord("council", "failed", "verification failed: the old bytes changed");
  const NEW = bundleRecord("other", "not_pinned", "signature valid, signer not pinned: the new key");

  it("the bundle notice never shows the last graph's verdict while the next one loads", async () => {
    await boot(bundleView("council"), (b) => {
      b.node.mockImplementation(async (r: NodeRequest) => (r.graph === "council" ? OLD : NEW));
    });
    await vi.waitFor(() => expect(one("bundle-verdict").dataset.verdict).toBe("failed"));
    expect(one("notice").dataset.graph).toBe("council");
    // The next graph's view comes late.
    const slow = later<View>();
    backend.view.mockImplementationOnce(async () => slow.promise);
    const opening = app.openGraph("other");
    expect(one("notice").hidden, "no verdict while the next graph loads").toBe(true);
    expect(document.body.textContent).not.toContain("the old bytes changed");
    slow.resolve(bundleView("other"));
    await opening;
    await vi.waitFor(() => expect(one("bundle-verdict").dataset.verdict).toBe("not_pinned"));
    expect(one("notice").dataset.graph).toBe("other");
    expect(one("bundle-headline").textContent).toBe("signature valid, signer not pinned: the new key");
  });

  it("a late answer about the last graph's bundle is dropped", async () => {
    const oldAnswer = later<NodeRecord>();
    await boot(bundleView("council"), (b) => {
      b.node.mockImplementation(async (r: NodeRequest) => (r.graph === "council" ? oldAnswer.promise : NEW));
    });
    expect(one("notice").textContent).toContain("Reading what checking it found");
    backend.views.push(bundleView("other"));
    await app.openGraph("other");
    await vi.waitFor(() => expect(one("bundle-verdict").dataset.verdict).toBe("not_pinned"));
    oldAnswer.resolve(OLD);
    await new Promise((r) => setTimeout(r, 0));
    expect(one("bundle-verdict").dataset.verdict).toBe("not_pinned");
    expect(one("notice").textContent).not.toContain("the old bytes changed");
  });

  it("a claim's trail asked for in the last graph is not kept for the next one with the same ids", async () => {
    await boot();
    const oldTrail = later<Trail>();
    backend.trail.mockImplementationOnce(async () => oldTrail.promise);
    const selecting = app.select("s1", { focus: true });
    backend.views.push({ ...councilView(), graph: "other" });
    backend.trail.mockResolvedValue(trailSaying("this graph's claim", "verified"));
    await app.openGraph("other");
    oldTrail.resolve(trailSaying("the last graph's claim", "challenged"));
    await selecting;
    await app.select("s1", { focus: true });
    expect(one("trail").textContent).toContain("this graph's claim");
    expect(one("trail").textContent).not.toContain("the last graph's claim");
  });

  it("an agent's name looked up in the last graph is not kept for the next one", async () => {
    await boot();
    const AGENT = "urn:agent:newcomer";
    const oldName = later<NodeRecord>();
    const newName = later<NodeRecord>();
    backend.trail.mockResolvedValue(trail("s1", { verifications: [verification("v1", AGENT)] }));
    backend.node.mockImplementation(async (r: NodeRequest) => r.id !== AGENT
      ? { id: r.id, label: "Statement", properties: {} }
      : r.graph === "council" ? oldName.promise : newName.promise);
    const selecting = app.select("s1", { focus: true });
    await vi.waitFor(() => expect(backend.node).toHaveBeenCalledWith({ graph: "council", id: AGENT }));
    backend.views.push({ ...councilView(), graph: "other" });
    await app.openGraph("other");
    oldName.resolve({ id: AGENT, label: "Agent", properties: { agent_name: "The Last Graph's Verifier" } });
    await selecting;
    expect(app.names.get(AGENT)).not.toBe("The Last Graph's Verifier");
    newName.resolve({ id: AGENT, label: "Agent", properties: { agent_name: "The Next Graph's Verifier" } });
    await app.select("s1", { focus: true });
    expect(one("trail").textContent).toContain("The Next Graph's Verifier");
    expect(one("trail").textContent).not.toContain("The Last Graph's Verifier");
  });

  it("the claims at a glance drop the last graph's verdicts at once, and when they come late", async () => {
    const oldTrail = later<Trail>();
    await boot(councilView(), (b) => {
      b.trail.mockImplementationOnce(async () => oldTrail.promise);
    });
    expect(backend.trail).toHaveBeenCalledTimes(1);
    const newTrail = later<Trail>();
    backend.trail.mockImplementationOnce(async () => newTrail.promise);
    backend.views.push({ ...councilView(), graph: "other" });
    await app.openGraph("other");
    oldTrail.resolve(trailSaying("the last graph's claim", "challenged"));
    await new Promise((r) => setTimeout(r, 0));
    expect(one("claims-overview").textContent).not.toContain("the last graph's claim");
    await vi.waitFor(() => expect(backend.trail).toHaveBeenCalledTimes(2), { timeout: 3000 });
    expect(backend.trail).toHaveBeenNthCalledWith(2, { graph: "other", statement: "s1" });
    newTrail.resolve(trailSaying("this graph's claim", "verified"));
    await vi.waitFor(() => expect(one("claims-overview").textContent).toContain("this graph's claim"));
    expect(one("claims-overview").textContent).not.toContain("the last graph's claim");
  });
});
