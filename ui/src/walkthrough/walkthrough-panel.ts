// The Walkthrough tab: tells a demo graph's story one step at a time (each claim, each
// verification of it, its consensus), selecting and focusing each step's node and showing
// its claim's trail underneath; then each research question answered from those claims,
// opening its reasoning chain and pointing at the claims it drew on. Steps come from
// steps.ts.

import type { Backend } from "../api/backend";
import type { Trail } from "../api/contract";
import type { GraphModel } from "../graph/model";
import type { AgentNames, Notifier, SelectFn } from "../shared/host";
import { h, replace } from "../shared/dom";
import { reason } from "../shared/error-state";
import { buildSteps, reasoningStep, type Step } from "./steps";
import type { ReasoningView } from "../reasoning/reasoning-view";
import type { TrailView } from "../trail/trail-view";

const AUTOPLAY_MS = 4500;
const STALE_TEXT = "New claims arrived: rebuild";

/** What the walkthrough needs of the app. */
export interface WalkthroughHost extends AgentNames {
  readonly graph: string | null;
  readonly model: Pick<GraphModel, "nodes" | "byArrival">;
  readonly toasts: Notifier;
  readonly backend: Pick<Backend, "sessions" | "reasoning">;
  select: SelectFn;
}

/** Sessions the walkthrough tells at most. */
const MAX_SESSIONS = 3;

/** The shared trail view: the walkthrough reads trails through it and shows each step's. */
export type WalkthroughTrail = Pick<TrailView, "fetch" | "show">;

/** The reasoning view over the canvas: a research step opens its answer's chain there,
 *  pointing at the statements it drew on. */
export type WalkthroughReasoning = Pick<ReasoningView, "open" | "close">;

export class WalkthroughPanel {
  readonly el = h("div", { class: "panel walkthrough" });
  steps: Step[] = [];
  index = -1;
  private caption = h("p", { class: "caption", testid: "walkthrough-caption", "aria-live": "polite" });
  private progress = h("span", { class: "muted", testid: "walkthrough-progress" });
  private prevButton = h("button", { class: "btn", testid: "walkthrough-prev", title: "Previous step" }, "← Previous");
  private nextButton = h("button", { class: "btn btn-primary", testid: "walkthrough-next", title: "Next step" }, "Next →");
  private playButton = h("button", { class: "btn", testid: "walkthrough-play" }, "▶ Autoplay");
  private stale = h("button", { class: "btn btn-small", hidden: true, onclick: () => void this.build(true) }, STALE_TEXT);
  private slot = h("div", { class: "walkthrough-trail" });
  /** The graph built for, and how many claims and reasoning nodes it had then. */
  private builtFor: { graph: string | null; size: number } = { graph: null, size: -1 };
  /** Whether a step opened a reasoning chain (closed again by the other steps). */
  private reasoningOpen = false;
  private building: Promise<void> | null = null;
  private timer: ReturnType<typeof setInterval> | null = null;

  constructor(private readonly app: WalkthroughHost, private readonly trail: WalkthroughTrail, private readonly reasoning: WalkthroughReasoning) {
    this.prevButton.addEventListener("click", () => void this.go(this.index - 1));
    this.nextButton.addEventListener("click", () => void this.next());
    this.playButton.addEventListener("click", () => (this.timer === null ? this.autoplay() : this.pause()));
    this.caption.textContent = "A step-by-step account of the claims in this graph and how agents verified them.";
    replace(this.el,
      h("div", { class: "walkthrough-card" },
        this.caption,
        h("div", { class: "walkthrough-controls" }, this.prevButton, this.nextButton, this.playButton, h("span", { class: "spacer" }), this.progress),
        this.stale),
      this.slot);
    this.renderControls();
  }

  /** The shared trail view lives here while this tab is open. */
  adoptTrail(trailEl: HTMLElement): void {
    this.slot.appendChild(trailEl);
  }

  async opened(): Promise<void> {
    if (this.builtFor.graph !== this.app.graph) await this.build(false);
  }

  resetGraph(): void {
    this.pause();
    this.steps = [];
    this.index = -1;
    this.builtFor = { graph: null, size: -1 };
    this.caption.textContent = "A step-by-step account of the claims in this graph and how agents verified them.";
    this.renderControls();
  }

  /** The graph changed (live): new claims rebuild the walkthrough when it has not begun,
   *  and offer a rebuild when it has (so a reader's place is not lost). */
  graphChanged(): void {
    const count = this.storySize();
    const stale = this.builtFor.graph === this.app.graph && this.builtFor.size >= 0 && count !== this.builtFor.size;
    if (stale && this.index < 0 && !this.building) {
      void this.build(true);
      return;
    }
    // After a failure the button offers to try again: keep it.
    if (this.stale.textContent === STALE_TEXT) this.stale.hidden = !stale;
  }

  private statementIds(): string[] {
    return this.app.model.byArrival().filter((n) => n.label === "Statement").map((n) => n.id);
  }

