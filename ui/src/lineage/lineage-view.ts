// The lineage view: one prompt lineage over the canvas, as a version tree
// (lineage-tree.ts) next to a side pane (lineage-side.ts) showing the version picked
// or two versions compared. It loads the whole lineage with `lineage`, compares with
// `lineage_compare`, replays the lineage's creation one version at a time, and reloads
// itself when the live stream brings new prompts (the lineages panel tells it to).

import type { Backend } from "../api/backend";
import type { Comparison, LineageGraph, PromptView } from "../api/contract";
import type { SelectFn } from "../shared/host";
import { byTime, edgeLabel, latestPart, layoutLineage, versionLabel, when, type LineageLayout } from "./tree-layout";
import { h, replace } from "../shared/dom";
import { comparisonCard, versionCard } from "./lineage-side";
import { LineageTree } from "./lineage-tree";
import { errorState } from "../shared/error-state";

/** How long each step of a replay is shown. */
export const REPLAY_MS = 900;
/** Versions drawn at most (the latest ones): a tree of more would not be read anyway. */
export const MAX_DRAWN = 400;

/** What the lineage view needs of the app. */
export interface LineageViewHost {
  readonly backend: Pick<Backend, "lineage" | "lineageCompare">;
  readonly graph: string | null;
  select: SelectFn;
}

/** A prompt's id without its node prefix: "prompt:<uuid>" → "<uuid>". */
export function promptId(nodeId: string): string {
  return nodeId.replace(/^prompt:/, "");
}

/** The first words of a prompt's text, as the lineage's title. */
export function titleOf(text: string | undefined, words = 12): string {
  const all = (text ?? "").split(/\s+/).filter(Boolean);
  return all.length > words ? `${all.slice(0, words).join(" ")} …` : all.join(" ");
}

export class LineageView {
  readonly el = h("section", { class: "lineage-view", testid: "lineage-view", role: "region", "aria-label": "Prompt lineage", hidden: true });
  private titleText = h("span", { class: "lineage-title-text", testid: "lineage-title" });
  private title = h("h2", { class: "lineage-heading", tabindex: "-1", testid: "lineage-heading" }, "Prompt lineage", this.titleText);
  private sub = h("p", { class: "lineage-sub", testid: "lineage-summary" });
  private replayButton = h("button", { class: "btn btn-primary", testid: "lineage-replay", title: "Show the versions appear one by one, in the order they were created" }, "▶ Replay");
  private step = h("span", { class: "lineage-step", testid: "lineage-step", "aria-live": "polite" });
  private caption = h("p", { class: "lineage-caption", testid: "lineage-caption", "aria-live": "polite", hidden: true });
  private tree = new LineageTree((id, additive) => this.pick(id, additive));
  private treeWrap = h("div", { class: "lineage-tree-wrap", tabindex: "-1" }, this.tree.el);
  private side = h("aside", { class: "lineage-side", testid: "lineage-side", "aria-label": "Version details" });
  private body = h("div", { class: "lineage-main" }, this.treeWrap, this.side);
  /** The lineage as drawn (its latest MAX_DRAWN versions), and how many versions it has. */
  private data: LineageGraph | null = null;
  private total = 0;
  private layout: LineageLayout | null = null;
  /** The prompt the lineage was opened for (any of its versions will do to reload it). */
  private focusId: string | null = null;
  /** Versions picked: A, then B (A the older). */
  private picked: string[] = [];
  private comparison: { a: string; b: string; result: Comparison | null; error?: unknown } | null = null;
  private replayAt: number | null = null;
  private timer: ReturnType<typeof setInterval> | null = null;
  private fresh = new Set<string>();
  private token = 0;
  /** Told when the view closes or shows another lineage (the list marks the open one). */
  onChange: (() => void) | null = null;
  /** Told when the view opens (another overlay closes). */
  onOpen: (() => void) | null = null;

  constructor(private readonly app: LineageViewHost) {
    this.replayButton.addEventListener("click", () => (this.timer === null ? this.replay() : this.stopReplay()));
    replace(this.el,
      h("header", { class: "lineage-head" },
        h("div", { class: "lineage-titles" }, this.title, this.sub),
        h("div", { class: "row lineage-controls" },
          this.step, this.replayButton,
          h("button", { class: "btn", testid: "lineage-close", title: "Close the lineage (Esc)", onclick: () => this.close() }, "Close"))),
      this.caption,
      this.body);
  }

  get isOpen(): boolean {
    return !this.el.hidden;
  }

  /** The lineage shown (null when closed or loading the first time). */
  get lineageId(): string | null {
    return this.isOpen ? this.data?.lineage_id ?? null : null;
  }

  get replaying(): boolean {
    return this.timer !== null;
  }

