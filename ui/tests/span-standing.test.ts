// A span that failed headlines it as a claim that fails does: a ✗ badge on the canvas (not
// the neutral ring an unknown standing gets), and a "Failed" line first on its hover card.

import { describe, expect, it } from "vitest";
import { Status, badgeCode } from "../src/canvas/style";
import { cardLines } from "../src/canvas-area/hover-card";
import { spanStandingLine } from "../src/traces/span-standing";
import { node } from "./helpers";

describe("a failed span's standing", () => {
  it("draws the failing badge", () => {
    expect(badgeCode({ status: null, standing: "failed" })).toBe(Status.Bad);
    expect(badgeCode({ status: null, standing: null })).toBe(Status.None);
  });

  it("leads its hover card", () => {
    const span = node("otel:t:1", 0, { label: "ToolCall", base_type: "ProvActivity", text: "execute_tool fetch_report", standing: "failed" });
    expect(cardLines(span).lines).toEqual(["✗ Failed: it reported an error", "execute_tool fetch_report"]);
    expect(cardLines({ ...span, standing: undefined }).lines).toEqual(["execute_tool fetch_report"]);
    expect(spanStandingLine("verified")).toBeNull();
  });
});
