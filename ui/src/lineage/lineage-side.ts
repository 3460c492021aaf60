// The side pane of the lineage view: the version picked (its text, where it
// came from and what came of it, with buttons to compare it), or two versions compared: the
// words deleted (struck, red, on A's side) and inserted (green, on B's side) next to each
// other, the confidence broken into its weighted parts, and the type the rule suggests.

import type { Comparison, EvolutionView, PromptView } from "../api/contract";
import { confidenceParts, diffCounts, diffSides, score, weight, type Segment } from "./version-diff";
import { edgeLabel, versionLabel, when } from "./tree-layout";
import { h } from "../shared/dom";
import { branchIcon } from "./lineage-tree";

/** What the version card can ask for. */
export interface VersionActions {
  compare(a: string, b: string): void;
  showOnGraph(id: string): void;
}

/** The card of one version: its text, its parents and children, and ways to compare it. */
export function versionCard(p: PromptView, prompts: readonly PromptView[], evolutions: readonly EvolutionView[], act: VersionActions): HTMLElement {
  const byId = new Map(prompts.map((x) => [x.id, x]));
  const name = (id: string) => { const x = byId.get(id); return x ? versionLabel(x) : id.slice(0, 8); };
  const from = evolutions.filter((e) => e.child === p.id);
  const into = evolutions.filter((e) => e.parent === p.id);
  const others = prompts.filter((x) => x.id !== p.id);
  const choice = h("select", { class: "input", testid: "lineage-compare-with", "aria-label": "Version to compare with" },
    others.map((x) => h("option", { value: x.id }, `${versionLabel(x)}${x.branch ? ` (${x.branch})` : ""}`)));
  const firstParent = from[0]?.parent;
  if (firstParent) choice.value = firstParent;
  const evo = (e: EvolutionView, other: string) => h("li", { "data-other": other },
    h("button", { class: "link", onclick: () => act.compare(e.parent, e.child), title: `Compare ${name(e.parent)} with ${name(e.child)}` }, name(other)),
    ` — ${edgeLabel(e)}${e.primary ? "" : " (merged in)"}`,
    e.reason ? h("span", { class: "muted" }, `: ${e.reason}`) : null);
  return h("div", { class: "lineage-version-card", testid: "lineage-version" },
    h("div", { class: "row" },
      h("h3", { class: "lineage-card-title" }, versionLabel(p)),
      p.is_head ? h("span", { class: "lineage-badge head" }, "HEAD") : null,
      p.is_root ? h("span", { class: "lineage-badge root" }, "root") : null,
      p.branch ? h("span", { class: "lineage-branch" }, branchIcon(), `branch ${p.branch}`) : null),
    h("p", { class: "meta" }, `Created ${when(p.timestamp, true)} · chain position ${p.chain_position}${p.model ? ` · model ${p.model}` : ""}`),
    from.length ? h("div", null, h("h4", null, from.length > 1 ? "Merged from" : "Evolved from"), h("ul", { class: "lineage-evos" }, from.map((e) => evo(e, e.parent)))) : null,
    into.length ? h("div", null, h("h4", null, "Evolved into"), h("ul", { class: "lineage-evos" }, into.map((e) => evo(e, e.child)))) : null,
    h("h4", null, "Prompt text"),
    h("blockquote", { class: "lineage-text", testid: "lineage-text" }, p.content ?? h("span", { class: "muted" }, "(no text stored)")),
    others.length === 0 ? h("p", { class: "hint" }, "This lineage has one version: nothing to compare it with yet.") : h("div", { class: "row lineage-actions" },
      h("label", null, "Compare with ", choice),
      h("button", { class: "btn btn-primary btn-small", testid: "lineage-compare-button", onclick: () => act.compare(p.id, choice.value) }, "Compare")),
    h("div", { class: "row lineage-actions" },
      h("button", { class: "btn btn-small", testid: "lineage-show-node", title: "Close the lineage and select this prompt on the graph", onclick: () => act.showOnGraph(p.id) }, "Show on the graph")),
    others.length ? h("p", { class: "hint" }, "Or Shift-click a second version in the tree.") : null);
}

