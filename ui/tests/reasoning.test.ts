// The reasoning view (issue 12 §3–4): how a TrustGraph chain reads (step kinds, facts, tool
// and pretty arguments, dialog lines placed under their steps, GraphRAG's concepts and
// selected edges, a failed tool), the Reasoning tab's session list, the chain view with its
// linked statements opening their trail, the live reload marking the latest step, and the
// walkthrough's research step.

import { afterEach, describe, expect, it, vi } from "vitest";
import type { ReasoningChain, ReasoningStep, SessionSummary } from "../src/api/contract";
import { ReasoningPanel, LIVE_MS, type ReasoningHost } from "../src/reasoning/reasoning-panel";
import {
  dialogByStep, facts, linksByStep, prettyArguments, selectedEdges, sessionMeta, statusText, stepKind, stepTitle, toolOf,
  stepsAfterQuestion,
} from "../src/reasoning/chain";
import { reasoningStep } from "../src/walkthrough/steps";
import { edge, node } from "./helpers";

const Q = "urn:trustgraph:agent:zoning";

function step(id: string, types: string[], properties: ReasoningStep["properties"] = {}, over: Partial<ReasoningStep> = {}): ReasoningStep {
  return { id, types, label: null, properties, derived_from: [], parts: [], failed: false, placeholder: false, ...over };
}

const question = step(Q, ["Question", "AgentQuestion"], { "tg:query": "What did they say about zoning?", "prov:startedAtTime": "2025-10-15T09:01:19Z" });
const tool = step(`${Q}/i1`, ["Analysis", "ToolUse"], {
  "tg:action": "knowledge-query", "tg:arguments": '{"query": "zoning", "graph": "council"}',
  "tg:toolCandidate": ["knowledge-query", "transcript-search"], "tg:llmDurationMs": 640,
}, { parts: [step(`${Q}/i1/thought`, ["Reflection", "Thought"])] });
const observation = step(`${Q}/i1/observation`, ["Observation"], { "tg:toolDurationMs": 212 });
const answer = step(`${Q}/final`, ["Conclusion", "Answer"], { "tg:inToken": 2150, "tg:outToken": 118, "tg:llmModel": "gpt-4o", "tg:terminationReason": "final-answer" });

const dialog: ReasoningChain["dialog"] = [
  { seq: 1, kind: "thought", content: "Query the statements about zoning.", model: null, in_token: null, out_token: null },
  { seq: 2, kind: "observation", content: "2 statements about zoning.", model: null, in_token: null, out_token: null },
  { seq: 3, kind: "answer", content: "The council approved Ordinance 2025-31 by a 4–1 vote.", model: "gpt-4o", in_token: 2150, out_token: 118 },
];
const links: ReasoningChain["links"] = [
  { from: observation.id, id: "s-vote", label: "Statement", text: "The council approved Ordinance 2025-31 by a 4–1 vote." },
  { from: observation.id, id: "s-homes", label: "Statement", text: "120 apartments, 18 of them affordable." },
  { from: answer.id, id: "s-vote", label: "Statement", text: "The council approved Ordinance 2025-31 by a 4–1 vote." },
  { from: answer.id, id: "s-homes", label: "Statement", text: "120 apartments, 18 of them affordable." },
];

function chainOf(steps: ReasoningStep[], over: Partial<ReasoningChain> = {}): ReasoningChain {
  const last = steps[steps.length - 1];
  return {
    session: Q, kind: "agent", question: "What did they say about zoning?", status: "answered", selected: last.id, chain: steps,
    latest: last.id, dialog, links, ...over,
  };
}

const full = chainOf([question, tool, observation, answer]);

const summary: SessionSummary = {
  id: Q, kind: "agent", question: "What did they say about zoning?", status: "answered", steps: 4,
  started: "2025-10-15T09:01:19Z", answer: answer.id,
};

