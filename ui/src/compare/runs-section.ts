// What a comparison means for the runs the graphs' OpenTelemetry spans record, shown after
// the claims part: two runs of the same agent have other trace and span ids, so the diff
// matches their calls by what they are (operation, tool, agent, model, order) and says which
// calls, messages, tool arguments and results, and agents differ (docs/FORMATS.md
// "OpenTelemetry traces"; README "provex diff").

import type { CallDiff, TraceDiff } from "../api/contract";
import { h } from "../shared/dom";
import { CHANGE_GLYPH, type Change } from "./diff-overlay";
import "./runs.css";

/** How a call stands between the runs. */
export function callChange(c: CallDiff): Change | null {
  if (c.a === null) return "added";
  if (c.b === null) return "removed";
  return c.changes.length > 0 ? "changed" : null;
}

/** The headline: "same calls, 1 message differs, tool get_weather result differs, …". */
export function runsHeadline(t: TraceDiff): string {
  const only = (f: (c: CallDiff) => boolean) => t.calls.filter(f).length;
  const onlyA = only((c) => c.b === null), onlyB = only((c) => c.a === null);
  const changed = only((c) => callChange(c) === "changed");
  const parts: string[] = [];
  parts.push(onlyA + onlyB === 0 ? (changed === 0 ? "same calls" : `same calls, ${changed} differ`)
    : `${onlyA} call${onlyA === 1 ? "" : "s"} only in A, ${onlyB} only in B, ${changed} differ`);
  const msgs = Math.max(t.messages.only_a.length, t.messages.only_b.length);
  parts.push(msgs === 0 ? "same messages" : `${msgs} message${msgs === 1 ? "" : "s"} differ${msgs === 1 ? "s" : ""}`);
  for (const tool of t.tools) parts.push(`tool ${tool.tool} ${tool.changes.join(" and ")}${tool.changes.some((c) => c.startsWith("only")) ? "" : " differs"}`);
  for (const a of t.agents.only_a) parts.push(`agent ${a} only in A`);
  for (const a of t.agents.only_b) parts.push(`agent ${a} only in B`);
  return parts.join(", ");
}

/** The last step of a call's path, the rest being its ancestors. */
function lastStep(path: string): string {
  const i = path.lastIndexOf(" / ");
  return i < 0 ? path : path.slice(i + 3);
}

/** The section; `show(node)` selects a span when the drawn graph has it (else returns false). */
export function runsSection(t: TraceDiff, names: { a: string, b: string }, canShow: (node: string) => boolean, show: (node: string) => void): HTMLElement {
  const differing = t.calls.filter((c) => callChange(c) !== null);
  const ids = (s: { traces: string[] }) => s.traces.map((x) => x.slice(0, 8)).join(", ") || "none";
  // A side named by its trace already ("trace 1b2ee718") is not named twice.
  const side = (name: string, s: TraceDiff["a"]) => `${name}${name.includes(ids(s)) ? "" : `, trace ${ids(s)}`} (${s.spans} spans)`;
  return h("section", { class: "compare-runs", testid: "compare-runs", "aria-label": "What changed between the runs" },
    h("h3", null, "Runs"),
    h("p", { class: "runs-headline", testid: "runs-headline" }, runsHeadline(t)),
    h("p", { class: "muted" }, `A: ${side(names.a, t.a)} · B: ${side(names.b, t.b)} · ${t.calls.length - differing.length} of ${t.calls.length} calls alike`),
    differing.length === 0 ? null : h("ul", { class: "runs-calls", testid: "runs-calls" }, differing.map((c) => {
      const change = callChange(c) as Change;
      const node = c.b ?? c.a;
      const drawn = [c.b, c.a].find((n): n is string => n !== null && canShow(n)) ?? null;
      const what = change === "changed" ? c.changes.join(", ") + " changed" : change === "added" ? "only in B" : "only in A";
      return h("li", { "data-change": change, "data-path": c.path },
        h("span", { class: "diff-glyph", "data-change": change, "aria-hidden": "true" }, CHANGE_GLYPH[change]),
        h("button", { class: "run-call", disabled: drawn === null, title: drawn ? "Show the span" : "Not in the drawn graph", onclick: () => { if (drawn) show(drawn); } },
          h("span", { class: "run-step" }, lastStep(c.path)),
          h("span", { class: "run-what" }, ` — ${what}`),
          c.status_a !== c.status_b && change === "changed" ? h("span", { class: "run-status" }, ` (status ${c.status_a ?? "—"} → ${c.status_b ?? "—"})`) : null,
          node && c.path.includes(" / ") ? h("span", { class: "run-path muted" }, c.path.slice(0, c.path.lastIndexOf(" / "))) : null));
    })),
    t.tools.length === 0 ? null : h("div", { class: "runs-tools", testid: "runs-tools" }, t.tools.map((tool) =>
      h("div", { class: "run-tool", "data-tool": tool.tool },
        h("p", null, h("strong", null, tool.tool), ` — ${tool.changes.join(", ")}`),
        tool.arguments_a !== tool.arguments_b ? values("arguments", tool.arguments_a, tool.arguments_b) : null,
        tool.result_a !== tool.result_b ? values("result", tool.result_a, tool.result_b) : null))),
    t.messages.only_a.length + t.messages.only_b.length === 0 ? null : h("div", { class: "runs-messages", testid: "runs-messages" },
      h("p", null, `Messages: ${t.messages.shared} shared, ${t.messages.only_a.length} only in A, ${t.messages.only_b.length} only in B`),
      h("ul", null,
        t.messages.only_a.map((m) => message("removed", m.role, m.text)),
        t.messages.only_b.map((m) => message("added", m.role, m.text)))),
    h("p", { class: "runs-agents", testid: "runs-agents" },
      `Agents: ${t.agents.shared.length} in both`,
      t.agents.only_a.length ? `; only in A: ${t.agents.only_a.join(", ")}` : "",
      t.agents.only_b.length ? `; only in B: ${t.agents.only_b.join(", ")}` : ""));
}

function values(what: string, a: string | null, b: string | null): HTMLElement {
  return h("div", { class: "run-values", "data-what": what },
    h("span", { class: "muted" }, `${what}: `),
    h("code", { class: "before" }, a ?? "(none)"), " → ", h("code", { class: "after" }, b ?? "(none)"));
}

function message(change: Change, role: string | null, text: string): HTMLElement {
  return h("li", { "data-change": change },
    h("span", { class: "diff-glyph", "data-change": change, "aria-hidden": "true" }, CHANGE_GLYPH[change]),
    h("span", null, h("span", { class: "run-role" }, `${role ?? "message"}: `), text));
}
