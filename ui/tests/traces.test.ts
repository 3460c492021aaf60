// The Traces tab (OpenTelemetry traces of agents): how spans are ordered and said, the tab's
// list, the waterfall, the agent view, a span's details, "where did this message come from",
// and the app's wiring: a span picked in the waterfall is selected on the canvas and a span
// picked on the canvas is picked in the waterfall; spans arriving live refresh the list.
// The backend is a typed fake transport: an answer of the wrong shape does not compile.

import { beforeEach, describe, expect, it, vi } from "vitest";
import { backendOver } from "../src/api/backend";
import type {
  OperationName, Requests, Responses, StreamHandlers, StreamMessages, StreamName, StreamRequests, Subscription, Transport,
} from "../src/api/client";
import type { MessageOrigin, SpanDetails, SpanRow, StreamMessage, TraceAgents, TracePage, TraceSpans, ViewNode } from "../src/api/contract";
import { App } from "../src/app";
import { levels } from "../src/traces/agents-view";
import { duration, isSpanId, ticks, traceMeta, traceOf, treeOrder } from "../src/traces/trace-format";
import { LIVE_MS } from "../src/traces/traces-panel";
import { ALL_ROWS, ROW_PX, waterfall } from "../src/traces/waterfall";
import { batch, edge, node, view } from "./helpers";

const recorded = vi.hoisted(() => ({ canvases: [] as unknown[] }));

vi.mock("../src/canvas-area/canvas-host", async () => {
  const { NullCanvas } = await vi.importActual<typeof import("../src/canvas-area/canvas-host")>("../src/canvas-area/canvas-host");
  class RecordingCanvas extends NullCanvas {
    selection: string[] = [];
    focused: string[] = [];
    override setSelection(ids: string[]) { this.selection = [...ids]; }
    override focus(id: string) { this.focused.push(id); }
  }
  return {
    NullCanvas,
    createCanvas: () => {
      const canvas = new RecordingCanvas();
      recorded.canvases.push(canvas);
      return { canvas, problem: null };
    },
  };
});

const T = "0af7651916cd43dd8448eb211c80319c";
const id = (s: string) => `otel:${T}:${s}`;

function span(s: string, over: Partial<SpanRow> = {}): SpanRow {
  return {
    id: id(s), span_id: s, parent: null, name: s, label: "Span", start_ns: 0, end_ns: 1_000_000, status: "ok",
    service: "agents/council", agent: null, model: null, links: [], ...over,
  };
}

const spans: SpanRow[] = [
  span("a1", { name: "invoke_agent planner", label: "AgentInvocation", end_ns: 4_000_000_000, agent: "planner" }),
  span("c1", { name: "chat gpt-4o", label: "LlmCall", parent: id("a1"), start_ns: 100_000_000, end_ns: 900_000_000, agent: "planner", model: "openai/gpt-4o" }),
  span("b1", { name: "execute_tool search", label: "ToolCall", parent: id("a1"), start_ns: 1_000_000_000, end_ns: 1_200_000_000, status: "error", agent: "planner" }),
  span("a2", { name: "invoke_agent writer", label: "AgentInvocation", parent: id("a1"), start_ns: 1_500_000_000, end_ns: 3_900_000_000, agent: "writer" }),
  span("c2", { name: "chat gpt-4o (writer)", label: "LlmCall", parent: id("a2"), start_ns: 1_600_000_000, end_ns: 3_800_000_000, agent: "writer", links: [{ target: id("c1"), trace_id: T }] }),
];

