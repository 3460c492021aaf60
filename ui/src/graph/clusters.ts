// Semantic zoom in the explorer: a graph larger than the view limit arrives as
// cluster boxes (label "Cluster", with what each holds); a click opens a box into its
// sub-clusters or its nodes, and "Back" returns. What the app remembers of each step, and
// the words the notice and the boxes use. Pure.

import type { ClusterInfo, ViewMode, ViewNode } from "../api/contract";

export const CLUSTER_LABEL = "Cluster";

/** Whether a drawn node is a cluster's box. */
export function isCluster(n: ViewNode | undefined | null): n is ViewNode & { cluster: ClusterInfo } {
  return !!n && n.label === CLUSTER_LABEL && !!n.cluster;
}

/** Where a view of a graph was: a neighbourhood's root, or an opened cluster (neither: the
 *  graph's own view). */
export interface Place {
  root?: string;
  cluster?: string;
}

/** The place a view of this mode and root stands for. */
export function placeOf(mode: ViewMode, root: string | null): Place {
  if (!root) return {};
  if (mode === "clusters" || mode === "members") return { cluster: root };
  if (mode === "neighbourhood") return { root };
  return {};
}

/** The steps of a cluster key, top first: "agent:x › task:y" → ["agent:x", "agent:x › task:y"]. */
export function clusterPath(key: string): string[] {
  const parts = key.split(" › ");
  return parts.map((_, i) => parts.slice(0, i + 1).join(" › "));
}

/** A cluster key's title, as the core titles it ("agent gpt-5", "task ctx-1", …). */
export function clusterTitle(key: string): string {
  const last = key.split(" › ").at(-1) ?? key;
  if (last === "sources") return "source documents";
  const at = last.indexOf(":");
  const [kind, rest] = at < 0 ? [last, ""] : [last.slice(0, at), last.slice(at + 1)];
  if (kind === "agent") return `agent ${rest.replace(/^urn:agent:/, "")}`;
  if (kind === "task") return `task ${rest}`;
  if (kind === "kind") return `${rest} nodes`;
  return last;
}

/** What a cluster box holds, in a line: "1,234 nodes: 600 LlmCall, 400 ToolCall, … · ✓ 12 signed valid, ✗ 1 invalid". */
export function clusterSummary(c: ClusterInfo): string {
  const n = (x: number) => x.toLocaleString("en");
  const labels = c.labels.slice(0, 3).map(([l, k]) => `${n(k)} ${l}`).join(", ") + (c.labels.length > 3 ? ", …" : "");
  const mark: Record<string, string> = { valid: "✓", invalid: "✗", malformed: "⚠", unknown_key: "?", untrusted_key: "!", unsigned: "–" };
  const sigs = c.statuses.filter(([, k]) => k > 0).map(([s, k]) => `${mark[s] ?? "•"} ${n(k)} ${s.replace("_", " ")}`).join(", ");
  return `${n(c.members)} node${c.members === 1 ? "" : "s"}: ${labels}${sigs ? ` · signatures ${sigs}` : ""}`;
}