  /** Claims and reasoning nodes: when either count changes, the story has grown. */
  private storySize(): number {
    let n = 0;
    for (const node of this.app.model.nodes.values()) if (node.label === "Statement" || node.label === "Explain") n++;
    return n;
  }

  /** The steps of the graph's answered reasoning sessions (none when they cannot be read:
   *  the claims' story is told without them). */
  private async reasoningSteps(graph: string): Promise<Step[]> {
    try {
      const sessions = (await this.app.backend.sessions({ graph })).filter((s) => s.answer).slice(0, MAX_SESSIONS).reverse();
      const chains = await Promise.all(sessions.map((s) => this.app.backend.reasoning({ graph, id: s.answer as string })));
      return chains.map(reasoningStep);
    } catch {
      return [];
    }
  }

  /** Fetches every statement's trail and builds the steps. */
  build(force: boolean): Promise<void> {
    if (this.building && !force) return this.building;
    const run = async (): Promise<void> => {
      const graph = this.app.graph;
      const ids = this.statementIds();
      this.caption.textContent = ids.length === 0
        ? "This graph has no claims (A2AP statements). The walkthrough tells the story of demo graphs such as the council meeting: Ingest → Run demo."
        : `Reading the trails of ${ids.length} claims…`;
      let trails: Trail[];
      const size = this.storySize();
      try {
        trails = await this.mapLimited(ids, 4, (id) => this.trail.fetch(id));
        await this.app.resolveNames(trails.flatMap((t) => [t.agent, ...t.verifications.map((v) => v.agent)]));
      } catch (e) {
        this.app.toasts.error(e, "Building the walkthrough");
        this.caption.textContent = `Could not read the claims' trails: ${reason(e)}. Check that the server is running, then try again.`;
        this.stale.textContent = "Try again";
        this.stale.hidden = false;
        return;
      }
      const research = graph ? await this.reasoningSteps(graph) : [];
      if (graph !== this.app.graph) return;
      this.steps = [...buildSteps(trails, this.app.names), ...research];
      this.builtFor = { graph, size };
      this.stale.hidden = true;
      this.stale.textContent = STALE_TEXT;
      const keep = this.index >= 0 && this.index < this.steps.length;
      if (!keep) this.index = -1;
      if (this.steps.length > 0 && this.index < 0) {
        const questions = research.length ? `, the last ${research.length === 1 ? "a research question answered" : `${research.length} research questions answered`} from them` : "";
        this.caption.textContent = `${ids.length} claim${ids.length === 1 ? "" : "s"}, ${this.steps.length} steps${questions}. Press Next to begin.`;
      } else if (keep) {
        this.caption.textContent = this.steps[this.index].caption;
      }
      this.renderControls();
    };
    this.building = run().finally(() => { this.building = null; });
    return this.building;
  }

  private async mapLimited<T, R>(items: T[], limit: number, f: (t: T) => Promise<R>): Promise<R[]> {
    const out = new Array<R>(items.length);
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < items.length) {
        const i = next++;
        out[i] = await f(items[i]);
      }
    };
    await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
    return out;
  }

  async next(): Promise<void> {
    if (this.builtFor.graph !== this.app.graph || this.building) await this.build(false);
    await this.go(this.index + 1);
  }

  /** Shows step `i`: caption, selection, focus and the claim's trail. */
  async go(i: number): Promise<void> {
    if (i < 0 || i >= this.steps.length) {
      if (i >= this.steps.length) this.pause();
      return;
    }
    this.index = i;
    const step = this.steps[i];
    this.caption.textContent = step.caption;
    this.caption.dataset.kind = step.kind;
    this.renderControls();
    const focusId = this.app.model.nodes.has(step.nodeId) || !step.statementId ? step.nodeId : step.statementId;
    if (step.kind === "reasoning") {
      this.reasoningOpen = true;
      await Promise.all([
        this.app.select(focusId, { focus: true, from: "walkthrough" }),
        this.reasoning.open(step.nodeId, { point: step.links ?? [], current: step.statementId }),
        this.trail.show(step.statementId),
      ]);
      return;
    }
    if (this.reasoningOpen) {
      this.reasoningOpen = false;
      this.reasoning.close();
    }
    await Promise.all([
      this.app.select(focusId, { focus: true, from: "walkthrough" }),
      this.trail.show(step.statementId, { verification: step.verificationId }),
    ]);
  }

  private autoplay(): void {
    this.playButton.textContent = "❚❚ Pause";
    if (this.steps.length > 0 && this.index >= this.steps.length - 1) this.index = -1;
    void this.next();
    this.timer = setInterval(() => {
      if (this.index >= this.steps.length - 1) this.pause();
      else void this.go(this.index + 1);
    }, AUTOPLAY_MS);
  }

  pause(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    this.playButton.textContent = "▶ Autoplay";
  }

  private renderControls(): void {
    this.prevButton.disabled = this.index <= 0;
    this.nextButton.disabled = this.steps.length > 0 && this.index >= this.steps.length - 1;
    this.progress.textContent = this.steps.length > 0 ? `step ${Math.max(0, this.index + 1)} of ${this.steps.length}` : "";
  }
}
