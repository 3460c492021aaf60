// A knowledge-graph resource's statements (docs/FORMATS.md, “Knowledge-graph statements”): each one with its
// predicate, object, certainty and provenance, current or not, and its history: which agent
// added or removed it, when, why, and the update's verification status.

import type { ResourceKnowledge, StatementChange, StatementHistory } from "../api/contract";
import { h } from "../shared/dom";

interface Kg {
  subject?: { id?: string };
  predicate?: { id?: string };
  object?: { id?: string | null; value?: unknown; type?: string | null };
  graph?: string | null;
  certainty?: number | null;
  provenance?: Record<string, unknown> | null;
}

/** The object of a statement as text: a resource id, or a quoted literal with its type. */
export function objectText(s: Kg): string {
  const o = s.object ?? {};
  if (o.id) return o.id;
  const v = typeof o.value === "string" ? `“${o.value}”` : JSON.stringify(o.value ?? null);
  return o.type ? `${v} (${o.type})` : v;
}

/** When, in the reader's words (UTC, to the second). */
function when(t: string | null): string {
  if (!t) return "at an unknown time";
  const d = new Date(t);
  return Number.isNaN(d.getTime()) ? t : `${d.toISOString().slice(0, 19).replace("T", " ")} UTC`;
}

function change(c: StatementChange): HTMLElement {
  const who = c.sourceAgentId ?? "an unnamed agent";
  const verdict = c.verificationStatus ?? "unverified";
  return h("li", { class: `kg-change kg-${c.change}`, testid: "kg-change", "data-change": c.change },
    h("span", { class: `pill pill-small ${c.change === "added" ? "tone-positive" : "tone-negative"}` }, c.change),
    " ", h("strong", null, who), ` ${when(c.time)}`,
    c.justification ? h("span", { class: "kg-why" }, ` — “${c.justification}”`) : null,
    h("span", { class: "muted" }, ` · ${verdict}`),
    c.taskId || c.sessionId ? h("span", { class: "muted" }, ` · ${[c.taskId && `task ${c.taskId}`, c.sessionId && `session ${c.sessionId}`].filter(Boolean).join(", ")}`) : null);
}

const CHANGED: Record<string, string> = { add: "just added", remove: "just removed", replace: "just replaced" };

function statement(resource: string, st: StatementHistory, changed: string | undefined): HTMLElement {
  const s = st.statement as Kg;
  const asObject = s.subject?.id !== resource;
  const certainty = typeof s.certainty === "number" ? s.certainty : null;
  const provenance = s.provenance && Object.keys(s.provenance).length
    ? Object.entries(s.provenance).map(([k, v]) => `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`).join(" · ")
    : null;
  // A statement replaced by another is shown "just replaced" only if it is the new one.
  const note = changed === "replace" && !st.current ? "just removed" : changed ? CHANGED[changed] ?? changed : null;
  return h("li", { class: `kg-statement${st.current ? "" : " kg-old"}${note ? " kg-live" : ""}`, testid: "kg-statement", "data-id": st.id, "data-current": String(st.current), "data-live": changed ?? null },
    h("div", { class: "kg-triple" },
      asObject ? h("span", { class: "kg-subject" }, s.subject?.id ?? "?") : null,
      h("span", { class: "kg-predicate" }, s.predicate?.id ?? "?"),
      h("span", { class: "kg-object" }, asObject ? resource : objectText(s)),
      st.current ? null : h("span", { class: "pill pill-small tone-neutral", title: "Removed or replaced; kept as history" }, "no longer current"),
      note ? h("span", { class: "pill pill-small tone-info", testid: "kg-live", title: "Changed while you were looking (knowledge subscription)" }, note) : null),
    h("div", { class: "kg-meta muted" },
      certainty !== null ? h("span", { testid: "kg-certainty" }, `certainty ${certainty.toFixed(2)}`) : h("span", null, "no certainty given"),
      s.graph ? ` · graph ${s.graph}` : "",
      provenance ? ` · ${provenance}` : ""),
    h("ol", { class: "kg-history" }, st.changes.map(change)));
}

/** The resource's statements, current ones first, each with its history; `changed` marks
 *  those the live stream reported changed since the resource was opened (id → op). */
export function knowledgeSection(k: ResourceKnowledge, changed: ReadonlyMap<string, string> = new Map()): HTMLElement {
  const current = k.statements.filter((s) => s.current).length;
  return h("section", { class: "knowledge", testid: "knowledge" },
    h("h3", null, `Statements (${current} current, ${k.statements.length - current} in history)`),
    k.statements.length === 0
      ? h("p", { class: "muted" }, "No statement names this resource.")
      : h("ul", { class: "kg-statements" }, k.statements.map((s) => statement(k.resource, s, changed.get(s.id)))));
}