  /** Opens the lineage of a prompt (`id`: its UUID or node name), picking it when `pick`. */
  async open(id: string, pick = false): Promise<void> {
    const pid = promptId(id);
    this.stopReplay();
    this.el.hidden = false;
    this.onOpen?.();
    this.focusId = pid;
    this.picked = pick ? [pid] : [];
    this.comparison = null;
    if (!this.data?.prompts.some((p) => p.id === pid)) {
      this.data = null;
      this.layout = null;
      this.sub.textContent = "Loading…";
      this.titleText.textContent = "";
      replace(this.tree.el);
      replace(this.side, h("p", { class: "muted" }, "Loading the lineage…"));
    }
    await this.load(false);
    this.title.focus({ preventScroll: true });
  }

  close(): void {
    this.stopReplay();
    this.token++;
    this.el.hidden = true;
    this.data = null;
    this.layout = null;
    this.focusId = null;
    this.picked = [];
    this.comparison = null;
    this.onChange?.();
  }

  /** New prompts may have arrived: reload the lineage shown, marking the new versions. */
  async refresh(): Promise<void> {
    if (this.isOpen && this.focusId) await this.load(true);
  }

  private async load(marking: boolean): Promise<void> {
    const graph = this.app.graph, id = this.focusId;
    if (!graph || !id) return;
    const token = ++this.token;
    let g: LineageGraph;
    try {
      g = await this.app.backend.lineage({ graph, id });
    } catch (e) {
      if (token !== this.token) return;
      if (marking && this.data) return; // keep what is shown; the next batch tries again
      this.sub.textContent = "";
      replace(this.tree.el);
      replace(this.side, errorState("load this prompt's lineage", e, () => void this.load(false)));
      return;
    }
    if (token !== this.token) return;
    const before = new Set(this.data?.prompts.map((p) => p.id) ?? []);
    const another = this.data?.lineage_id !== g.lineage_id;
    this.fresh = marking && this.data ? new Set(g.prompts.filter((p) => !before.has(p.id)).map((p) => p.id)) : new Set();
    const part = latestPart(g, MAX_DRAWN);
    this.data = part.graph;
    this.total = part.total;
    this.layout = layoutLineage(part.graph);
    const known = new Set(g.prompts.map((p) => p.id));
    this.picked = this.picked.filter((p) => known.has(p));
    if (this.comparison && !(known.has(this.comparison.a) && known.has(this.comparison.b))) this.comparison = null;
    this.renderHead();
    this.renderTree();
    this.renderSide();
    if (another) this.onChange?.();
  }

  private prompt(id: string): PromptView | undefined {
    return this.data?.prompts.find((p) => p.id === id);
  }

  private renderHead(): void {
    const g = this.data;
    if (!g) return;
    const root = g.prompts.find((p) => p.is_root) ?? [...g.prompts].sort(byTime)[0];
    const heads = g.prompts.filter((p) => p.is_head).length;
    const times = g.prompts.map((p) => p.timestamp).sort();
    const n = g.prompts.length;
    this.titleText.textContent = `“${titleOf(root?.content)}”`;
    this.title.title = root?.content ?? "";
    replace(this.sub,
      h("span", { class: "muted" }, `${this.total > n ? `Showing the latest ${n} of ${this.total} versions` : `${n} version${n === 1 ? "" : "s"}`} · ${heads} head${heads === 1 ? "" : "s"} · ${g.evolutions.length} evolution${g.evolutions.length === 1 ? "" : "s"}`
        + (times.length ? ` · ${when(times[0])} – ${when(times[times.length - 1])} UTC` : "")));
    if (this.timer === null) this.step.textContent = "";
  }

  private renderTree(): void {
    if (!this.layout) return;
    this.tree.render(this.layout, { selected: this.picked, replayAt: this.replayAt, fresh: this.fresh });
    // A version that just arrived is brought into view (the newest one, when several did).
    const newest = this.layout.boxes.filter((b) => this.fresh.has(b.id)).pop();
    if (newest) [...this.tree.el.querySelectorAll<HTMLElement>(".lineage-box")].find((el) => el.dataset.id === newest.id)?.scrollIntoView?.({ block: "nearest", inline: "nearest" });
    this.fresh = new Set();
  }

