// The Timeline tab: the graph's records in the order they happened (timeline-times.ts), a
// slider to scrub through them in the order they arrived (later arrivals hidden on the
// canvas), and replay at 0.5× to 5×. Live batches extend it.

import type { Backend } from "../api/backend";
import type { GraphModel } from "../graph/model";
import type { SelectFn } from "../shared/host";
import { nodeTitle } from "../trail/labels";
import { h, replace } from "../shared/dom";
import { clock, effectiveTimes, inTimeOrder, timesQuery, toMs } from "./timeline-times";

const SPEEDS = [0.5, 1, 2, 5];
/** Rows listed around the current position. */
const WINDOW = 60;
const TICK_MS = 100;
/** After the graph grows, read the times again at most this often. */
const TIMES_MS = 2000;

/** Arrivals per second at 1×: ten, or enough to replay the graph in a minute. */
export function replayRate(count: number): number {
  return Math.max(10, count / 60);
}

/** What the timeline needs of the app. */
export interface TimelineHost {
  readonly backend: Pick<Backend, "query">;
  readonly graph: string | null;
  readonly model: Pick<GraphModel, "minArrival" | "maxArrival" | "byArrival" | "edgeList" | "mode">;
  /** The position shown: nodes with a later arrival are hidden. Null: all (live). */
  readonly timelineAt: number | null;
  setTimeline(at: number | null): void;
  select: SelectFn;
}

export class TimelinePanel {
  readonly el = h("div", { class: "panel timeline" });
  private slider = h("input", { type: "range", class: "slider", testid: "timeline-slider", min: "0", max: "0", step: "1", value: "0", "aria-label": "Timeline position" });
  private playButton = h("button", { class: "btn btn-primary", testid: "timeline-play" }, "▶ Replay");
  private speed = h("select", { class: "input input-narrow", testid: "timeline-speed", "aria-label": "Replay speed" },
    SPEEDS.map((s) => h("option", { value: String(s) }, `${s}×`)));
  private position = h("span", { class: "timeline-position", testid: "timeline-position" });
  private list = h("ol", { class: "events", testid: "timeline-events" });
  private timer: ReturnType<typeof setInterval> | null = null;
  private cursor = 0;
  /** Each node's own time, read from the graph (by `timesGraph`), and when it was read. */
  private ownTimes = new Map<string, number>();
  private timesGraph: string | null = null;
  private timesAt = 0;
  private timesLoading = false;

  constructor(private readonly app: TimelineHost) {
    this.speed.value = "1";
    this.slider.addEventListener("input", () => {
      this.stop();
      this.seek(Number(this.slider.value));
    });
    this.playButton.addEventListener("click", () => (this.timer === null ? this.play() : this.stop()));
    replace(this.el,
      h("div", { class: "timeline-controls" },
        this.playButton, this.speed,
        h("button", { class: "btn", testid: "timeline-live", title: "Show everything", onclick: () => { this.stop(); this.seek(null); } }, "Live"),
        h("span", { class: "spacer" }), this.position),
      this.slider,
      h("p", { class: "hint" }, "Records in the order they happened (UTC). Drag to see the graph as it was loaded; nodes that arrived later are hidden."),
      this.list);
  }

  private max(): number {
    return this.app.model.maxArrival();
  }

  /** Moves to arrival `at` (null or the end: live, nothing hidden). */
  seek(at: number | null): void {
    const max = this.max();
    const t = at === null || at >= max ? null : Math.max(0, Math.floor(at));
    this.app.setTimeline(t);
    this.render();
  }

  /** New nodes arrived: extend the slider; at the end it stays live. */
  grew(): void {
    this.renderIfSeen();
  }

  /** A view was drawn: the list follows it if the tab is seen; a hidden tab only moves its
   *  slider, and lists the records when shown (ordering a 50,000-node view's records by
   *  time would otherwise hold up the view's first frame for a list nobody sees). */
  viewShown(): void {
    this.renderIfSeen();
  }

  private renderIfSeen(): void {
    if (this.el.isConnected && !this.el.closest("[hidden]")) this.render();
    else this.syncSlider();
  }