const page: TracePage = {
  total: 1, offset: 0,
  traces: [{
    trace_id: T, root: id("a1"), root_name: "invoke_agent planner", services: ["agents/council"], agents: ["planner", "writer"],
    started_ms: 1_700_000_000_000, duration_ms: 4000, spans: 5, errors: 1, tokens_in: 30, tokens_out: 12,
  }],
};
const traceSpans: TraceSpans = { trace_id: T, start_ns: "1700000000000000000", spans, truncated: false, total: 5 };
const agents: TraceAgents = {
  trace_id: T, truncated: false,
  agents: [
    { id: "planner", node: "agent:planner", spans: 3, llm_calls: 1, tool_calls: 1, errors: 1, busy_ms: 4000 },
    { id: "writer", node: "agent:writer", spans: 2, llm_calls: 1, tool_calls: 0, errors: 0, busy_ms: 2400 },
  ],
  hand_offs: [
    { from: "planner", to: "writer", kind: "delegation", count: 1, total_ms: 2400, spans: [id("a2")] },
    { from: "planner", to: "writer", kind: "message", count: 1, total_ms: 0, spans: [id("c2")] },
  ],
};

function details(s: SpanRow): SpanDetails {
  const base: SpanDetails = {
    span: s, start_ns: null, end_ns: null, attributes: { "otel:name": s.name, "otel:gen_ai.request.model": "gpt-4o" }, messages: [],
    tool_args: null, tool_result: null, tokens_in: null, tokens_out: null, error: null, linked_from: [],
  };
  if (s.span_id === "c2") {
    return {
      ...base, tokens_in: 20, tokens_out: 7,
      messages: [
        { id: "otel-msg:u", direction: "input", index: 0, role: "user", parts: [{ type: "text", content: "Plan a trip" }], produced_by: null },
        { id: "otel-msg:p", direction: "input", index: 1, role: "assistant", parts: [{ type: "text", content: "Go to Lisbon" }], produced_by: id("c1") },
        { id: "otel-msg:o", direction: "output", index: 0, role: "assistant", parts: [{ type: "tool_call", name: "search", arguments: { q: "Lisbon" } }], produced_by: null },
      ],
    };
  }
  if (s.span_id === "b1") {
    return {
      ...base, tool_args: { id: "otel-args:1", value: { q: "Lisbon" } }, tool_result: { id: "otel-result:1", value: [1, 2] },
      error: { status_message: "boom", exception_type: "ValueError", message: "no results", stacktrace: "Traceback (most recent call last):\n  File x" },
    };
  }
  return base;
}

const origin: MessageOrigin = {
  message: "otel-msg:p", call: id("c1"), first_use: null,
  steps: [{ id: "otel-msg:p", label: "Message", via: "" }, { id: id("c1"), label: "LlmCall", via: "WAS_GENERATED_BY" }],
};

type OperationHandlers = { [K in OperationName]: (req: Requests[K]) => Promise<Responses[K]> };

/** The operations the app calls while opening a graph with traces, typed by the generated map. */
class FakeTransport implements Transport {
  readonly kind = "http" as const;
  subs: Array<{ handlers: StreamHandlers<StreamMessage>; closed: boolean }> = [];
  nodes: ViewNode[] = [];
  readonly ops: Partial<OperationHandlers> = {
    health: vi.fn(async () => ({ version: "0.9", database: "redis://127.0.0.1", private_server: true, auth: false })),
    graphs: vi.fn(async () => ["agents"]),
    view: vi.fn(async () => view(this.nodes, [edge(id("a1"), id("c1"), "WAS_INVOKED_BY")], { graph: "agents", seq: 3 })),
    node: vi.fn(async (r) => ({ id: r.id, label: "LlmCall", properties: {} })),
    neighbours: vi.fn(async (r) => ({ nodes: [{ id: r.id, label: "LlmCall" }], edges: [] })),
    trace: vi.fn(async () => ({ nodes: [], edges: [] })),
    jobs: vi.fn(async () => []),
    sessions: vi.fn(async () => []),
    lineages: vi.fn(async () => []),
    cluster_edges: vi.fn(async () => []),
    traces: vi.fn(async () => page),
    trace_spans: vi.fn(async () => traceSpans),
    trace_agents: vi.fn(async () => agents),
    span: vi.fn(async (r) => details(spans.find((s) => s.id === r.id)!)),
    message_origin: vi.fn(async () => origin),
  };
  call<K extends OperationName>(op: K, req: Requests[K]): Promise<Responses[K]> {
    const f = this.ops[op] as ((r: Requests[K]) => Promise<Responses[K]>) | undefined;
    return f ? f(req) : Promise.reject(new Error(`no fake for ${op}`));
  }
  subscribe<K extends StreamName>(_stream: K, _req: StreamRequests[K], handlers: StreamHandlers<StreamMessages[K]>): Subscription {
    const sub = { handlers: handlers as StreamHandlers<StreamMessage>, closed: false };
    this.subs.push(sub);
    return { close: () => { sub.closed = true; } };
  }
  push(msg: StreamMessage): void {
    this.subs.filter((s) => !s.closed).at(-1)!.handlers.onMessage(msg);
  }
}