describe("how a chain reads", () => {
  it("names each step's kind from its TrustGraph types", () => {
    expect([question, tool, observation, answer].map(stepKind)).toEqual(["question", "tool", "observation", "answer"]);
    expect(stepKind(step("g", ["Grounding"]))).toBe("grounding");
    expect(stepKind(step("f", ["Focus"]))).toBe("focus");
    expect(stepKind(step("s", ["Synthesis"]))).toBe("synthesis");
    expect(stepKind(step("e", ["Analysis", "Error"]))).toBe("error");
    expect(stepTitle(tool)).toBe("Tool use: knowledge-query");
    expect(stepTitle({ ...tool, failed: true })).toBe("Failed tool: knowledge-query");
    expect(stepTitle(step("p", [], {}, { placeholder: true }))).toBe("Not recorded yet");
  });

  it("pretty-prints a tool's JSON arguments and keeps anything else as it came", () => {
    expect(toolOf(tool)).toEqual({
      action: "knowledge-query", candidates: ["knowledge-query", "transcript-search"],
      args: '{\n  "query": "zoning",\n  "graph": "council"\n}',
    });
    expect(prettyArguments("not json")).toBe("not json");
    expect(toolOf(observation)).toBeNull();
  });

  it("lists durations, tokens, model and why it ended", () => {
    expect(facts(tool)).toEqual([["LLM time", "640 ms"]]);
    expect(facts(observation)).toEqual([["Tool time", "212 ms"]]);
    expect(facts(answer)).toEqual([["Tokens", "2,150 in · 118 out"], ["Model", "gpt-4o"], ["Ended because", "final-answer"]]);
    expect(facts(step("x", ["Exploration"], { "tg:edgeCount": "1200", "tg:llmDurationMs": "2150" }))).toEqual([["LLM time", "2.15 s"], ["Edges explored", "1,200"]]);
  });

  it("puts each dialog line under its step: thoughts to tool uses, observations to observations, the answer to the answer", () => {
    const by = dialogByStep(full.chain, dialog);
    expect(by.get(tool.id)?.map((d) => d.seq)).toEqual([1]);
    expect(by.get(observation.id)?.map((d) => d.seq)).toEqual([2]);
    expect(by.get(answer.id)?.map((d) => d.seq)).toEqual([3]);
    expect(by.has(question.id)).toBe(false);
    // A chain cut short (a live session): the lines with no step yet stay beside it only.
    const short = dialogByStep([question, tool], dialog);
    expect([...short.keys()]).toEqual([tool.id]);
  });

  it("reads GraphRAG's selected edges with their reasoning and score", () => {
    const focus = step("f", ["Focus"], {}, {
      parts: [step("e1", ["EdgeSelection"], { "tg:edge_s": "urn:x:Council", "tg:edge_p": "urn:x:approved", "tg:edge_o": "urn:x:Ordinance", "tg:reasoning": "names the vote", "tg:score": 0.91 })],
    });
    expect(selectedEdges(focus)).toEqual([{ s: "urn:x:Council", p: "urn:x:approved", o: "urn:x:Ordinance", reasoning: "names the vote", score: 0.91 }]);
  });

  it("groups the linked statements under the steps that name them, each once", () => {
    const by = linksByStep({ links: [...links, links[0]] });
    expect(by.get(observation.id)?.map((l) => l.id)).toEqual(["s-vote", "s-homes"]);
    expect(by.get(answer.id)?.map((l) => l.id)).toEqual(["s-vote", "s-homes"]);
  });

  it("says a session's status in words and symbols, and its steps and time", () => {
    expect(["running", "answered", "failed"].map(statusText)).toEqual(["● running", "✓ answered", "✗ failed"]);
    expect(sessionMeta(summary)).toBe("4 steps · ReAct agent · 09:01:19 UTC, 15 Oct 2025");
  });

  it("makes the walkthrough's research step: the question, and the claims the answer drew on", () => {
    const s = reasoningStep(full);
    expect(s.kind).toBe("reasoning");
    expect(s.nodeId).toBe(answer.id);
    expect(s.links).toEqual(["s-vote", "s-homes"]);
    expect(s.statementId).toBe("s-vote");
    // Counted as the chain's header counts them: the steps after the question.
    expect(stepsAfterQuestion(full.chain)).toBe(full.chain.length - 1);
    expect(s.caption).toBe(`A researcher asks an agent “What did they say about zoning?” Its reasoning takes ${full.chain.length - 1} steps after the question, and its answer draws on 2 of these claims: open one to see its evidence.`);
    expect(reasoningStep(chainOf([question], { links: [] })).statementId).toBeNull();
  });
});

// ---------------------------------------------------------------- the tab and the view

