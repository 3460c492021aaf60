// The reasoning view: one TrustGraph session's chain over the canvas, from
// its question to the answer (or the step picked), each step a card (reasoning-step.ts),
// with the dialog (thoughts, observations, answer text) beside it. The statements a step
// draws on sit under it and open their trail, so the chain reads answer → reasoning →
// retrieved statements → evidence. While a session streams in, the reasoning panel tells the
// view to reload; it marks the step the session is on ("latest") and the steps that arrived.

import type { Backend } from "../api/backend";
import type { CrossLink, ReasoningChain } from "../api/contract";
import type { SelectFn } from "../shared/host";
import { KIND_NAME, dialogByStep, linksByStep, statusText, statusTone, stepsAfterQuestion, stepsText, when } from "./chain";
import { STANDING_TEXT, asStanding, isBroken } from "../trail/standing";
import { h, replace } from "../shared/dom";
import { dialogTitle, stepCard } from "./reasoning-step";
import { errorState } from "../shared/error-state";

/** What the reasoning view needs of the app. */
export interface ReasoningViewHost {
  readonly backend: Pick<Backend, "reasoning">;
  readonly graph: string | null;
  select: SelectFn;
  /** A linked statement was clicked: show its trail (other nodes: select them). */
  openLink(link: CrossLink): Promise<void>;
  /** "Show on graph": the chain alone on the canvas (without it: the step selected). */
  showChain?(chain: ReasoningChain): void;
}

export class ReasoningView {
  readonly el = h("section", { class: "reasoning-view", testid: "reasoning-view", role: "region", "aria-label": "Reasoning chain", hidden: true });
  private title = h("h2", { class: "reasoning-heading", tabindex: "-1", testid: "reasoning-heading" }, "Reasoning");
  private question = h("p", { class: "reasoning-question", testid: "reasoning-question" });
  private sub = h("p", { class: "reasoning-sub", testid: "reasoning-summary" });
  private note = h("p", { class: "reasoning-note", testid: "reasoning-note", "aria-live": "polite", hidden: true });
  private steps = h("ol", { class: "reasoning-steps", testid: "reasoning-steps", "aria-label": "Steps, from the question to the answer" });
  private chainWrap = h("div", { class: "reasoning-chain", tabindex: "-1" }, this.steps);
  private dialog = h("aside", { class: "reasoning-dialog", testid: "reasoning-dialog", "aria-label": "Dialog" });
  /** The chain shown. */
  data: ReasoningChain | null = null;
  /** What was asked for: a step's id (the chain runs to it) or, following, the session's. */
  private target: string | null = null;
  /** Following: the chain runs to the session's latest step (a session opened from the list). */
  private follow = false;
  private currentLink: string | null = null;
  private pointed = new Set<string>();
  private fresh = new Set<string>();
  private token = 0;
  /** Told when the view opens, closes or shows another session (the list marks it). */
  onChange: (() => void) | null = null;
  /** Told when the view opens (another overlay closes). */
  onOpen: (() => void) | null = null;

  constructor(private readonly app: ReasoningViewHost) {
    replace(this.el,
      h("header", { class: "reasoning-head" },
        h("div", { class: "reasoning-titles" }, this.title, this.question, this.sub),
        h("div", { class: "row reasoning-controls" },
          h("button", { class: "btn", testid: "reasoning-show-node", title: "Close this and show the chain alone on the graph, laid out from the question down", onclick: () => this.showOnGraph() }, "Show on graph"),
          h("button", { class: "btn", testid: "reasoning-close", title: "Close the reasoning chain (Esc)", onclick: () => this.close() }, "Close"))),
      this.note,
      h("div", { class: "reasoning-main" }, this.chainWrap, this.dialog));
  }

  get isOpen(): boolean {
    return !this.el.hidden;
  }

  /** The session shown (null when closed or before its first load). */
  get session(): string | null {
    return this.isOpen ? this.data?.session ?? null : null;
  }

  /** Opens the chain to step `id` (an answer, conclusion, any Explain node); with `follow`,
   *  `id` is a session's and the chain runs to wherever the session is. `point`: links the
   *  walkthrough points at; `current`: the one whose trail is shown. */
  async open(id: string, opts: { follow?: boolean; point?: readonly string[]; current?: string | null } = {}): Promise<void> {
    const another = this.target !== id;
    this.el.hidden = false;
    this.onOpen?.();
    this.target = id;
    this.follow = opts.follow ?? false;
    this.pointed = new Set(opts.point ?? []);
    if (another || opts.current !== undefined) this.currentLink = opts.current ?? null;
    if (another) {
      if (!this.data || !this.data.chain.some((s) => s.id === id)) {
        this.data = null;
        this.sub.textContent = "Loading…";
        this.question.textContent = "";
        replace(this.steps);
        replace(this.dialog, h("p", { class: "muted" }, "Loading the reasoning…"));
      }
    }
    this.onChange?.();
    await this.load(false);
    this.title.focus({ preventScroll: true });
    // The links pointed at under the last step that has them (the answer's).
    if (this.pointed.size) [...this.el.querySelectorAll<HTMLElement>(".rlink.pointed")].pop()?.scrollIntoView?.({ block: "center" });
  }

  close(): void {
    this.token++;
    this.el.hidden = true;
    this.data = null;
    this.target = null;
    this.currentLink = null;
    this.pointed = new Set();
    this.onChange?.();
  }

