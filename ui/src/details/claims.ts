// The claims at a glance: what the Details tab shows while nothing is selected in a
// graph of signed claims. One row per claim, problems first, each headlined by its standing
// (the worst thing true of it: a bad signature or quote before any consensus) in words and an
// icon (never colour alone), and what is wrong with it: a challenge, a quote that does not
// match its transcript, a forged or untrusted signature. A click selects the claim.

import type { Trail } from "../api/contract";
import type { GraphModel } from "../graph/model";
import type { AgentNames } from "../shared/host";
import { agentName, clip, signatureText, verdictTone } from "../trail/labels";
import { brokenHeadline, standingIcon, standingTone, type Tone } from "../trail/standing";
import { h, replace } from "../shared/dom";

/** Claims summarised at most (each costs a trail request); the rest are counted. */
export const MAX_CLAIMS = 40;
/** Trail requests in flight at once. */
const PARALLEL = 4;
/** After the graph changes, read the trails again at most this often. */
const SETTLE_MS = 1000;

export type { Tone };

/** One claim's verdict and problems, in words. */
export interface ClaimSummary {
  id: string;
  text: string;
  tone: Tone;
  /** ✓, ✗ or ?: the verdict's shape, beside its colour. */
  icon: string;
  verdict: string;
  /** What is wrong, one sentence each (empty: nothing). */
  flags: string[];
}

/** The verdict and problems of a claim, from its trail. */
export function summarise(t: Trail, names?: ReadonlyMap<string, string>): ClaimSummary {
  const who = (id: string) => agentName(id, names);
  const flags: string[] = [];
  if (t.signature !== "valid") flags.push(`The claim's own signature: ${signatureText(t.signature).toLowerCase()}.`);
  for (const ev of t.evidence) {
    if (ev.status === "mismatch") {
      const at = ev.timestamp ? ` at ${ev.timestamp.start}` : "";
      flags.push(`A quote${at} does not match the transcript.`);
    }
  }
  for (const v of t.verifications) {
    if (v.signature === "invalid") flags.push(`Forged verification: ${who(v.agent)}'s signature does not match (not counted).`);
    else if (v.signature !== "valid") flags.push(`${who(v.agent)}'s verification: ${signatureText(v.signature).toLowerCase()} (not counted).`);
  }
  const challengers = t.verifications.filter((v) => v.counted && verdictTone(v.verdict) === "negative").map((v) => who(v.agent));
  const counted = t.verifications.filter((v) => v.counted).length;
  const consensus = `consensus ${t.consensus.toFixed(2)}, needs ${t.threshold.toFixed(2)}`;
  // The headline is the claim's standing, the worst thing true of it (computed by the core).
  const standing = t.standing;
  const tone: Tone = standingTone(standing);
  const icon = standingIcon(standing);
  let verdict: string;
  if (standing === "challenged") {
    verdict = challengers.length > 0 ? `Challenged by ${challengers.join(", ")} (${consensus})` : `Challenged (${consensus})`;
  } else if (standing === "verified") {
    verdict = `Verified by ${counted} agent${counted === 1 ? "" : "s"} (${consensus})`;
  } else if (standing === "unverified") {
    verdict = t.verifications.length === 0 ? "Not verified yet" : `Not settled (${consensus})`;
  } else {
    verdict = `${brokenHeadline(t)} (${consensus}${t.verified ? ": not counted while the claim fails" : ""})`;
  }
  return { id: t.statement_id, text: t.claim.text, tone, icon, verdict, flags };
}

/** Problems first (most first), then by tone (failing, unsettled, verified); ties keep graph order. */
export function byConcern(a: ClaimSummary, b: ClaimSummary): number {
  const rank = (s: ClaimSummary) => (s.tone === "negative" ? 0 : s.tone === "neutral" ? 1 : 2);
  return b.flags.length - a.flags.length || rank(a) - rank(b);
}

/** What the overview needs of the app. */
export interface ClaimsHost extends AgentNames {
  readonly graph: string | null;
  readonly model: Pick<GraphModel, "nodes">;
  /** The trail of a claim of `graph`. */
  trailOf(graph: string, statementId: string): Promise<Trail>;
  openClaim(statementId: string): void;
}