  private renderSide(): void {
    const g = this.data;
    if (!g) return;
    const c = this.comparison;
    if (c) {
      const a = this.prompt(c.a), b = this.prompt(c.b);
      if (!a || !b) return;
      if (c.error !== undefined) {
        replace(this.side, errorState(`compare ${versionLabel(a)} with ${versionLabel(b)}`, c.error, () => void this.compare(c.a, c.b)));
      } else if (!c.result) {
        replace(this.side, h("p", { class: "muted" }, `Comparing ${versionLabel(a)} with ${versionLabel(b)}…`));
      } else {
        const stored = g.evolutions.find((e) => (e.parent === a.id && e.child === b.id) || (e.parent === b.id && e.child === a.id)) ?? null;
        replace(this.side, comparisonCard(a, b, c.result, stored, () => {
          this.comparison = null;
          this.picked = this.picked.slice(0, 1);
          this.renderTree();
          this.renderSide();
        }));
      }
      return;
    }
    const p = this.picked.length ? this.prompt(this.picked[0]) : undefined;
    if (p) {
      replace(this.side, versionCard(p, g.prompts, g.evolutions, {
        compare: (x, y) => void this.compare(x, y),
        showOnGraph: (id) => {
          this.close();
          void this.app.select(`prompt:${id}`, { focus: true, from: "panel" });
        },
      }));
      return;
    }
    replace(this.side, h("div", { class: "lineage-help", testid: "lineage-help" },
      h("h3", null, "Reading the tree"),
      h("ul", null,
        h("li", null, "Each box is a version of the prompt, oldest at the top; a branch that forks off moves to the right."),
        h("li", null, "A line goes from a version to the one made from it, labelled with how (refines, evolves, derives, forks, merges, reverts) and the confidence of that step (0 to 1)."),
        h("li", null, "A merge has two lines coming in; the dashed one is the branch merged in."),
        h("li", null, h("span", { class: "lineage-badge head" }, "HEAD"), " marks the latest version of a line of work.")),
      h("p", { class: "hint" }, "Click a version to read it. Shift-click a second one to compare the two word by word. Replay shows the versions appear in the order they were made.")));
  }

  /** A version was clicked (additive: a second one, to compare). */
  private pick(id: string, additive: boolean): void {
    this.stopReplay();
    if (additive && this.picked.length > 0 && !this.picked.includes(id)) {
      void this.compare(this.picked[0], id);
      return;
    }
    if (additive && this.picked.includes(id)) this.picked = this.picked.filter((x) => x !== id);
    else this.picked = [id];
    this.comparison = null;
    this.renderTree();
    this.renderSide();
  }

  /** Compares two versions, the older as A. */
  async compare(x: string, y: string): Promise<void> {
    const graph = this.app.graph;
    const px = this.prompt(x), py = this.prompt(y);
    if (!graph || !px || !py || x === y) return;
    const [a, b] = byTime(px, py) <= 0 ? [x, y] : [y, x];
    this.picked = [a, b];
    const c: NonNullable<LineageView["comparison"]> = { a, b, result: null };
    this.comparison = c;
    this.renderTree();
    this.renderSide();
    try {
      c.result = await this.app.backend.lineageCompare({ graph, a, b });
    } catch (e) {
      c.error = e;
    }
    if (this.comparison === c) this.renderSide();
  }

  /** Shows the versions appearing one at a time, in creation order. */
  replay(): void {
    const n = this.data?.prompts.length ?? 0;
    if (n === 0) return;
    this.stopReplay();
    this.replayAt = 0;
    this.replayButton.textContent = "■ Stop";
    this.replayButton.setAttribute("aria-pressed", "true");
    this.showStep();
    this.timer = setInterval(() => {
      const total = this.data?.prompts.length ?? 0;
      if (this.replayAt === null || this.replayAt + 1 >= total) {
        this.stopReplay(true);
        return;
      }
      this.replayAt++;
      this.showStep();
    }, REPLAY_MS);
  }

  /** Ends a replay (all versions shown again). */
  stopReplay(finished = false): void {
    const was = this.timer !== null;
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    this.replayAt = null;
    this.replayButton.textContent = "▶ Replay";
    this.replayButton.removeAttribute("aria-pressed");
    this.caption.hidden = true;
    if (!was) return;
    const n = this.data?.prompts.length ?? 0;
    this.step.textContent = finished ? `Replayed ${n} version${n === 1 ? "" : "s"}` : "Replay stopped";
    this.renderTree();
  }

  private showStep(): void {
    const g = this.data, at = this.replayAt;
    if (!g || at === null) return;
    const order = [...g.prompts].sort(byTime);
    const p = order[at];
    this.step.textContent = `Step ${at + 1} of ${order.length}`;
    this.step.dataset.step = String(at + 1);
    const ins = g.evolutions.filter((e) => e.child === p.id);
    const name = (id: string) => { const x = this.prompt(id); return x ? versionLabel(x) : id.slice(0, 8); };
    replace(this.caption,
      h("strong", null, versionLabel(p)), p.branch ? ` on ${p.branch}` : "", `, ${when(p.timestamp, true)}: `,
      ins.length === 0 ? "the first version." : ins.map((e, i) => [i ? "; and " : "", `${edgeLabel(e)} from ${name(e.parent)}`, e.reason && i === 0 ? ` — ${e.reason}` : ""]));
    this.caption.hidden = false;
    this.renderTree();
    this.el.querySelector<HTMLElement>(".lineage-box.current")?.scrollIntoView?.({ block: "nearest", inline: "nearest" });
  }
}
