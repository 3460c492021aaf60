// The trail's verified-log badge: the claim and each of its verifications checked against the
// graph's log in the browser (./verify.ts), summed up in one badge whose title says what held.

import type { Backend } from "../api/backend";
import type { Trail } from "../api/contract";
import { h } from "../shared/dom";
import { verifyNode, type Verdict } from "./verify";
import "./log.css";

export interface TrailBadgeHost {
  readonly backend: Pick<Backend, "logInclusion">;
  readonly graph: string | null;
}

const TEXT: Record<Verdict["result"] | "checking", string> = {
  checking: "Log: checking…",
  verified: "✓ Log verified",
  failed: "✗ Log check failed",
  partial: "Log: partly verified",
  absent: "Not in the log",
};

/** How long a trail's check is reused when the trail is drawn again (live changes redraw it). */
const REUSE_MS = 60_000;
const checked = new Map<string, { at: number; done: Promise<{ result: Verdict["result"]; title: string }> }>();

/** A badge that checks the trail's claim and verifications against the log once shown. */
export function trailLogBadge(host: TrailBadgeHost, t: Trail, now = Date.now()): HTMLElement {
  const badge = h("span", { class: "badge log-badge", testid: "trail-log-badge", "data-log": "checking", role: "status" }, TEXT.checking);
  const graph = host.graph;
  if (!graph) return badge;
  const ids = [t.statement_id, ...t.verifications.map((v) => v.verification_id)];
  const key = `${graph}\n${ids.join("\n")}`;
  let entry = checked.get(key);
  if (!entry || now - entry.at > REUSE_MS) {
    entry = { at: now, done: check(host, graph, ids) };
    checked.set(key, entry);
    if (checked.size > 200) checked.delete(checked.keys().next().value as string);
  }
  void entry.done.then(({ result, title }) => {
    badge.dataset.log = result;
    badge.textContent = TEXT[result];
    badge.title = title;
  });
  return badge;
}

async function check(host: TrailBadgeHost, graph: string, ids: string[]): Promise<{ result: Verdict["result"]; title: string }> {
  const lines: string[] = [];
  const results: Array<Verdict["result"]> = [];
  for (const id of ids) {
    let v: Verdict;
    try {
      v = await verifyNode(await host.backend.logInclusion({ graph, id }));
    } catch (e) {
      v = { result: "partial", checks: [{ what: "inclusion", ok: null, text: `not read: ${e instanceof Error ? e.message : String(e)}` }] };
    }
    results.push(v.result);
    const bad = v.checks.filter((c) => c.ok !== true).map((c) => c.text);
    lines.push(`${id}: ${v.result}${bad.length ? ` (${bad.join(" ")})` : ""}`);
  }
  const result: Verdict["result"] = results.includes("failed") ? "failed"
    : results.every((r) => r === "absent") ? "absent"
      : results.some((r) => r !== "verified") ? "partial" : "verified";
  return { result, title: `The claim and its ${ids.length - 1} verification(s), checked in this browser against the graph's signed log:\n${lines.join("\n")}` };
}
