// One step of a reasoning chain as a card: its kind and what it did, its
// thought, tool and pretty-printed arguments, observation or answer text, durations, tokens
// and model, a failed tool marked as such, GraphRAG's grounding concepts, explored edge count
// and selected edges with their reasoning and score, and, under it, the statements (or other
// sources' nodes) it names, each opening that node's trail. Built by reasoning-view.ts.

import type { CrossLink, DialogLine, ReasoningStep } from "../api/contract";
import {
  facts, inlineText, prop, props, selectedChunks, selectedEdges, stepKind, stepTitle, toolOf, when,
} from "./chain";
import { STANDING_TEXT, asStanding, standingIcon, standingTone } from "../trail/standing";
import { h } from "../shared/dom";

export interface StepCardOptions {
  /** 1-based position in the chain. */
  index: number;
  latest: boolean;
  selected: boolean;
  fresh: boolean;
  dialog: readonly DialogLine[];
  links: readonly CrossLink[];
  /** The link being read (its trail open), marked. */
  currentLink: string | null;
  /** Links the walkthrough points at. */
  pointed: ReadonlySet<string>;
  openLink(link: CrossLink): void;
}

const DIALOG_TITLE: Record<string, string> = { thought: "Thought", observation: "Observation", answer: "Answer", error: "Error" };

/** A dialog line's kind as a heading word. */
export function dialogTitle(kind: string): string {
  return DIALOG_TITLE[kind] ?? kind;
}

