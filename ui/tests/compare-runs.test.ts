// Compare on two runs of an agent: the runs part (calls matched by what they are, not by
// span id) says which calls, messages, tool results and agents differ, and a call selects
// its span when the drawn graph has it.

import { describe, expect, it, vi } from "vitest";
import type { CallDiff, GraphDiff, TraceDiff } from "../src/api/contract";
import { ComparePanel, type CompareHost } from "../src/compare/compare-panel";
import { runsHeadline } from "../src/compare/runs-section";
import { node } from "./helpers";

function call(path: string, operation: string, a: string | null, b: string | null, changes: string[] = []): CallDiff {
  return { path, label: "LlmCall", operation, agent: "planner", model: "openai/gpt", tool: null, a, b, status_a: a ? "ok" : null, status_b: b ? "ok" : null, changes };
}

const RUNS: TraceDiff = {
  a: { traces: ["aaaaaaaa11112222"], spans: 3 },
  b: { traces: ["bbbbbbbb33334444"], spans: 4 },
  calls: [
    call("invoke_agent planner", "invoke_agent", "otel:a:1", "otel:b:1", ["outputs"]),
    call("invoke_agent planner / chat [openai/gpt]", "chat", "otel:a:2", "otel:b:2"),
    call("invoke_agent planner / execute_tool get_weather", "execute_tool", "otel:a:3", "otel:b:3", ["result"]),
    call("invoke_agent planner / invoke_agent checker", "invoke_agent", null, "otel:b:4"),
  ],
  messages: {
    shared: 3,
    only_a: [{ name: "otel-msg:1", role: "assistant", text: "Answer: sunny" }],
    only_b: [{ name: "otel-msg:2", role: "assistant", text: "Answer: rain" }],
  },
  tools: [{ tool: "get_weather", path: "invoke_agent planner / execute_tool get_weather", arguments_a: "{\"q\":1}", arguments_b: "{\"q\":1}", result_a: "{\"forecast\":\"sunny\"}", result_b: "{\"forecast\":\"rain\"}", changes: ["result"] }],
  agents: { shared: ["planner"], only_a: [], only_b: ["checker"] },
};

const DIFF: GraphDiff = {
  summary: { claims_added: [], claims_removed: [], verifications_added: [], verifications_removed: [], changes: [] },
  traces: RUNS,
  nodes: { added: [], removed: [], changed: [] },
  edges: { added: [], removed: [], changed: [] },
};

function host(graph: string, ids: string[], diff: GraphDiff = DIFF) {
  const nodes = new Map(ids.map((id, i) => [id, node(id, i)]));
  return {
    backend: { diff: vi.fn(async () => diff), graphs: vi.fn(async () => ["run_a", "run_b"]) },
    graph,
    model: { nodes },
    canvas: { setHighlight: vi.fn(), screenPosition: vi.fn(() => ({ x: 10, y: 40 })) },
    select: vi.fn(async () => {}),
    openGraph: vi.fn(async () => {}),
  } satisfies CompareHost;
}