  private syncSlider(): void {
    const max = Math.max(0, this.max());
    this.slider.min = String(this.app.model.minArrival());
    this.slider.max = String(max);
    this.slider.value = String(this.app.timelineAt ?? max);
    this.slider.disabled = this.max() < 0;
    const at = this.app.timelineAt;
    this.position.textContent = this.max() < 0 ? "empty" : at === null ? `all ${max + 1} · live` : `${at + 1} of ${max + 1}`;
  }

  /** Reads the nodes' times when the graph changed (or grew, at most every few seconds),
   *  and lists them again once read. */
  private loadTimes(): void {
    const graph = this.app.graph;
    if (!graph || this.timesLoading) return;
    if (graph === this.timesGraph && Date.now() - this.timesAt < TIMES_MS) return;
    if (graph !== this.timesGraph) this.ownTimes = new Map();
    this.timesLoading = true;
    this.timesAt = Date.now();
    this.app.backend.query({ graph, cypher: timesQuery() }).then((table) => {
      if (this.app.graph !== graph) return;
      const own = new Map<string, number>();
      for (const [id, t] of table.rows) {
        const ms = toMs(t);
        if (typeof id === "string" && ms !== null) own.set(id, ms);
      }
      const changed = graph !== this.timesGraph || own.size !== this.ownTimes.size;
      this.ownTimes = own;
      this.timesGraph = graph;
      if (changed) this.render();
    }, () => {
      // Without times the list keeps the order the records were loaded in.
      this.timesGraph = graph;
    }).finally(() => { this.timesLoading = false; });
  }

  render(): void {
    this.syncSlider();
    const loaded = this.app.model.byArrival();
    // Times are read for a graph drawn whole (a cluster view stands for more nodes than are
    // worth reading), once the tab is seen; otherwise the rows keep the order they arrived in.
    if (this.app.model.mode === "whole" && loaded.length > 0 && this.el.isConnected && !this.el.closest("[hidden]")) this.loadTimes();
    const times = effectiveTimes(loaded, this.app.model.edgeList(), this.ownTimes);
    const nodes = inTimeOrder(loaded, times);
    const at = this.app.timelineAt ?? this.max();
    // Rows around the position (the last record arrived by then), so a large graph does
    // not make thousands of rows.
    let centre = this.app.timelineAt === null ? nodes.length : nodes.findIndex((n) => n.arrival === at) + 1;
    if (centre <= 0) centre = nodes.length;
    const from = Math.max(0, centre - WINDOW + 10);
    const shown = nodes.slice(from, Math.min(nodes.length, from + WINDOW));
    if (nodes.length === 0) {
      replace(this.list, h("li", { class: "empty-state" },
        this.app.graph ? "No events yet. Nodes are listed here in the order they arrived; ingest or follow a file to add some." : "No graph is open: pick one in the graph menu above."));
      return;
    }
    replace(this.list,
      from > 0 ? h("li", { class: "muted more" }, `… ${from} earlier`) : null,
      shown.map((n) => h("li", { class: `event${n.arrival > at ? " future" : ""}${n.arrival === at ? " now" : ""}` },
        h("button", { class: "event-button", "data-id": n.id, "data-time": times.get(n.id) ?? "", onclick: () => void this.app.select(n.id, { focus: true, from: "panel" }) },
          h("span", { class: "event-n", title: `Loaded as record #${n.arrival}` }, times.has(n.id) ? clock(times.get(n.id)!) : `#${n.arrival}`),
          h("span", { class: "chip" }, n.label),
          h("span", { class: "event-name" }, nodeTitle(n, 70))))),
      from + shown.length < nodes.length ? h("li", { class: "muted more" }, `… ${nodes.length - from - shown.length} later`) : null);
  }

  play(): void {
    const max = this.max();
    if (max < 0) return;
    const at = this.app.timelineAt;
    this.cursor = at === null ? 0 : at;
    this.seek(this.cursor);
    this.playButton.textContent = "❚❚ Pause";
    this.timer = setInterval(() => {
      const step = (replayRate(this.max() + 1) * Number(this.speed.value) * TICK_MS) / 1000;
      this.cursor += step;
      if (this.cursor >= this.max()) {
        this.stop();
        this.seek(null);
        return;
      }
      this.seek(this.cursor);
    }, TICK_MS);
  }

  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    this.playButton.textContent = "▶ Replay";
  }

  get playing(): boolean {
    return this.timer !== null;
  }
}