const q = (sel: string) => [...document.querySelectorAll<HTMLElement>(sel)];
const tid = (t: string) => q(`[data-testid="${t}"]`);

let backend: FakeTransport;
let app: App;
let canvas: { selection: string[]; focused: string[] };

async function boot(): Promise<void> {
  document.body.innerHTML = '<div id="app"></div>';
  window.history.replaceState(null, "", "/");
  localStorage.clear();
  backend = new FakeTransport();
  backend.nodes = spans.map((s, i) => node(s.id, i, { label: s.label, base_type: "ProvActivity" }));
  app = new App(document.getElementById("app")!, backendOver(backend));
  await app.start();
  canvas = recorded.canvases.at(-1) as typeof canvas;
}

beforeEach(() => {
  recorded.canvases = [];
});

describe("how traces read", () => {
  it("nests spans under their parents, siblings by start, and survives a parent cycle", () => {
    const rows = treeOrder([spans[4], spans[2], spans[0], spans[3], spans[1]]);
    expect(rows.map((r) => [r.span.span_id, r.depth])).toEqual([["a1", 0], ["c1", 1], ["b1", 1], ["a2", 1], ["c2", 2]]);
    const cyc = treeOrder([span("x", { parent: id("y") }), span("y", { parent: id("x") })]);
    expect(cyc.map((r) => r.span.span_id).sort()).toEqual(["x", "y"]);
    const orphan = treeOrder([span("k", { parent: id("gone") })]);
    expect(orphan).toEqual([{ span: orphan[0].span, depth: 0 }]);
  });

  it("says durations, ids and a trace's summary", () => {
    expect([duration(0.2), duration(850), duration(2400), duration(125_000), duration(null)]).toEqual(["<1 ms", "850 ms", "2.40 s", "2 min 5 s", "—"]);
    expect(traceMeta(page.traces[0])).toBe("4.00 s · 5 spans · 1 error · 30 in · 12 out tokens");
    expect(isSpanId(id("c1"))).toBe(true);
    expect(isSpanId("otel-msg:abc")).toBe(false);
    expect(traceOf(id("c1"))).toBe(T);
    expect(ticks(4_000_000_000)).toEqual([0, 1000, 2000, 3000, 4000]);
  });

  it("places an agent one row below the agent that delegated to it", () => {
    const col = levels(agents.agents, agents.hand_offs);
    expect([...col]).toEqual([["planner", 0], ["writer", 1]]);
    // A delegation cycle stays bounded.
    const loop = levels(agents.agents, [...agents.hand_offs, { ...agents.hand_offs[0], from: "writer", to: "planner" }]);
    expect(Math.max(...loop.values())).toBeLessThan(2);
  });

  it("places an agent that acts on another's behalf below it too, with no span between them", () => {
    const behalf = [{ from: "planner", to: "writer", kind: "on_behalf", count: 1, total_ms: 0, spans: [] }];
    expect([...levels(agents.agents, behalf)]).toEqual([["planner", 0], ["writer", 1]]);
  });
});