describe("compare: two runs", () => {
  it("headlines what differs between the runs", () => {
    expect(runsHeadline(RUNS)).toBe("0 calls only in A, 1 only in B, 2 differ, 1 message differs, tool get_weather result differs, agent checker only in B");
    const same: TraceDiff = { ...RUNS, calls: [RUNS.calls[1]], messages: { shared: 5, only_a: [], only_b: [] }, tools: [], agents: { shared: ["planner"], only_a: [], only_b: [] } };
    expect(runsHeadline(same)).toBe("same calls, same messages");
  });

  it("shows the runs after the claims: the calls that differ, the tool's result before and after, the messages and agents; a call selects its span", async () => {
    const app = host("run_b", ["otel:b:1", "otel:b:3"]);
    const p = new ComparePanel(app);
    await p.open();
    await p.run("run_a", "run_b");
    const runs = p.el.querySelector<HTMLElement>('[data-testid="compare-runs"]')!;
    expect(runs).not.toBeNull();
    // After the claims part.
    expect(p.el.querySelector('[data-testid="compare-claims"]')!.compareDocumentPosition(runs) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    const calls = [...runs.querySelectorAll<HTMLElement>('[data-testid="runs-calls"] li')];
    expect(calls.map((li) => `${li.dataset.change} ${li.querySelector(".run-step")!.textContent}${li.querySelector(".run-what")!.textContent}`)).toEqual([
      "changed invoke_agent planner — outputs changed",
      "changed execute_tool get_weather — result changed",
      "added invoke_agent checker — only in B",
    ]);
    const tool = runs.querySelector<HTMLElement>('[data-tool="get_weather"]')!;
    expect(tool.querySelector('[data-what="result"] .before')!.textContent).toBe("{\"forecast\":\"sunny\"}");
    expect(tool.querySelector('[data-what="result"] .after')!.textContent).toBe("{\"forecast\":\"rain\"}");
    expect(tool.querySelector('[data-what="arguments"]')).toBeNull();
    expect([...runs.querySelectorAll<HTMLElement>('[data-testid="runs-messages"] li')].map((li) => `${li.dataset.change} ${li.textContent}`))
      .toEqual(["removed −assistant: Answer: sunny", "added +assistant: Answer: rain"]);
    expect(runs.querySelector('[data-testid="runs-agents"]')!.textContent).toBe("Agents: 1 in both; only in B: checker");
    // The checker's span is not drawn: its button is disabled; the tool call's is, and selects.
    const buttons = calls.map((li) => li.querySelector<HTMLButtonElement>("button")!);
    expect(buttons.map((b) => b.disabled)).toEqual([false, false, true]);
    buttons[1].click();
    expect(app.select).toHaveBeenCalledWith("otel:b:3", { focus: true, from: "panel" });
  });

  it("compares two runs (traces) of the open graph", async () => {
    const trace = (id: string, started: number) => ({
      trace_id: id, root: null, root_name: "invoke_agent planner", services: [], agents: ["planner"], started_ms: started,
      duration_ms: 10, spans: 4, errors: 0, tokens_in: 0, tokens_out: 0,
    });
    const app = {
      ...host("runs", ["otel:b:1"]),
      backend: {
        diff: vi.fn(async () => DIFF),
        graphs: vi.fn(async () => ["runs"]),
        // Newest first, as the Traces list has them.
        traces: vi.fn(async () => ({ traces: [trace("bbbbbbbb33334444", 2), trace("aaaaaaaa11112222", 1)], total: 2, offset: 0 })),
      },
    } satisfies CompareHost;
    const p = new ComparePanel(app);
    await p.open();
    expect(app.backend.traces).toHaveBeenCalledWith({ graph: "runs", limit: 200 });
    const a = p.el.querySelector<HTMLSelectElement>('[data-testid="compare-trace-a"]')!;
    const b = p.el.querySelector<HTMLSelectElement>('[data-testid="compare-trace-b"]')!;
    // The older run is A, the newer B, by default.
    expect([a.value, b.value]).toEqual(["aaaaaaaa11112222", "bbbbbbbb33334444"]);
    p.el.querySelector<HTMLButtonElement>('[data-testid="compare-run-traces"]')!.click();
    await vi.waitFor(() => expect(app.backend.diff).toHaveBeenCalledWith({ a: "runs", b: "runs", trace_a: "aaaaaaaa11112222", trace_b: "bbbbbbbb33334444" }));
    await vi.waitFor(() => expect(p.el.querySelector('[data-testid="compare-runs"]')).not.toBeNull());
    expect(p.el.querySelector('[data-testid="compare-summary"]')!.textContent).toMatch(/^trace bbbbbbbb against trace aaaaaaaa: /);
    expect(p.el.querySelector('[data-testid="compare-runs"] .muted')!.textContent).toMatch(/^A: trace aaaaaaaa \(3 spans\) · B: trace bbbbbbbb \(4 spans\)/);
  });

  it("offers no choice of runs in a graph of one trace", async () => {
    const app = { ...host("runs", []), backend: { diff: vi.fn(async () => DIFF), graphs: vi.fn(async () => ["runs", "other"]), traces: vi.fn(async () => ({ traces: [], total: 0, offset: 0 })) } } satisfies CompareHost;
    const p = new ComparePanel(app);
    await p.open();
    expect(p.el.querySelector('[data-testid="compare-traces"]')).toBeNull();
  });

  it("has no runs part when neither graph holds spans", async () => {
    const app = host("run_b", [], { ...DIFF, traces: undefined });
    const p = new ComparePanel(app);
    await p.open();
    await p.run("run_a", "run_b");
    expect(p.el.querySelector('[data-testid="compare-claims"]')).not.toBeNull();
    expect(p.el.querySelector('[data-testid="compare-runs"]')).toBeNull();
  });
});
