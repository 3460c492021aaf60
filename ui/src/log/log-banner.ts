// The banner over the graph when its store disagrees with its log: how many nodes differ from
// what their records gave them (or that the log no longer extends its signed checkpoint), with
// a list of them that selects each. Records still being written (logged after the latest
// signed checkpoint, while an ingest goes on) are no disagreement and show no banner. Asked for
// a second after a graph is shown and again every minute, without holding the page: the server
// answers within its time limit.

import type { Backend } from "../api/backend";
import type { LogStatus } from "../api/contract";
import { h, replace } from "../shared/dom";
import "./log.css";

export interface LogBannerHost {
  readonly backend: Pick<Backend, "logStatus">;
  readonly graph: string | null;
  select(id: string, opts: { focus: boolean; from: "panel" }): Promise<void> | void;
}

const EVERY_MS = 60_000;
/** The first check waits this long after a graph is shown: it re-hashes every node on the
 *  server (about a second of its time at 50,000 nodes), which would otherwise take cores from
 *  the page's first paint. */
export const SETTLE_MS = 1_000;

export class LogBanner {
  readonly el = h("div", { class: "log-banner", testid: "log-banner", role: "alert", hidden: true });
  private token = 0;
  private open = false;
  private timer: ReturnType<typeof setInterval> | null = null;
  private first: ReturnType<typeof setTimeout> | null = null;
  status: LogStatus | null = null;

  constructor(private readonly host: LogBannerHost) {}

  /** A graph is shown (opened or switched to): its status is asked for once the page has
   *  settled (`SETTLE_MS`) and every minute. */
  graphShown(switched: boolean): void {
    if (switched) {
      this.open = false;
      this.status = null;
      this.el.hidden = true;
      this.token++; // an answer on the graph shown before is not shown over this one
    }
    if (this.timer === null) this.timer = setInterval(() => void this.check(), EVERY_MS);
    if (this.first !== null) clearTimeout(this.first);
    this.first = setTimeout(() => {
      this.first = null;
      void this.check();
    }, SETTLE_MS);
  }

  async check(): Promise<void> {
    const graph = this.host.graph;
    const token = ++this.token;
    if (!graph) return;
    let s: LogStatus;
    try {
      s = await this.host.backend.logStatus({ graph });
    } catch {
      return; // the log's state is unknown; other parts of the page say why the server fails
    }
    if (token !== this.token || graph !== this.host.graph) return;
    this.status = s;
    this.render(s);
  }

  private render(s: LogStatus): void {
    this.el.dataset.graph = s.graph;
    // Records an ingest still writes (logged, not yet under a signed checkpoint) are no
    // disagreement: nothing is said of them unless something else is.
    this.el.dataset.pending = String(s.pending);
    const broken = !s.checkpoint_matches && s.tree_size > 0;
    if (s.differing === 0 && !broken) {
      this.el.hidden = true;
      replace(this.el);
      return;
    }
    const parts: string[] = [];
    if (s.differing > 0) {
      parts.push(`${s.differing} node${s.differing === 1 ? "" : "s"} of this graph differ${s.differing === 1 ? "s" : ""} from what ${s.differing === 1 ? "its" : "their"} logged records gave ${s.differing === 1 ? "it" : "them"}: changed in the database, not by an ingest.`);
    }
    if (broken) parts.push("The log does not extend its latest signed checkpoint: its history was rewritten.");
    if (!s.complete) parts.push(`(Only ${s.nodes_checked} nodes were checked in time.)`);
    if (s.pending > 0) parts.push(`(${s.pending} record${s.pending === 1 ? " is" : "s are"} being written, not yet signed.)`);
    const list = h("ul", { testid: "log-banner-list", hidden: !this.open },
      s.mismatches.map((m) => h("li", { "data-name": m.name },
        h("button", { class: "link", onclick: () => void this.host.select(m.name, { focus: true, from: "panel" }) }, m.name),
        h("span", { class: "log-banner-reason" }, `${m.label}: ${m.reason}`))),
      s.differing > s.mismatches.length ? h("li", null, `… and ${s.differing - s.mismatches.length} more`) : null);
    const toggle = s.mismatches.length > 0 ? h("button", {
      class: "btn btn-small", testid: "log-banner-toggle", "aria-expanded": String(this.open),
      onclick: () => {
        this.open = !this.open;
        list.hidden = !this.open;
        toggle?.setAttribute("aria-expanded", String(this.open));
        if (toggle) toggle.textContent = this.open ? "Hide" : "List them";
      },
    }, this.open ? "Hide" : "List them") : null;
    replace(this.el,
      h("div", { class: "log-banner-row" },
        h("strong", null, "⚠ The store disagrees with its log."),
        h("span", { class: "log-banner-text", testid: "log-banner-text" }, parts.join(" ")),
        toggle),
      list);
    this.el.hidden = false;
  }
}