describe("a large trace's waterfall", () => {
  const many = (n: number) => Array.from({ length: n }, (_, i) => span(`s${i}`, {
    name: `chat ${i}`, label: "LlmCall", parent: i === 0 ? null : id("s0"), start_ns: i * 1_000_000, end_ns: i * 1_000_000 + 500_000,
  }));
  const rowsOf = (el: HTMLElement) => [...el.querySelectorAll<HTMLElement>(".wf-row")].map((r) => Number(r.dataset.index));
  /** jsdom lays nothing out: the list's top moves up as the scroller scrolls, as in a browser. */
  const laidOut = (el: HTMLElement, scroller: HTMLElement) => {
    el.querySelector<HTMLElement>(".wf-rows")!.getBoundingClientRect = () => ({ top: 30 - scroller.scrollTop }) as DOMRect;
  };

  it("draws every row of a trace up to ALL_ROWS spans, and only the rows in sight past it", () => {
    const scroller = document.createElement("div");
    document.body.append(scroller);
    const small = waterfall({ trace_id: T, start_ns: null, spans: many(ALL_ROWS), total: ALL_ROWS, truncated: false }, { selected: null, pick: () => {}, scroller });
    expect(rowsOf(small)).toHaveLength(ALL_ROWS);
    const big = waterfall({ trace_id: T, start_ns: null, spans: many(3000), total: 3000, truncated: false }, { selected: null, pick: () => {}, scroller });
    scroller.replaceChildren(big);
    laidOut(big, scroller);
    expect(big.dataset.rows).toBe("3000");
    const first = rowsOf(big);
    expect(first[0]).toBe(0);
    expect(first.length).toBeLessThan(100);
    // The list is as tall as every row, each drawn at its place.
    expect(big.querySelector<HTMLElement>(".wf-rows")!.style.height).toBe(`${3000 * ROW_PX}px`);
    // Scrolled to the middle: the rows there are drawn, the first ones are not.
    scroller.scrollTop = 1500 * ROW_PX;
    scroller.dispatchEvent(new Event("scroll"));
    const middle = rowsOf(big);
    expect(middle).toContain(1500);
    expect(middle).not.toContain(0);
    const li = big.querySelector<HTMLElement>('.wf-row-item[data-index="1500"]')!;
    expect(li.style.top).toBe(`${1500 * ROW_PX}px`);
    expect(li.getAttribute("aria-setsize")).toBe("3000");
    scroller.remove();
  });

  it("moves to a row not drawn yet with the arrow keys, and picks it", () => {
    const scroller = document.createElement("div");
    document.body.append(scroller);
    const picked: string[] = [];
    const big = waterfall({ trace_id: T, start_ns: null, spans: many(1000), total: 1000, truncated: false }, { selected: null, pick: (s) => picked.push(s.span_id), scroller });
    scroller.replaceChildren(big);
    laidOut(big, scroller);
    const drawn = rowsOf(big);
    const last = Math.max(...drawn);
    const row = big.querySelector<HTMLElement>(`.wf-row[data-index="${last}"]`)!;
    row.dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowDown", bubbles: true }));
    expect(rowsOf(big)).toContain(last + 1);
    // The row under it in tree order (every span but the first is a child of s0, by start).
    expect(picked).toEqual([`s${last + 1}`]);
    scroller.remove();
  });
});

