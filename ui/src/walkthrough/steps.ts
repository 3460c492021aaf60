// The demo walkthrough as a list of captioned steps, built from the trails of a graph's
// statements: each claim (and what fails in it), then each verification of it in time order,
// then its consensus and the claim's standing (never "verified" when its signature or quote fails);
// then each reasoning session that answered a question from those claims.
// Pure: the panel fetches the trails and plays the steps.

import type { ReasoningChain, Trail } from "../api/contract";
import { stepsAfterQuestion, stepsText } from "../reasoning/chain";
import { agentName, byTime, clip, score, verdictVerb } from "../trail/labels";
import { STANDING_TEXT, andList, failures } from "../trail/standing";

export interface Step {
  kind: "claim" | "verification" | "consensus" | "reasoning";
  /** The statement whose trail the step shows (a reasoning step: the first it drew on). */
  statementId: string | null;
  /** The node to select and focus. */
  nodeId: string;
  /** For verification steps. */
  verificationId: string | null;
  caption: string;
  /** For reasoning steps: the statements the answer's chain draws on, pointed at. */
  links?: string[];
}

/** Joins ["a","b","c"] as "a, b and c". */
function list(items: string[]): string {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}

export function claimCaption(trail: Trail, names?: ReadonlyMap<string, string>): string {
  const times = [...new Set(trail.evidence.map((e) => e.timestamp?.start).filter((t): t is string => !!t))];
  const citing = times.length > 0
    ? `citing ${list(times)}`
    : trail.evidence.length > 0 ? `citing ${trail.evidence.length} passage${trail.evidence.length === 1 ? "" : "s"}` : "citing no evidence";
  const fails = failures(trail);
  const but = fails.length ? ` — but ${andList(fails)}` : "";
  return `${agentName(trail.agent, names)} claims “${clip(trail.claim.text, 160)}”, ${citing}${but}`;
}

export function buildSteps(trails: Trail[], names?: ReadonlyMap<string, string>): Step[] {
  const steps: Step[] = [];
  for (const trail of byTime(trails, (t) => t.generated_at)) {
    const sid = trail.statement_id;
    steps.push({ kind: "claim", statementId: sid, nodeId: sid, verificationId: null, caption: claimCaption(trail, names) });
    let consensus: number | null = null;
    for (const v of byTime(trail.verifications, (x) => x.time)) {
      const who = agentName(v.agent, names);
      let caption = `${who} ${verdictVerb(v.verdict)} it (confidence ${score(v.confidence)})`;
      if (v.counted) {
        caption += ` — consensus now ${score(v.consensus_after)}`;
      } else {
        const why = v.excluded_reason ? `: ${v.excluded_reason}` : "";
        caption += ` — not counted${why}; consensus ${consensus === null ? "unchanged" : `stays ${score(consensus)}`}`;
      }
      consensus = v.consensus_after;
      steps.push({ kind: "verification", statementId: sid, nodeId: v.verification_id, verificationId: v.verification_id, caption });
    }
    // The outcome is the claim's standing, not the consensus alone: a claim whose signature
    // or quote fails is not verified whatever its consensus.
    const outcome = consensusOutcome(trail);
    const caption = trail.verifications.length === 0
      ? `No agent has verified it yet: consensus ${score(trail.consensus)}, ${outcome}`
      : `Consensus ${score(trail.consensus)} against a threshold of ${score(trail.threshold)}: ${outcome}`;
    steps.push({ kind: "consensus", statementId: sid, nodeId: sid, verificationId: null, caption });
  }
  return steps;
}

/** How a claim's consensus step ends: its standing in words. */
export function consensusOutcome(t: Trail): string {
  switch (t.standing) {
    case "verified": return "verified";
    case "unverified": return "not verified";
    case "challenged": return t.verified ? "reached, but challenged" : "challenged, not verified";
    default: {
      const why = andList(failures(t));
      return `${t.verified ? "reached, but " : ""}not verified: ${STANDING_TEXT[t.standing].toLowerCase()}${why ? ` (${why})` : ""}`;
    }
  }
}

/** The step for a reasoning session: the question, and the claims its answer draws on
 *  (it opens the answer's chain and points at them; the first one's trail shows). */
export function reasoningStep(c: ReasoningChain): Step {
  const statements = [...new Set(c.links.filter((l) => l.label === "Statement").map((l) => l.id))];
  const answer = c.chain[c.chain.length - 1];
  const q = clip(c.question ?? "", 120);
  const steps = stepsAfterQuestion(c.chain);
  const drawn = statements.length > 0
    ? `its answer draws on ${statements.length} of these claim${statements.length === 1 ? "" : "s"}: open one to see its evidence`
    : "its answer cites none of these claims";
  return {
    kind: "reasoning", statementId: statements[0] ?? null, nodeId: answer?.id ?? c.selected, verificationId: null, links: statements,
    caption: `A researcher asks an agent “${q}”${/[?.!]$/.test(q) ? "" : "."} Its reasoning takes ${stepsText(steps)}, and ${drawn}.`,
  };
}
