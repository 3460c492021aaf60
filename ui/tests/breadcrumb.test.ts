// The breadcrumb (ui/breadcrumb.ts): graph › claim or conversation › node.
// @vitest-environment jsdom

import { describe, expect, it } from "vitest";
import type { ViewNode } from "../src/api/contract";
import { Breadcrumb, shortName } from "../src/shell/breadcrumb";

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
    expect(items).toEqual(["council", `Claim: ${shortName(claim, 40)}`, "Verification: 9"]);
    expect(b.el.querySelector('[aria-current="location"]')?.getAttribute("data-id")).toBe("urn:v:9");
    (b.el.querySelector('[data-testid="crumb-claim"]') as HTMLButtonElement).click();
    (b.el.querySelector('[data-testid="crumb-graph"]') as HTMLButtonElement).click();
    expect(calls).toEqual(["select urn:s:1", "fit"]);
  });

  it("shows a conversation for runtime nodes, and hides with no selection", () => {
    const b = new Breadcrumb({ fitView: () => {}, select: () => {} });
    b.render("run", node("msg-1", "Message", { context: "ctx-42", text: "hello" }), null);
    expect([...b.el.querySelectorAll("li")].map((li) => li.textContent)).toEqual(["run", "Conversation ctx-42", "Message: hello"]);
    b.render("run", null, null);
    expect(b.el.hidden).toBe(true);
  });

  it("shortens long names with an ellipsis", () => {
    expect(shortName(node("a", "X", { text: "x".repeat(100) }), 10)).toBe(`${"x".repeat(9)}…`);
    expect(shortName(node("urn:agent:gpt-5", "Agent"))).toBe("gpt-5");
  });
});
