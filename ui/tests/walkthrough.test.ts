// The walkthrough steps built from trails.

import { describe, expect, it } from "vitest";
import { buildSteps } from "../src/walkthrough/steps";
import { verdictVerb } from "../src/trail/labels";
import { trail, verification } from "./helpers";

const names = new Map([
  ["urn:agent:gpt-5", "GPT-5"],
  ["urn:agent:claude", "Claude"],
  ["urn:agent:checker", "Civic Fact Checker"],
]);

const evidence = (time: string | null) => ({
  chunk_id: `c-${time}`, quote: "q", byte_range: { start: 0, end: 1 }, timestamp: time ? { start: time, end: time } : null,
  document: { id: "d", title: null, available: true, source: null, source_name: null, source_url: null },
  status: "match" as const,
});

describe("walkthrough steps", () => {
  it("tells a claim, its verifications in time order, then its consensus", () => {
    const t = trail("s1", {
      claim: { text: "The bike lane pilot starts in March 2026.", confidence: 0.7, content_hash: null, generation_method: null },
      evidence: [evidence("00:04:30")],
      verifications: [
        // Given out of order: the later one first.
        verification("v2", "urn:agent:checker", { verdict: "CHALLENGED", confidence: 0.88, time: "2025-10-15T09:01:05Z", consensus_after: 0.31, verified_after: false }),
        verification("v1", "urn:agent:claude", { verdict: "VALIDATED", confidence: 0.62, time: "2025-10-15T09:00:38Z", consensus_after: 0.62, verified_after: false }),
      ],
      consensus: 0.31, verified: false, threshold: 0.7,
    });
    const steps = buildSteps([t], names);
    expect(steps.map((s) => [s.kind, s.nodeId])).toEqual([
      ["claim", "s1"], ["verification", "v1"], ["verification", "v2"], ["consensus", "s1"],
    ]);
    expect(steps.every((s) => s.statementId === "s1")).toBe(true);
    expect(steps[0].caption).toBe("GPT-5 claims “The bike lane pilot starts in March 2026.”, citing 00:04:30");
    expect(steps[1].caption).toBe("Claude confirms it (confidence 0.62) — consensus now 0.62");
    expect(steps[2].caption).toBe("Civic Fact Checker challenges it (confidence 0.88) — consensus now 0.31");
    expect(steps[3].caption).toContain("0.31");
    expect(steps[3].caption).toContain("not verified");
    expect(steps[3].caption).toContain("0.70");
  });

  it("orders claims by generation time and lists each cited time once", () => {
    const late = trail("late", { generated_at: "2025-10-15T09:00:43Z", evidence: [evidence("00:03:44"), evidence("00:04:06")] });
    const early = trail("early", { generated_at: "2025-10-15T09:00:09Z", evidence: [evidence("00:01:15"), evidence("00:02:36"), evidence("00:01:15")] });
    const steps = buildSteps([late, early], names).filter((s) => s.kind === "claim");
    expect(steps.map((s) => s.statementId)).toEqual(["early", "late"]);
    expect(steps[0].caption).toMatch(/citing 00:01:15 and 00:02:36$/);
    expect(steps[1].caption).toMatch(/citing 00:03:44 and 00:04:06$/);
  });

  it("says when a verification was not counted and that the consensus did not move", () => {
    const t = trail("s", {
      verifications: [
        verification("ok", "urn:agent:claude", { time: "2025-10-15T09:00:21Z", consensus_after: 0.94 }),
        verification("forged", "urn:agent:mallory", {
          time: "2025-10-15T09:01:17Z", verdict: "VALIDATED", confidence: 0.97, signature: "invalid",
          counted: false, excluded_reason: "signature invalid", consensus_after: 0.94,
        }),
      ],
      consensus: 0.94, verified: true, standing: "verified",
    });
    const [, , forged, end] = buildSteps([t], names);
    // Unknown agents fall back to their id without the urn prefix.
    expect(forged.caption).toBe("mallory confirms it (confidence 0.97) — not counted: signature invalid; consensus stays 0.94");
    expect(end.caption).toMatch(/0\.94.*: verified$/);
  });

  it("never calls a claim verified when its signature or quote fails, whatever its consensus", () => {
    const t = trail("s", {
      signature: "invalid",
      evidence: [{ chunk_id: "c", quote: "q", byte_range: { start: 0, end: 1 }, timestamp: { start: "00:00:34", end: "00:00:40" },
        document: { id: "d", title: null, available: true, source: null, source_name: null, source_url: null }, status: "mismatch", reasons: [] }],
      verifications: [verification("v1", "urn:agent:claude", { consensus_after: 0.9 }), verification("v2", "urn:agent:checker", { consensus_after: 0.89 })],
      consensus: 0.89, verified: true, standing: "invalid_signature",
    });
    const steps = buildSteps([t], names);
    expect(steps[0].caption).toContain("— but its signature is invalid and a quote does not match the transcript");
    const end = steps[steps.length - 1];
    expect(end.kind).toBe("consensus");
    expect(end.caption).toBe("Consensus 0.89 against a threshold of 0.70: reached, but not verified: invalid signature (its signature is invalid and a quote does not match the transcript)");
    expect(end.caption).not.toMatch(/: verified$/);
  });

  it("handles a claim nobody has verified and one without evidence", () => {
    const steps = buildSteps([trail("lonely")], names);
    expect(steps.map((s) => s.kind)).toEqual(["claim", "consensus"]);
    expect(steps[0].caption).toContain("citing no evidence");
    expect(steps[1].caption).toContain("No agent has verified it yet");
  });

  it("words verdicts", () => {
    expect(verdictVerb("VALIDATED")).toBe("confirms");
    expect(verdictVerb("challenged")).toBe("challenges");
    expect(verdictVerb("REJECTED")).toBe("rejects");
    expect(verdictVerb("PARTIAL")).toBe("answers partial to");
  });
});
