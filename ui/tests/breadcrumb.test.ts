// The breadcrumb (ui/breadcrumb.ts): graph › claim or conversation › node.
// @vitest-environment jsdom

import { describe, expect, it } from "vitest";
import type { ViewNode } from "../src/api/contract";
import { Breadcrumb, crumbName, shortName } from "../src/shell/breadcrumb";

const node = (id: string, label: string, extra: Partial<ViewNode> = {}): ViewNode =>
  ({ id, label, text: null, context: null, ...extra } as unknown as ViewNode);

describe("breadcrumb", () => {
  it("shows graph › claim › node for a node of a claim's trail; the crumbs act", () => {
    const calls: string[] = [];
    const b = new Breadcrumb({ fitView: () => calls.push("fit"), select: (id) => calls.push(`select ${id}`) });
    const claim = node("urn:s:1", "Statement", { text: "The council approved the parks budget amendment on a 4-3 vote." });
    b.render("council", node("urn:v:9", "Verification"), claim);
    expect(b.el.hidden).toBe(false);
    const items = [...b.el.querySelectorAll("li")].map((li) => li.textContent);
    expect(items).toEqual(["council", `Claim: ${shortName(claim, 40)}`, "? Verification"]);
    expect(b.el.querySelector('[aria-current="location"]')?.getAttribute("data-id")).toBe("urn:v:9");
    (b.el.querySelector('[data-testid="crumb-claim"]') as HTMLButtonElement).click();
    (b.el.querySelector('[data-testid="crumb-graph"]') as HTMLButtonElement).click();
    expect(calls).toEqual(["select urn:s:1", "fit"]);
  });

  it("shows a conversation for runtime nodes, and hides with no selection", () => {
    const b = new Breadcrumb({ fitView: () => {}, select: () => {} });
    b.render("run", node("msg-1", "Message", { context: "ctx-42", text: "hello" }), null);
    expect([...b.el.querySelectorAll("li")].map((li) => li.textContent)).toEqual(["run", "Conversation ctx-42", "Message: hello"]);
    b.render("run", node("task:task-plan-trip", "A2ATask", { context: "urn:uuid:5857aaae-2c8e-4c1b-9d7e-0123456789ab" }), null);
    expect([...b.el.querySelectorAll("li")].map((li) => li.textContent)).toEqual(["run", "Conversation 5857aaae…", "Task · plan trip"]);
    b.render("run", null, null);
    expect(b.el.hidden).toBe(true);
  });

  it("shortens long names with an ellipsis", () => {
    expect(shortName(node("a", "X", { text: "x".repeat(100) }), 10)).toBe(`${"x".repeat(9)}…`);
    expect(shortName(node("urn:agent:gpt-5", "Agent"))).toBe("gpt-5");
  });

  it("names a node as the canvas does, never by a bare id", () => {
    const verification = node("urn:uuid:0b5e4c1e-93a7-4f0e-8a55-2f1c1d3e4b5a", "Verification", { text: "CHALLENGED", agent: "urn:agent:civic-fact-checker-1.2" });
    expect(crumbName(verification)).toBe("✗ Challenged · Civic Fact Checker");
    expect(crumbName(verification, (id) => (id === "urn:agent:civic-fact-checker-1.2" ? "Riverton Fact Desk" : undefined))).toBe("✗ Challenged · Riverton Fact Desk");
    expect(crumbName(node("urn:uuid:0b5e4c1e-93a7-4f0e-8a55-2f1c1d3e4b5a", "Verification", { text: "VALIDATED", agent: "urn:agent:x", status: "invalid" })))
      .toBe("✗ Forged: Validated · X");
    expect(crumbName(node("urn:s:1", "Statement", { text: "The council approved it." }))).toBe("Claim: The council approved it.");
    expect(crumbName(node("urn:agent:gpt-5", "Agent"))).toBe("Agent: Gpt 5");
    const b = new Breadcrumb({ fitView: () => {}, select: () => {} });
    b.render("council", verification, node("urn:s:1", "Statement", { text: "A claim." }));
    const crumb = b.el.querySelector('[data-testid="crumb-node"]')!;
    expect(crumb.textContent).toBe("✗ Challenged · Civic Fact Checker");
    expect(crumb.textContent).not.toMatch(/[0-9a-f]{8}-/);
  });
});
