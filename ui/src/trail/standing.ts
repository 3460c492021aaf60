// A claim's standing in words (docs/FORMATS.md "Standing"): the headline the claims list, the
// trail, the hover card, the canvas badge and the walkthrough all lead with, so that a claim
// whose signature or quote fails never reads "verified" whatever its consensus. The standing
// itself is computed once, in the core; this only says it. Pure.

import type { Standing, Trail } from "../api/contract";

export type Tone = "positive" | "negative" | "neutral";

/** The standing as a short headline. */
export const STANDING_TEXT: Record<Standing, string> = {
  invalid_signature: "Invalid signature",
  unknown_signer: "Unknown signer",
  unsigned: "Unsigned",
  claim_mismatch: "Claim altered",
  quote_mismatch: "Quote does not match",
  challenged: "Challenged",
  unverified: "Not verified",
  verified: "Verified",
};

/** What the standing means, one sentence. */
export const STANDING_HELP: Record<Standing, string> = {
  invalid_signature: "The claim's own signature does not hold: it was altered after signing, or forged. No consensus makes it verified.",
  unknown_signer: "The claim is signed with a key the registry does not trust for its agent. No consensus makes it verified.",
  unsigned: "The claim carries no signature. No consensus makes it verified.",
  claim_mismatch: "The claim's text is not what its content hash says. No consensus makes it verified.",
  quote_mismatch: "A quote it cites does not match its source document. No consensus makes it verified.",
  challenged: "A verifier whose verification counts challenges it.",
  unverified: "Its consensus is below the threshold.",
  verified: "Its signature, its quotes and its consensus all hold.",
};

const KNOWN = new Set<string>(Object.keys(STANDING_TEXT));

/** A standing read from the wire (null for none or one this UI does not know). */
export function asStanding(s: string | null | undefined): Standing | null {
  return s && KNOWN.has(s) ? (s as Standing) : null;
}

/** Whether the claim itself fails (signature, claim hash or quote): worse than any consensus. */
export function isBroken(s: Standing): boolean {
  return s === "invalid_signature" || s === "unknown_signer" || s === "unsigned" || s === "claim_mismatch" || s === "quote_mismatch";
}

export function standingTone(s: Standing): Tone {
  switch (s) {
    case "verified": return "positive";
    case "invalid_signature": case "claim_mismatch": case "quote_mismatch": case "challenged": return "negative";
    default: return "neutral";
  }
}

/** ✓, ✗ or ?: the standing's shape, beside its colour. */
export function standingIcon(s: Standing): string {
  const tone = standingTone(s);
  return tone === "positive" ? "✓" : tone === "negative" ? "✗" : "?";
}

/** What fails in the claim itself, worst first: "its signature is invalid", "a quote does not
 *  match the transcript" (empty when nothing does). */
export function failures(t: Trail): string[] {
  const parts: string[] = [];
  switch (t.signature) {
    case "valid": break;
    case "invalid": parts.push("its signature is invalid"); break;
    case "malformed": parts.push("its signature cannot be read"); break;
    case "unknown_key": case "untrusted_key": parts.push("its signer's key is not trusted"); break;
    default: parts.push("it is not signed");
  }
  if (t.problems.some((p) => p.code === "claim_hash_mismatch")) parts.push("its text is not what its hash says");
  const bad = t.evidence.filter((e) => e.status === "mismatch").length;
  if (bad > 0) parts.push(bad === 1 ? "a quote does not match the transcript" : `${bad} quotes do not match the transcript`);
  return parts;
}

/** Joins ["a","b","c"] as "a, b and c". */
export function andList(items: readonly string[]): string {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}

/** A failing claim's headline: its standing, then what else fails ("Invalid signature, and a
 *  quote does not match the transcript"). */
export function brokenHeadline(t: Trail): string {
  const rest = failures(t).slice(1);
  return `${STANDING_TEXT[t.standing]}${rest.length ? `, and ${andList(rest)}` : ""}`;
}