function host(over: { model?: unknown } = {}) {
  const nodes = new Map([
    [Q, node(Q, 0, { label: "Explain" })],
    [answer.id, node(answer.id, 1, { label: "Explain" })],
    [`${Q}#1`, node(`${Q}#1`, 2, { label: "DialogMessage" })],
  ]);
  const e = edge(`${Q}#1`, Q, "IN_SESSION");
  const h = {
    backend: {
      sessions: vi.fn(async () => [summary]),
      reasoning: vi.fn(async (r: { id: string }) => (r.id === Q ? chainOf([question], { selected: Q, latest: answer.id }) : full)),
    },
    graph: "council",
    model: { nodes, edges: new Map([["e", e]]), mode: "whole" as const },
    select: vi.fn(async () => {}),
    reasoningAvailable: vi.fn(),
    openLink: vi.fn(async () => {}),
  };
  return over.model ? { ...h, model: over.model as typeof h.model } : h;
}

const all = (root: HTMLElement, id: string) => [...root.querySelectorAll<HTMLElement>(`[data-testid="${id}"]`)];

describe("the Reasoning tab and the chain view", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("lists the graph's sessions when it has reasoning nodes, and offers the tab", async () => {
    const h = host();
    const panel = new ReasoningPanel(h as unknown as ReasoningHost);
    panel.graphOpened();
    await vi.waitFor(() => expect(all(panel.el, "session-row")).toHaveLength(1));
    expect(h.reasoningAvailable).toHaveBeenLastCalledWith(true);
    const row = all(panel.el, "session-row")[0];
    expect(row.dataset.status).toBe("answered");
    expect(row.textContent).toBe("“What did they say about zoning?”✓ answered4 steps · ReAct agent · 09:01:19 UTC, 15 Oct 2025");
  });

  it("does not ask when the drawn graph has no reasoning nodes", () => {
    const h = host({ model: { nodes: new Map([["s", node("s", 0, { label: "Statement" })]]), edges: new Map(), mode: "whole" } });
    new ReasoningPanel(h as unknown as ReasoningHost).graphOpened();
    expect(h.backend.sessions).not.toHaveBeenCalled();
  });

  it("opens a session's answer: each step, its tool and arguments, its dialog, the statements under the steps that drew on them", async () => {
    const h = host();
    const panel = new ReasoningPanel(h as unknown as ReasoningHost);
    panel.graphOpened();
    await vi.waitFor(() => expect(all(panel.el, "session-row")).toHaveLength(1));
    all(panel.el, "session-row")[0].click();
    const v = panel.view.el;
    await vi.waitFor(() => expect(all(v, "reasoning-step")).toHaveLength(4));
    expect(h.backend.reasoning).toHaveBeenCalledWith({ graph: "council", id: answer.id });
    expect(all(v, "reasoning-step").map((s) => s.dataset.kind)).toEqual(["question", "tool", "observation", "answer"]);
    expect(all(v, "reasoning-step-title").map((t) => t.textContent)).toEqual(["Question", "Tool use: knowledge-query", "Observation", "Answer"]);
    expect(all(v, "reasoning-arguments")[0].textContent).toBe('{\n  "query": "zoning",\n  "graph": "council"\n}');
    expect(all(v, "dialog-line").map((d) => d.dataset.kind)).toEqual(["thought", "observation", "answer"]);
    expect(all(v, "reasoning-status")[0].dataset.status).toBe("answered");
    const linkRows = all(v, "reasoning-step").map((s) => all(s, "reasoning-link").map((l) => l.dataset.id));
    expect(linkRows).toEqual([[], [], ["s-vote", "s-homes"], ["s-vote", "s-homes"]]);
    expect(all(panel.el, "session-row")[0].classList.contains("current")).toBe(true);
    // A linked statement opens its trail, and is marked as the one being read.
    const link = all(v, "reasoning-link")[2];
    link.click();
    expect(h.openLink).toHaveBeenCalledWith(links[2]);
    expect(link.getAttribute("aria-pressed")).toBe("true");
    // Close.
    all(v, "reasoning-close")[0].click();
    expect(v.hidden).toBe(true);
    expect(all(panel.el, "session-row")[0].classList.contains("current")).toBe(false);
  });

  it("marks a failed tool, GraphRAG's grounding concepts, explored edges and selected edges", async () => {
    const failed = step(`${Q}/i2`, ["Analysis", "ToolUse", "Error"], { "tg:action": "web-search", "tg:toolError": "timeout after 30 s" }, { failed: true });
    const grounding = step("urn:trustgraph:question:q/grounding", ["Grounding"], { "tg:concept": ["zoning", "Elm Street"] });
    const exploration = step("urn:trustgraph:question:q/exploration", ["Exploration"], { "tg:edgeCount": 1200 });
    const focus = step("urn:trustgraph:question:q/focus", ["Focus"], {}, {
      parts: [step("e1", ["EdgeSelection"], { "tg:edge_s": "urn:x:Council", "tg:edge_p": "urn:x:approved", "tg:edge_o": "urn:x:Ordinance", "tg:reasoning": "names the vote", "tg:score": 0.91 })],
    });
    const h = host();
    h.backend.reasoning.mockResolvedValue(chainOf([question, failed, grounding, exploration, focus], { status: "failed", links: [], dialog: [] }));
    const panel = new ReasoningPanel(h as unknown as ReasoningHost);
    await panel.view.open(focus.id);
    const v = panel.view.el;
    const failedCard = all(v, "reasoning-step")[1];
    expect(failedCard.dataset.failed).toBe("true");
    expect(all(failedCard, "reasoning-failed")[0].textContent).toBe("✗ tool failed");
    expect(all(failedCard, "reasoning-tool-error")[0].textContent).toBe("Tool error: timeout after 30 s");
    expect(all(v, "reasoning-concept").map((c) => c.textContent)).toEqual(["zoning", "Elm Street"]);
    expect(all(v, "reasoning-facts").map((f) => f.textContent)).toContain("Edges explored1,200");
    expect(all(v, "reasoning-edge")[0].textContent).toBe("Council —approved→ Ordinancescore 0.91names the vote");
    expect(all(v, "reasoning-status")[0].textContent).toBe("✗ failed");
  });

  it("an Explain node opens the chain up to it; a dialog message opens its session, followed to its latest step", async () => {
    const h = host();
    const panel = new ReasoningPanel(h as unknown as ReasoningHost);
    expect(panel.isReasoningNode(answer.id)).toBe(true);
    await panel.openFor(answer.id);
    expect(h.backend.reasoning).toHaveBeenLastCalledWith({ graph: "council", id: answer.id });
    h.backend.reasoning.mockClear();
    await panel.openFor(`${Q}#1`);
    // The session alone, then on to where it is.
    expect(h.backend.reasoning.mock.calls.map(([r]) => r.id)).toEqual([Q, answer.id]);
  });

  it("live: re-fetches once per burst of reasoning nodes and marks the step the session is on", async () => {
    vi.useFakeTimers();
    const running = (steps: ReasoningStep[]) => chainOf(steps, { status: "running", latest: steps[steps.length - 1].id, dialog: [], links: [] });
    const h = host();
    h.backend.sessions.mockResolvedValue([{ ...summary, status: "running", answer: null, steps: 1 }]);
    h.backend.reasoning.mockImplementation(async () => running([question, tool]));
    const panel = new ReasoningPanel(h as unknown as ReasoningHost);
    await panel.openSession({ ...summary, status: "running", answer: null });
    const v = panel.view.el;
    expect(all(v, "reasoning-step").map((s) => s.dataset.id)).toEqual([Q, tool.id]);
    expect(v.querySelector(".rstep.latest")?.getAttribute("data-id")).toBe(tool.id);
    expect(all(v, "reasoning-latest")).toHaveLength(1);
    h.backend.reasoning.mockClear();
    h.backend.reasoning.mockImplementation(async () => running([question, tool, observation]));
    for (let i = 0; i < 5; i++) panel.nodesArrived([node(`n${i}`, 10 + i, { label: i % 2 ? "Explain" : "DialogMessage" })]);
    panel.nodesArrived([node("other", 20, { label: "Statement" })]);
    expect(h.backend.reasoning).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(LIVE_MS + 10);
    expect(h.backend.sessions).toHaveBeenCalledTimes(1);
    expect(h.backend.reasoning).toHaveBeenCalledTimes(1);
    expect(v.querySelector(".rstep.latest")?.getAttribute("data-id")).toBe(observation.id);
    expect(v.querySelector(".rstep.fresh")?.getAttribute("data-id")).toBe(observation.id);
    expect(all(panel.el, "session-row")[0].dataset.status).toBe("running");
  });

  it("says so when the chain cannot be loaded, and offers to try again", async () => {
    const h = host();
    h.backend.reasoning.mockRejectedValueOnce(new Error("boom"));
    const panel = new ReasoningPanel(h as unknown as ReasoningHost);
    await panel.view.open(answer.id);
    expect(panel.view.el.textContent).toContain("boom");
    const retry = [...panel.view.el.querySelectorAll("button")].find((b) => /try again/i.test(b.textContent ?? ""));
    expect(retry).toBeTruthy();
    retry!.click();
    await vi.waitFor(() => expect(all(panel.view.el, "reasoning-step")).toHaveLength(4));
  });
});