describe("the Traces tab", () => {
  it("is offered when the graph has traces and lists each with root, service, agents, duration, spans, errors, tokens", async () => {
    await boot();
    await vi.waitFor(() => expect(tid("tab-traces")[0].hidden).toBe(false));
    tid("tab-traces")[0].click();
    await vi.waitFor(() => expect(tid("trace-row")).toHaveLength(1));
    const row = tid("trace-row")[0];
    expect(row.dataset.trace).toBe(T);
    expect(tid("trace-root")[0].textContent).toBe("invoke_agent planner");
    expect(tid("trace-meta")[0].textContent).toBe("4.00 s · 5 spans · 1 error · 30 in · 12 out tokens");
    expect(row.textContent).toContain("service agents/council · agents planner, writer");
    expect(tid("trace-row-errors")[0].textContent).toBe("1 error");
  });

  it("opens a waterfall nested by parent with errors and links marked; a row selects its node on the canvas", async () => {
    await boot();
    await vi.waitFor(() => expect(tid("trace-row")).toHaveLength(1));
    tid("trace-row")[0].click();
    await vi.waitFor(() => expect(tid("wf-row")).toHaveLength(5));
    expect(tid("trace-view")[0].hidden).toBe(false);
    expect(tid("wf-row").map((r) => [r.dataset.span, r.dataset.depth])).toEqual([
      [id("a1"), "0"], [id("c1"), "1"], [id("b1"), "1"], [id("a2"), "1"], [id("c2"), "2"],
    ]);
    expect(tid("wf-error")).toHaveLength(1);
    expect(tid("wf-link")[0].textContent).toBe("⤳1");
    // The bar of the writer's call starts at 40% of the 4 s axis.
    const bar = q(`.wf-row[data-span="${id("c2")}"] .wf-bar`)[0];
    expect(bar.style.left).toBe("40%");
    expect(bar.style.width).toBe("55%");
    q(`.wf-row[data-span="${id("b1")}"]`)[0].click();
    await vi.waitFor(() => expect(canvas.selection).toEqual([id("b1")]));
    expect(q(`.wf-row[data-span="${id("b1")}"]`)[0].getAttribute("aria-pressed")).toBe("true");
    // Its details: the exception, tool arguments and result as pretty JSON.
    await vi.waitFor(() => expect(tid("span-error")).toHaveLength(1));
    expect(tid("span-error")[0].textContent).toContain("ValueError");
    expect(tid("span-error")[0].textContent).toContain("no results");
    expect(tid("tool-args")[0].textContent).toBe('{\n  "q": "Lisbon"\n}');
    expect(tid("tool-result")[0].textContent).toBe("[\n  1,\n  2\n]");
    // The arrow keys walk the waterfall's rows from the picked one (the keyboard stays on it
    // though the waterfall is drawn again); the canvas's own arrow walk is left alone.
    const picked = () => q('.wf-row[aria-pressed="true"]').map((r) => r.dataset.span);
    q(`.wf-row[data-span="${id("b1")}"]`)[0].focus();
    document.activeElement!.dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowDown", bubbles: true, cancelable: true }));
    await vi.waitFor(() => expect(picked()).toEqual([id("a2")]));
    await vi.waitFor(() => expect(canvas.selection).toEqual([id("a2")]));
    expect((document.activeElement as HTMLElement).dataset.span).toBe(id("a2"));
    document.activeElement!.dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowDown", bubbles: true, cancelable: true }));
    await vi.waitFor(() => expect(picked()).toEqual([id("c2")]));
    expect(tid("span-attributes")[0].textContent).toContain("gen_ai.request.model");
  });

  it("picks a span clicked on the canvas in its trace's waterfall", async () => {
    await boot();
    await vi.waitFor(() => expect(tid("tab-traces")[0].hidden).toBe(false));
    await app.select(id("c2"), { from: "canvas" });
    await vi.waitFor(() => expect(q(`.wf-row.selected`).map((r) => r.dataset.span)).toEqual([id("c2")]));
    await vi.waitFor(() => expect(tid("span-details")[0]?.dataset.span).toBe(id("c2")));
  });

  it("shows a span's messages as a chat, and walks a message back to the call that produced it", async () => {
    await boot();
    await vi.waitFor(() => expect(tid("tab-traces")[0].hidden).toBe(false));
    await app.select(id("c2"), { from: "canvas" });
    await vi.waitFor(() => expect(tid("span-message")).toHaveLength(3));
    expect(tid("span-message").map((m) => [m.dataset.role, m.dataset.direction])).toEqual([["user", "input"], ["assistant", "input"], ["assistant", "output"]]);
    expect(tid("span-message")[1].textContent).toContain("Go to Lisbon");
    expect(tid("span-message")[2].textContent).toContain('"name": "search"');
    expect(tid("span-details")[0].textContent).toContain("20 in · 7 out tokens");
    tid("message-origin")[1].click();
    await vi.waitFor(() => expect(tid("message-origin-result")).toHaveLength(1));
    expect(backend.ops.message_origin).toHaveBeenCalledWith({ graph: "agents", id: "otel-msg:p" });
    expect(tid("message-origin-result")[0].textContent).toContain("This message was produced by chat gpt-4o");
    expect(canvas.selection).toEqual([id("c1")]);
    expect(q(".wf-row.selected").map((r) => r.dataset.span)).toEqual([id("c1")]);
  });

  it("draws the agent view: a box per agent and hand-off arrows with counts and time", async () => {
    await boot();
    await vi.waitFor(() => expect(tid("trace-row")).toHaveLength(1));
    tid("trace-row")[0].click();
    await vi.waitFor(() => expect(tid("wf-row")).toHaveLength(5));
    tid("trace-mode-agents")[0].click();
    await vi.waitFor(() => expect(tid("agent-box")).toHaveLength(2));
    expect(tid("agent-box").map((b) => b.dataset.agent)).toEqual(["planner", "writer"]);
    expect(tid("agent-box")[0].textContent).toContain("1 error");
    const hands = tid("handoff");
    expect(hands.map((x) => [x.dataset.from, x.dataset.to, x.dataset.kind])).toEqual([["planner", "writer", "delegation"], ["planner", "writer", "message"]]);
    expect(hands[0].querySelector("text")!.textContent).toBe("delegated ×1 · 2.40 s");
    // A box selects its agent node and shows the agent's first span.
    tid("agent-box")[1].dispatchEvent(new MouseEvent("click", { bubbles: true }));
    await vi.waitFor(() => expect(canvas.selection).toEqual(["agent:writer"]));
    await vi.waitFor(() => expect(tid("span-details")[0]?.dataset.span).toBe(id("a2")));
    expect(tid("trace-mode-agents")[0].getAttribute("aria-pressed")).toBe("true");
  });

  it("lists again when spans arrive on the live stream, and Escape closes the trace", async () => {
    await boot();
    await vi.waitFor(() => expect(tid("trace-row")).toHaveLength(1));
    const calls = (backend.ops.traces as ReturnType<typeof vi.fn>).mock.calls.length;
    tid("trace-row")[0].click();
    await vi.waitFor(() => expect(tid("wf-row")).toHaveLength(5));
    const spanCalls = (backend.ops.trace_spans as ReturnType<typeof vi.fn>).mock.calls.length;
    backend.push(batch(4, [node(id("d9"), 9, { label: "ToolCall" })], [], "agents"));
    await vi.waitFor(() => expect((backend.ops.traces as ReturnType<typeof vi.fn>).mock.calls.length).toBe(calls + 1));
    await vi.waitFor(() => expect((backend.ops.trace_spans as ReturnType<typeof vi.fn>).mock.calls.length).toBe(spanCalls + 1));
    document.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
    expect(tid("trace-view")[0].hidden).toBe(true);
  });

  it("does not list again when an A2A event's LlmCall or ToolCall arrives: they share a span's label, not its id", async () => {
    await boot();
    await vi.waitFor(() => expect(tid("trace-row")).toHaveLength(1));
    const traces = backend.ops.traces as ReturnType<typeof vi.fn>;
    const calls = traces.mock.calls.length;
    backend.push(batch(4, [node("llm_call:e1", 9, { label: "LlmCall" }), node("tool_call:e2", 10, { label: "ToolCall" })], [], "agents"));
    await new Promise((r) => setTimeout(r, LIVE_MS + 50));
    expect(traces.mock.calls.length).toBe(calls);
    backend.push(batch(5, [node(id("e1"), 11, { label: "LlmCall" })], [], "agents"));
    await vi.waitFor(() => expect(traces.mock.calls.length).toBe(calls + 1));
  });
});