/** Short form of an IRI for display: its last path or fragment part. */
export function shortIri(iri: string): string {
  const m = /[#/:]([^#/:]+)\/?$/.exec(iri);
  return m ? m[1] : iri;
}

export function stepCard(step: ReasoningStep, o: StepCardOptions): HTMLElement {
  const kind = stepKind(step);
  const tool = toolOf(step);
  const thoughtParts = step.parts.filter((p) => stepKind(p) === "thought");
  const edges = selectedEdges(step);
  const chunks = selectedChunks(step);
  const concepts = props(step, "tg:concept");
  const query = kind === "question" ? prop(step, "tg:query") : "";
  const started = prop(step, "prov:startedAtTime");
  const error = prop(step, "tg:toolError");
  const own = inlineText(step);
  const thoughtText = thoughtParts.map((p) => inlineText(p)).filter(Boolean);
  const titleId = `rstep-title-${o.index}`;
  return h("li", {
    class: `rstep kind-${kind}${step.failed ? " failed" : ""}${o.latest ? " latest" : ""}${o.selected ? " selected" : ""}${o.fresh ? " fresh" : ""}${step.placeholder ? " placeholder" : ""}`,
    testid: "reasoning-step", "data-id": step.id, "data-kind": kind, "data-failed": String(step.failed),
    "aria-current": o.latest ? "step" : undefined, "aria-labelledby": titleId,
  },
  h("div", { class: "rstep-head" },
    h("span", { class: "rstep-num", "aria-hidden": "true" }, String(o.index)),
    h("h3", { class: "rstep-title", id: titleId, testid: "reasoning-step-title" }, stepTitle(step)),
    step.failed ? h("span", { class: "pill pill-small tone-negative", testid: "reasoning-failed" }, "✗ tool failed") : null,
    o.latest ? h("span", { class: "pill pill-small rstep-latest-badge", testid: "reasoning-latest" }, "latest") : null,
    h("span", { class: "spacer" }),
    started ? h("span", { class: "rstep-time muted" }, when(started)) : null),
  h("p", { class: "rstep-id muted", title: step.id }, step.types.length ? `${step.types.join(" · ")} — ` : "", shortIri(step.id)),
  query ? h("blockquote", { class: "rstep-question", testid: "reasoning-question-text" }, query) : null,
  own && !query ? h("p", { class: "rstep-text" }, own) : null,
  thoughtText.map((t) => h("p", { class: "rstep-thought" }, h("strong", null, "Thought: "), t)),
  o.dialog.map((d) => h("div", { class: `rstep-dialog dialog-${d.kind}`, testid: "reasoning-step-dialog", "data-kind": d.kind },
    h("strong", null, `${dialogTitle(d.kind)}: `), d.content ?? "")),
  tool ? h("div", { class: "rstep-tool", testid: "reasoning-tool" },
    h("p", null,
      h("span", { class: "muted" }, "Tool "), h("code", { testid: "reasoning-tool-name" }, tool.action || "?"),
      tool.candidates.length > 1 ? h("span", { class: "muted" }, ` chosen from ${tool.candidates.join(", ")}`) : null),
    tool.args ? h("pre", { class: "rstep-args", testid: "reasoning-arguments", tabindex: 0, "aria-label": "Tool arguments (JSON)" }, tool.args) : null) : null,
  error ? h("p", { class: "rstep-error", testid: "reasoning-tool-error" }, h("strong", null, "Tool error: "), error) : null,
  concepts.length ? h("div", { class: "rstep-concepts" }, h("span", { class: "muted" }, "Grounding concepts: "),
    h("span", { class: "chips" }, concepts.map((c) => h("span", { class: "chip chip-muted", testid: "reasoning-concept" }, c)))) : null,
  edges.length ? h("div", { class: "rstep-edges" },
    h("h4", null, `Selected edges (${edges.length})`),
    h("ol", { class: "rstep-edge-list" }, edges.map((e) => h("li", { testid: "reasoning-edge" },
      h("span", { class: "rstep-triple" }, h("code", null, shortIri(e.s)), " —", h("em", null, shortIri(e.p)), "→ ", h("code", null, shortIri(e.o))),
      e.score !== null ? h("span", { class: "pill pill-small tone-neutral", title: "Relevance score" }, `score ${e.score.toFixed(2)}`) : null,
      e.reasoning ? h("p", { class: "rstep-why" }, e.reasoning) : null)))) : null,
  chunks.length ? h("div", { class: "rstep-edges" },
    h("h4", null, `Selected chunks (${chunks.length})`),
    h("ul", { class: "rstep-edge-list" }, chunks.map((c) => h("li", { testid: "reasoning-chunk", title: c.id },
      h("code", null, shortIri(c.label)), c.score !== null ? h("span", { class: "pill pill-small tone-neutral" }, `score ${c.score.toFixed(2)}`) : null)))) : null,
  factList(step),
  step.placeholder ? h("p", { class: "muted" }, "Another step names this one; it has not been recorded yet.") : null,
  o.links.length ? h("div", { class: "rstep-links", testid: "reasoning-links" },
    h("h4", null, `Draws on ${o.links.length} ${o.links.every((l) => l.label === "Statement") ? `claim${o.links.length === 1 ? "" : "s"}` : `node${o.links.length === 1 ? "" : "s"} of other sources`}`,
      h("span", { class: "rstep-links-hint" }, " · open one to see its evidence")),
    h("ul", null, o.links.map((l) => h("li", null,
      h("button", {
        class: `rlink${l.id === o.currentLink ? " current" : ""}${o.pointed.has(l.id) ? " pointed" : ""}`, testid: "reasoning-link",
        "data-id": l.id, "data-label": l.label, "aria-pressed": String(l.id === o.currentLink),
        title: l.label === "Statement" ? "Show this claim's evidence, signatures and consensus (its trail)" : `Show this ${l.label} on the graph`,
        onclick: () => o.openLink(l),
      },
      h("span", { class: "chip chip-label" }, l.label === "Statement" ? "Claim" : l.label),
      standingPill(l.standing),
      h("span", { class: "rlink-text" }, l.text ? `“${l.text}”` : shortIri(l.id)),
      h("span", { class: "rlink-go", "aria-hidden": "true" }, "→")))))) : null);
}

/** A claim's standing as a pill (icon and word), or nothing. */
export function standingPill(standing: string | null | undefined): HTMLElement | null {
  const s = asStanding(standing);
  if (!s) return null;
  return h("span", { class: `pill pill-small rlink-standing tone-${standingTone(s)}`, testid: "reasoning-link-standing", "data-standing": s },
    `${standingIcon(s)} ${STANDING_TEXT[s]}`);
}

function factList(step: ReasoningStep): HTMLElement | null {
  const f = facts(step);
  if (f.length === 0) return null;
  return h("dl", { class: "rstep-facts", testid: "reasoning-facts" },
    f.map(([k, v]) => h("div", { class: "rstep-fact", "data-fact": k }, h("dt", null, k), h("dd", null, v))));
}