  /** New steps may have arrived: reload, marking the new ones and the latest. */
  async refresh(): Promise<void> {
    if (this.isOpen && this.target) await this.load(true);
  }

  private async load(marking: boolean): Promise<void> {
    const graph = this.app.graph, id = this.target;
    if (!graph || !id) return;
    const token = ++this.token;
    let c: ReasoningChain;
    try {
      c = await this.app.backend.reasoning({ graph, id });
      // Following a session: on to the step it is on.
      if (this.follow && c.latest && !c.chain.some((s) => s.id === c.latest)) c = await this.app.backend.reasoning({ graph, id: c.latest });
    } catch (e) {
      if (token !== this.token) return;
      if (marking && this.data) return; // keep what is shown; the next batch tries again
      this.sub.textContent = "";
      replace(this.steps);
      replace(this.dialog, errorState("load this reasoning chain", e, () => void this.load(false)));
      return;
    }
    if (token !== this.token) return;
    const before = new Set(this.data?.chain.map((s) => s.id) ?? []);
    this.fresh = marking && this.data ? new Set(c.chain.filter((s) => !before.has(s.id)).map((s) => s.id)) : new Set();
    const another = this.data?.session !== c.session;
    this.data = c;
    this.render();
    if (another) this.onChange?.();
  }

  private render(): void {
    const c = this.data;
    if (!c) return;
    const inChain = c.latest !== null && c.chain.some((s) => s.id === c.latest);
    this.title.textContent = "Reasoning";
    this.question.textContent = c.question ? `“${c.question}”` : "(the question has not arrived yet)";
    const tone = statusTone(c.status);
    const started = c.chain[0]?.properties["prov:startedAtTime"];
    // Counted as the session list counts them: the steps after the question.
    const n = stepsAfterQuestion(c.chain);
    // An answer that rests on a failing claim headlines that first (the worst thing true of it).
    const rests = asStanding(c.standing);
    replace(this.sub,
      rests && isBroken(rests) ? h("span", { class: "pill pill-small tone-negative session-standing", testid: "reasoning-standing", "data-standing": rests },
        `✗ Draws on a claim that fails: ${STANDING_TEXT[rests].toLowerCase()}`) : null,
      rests && isBroken(rests) ? " " : null,
      h("span", { class: `pill pill-small tone-${tone} session-status`, testid: "reasoning-status", "data-status": c.status }, statusText(c.status)),
      h("span", { class: "muted", testid: "reasoning-step-count", "data-steps": String(n) }, ` ${KIND_NAME[c.kind] ?? "session"} · ${stepsText(n)}${typeof started === "string" ? ` · asked ${when(started)}` : ""}`));
    if (!inChain && c.latest) {
      replace(this.note, "The session has gone on past the step shown. ",
        h("button", { class: "btn btn-small", testid: "reasoning-follow", onclick: () => void this.open(c.session, { follow: true }) }, "Follow it to its latest step"));
      this.note.hidden = false;
    } else {
      this.note.hidden = true;
    }
    const dialog = dialogByStep(c.chain, c.dialog);
    const links = linksByStep(c);
    this.steps.dataset.latest = c.latest ?? "";
    replace(this.steps, c.chain.map((s, i) => stepCard(s, {
      index: i + 1, latest: s.id === c.latest && c.status === "running", selected: s.id === c.selected && s.id !== c.session, fresh: this.fresh.has(s.id),
      dialog: dialog.get(s.id) ?? [], links: links.get(s.id) ?? [], currentLink: this.currentLink, pointed: this.pointed,
      openLink: (l) => void this.openLink(l),
    })));
    if (this.fresh.size) this.steps.querySelector<HTMLElement>(".rstep.latest, .rstep.fresh")?.scrollIntoView?.({ block: "nearest" });
    this.fresh = new Set();
    replace(this.dialog,
      h("h3", null, `Dialog (${c.dialog.length})`),
      c.dialog.length === 0 ? h("p", { class: "muted" }, "No dialog recorded for this session.") : null,
      h("ol", { class: "dialog-lines" }, c.dialog.map((d) => h("li", { class: `dialog-line dialog-${d.kind}`, testid: "dialog-line", "data-kind": d.kind, "data-seq": String(d.seq) },
        h("div", { class: "dialog-head" },
          h("strong", null, dialogTitle(d.kind)),
          d.model || d.in_token !== null || d.out_token !== null
            ? h("span", { class: "muted" }, [d.model, d.in_token !== null || d.out_token !== null ? `${d.in_token ?? "?"} in · ${d.out_token ?? "?"} out tokens` : null].filter(Boolean).join(" · "))
            : null),
        h("p", { class: "dialog-text" }, d.content ?? "")))));
  }

  private async openLink(l: CrossLink): Promise<void> {
    this.currentLink = l.id;
    for (const b of this.el.querySelectorAll<HTMLElement>(".rlink")) {
      const on = b.dataset.id === l.id;
      b.classList.toggle("current", on);
      b.setAttribute("aria-pressed", String(on));
    }
    await this.app.openLink(l);
  }

  private showOnGraph(): void {
    const chain = this.data;
    const id = chain?.selected ?? this.target;
    this.close();
    if (chain && this.app.showChain) this.app.showChain(chain);
    else if (id) void this.app.select(id, { focus: true, from: "panel" });
  }
}
