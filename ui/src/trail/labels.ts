// Words and formats shared by the trail, the walkthrough and the details: signature badges,
// verdict verbs, agent names, scores. Pure.

import type { SignatureStatus } from "../api/contract";

export const SIGNATURE_TEXT: Record<SignatureStatus, string> = {
  valid: "Signature valid",
  invalid: "Signature invalid",
  unknown_key: "Unknown key",
  untrusted_key: "Untrusted key",
  malformed: "Malformed signature",
  unsigned: "Unsigned",
};

export const SIGNATURE_HELP: Record<SignatureStatus, string> = {
  valid: "Signed by a trusted key; the document is unchanged since signing.",
  invalid: "The signature does not match the document: it was altered after signing, or forged.",
  unknown_key: "Signed with a key the registry does not know.",
  untrusted_key: "Signed with a key the registry knows but does not trust.",
  malformed: "The signature block cannot be read.",
  unsigned: "The document carries no signature.",
};

export function signatureText(status: string | null | undefined): string {
  if (!status) return "No signature status";
  return (SIGNATURE_TEXT as Record<string, string>)[status] ?? status;
}

/** The verb a verdict reads as in a sentence: "⟨agent⟩ confirms it". */
export function verdictVerb(verdict: string): string {
  switch (verdict.toUpperCase()) {
    case "VALIDATED":
    case "VALID":
    case "CONFIRMED":
    case "SUPPORTED":
    case "VERIFIED":
      return "confirms";
    case "CHALLENGED":
    case "DISPUTED":
      return "challenges";
    case "REJECTED":
    case "REFUTED":
    case "INVALIDATED":
      return "rejects";
    case "UNCERTAIN":
    case "INCONCLUSIVE":
    case "UNVERIFIABLE":
      return "cannot settle";
    default:
      return `answers ${verdict.toLowerCase()} to`;
  }
}

/** "positive" / "negative" / "neutral", for colouring a verdict. */
export function verdictTone(verdict: string): "positive" | "negative" | "neutral" {
  const v = verdictVerb(verdict);
  if (v === "confirms") return "positive";
  if (v === "challenges" || v === "rejects") return "negative";
  return "neutral";
}

/** An agent's name: from `names` (id → name) when known, else its id without the `urn:agent:` prefix. */
export function agentName(id: string, names?: ReadonlyMap<string, string>): string {
  const known = names?.get(id);
  if (known) return known;
  return id.replace(/^urn:agent:/, "");
}

export function score(x: number | null | undefined): string {
  return typeof x === "number" && Number.isFinite(x) ? x.toFixed(2) : "–";
}

/** Shortens text to `max` characters at a word boundary. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(" ");
  return `${space > max * 0.6 ? cut.slice(0, space) : cut}…`;
}

/** A node's short name for lists: its text, else its id. */
export function nodeTitle(n: { id: string; text?: string | null }, max = 80): string {
  const t = n.text?.trim();
  const s = t ? t : n.id;
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** Items sorted by an ISO time, stably; items without a time keep their input position. */
export function byTime<T>(items: T[], time: (t: T) => string | null): T[] {
  return items
    .map((item, i) => ({ item, i, t: time(item) }))
    .sort((a, b) => (a.t !== null && b.t !== null && a.t !== b.t ? (a.t < b.t ? -1 : 1) : a.i - b.i))
    .map((x) => x.item);
}