export class ClaimsOverview {
  readonly el = h("section", { class: "claims-overview", testid: "claims-overview", "aria-label": "Claims in this graph" });
  private token = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private shownFor = "";

  constructor(private readonly app: ClaimsHost) {}

  /** The claims the open graph has, in arrival order. */
  private claimIds(): string[] {
    const ids: string[] = [];
    for (const n of this.app.model.nodes.values()) if (n.label === "Statement") ids.push(n.id);
    return ids;
  }

  /** Whether the open graph has claims to summarise. */
  hasClaims(): boolean {
    for (const n of this.app.model.nodes.values()) if (n.label === "Statement") return true;
    return false;
  }

  /** Another graph is being opened: the last one's claims go at once, and answers about
   *  them that come late are dropped. */
  reset(): void {
    this.token += 1;
    this.shownFor = "";
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    replace(this.el);
  }

  /** The graph changed: read the trails again once it settles (if anything is shown). */
  changed(): void {
    if (this.timer !== null) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.el.isConnected) void this.load();
    }, SETTLE_MS);
  }

  /** Reads the claims' trails and shows them (a no-op when they are shown and unchanged). */
  async load(force = false): Promise<void> {
    const ids = this.claimIds();
    const graph = this.app.graph;
    const key = `${graph}|${ids.length}|${this.app.model.nodes.size}`;
    if (!force && key === this.shownFor) return;
    this.shownFor = key;
    const token = ++this.token;
    if (ids.length === 0 || !graph) {
      replace(this.el);
      return;
    }
    if (!this.el.firstChild) replace(this.el, h("p", { class: "muted" }, `Checking ${ids.length} claims…`));
    const wanted = ids.slice(0, MAX_CLAIMS);
    const trails: Array<Trail | null> = new Array(wanted.length).fill(null);
    let next = 0;
    let failed = 0;
    const worker = async () => {
      while (next < wanted.length) {
        const i = next++;
        try {
          trails[i] = await this.app.trailOf(graph, wanted[i]);
        } catch {
          failed += 1;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(PARALLEL, wanted.length) }, worker));
    if (token !== this.token || graph !== this.app.graph) return;
    const got = trails.filter((t): t is Trail => t !== null);
    await this.app.resolveNames(got.flatMap((t) => [t.agent, ...t.verifications.map((v) => v.agent)])).catch(() => undefined);
    if (token !== this.token || graph !== this.app.graph) return;
    this.render(got.map((t) => summarise(t, this.app.names)).sort(byConcern), ids.length, failed);
  }

  private render(rows: ClaimSummary[], total: number, failed: number): void {
    const troubled = rows.filter((r) => r.flags.length > 0 || r.tone === "negative").length;
    const head = troubled > 0
      ? `${troubled} of ${total} claim${total === 1 ? "" : "s"} need${troubled === 1 ? "s" : ""} attention`
      : `All ${total} claims checked out`;
    replace(this.el,
      h("h3", null, "Claims in this graph"),
      h("p", { class: "muted", testid: "claims-headline" }, head),
      h("ul", { class: "claims-list" }, rows.map((r) => h("li", null,
        h("button", {
          class: "claim-row", testid: "claim-row", "data-id": r.id, "data-tone": r.tone,
          title: "Select this claim", onclick: () => this.app.openClaim(r.id),
        },
        h("span", { class: "claim-row-text" }, clip(r.text, 110)),
        h("span", { class: `claim-verdict tone-${r.tone}` }, h("span", { "aria-hidden": "true" }, `${r.icon} `), r.verdict),
        r.flags.length ? h("ul", { class: "claim-flags" }, r.flags.map((f) => h("li", null, h("span", { "aria-hidden": "true" }, "⚠ "), f))) : null)))),
      total > rows.length + failed ? h("p", { class: "muted" }, `${total - rows.length - failed} more: search for them ( / ).`) : null,
      failed ? h("p", { class: "error-text" }, `${failed === 1 ? "One claim's trail" : `${failed} claims' trails`} could not be read; select the claim to see why.`) : null);
  }
}
