// A node's place in its graph's tamper-evident log, in the Details tab: "In the log at index N,
// checkpoint of <time>", and a Verify button that checks the inclusion proof, the checkpoint's
// signature and the node's stored form in the browser (./verify.ts).

import type { Backend } from "../api/backend";
import type { LogInclusion } from "../api/contract";
import { h, replace } from "../shared/dom";
import { verifyNode, type Verdict } from "./verify";
import { checkpointTime } from "./when";
import "./log.css";

export interface LogLineHost {
  readonly backend: Pick<Backend, "logInclusion">;
}

const RESULT_TEXT: Record<Verdict["result"], string> = {
  verified: "✓ Verified in the browser",
  failed: "✗ Verification failed",
  partial: "Partly verified: what was not checked is said below",
  absent: "Not in the log",
};

export class LogLine {
  readonly el = h("div", { class: "log-line", testid: "log-line", hidden: true });
  private token = 0;

  constructor(private readonly host: LogLineHost) {}

  /** Loads and shows the log entry of node `id` of `graph`. */
  async show(graph: string, id: string): Promise<void> {
    const token = ++this.token;
    this.el.hidden = true;
    let inc: LogInclusion;
    try {
      inc = await this.host.backend.logInclusion({ graph, id });
    } catch (e) {
      if (token !== this.token) return;
      const reason = e instanceof Error ? e.message : String(e);
      replace(this.el, h("span", { class: "muted" }, `The log could not be read: ${reason}`));
      this.el.hidden = false;
      return;
    }
    if (token !== this.token) return;
    this.render(inc, token);
  }

  /** Nothing shown (no node, or another graph). */
  clear(): void {
    this.token += 1;
    this.el.hidden = true;
    replace(this.el);
  }

  private render(inc: LogInclusion, token: number): void {
    this.el.dataset.node = inc.node;
    if (inc.leaves.length === 0) {
      replace(this.el, h("span", { class: "muted", testid: "log-where" }, "Not in the log: this node came from no logged record."));
      this.el.hidden = false;
      return;
    }
    const indexes = inc.leaves.map((l) => l.index);
    const result = h("div", { class: "log-result", testid: "log-result", hidden: true, "aria-live": "polite" });
    const button = h("button", {
      class: "btn btn-small", testid: "log-verify",
      title: "Check here, in this browser, the inclusion proof up to the signed checkpoint, its Ed25519 signature, and the node's stored properties",
      onclick: () => void this.verify(inc, result, button, token),
    }, "Verify");
    replace(this.el,
      h("div", { class: "log-where" },
        h("span", { class: "log-text", testid: "log-where", "data-index": String(indexes[indexes.length - 1]), "data-checkpoint-at": String(inc.checkpoint_at ?? "") },
          indexes.length === 1 ? "In the log at index " : "In the log at indexes ",
          h("strong", null, indexes.join(", ")),
          ", checkpoint of ",
          h("strong", null, checkpointTime(inc.checkpoint_at)),
          ` (${inc.tree_size} leaves)`),
        button),
      result);
    this.el.hidden = false;
  }

  private async verify(inc: LogInclusion, out: HTMLElement, button: HTMLButtonElement, token: number): Promise<void> {
    button.disabled = true;
    replace(out, h("span", { class: "muted" }, "Checking…"));
    out.hidden = false;
    let v: Verdict;
    try {
      v = await verifyNode(inc);
    } catch (e) {
      v = { result: "failed", checks: [{ what: "inclusion", ok: false, text: `The check could not run: ${e instanceof Error ? e.message : String(e)}` }] };
    }
    if (token !== this.token) return;
    button.disabled = false;
    out.dataset.result = v.result;
    replace(out,
      h("div", { class: "log-verdict", testid: "log-verdict" }, RESULT_TEXT[v.result]),
      h("ul", { class: "log-checks" }, v.checks.map((c) => h("li", { "data-ok": String(c.ok), "data-what": c.what }, c.text))));
  }
}
