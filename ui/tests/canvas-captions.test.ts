import { describe, expect, it } from "vitest";
import { agentFromId, nodeCaption, spokenText, verdictWords } from "../src/canvas/captions";
import { balancedWrap, PlacedRects, wrapLines } from "../src/canvas/wrap";

/** Every character 6 px wide: enough to test wrapping without a canvas. */
const mono = { measureText: (t: string) => ({ width: Array.from(t).length * 6 }) };

const node = (label: string, id: string, text: string | null, extra: { agent?: string, status?: string } = {}) =>
  ({ label, id, text, agent: extra.agent ?? null, status: extra.status ?? null });

describe("node captions", () => {
  it("names a verification by its verdict and verifier, never just 'Verification'", () => {
    const names = new Map([["urn:agent:civic-fact-checker-1.2", "Civic Fact Checker"]]);
    const by = (id: string) => names.get(id);
    expect(nodeCaption(node("Verification", "urn:uuid:1", "CHALLENGED", { agent: "urn:agent:civic-fact-checker-1.2", status: "valid" }), by))
      .toBe("✗ Challenged · Civic Fact Checker");
    expect(nodeCaption(node("Verification", "urn:uuid:2", "VALIDATED", { agent: "urn:agent:claude-4.5-sonnet-20241022", status: "valid" })))
      .toBe("✓ Validated · Claude 4.5 Sonnet");
    // A forged verification says so first.
    expect(nodeCaption(node("Verification", "urn:uuid:3", "VALIDATED", { agent: "urn:agent:civic-fact-checker-1.2", status: "invalid" }), by))
      .toBe("✗ Forged: Validated · Civic Fact Checker");
    expect(verdictWords("UNCERTAIN")).toBe("? Uncertain");
  });

  it("gives runtime events words a person can read", () => {
    expect(nodeCaption(node("Message", "message:m-35", "[VALIDATED: statement urn:uuid:5857aaae-2c8e-5511-9c60-a7b668981a02.]")))
      .toBe("Message: VALIDATED: statement 5857aaae….");
    expect(nodeCaption(node("LlmPrompt", "llm_prompt:p", JSON.stringify({ messages: [
      { role: "system", content: "You verify claims." }, { role: "user", content: "Verify statement 7." }] }))))
      .toBe("Prompt: Verify statement 7.");
    expect(nodeCaption(node("LlmCall", "llm_call:p", "gpt-5"))).toBe("Model call · gpt-5");
    expect(nodeCaption(node("ToolCall", "tool_call:p", "read_transcript_range"))).toBe("Tool · read_transcript_range");
    expect(nodeCaption(node("A2ATask", "task:task-verify-fact-checker", null))).toBe("Task · verify fact checker");
    expect(nodeCaption(node("A2ATaskState", "task_state:task-verify-fact-checker:1760518875700:old", "working")))
      .toBe("verify fact checker: working (before)");
    expect(nodeCaption(node("A2AMessageProcessing", "message_processing:m-35", null))).toBe("Handling message m-35");
    expect(nodeCaption(node("Artifact", "artifact:x", "a2ap:VerificationResponse"))).toBe("Artifact · Verification response");
    expect(nodeCaption(node("AgentRuntimeInstance", "agent_instance:c3", "fact-checker"))).toBe("Agent run · fact-checker");
    // A claim is its text.
    expect(nodeCaption(node("Statement", "urn:uuid:s", "The council  tabled\nthe amendment."))).toBe("The council tabled the amendment.");
    expect(nodeCaption(node("Widget", "w:1", null))).toBe("Widget");
  });

  it("reads agent names and chat turns out of ids and JSON", () => {
    expect(agentFromId("urn:agent:civic-fact-checker-1.2")).toBe("Civic Fact Checker");
    expect(agentFromId("urn:agent:gpt-5")).toBe("Gpt 5");
    expect(agentFromId("urn:agent:claude-4.5-sonnet-20241022")).toBe("Claude 4.5 Sonnet");
    expect(spokenText('["one", "two"]')).toBe("one two");
    expect(spokenText("{not json")).toBe("{not json");
  });
});

describe("label wrapping", () => {
  const claim = "The council tabled the parks budget amendment until its November 4 meeting.";

  it("wraps a claim's whole text to three lines at most, ellipsis only past them", () => {
    const lines = wrapLines(mono, claim, 180, 3); // 30 characters a line
    expect(lines.length).toBeLessThanOrEqual(3);
    expect(lines.join(" ")).toBe(claim);
    for (const l of lines) expect(mono.measureText(l).width).toBeLessThanOrEqual(180);
    const cut = wrapLines(mono, claim, 60, 3);
    expect(cut).toHaveLength(3);
    expect(cut[2].endsWith("…")).toBe(true);
    expect(mono.measureText(cut[2]).width).toBeLessThanOrEqual(60);
  });

  it("cuts a word longer than a line", () => {
    const lines = wrapLines(mono, "x".repeat(30), 60, 5);
    expect(lines).toEqual(["x".repeat(10), "x".repeat(10), "x".repeat(10)]);
  });

  it("widens a label only as far as its whole text needs", () => {
    const w = balancedWrap(mono, claim, 100, 400, 3);
    expect(w.whole).toBe(true);
    expect(w.lines.length).toBeLessThanOrEqual(3);
    // Narrower than one line of everything, and no wider than needed by a step.
    expect(w.width).toBeLessThan(mono.measureText(claim).width);
    expect(balancedWrap(mono, claim, 30, 60, 3).whole).toBe(false);
    expect(balancedWrap(mono, "Short", 100, 400, 3)).toEqual({ lines: ["Short"], width: 30, whole: true });
  });

  it("never places two labels over each other", () => {
    const placed = new PlacedRects();
    expect(placed.take(100, 100, 50, 20)).toBe(true);
    expect(placed.take(180, 100, 40, 10)).toBe(false);
    expect(placed.take(200, 100, 40, 10)).toBe(true);
    expect(placed.take(100, 141, 50, 20)).toBe(true);
    placed.clear();
    expect(placed.take(180, 100, 40, 10)).toBe(true);
  });
});
