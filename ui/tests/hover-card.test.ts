// Hover cards (ui/hover-card.ts): a node's essentials, its status in a mark and words.
// @vitest-environment jsdom

import { describe, expect, it } from "vitest";
import type { ViewNode } from "../src/api/contract";
import { HoverCard, cardLines } from "../src/canvas-area/hover-card";

const claim = {
  id: "urn:s:1", label: "Statement", base_type: "ProvEntity", text: "The  council approved\\nthe budget.",
  agent: "urn:agent:gpt-5", status: "invalid", context: null,
} as unknown as ViewNode;

describe("hover card", () => {
  it("says what the node is, what it says, who made it and its signature status", () => {
    const { title, lines } = cardLines(claim, new Map([["urn:agent:gpt-5", "GPT-5"]]));
    expect(title).toBe("Statement · Entity");
    expect(lines).toEqual(["The council approved\\nthe budget.", "By GPT-5", "✗ signature invalid"]);
    expect(cardLines({ ...claim, status: "valid", agent: null, text: "x".repeat(300) }).lines[1]).toBe("✓ signature valid");
    expect(cardLines({ ...claim, text: "x".repeat(300) }).lines[0]).toHaveLength(160);
  });

  it("leads with a claim's standing, the worst thing true of it", () => {
    const parking = { ...claim, status: "invalid", standing: "invalid_signature" } as ViewNode;
    expect(cardLines(parking).lines[0]).toBe("✗ Invalid signature");
    expect(cardLines({ ...claim, status: "valid", standing: "quote_mismatch" }).lines[0]).toBe("✗ Quote does not match");
    expect(cardLines({ ...claim, status: "valid", standing: "verified" }).lines[0]).toBe("✓ Verified");
    expect(cardLines(parking).lines.join(" ")).not.toMatch(/\bverified\b/i);
  });

  it("shows beside the point and hides", () => {
    const card = new HoverCard();
    card.show(claim, { x: 100, y: 50 }, 800, 600);
    expect(card.el.hidden).toBe(false);
    expect(card.el.dataset.id).toBe("urn:s:1");
    expect(card.el.getAttribute("role")).toBe("tooltip");
    card.show(null, null, 800, 600);
    expect(card.el.hidden).toBe(true);
  });
});