function side(segments: Segment[], testid: string, head: string, tail: string): HTMLElement {
  return h("div", { class: "lineage-diff-side", testid },
    h("div", { class: "lineage-diff-head" }, h("strong", null, head), " ", h("span", { class: "muted" }, tail)),
    h("p", { class: "lineage-diff-text" }, segments.map((s) => s.kind === "del"
      ? h("del", { class: "diff-del", title: "deleted" }, s.text)
      : s.kind === "ins" ? h("ins", { class: "diff-ins", title: "inserted" }, s.text) : s.text)));
}

/** Two versions compared: A (older) on the left, B on the right. `stored`: the evolution
 *  recorded between them, if one is the other's parent. */
export function comparisonCard(a: PromptView, b: PromptView, c: Comparison, stored: EvolutionView | null, close: () => void): HTMLElement {
  const { parts, renormalised } = confidenceParts(c);
  const ops = c.diff ?? [];
  const { left, right } = diffSides(ops);
  const counts = diffCounts(ops);
  const num = (testid: string, v: number | null, text: string) => h("td", { class: "num", testid, "data-value": v === null ? "" : String(v) }, text);
  return h("div", { class: "lineage-compare", testid: "lineage-compare" },
    h("div", { class: "row lineage-compare-head" },
      h("h3", { class: "lineage-card-title" },
        h("span", { class: "lineage-pick pick-a" }, "A"), ` ${versionLabel(a)} → `, h("span", { class: "lineage-pick pick-b" }, "B"), ` ${versionLabel(b)}`),
      h("span", { class: "spacer" }),
      h("button", { class: "btn btn-small", testid: "lineage-compare-close", title: "Back to the version picked first", onclick: close }, "End comparison")),
    stored ? h("p", { class: "meta", testid: "lineage-stored" }, `Recorded evolution: ${edgeLabel(stored)}${stored.reason ? ` — ${stored.reason}` : ""}`)
      : h("p", { class: "meta" }, "No evolution is recorded directly between these two."),
    h("div", { class: "lineage-diff", testid: "lineage-diff" },
      side(left, "lineage-diff-left", `A · ${versionLabel(a)}`, counts.deleted ? `−${counts.deleted} word${counts.deleted === 1 ? "" : "s"}` : "nothing deleted"),
      side(right, "lineage-diff-right", `B · ${versionLabel(b)}`, counts.inserted ? `+${counts.inserted} word${counts.inserted === 1 ? "" : "s"}` : "nothing inserted")),
    h("h4", null, "Confidence"),
    h("table", { class: "lineage-breakdown", testid: "lineage-breakdown" },
      h("caption", { class: "sr-only" }, "How the confidence is made"),
      h("thead", null, h("tr", null, h("th", { scope: "col" }, "Part"), h("th", { scope: "col" }, "Score"), h("th", { scope: "col" }, "Weight"), h("th", { scope: "col" }, "Adds"))),
      h("tbody", null, parts.map((p) => h("tr", { "data-part": p.key },
        h("th", { scope: "row" }, p.name, h("span", { class: "muted lineage-what" }, ` ${p.what}`)),
        num(`lineage-${p.key.replace("_", "-")}`, p.value, p.value === null ? "unavailable" : score(p.value)),
        h("td", { class: "num" }, p.used === null ? h("s", null, weight(p.weight)) : renormalised ? `${weight(p.weight)} → ${weight(p.used)}` : weight(p.weight)),
        h("td", { class: "num" }, p.adds === null ? "—" : score(p.adds))))),
      h("tfoot", null, h("tr", null, h("th", { scope: "row", colspan: "3" }, "Confidence"), num("lineage-confidence", c.confidence, score(c.confidence))))),
    c.note ? h("p", { class: "hint", testid: "lineage-note" }, c.note) : null,
    c.suggested_type ? h("p", { class: "lineage-suggested" }, "Suggested type: ", h("strong", { testid: "lineage-suggested" }, c.suggested_type),
      c.suggestion_rule ? h("span", { class: "muted lineage-rule" }, ` (rule: ${c.suggestion_rule})`) : null) : null);
}

