// The notice above the canvas when a large graph shows one neighbourhood or its clusters:
// how big the graph is, what is shown (whose neighbourhood, which cluster opened), what to do,
// and "Back" to the view before; and when the graph is an audit bundle, that it is read-only
// and what checking it found: the verdict `provex verify FILE` prints (pinned, not pinned, or
// failed and why) and the signer's key fingerprint (docs/FORMATS.md, "Audit bundles").

import type { Backend } from "../api/backend";
import type { JsonValue } from "../api/contract";
import type { GraphModel } from "../graph/model";
import { clusterPath, clusterTitle, type Place } from "../graph/clusters";
import { nodeTitle } from "../trail/labels";
import { h, replace } from "../shared/dom";

/** What the notice needs of the app. */
export interface NoticeHost {
  readonly model: Pick<GraphModel, "graph" | "mode" | "root" | "nodes" | "totalNodes">;
  /** Roots of the neighbourhoods expanded before the current one. */
  readonly expandHistory: readonly Place[];
  /** The open graph. */
  readonly graph: string | null;
  readonly backend: Pick<Backend, "node">;
  back(): Promise<void>;
}

/** What the explorer was told of an opened bundle (its node's properties). */
interface BundleFacts {
  key: string;
  props: Record<string, JsonValue | undefined> | null;
  failed?: string;
}

/** The verdicts `provex verify FILE` ends in, as a word for the notice. */
const VERDICT_WORD: Record<string, string> = { pinned: "Pinned", not_pinned: "Not pinned", failed: "Failed" };

export class NeighbourhoodNotice {
  readonly el = h("div", { class: "notice", testid: "notice", hidden: true });

  constructor(private readonly host: NoticeHost) {}

  render(): void {
    const model = this.host.model;
    delete this.el.dataset.graph;
    const back = this.host.expandHistory.length > 0
      ? h("button", { class: "btn btn-small", testid: "notice-back", onclick: () => void this.host.back() }, "← Back")
      : null;
    if (model.mode === "clusters" || model.mode === "members") {
      const path = model.root ? clusterPath(model.root).map(clusterTitle).join(" › ") : null;
      replace(this.el,
        h("span", { class: "notice-icon", "aria-hidden": "true" }, "i"),
        h("span", { testid: "notice-text" },
          model.mode === "clusters"
            ? [path ? "Showing " : `This graph has ${model.totalNodes.toLocaleString("en")} nodes, shown as clusters`,
              path ? h("strong", null, path) : null, path ? " as clusters" : null, ". Click a box to open it."]
            : [model.totalNodes > model.nodes.size
              ? `Showing the first ${model.nodes.size.toLocaleString("en")} of ${model.totalNodes.toLocaleString("en")} nodes of `
              : "Showing the nodes of ", h("strong", null, path ?? "a cluster"), "."]),
        back);
      this.el.hidden = false;
      return;
    }
    if (model.mode !== "neighbourhood") {
      // An audit bundle opened as a graph (`provex bundle`) is read-only. Its verdict is
      // shown only while the nodes drawn are the open graph's (not while another loads).
      const bundle = model.graph !== null && model.graph === this.host.graph
        ? [...model.nodes.values()].find((n) => n.label === "AuditBundle")
        : undefined;
      if (bundle) {
        this.renderBundle(bundle.id);
        return;
      }
      this.el.hidden = true;
      this.el.classList.remove("notice-failed", "notice-warn");
      return;
    }
    this.el.classList.remove("notice-failed", "notice-warn");
    const root = model.root;
    const rootNode = root ? model.nodes.get(root) : undefined;
    const name = rootNode ? nodeTitle(rootNode, 60) : root ?? "a node";
    replace(this.el,
      h("span", { class: "notice-icon", "aria-hidden": "true" }, "i"),
      h("span", null,
        `This graph has ${model.totalNodes.toLocaleString("en")} nodes; showing the neighbourhood of `,
        h("strong", null, name),
        ". Double-click a node to expand."),
      back);
    this.el.hidden = false;
  }

  private bundle: BundleFacts | null = null;

  /** Another graph is being opened: nothing said of the last one stays on screen, and an
   *  answer about its bundle that comes late is dropped. */
  graphSwitched(): void {
    this.bundle = null;
    replace(this.el);
    this.el.hidden = true;
    this.el.classList.remove("notice-failed", "notice-warn");
    delete this.el.dataset.graph;
  }

  /** The bundle's verdict, read once per graph from its node (then drawn again). */
  private renderBundle(id: string): void {
    const graph = this.host.graph ?? "";
    const key = `${graph}\u0000${id}`;
    if (this.bundle?.key !== key) {
      const facts: BundleFacts = { key, props: null };
      this.bundle = facts;
      this.host.backend.node({ graph, id }).then(
        (rec) => { facts.props = rec.properties ?? {}; },
        (e: unknown) => { facts.props = {}; facts.failed = e instanceof Error ? e.message : String(e); },
      ).finally(() => { if (this.bundle === facts && this.host.graph === graph) this.render(); });
    }
    const props = this.bundle.props;
    const verdict = typeof props?.verdict === "string" ? props.verdict : null;
    const headline = typeof props?.headline === "string" ? props.headline : null;
    const fingerprint = typeof props?.fingerprint === "string" ? props.fingerprint : null;
    this.el.classList.toggle("notice-failed", verdict === "failed");
    this.el.classList.toggle("notice-warn", verdict === "not_pinned");
    const check = h("code", null, "provex verify FILE --trust KEYS");
    let body: (Node | string)[];
    if (!props) {
      body = ["An audit bundle, opened read-only. Reading what checking it found…"];
    } else if (!verdict || !headline) {
      body = ["An audit bundle, opened read-only; it was opened before Provex checked bundles on opening. Open the file again, or check it with ", check, "."];
    } else {
      // The headline as the command line prints it, its fingerprint set apart.
      const at = fingerprint ? headline.lastIndexOf(fingerprint) : -1;
      const line = h("span", { testid: "bundle-headline" },
        ...(at >= 0 && fingerprint
          ? [headline.slice(0, at), h("code", { testid: "bundle-fingerprint", class: "fingerprint" }, fingerprint), headline.slice(at + fingerprint.length)]
          : [headline]));
      const after = verdict === "not_pinned"
        ? [" It carries its own keys, so it shows only that whoever holds them made it: compare the fingerprint with one you hold, or check it with ", check, "."]
        : verdict === "failed"
          ? [" Its trails are shown as the file says, not verified."]
          : [];
      body = [
        h("strong", { testid: "bundle-verdict", "data-verdict": verdict }, VERDICT_WORD[verdict] ?? verdict), " · ",
        "An audit bundle, opened read-only. ", line, ".", ...after,
      ];
      if (fingerprint && at < 0) body.push(" Signer's key: ", h("code", { testid: "bundle-fingerprint", class: "fingerprint" }, fingerprint), ".");
    }
    replace(this.el,
      h("span", { class: "notice-icon", "aria-hidden": "true" }, verdict === "failed" || verdict === "not_pinned" ? "!" : "i"),
      h("span", { testid: "notice-text" }, ...body));
    // Which graph's bundle this verdict is about.
    this.el.dataset.graph = graph;
    this.el.hidden = false;
  }
}
