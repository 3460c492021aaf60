// The claims at a glance: each claim's verdict in words and its problems, problems first, and
// the overview's rows as the Details tab shows them while nothing is selected.

import { describe, expect, it, vi } from "vitest";
import type { Trail } from "../src/api/contract";
import { ClaimsOverview, byConcern, summarise, type ClaimsHost } from "../src/details/claims";
import { node, trail, verification } from "./helpers";

const names = new Map([["urn:agent:claude", "Claude"], ["urn:agent:checker", "Civic Fact Checker"]]);

function mismatch(start: string) {
  return {
    chunk_id: "c", quote: "q", byte_range: { start: 0, end: 1 }, timestamp: { start, end: start },
    document: { id: "d", title: null, available: true, source: null, source_name: null, source_url: null },
    status: "mismatch" as const, reasons: ["quote differs"],
  };
}

describe("summarise", () => {
  it("says a verified claim is verified, by how many, against the threshold", () => {
    const s = summarise(trail("s1", {
      verifications: [verification("v1", "urn:agent:claude"), verification("v2", "urn:agent:checker")],
      consensus: 0.89, verified: true, standing: "verified", threshold: 0.7,
    }), names);
    expect(s).toMatchObject({ tone: "positive", icon: "✓", verdict: "Verified by 2 agents (consensus 0.89, needs 0.70)", flags: [] });
  });

  it("names the agents that challenged a claim", () => {
    const s = summarise(trail("s1", {
      verifications: [verification("v1", "urn:agent:checker", { verdict: "CHALLENGED" }), verification("v2", "urn:agent:claude")],
      consensus: 0.31, standing: "challenged",
    }), names);
    expect(s.tone).toBe("negative");
    expect(s.icon).toBe("✗");
    expect(s.verdict).toBe("Challenged by Civic Fact Checker (consensus 0.31, needs 0.70)");
  });

  it("does not count a challenge that was not counted", () => {
    const s = summarise(trail("s1", {
      verifications: [verification("v1", "urn:agent:checker", { verdict: "CHALLENGED", counted: false, signature: "invalid" })],
    }), names);
    expect(s.verdict).toBe("Not settled (consensus 0.00, needs 0.70)");
    expect(s.flags).toEqual(["Forged verification: Civic Fact Checker's signature does not match (not counted)."]);
  });

  it("flags an altered quote, the claim's own bad signature and untrusted verifiers, and headlines the worst of them", () => {
    const s = summarise(trail("s1", {
      signature: "invalid",
      evidence: [mismatch("00:00:34")],
      verifications: [verification("v1", "urn:agent:claude"), verification("v2", "urn:agent:x", { signature: "untrusted_key", counted: false })],
      consensus: 0.9, verified: true, standing: "invalid_signature",
    }), names);
    expect(s.flags).toEqual([
      "The claim's own signature: signature invalid.",
      "A quote at 00:00:34 does not match the transcript.",
      "x's verification: untrusted key (not counted).",
    ]);
    // Verified by consensus, but never headlined so: the invalid signature comes first.
    expect(s.tone).toBe("negative");
    expect(s.icon).toBe("✗");
    expect(s.verdict).toBe("Invalid signature, and a quote does not match the transcript (consensus 0.90, needs 0.70: not counted while the claim fails)");
    expect(s.verdict).not.toMatch(/verified by/i);
  });

  it("headlines a quote mismatch over a verified consensus", () => {
    const s = summarise(trail("s1", { evidence: [mismatch("00:00:34")], verifications: [verification("v1", "a")], consensus: 0.9, verified: true, standing: "quote_mismatch" }));
    expect(s).toMatchObject({ tone: "negative", icon: "✗", verdict: "Quote does not match (consensus 0.90, needs 0.70: not counted while the claim fails)" });
  });

  it("says when nobody has verified a claim yet", () => {
    expect(summarise(trail("s1"))).toMatchObject({ tone: "neutral", icon: "?", verdict: "Not verified yet" });
  });

  it("orders by problems, then challenged, unsettled, verified", () => {
    const ok = summarise(trail("ok", { verifications: [verification("v", "a")], verified: true, consensus: 0.9, standing: "verified" }));
    const challenged = summarise(trail("ch", { verifications: [verification("v", "a", { verdict: "CHALLENGED" })], standing: "challenged" }));
    const open = summarise(trail("open"));
    const flagged = summarise(trail("bad", { signature: "invalid", verified: true, standing: "invalid_signature", verifications: [verification("v", "a")] }));
    expect([ok, open, challenged, flagged].sort(byConcern).map((s) => s.id)).toEqual(["bad", "ch", "open", "ok"]);
  });
});

describe("ClaimsOverview", () => {
  function host(trails: Record<string, Trail | Error>): ClaimsHost & { opened: string[]; asked: string[] } {
    const nodes = new Map(Object.keys(trails).map((id, i) => [id, node(id, i, { label: "Statement" })]));
    nodes.set("other", node("other", 99, { label: "Chunk" }));
    const h = {
      graph: "g",
      model: { nodes },
      names,
      opened: [] as string[],
      asked: [] as string[],
      resolveNames: vi.fn(async () => undefined),
      trailOf: async (_graph: string, id: string) => {
        h.asked.push(id);
        const t = trails[id];
        if (t instanceof Error) throw t;
        return t;
      },
      openClaim: (id: string) => { h.opened.push(id); },
    };
    return h;
  }

  it("lists every claim, the troubled ones first, and opens the one clicked", async () => {
    const app = host({
      good: trail("good", { claim: { text: "All is well.", confidence: null, content_hash: null, generation_method: null }, verifications: [verification("v", "urn:agent:claude")], verified: true, consensus: 0.9, standing: "verified" }),
      bad: trail("bad", { claim: { text: "The motion carried.", confidence: null, content_hash: null, generation_method: null }, evidence: [mismatch("00:01:02")], standing: "quote_mismatch" }),
    });
    const o = new ClaimsOverview(app);
    expect(o.hasClaims()).toBe(true);
    await o.load();
    expect(app.asked.sort()).toEqual(["bad", "good"]);
    expect(o.el.querySelector('[data-testid="claims-headline"]')?.textContent).toBe("1 of 2 claims needs attention");
    const rows = [...o.el.querySelectorAll<HTMLButtonElement>('[data-testid="claim-row"]')];
    expect(rows.map((r) => r.dataset.id)).toEqual(["bad", "good"]);
    expect(rows[0].textContent).toContain("A quote at 00:01:02 does not match the transcript.");
    expect(rows[1].textContent).toContain("✓ Verified by 1 agent (consensus 0.90, needs 0.70)");
    rows[1].click();
    expect(app.opened).toEqual(["good"]);
  });

  it("reads the trails once while the graph is unchanged, and says which could not be read", async () => {
    const app = host({ a: trail("a"), b: new Error("boom") });
    const o = new ClaimsOverview(app);
    await o.load();
    await o.load();
    expect(app.asked.length).toBe(2);
    expect(o.el.textContent).toContain("One claim's trail could not be read");
    expect(o.el.querySelectorAll('[data-testid="claim-row"]').length).toBe(1);
  });

  it("shows nothing for a graph without claims", async () => {
    const app = host({});
    const o = new ClaimsOverview(app);
    expect(o.hasClaims()).toBe(false);
    await o.load();
    expect(o.el.childElementCount).toBe(0);
  });
});
