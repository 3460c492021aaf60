//! Where the camera opens on a graph: on what matters in it, at a zoom where its
//! labels can be read, rather than on the whole drawing shrunk until nothing can be read.
//! Claims (A2AP statements) come first, then runtime tasks; a graph with neither opens whole.

import type { ViewNode } from "../api/contract";
import type { Bounds, CameraState } from "./camera";
import { LABEL_MIN_HEIGHT } from "./labels";

/** Node labels, most telling first: the first one a graph has is what its first view shows. */
export const FOCUS_LABELS = ["Statement", "A2ATask"] as const;

/** Height on screen (CSS px) the first view gives the focus nodes at least, so their labels
 *  are drawn (labels.ts draws them from LABEL_MIN_HEIGHT, whole, at a readable font whatever
 *  the node's size): no more, so that the first view shows as many of them as it can. */
export const READABLE_HEIGHT = LABEL_MIN_HEIGHT + 2;

/** The ids of the nodes the first view should show: those of the first of FOCUS_LABELS the
 *  graph has (empty when it has none). */
export function focusIds(nodes: Iterable<ViewNode>): string[] {
  const by = new Map<string, string[]>();
  for (const n of nodes) {
    if ((FOCUS_LABELS as readonly string[]).includes(n.label)) {
      const list = by.get(n.label) ?? [];
      list.push(n.id);
      by.set(n.label, list);
    }
  }
  for (const label of FOCUS_LABELS) {
    const ids = by.get(label);
    if (ids?.length) return ids;
  }
  return [];
}

/** The camera that shows `focus` (the focus nodes' box) whole when that leaves their nodes at
 *  least READABLE_HEIGHT tall (`nodeHeight` in world units), else at that height centred on
 *  the box's first part (its left end, or its top when it is taller than wide): a first view
 *  shows some claims readably rather than all of them unreadably. */
export function firstViewState(focus: Bounds, nodeHeight: number, width: number, height: number,
  padding = 32): CameraState {
  const bw = Math.max(focus.maxX - focus.minX, 1), bh = Math.max(focus.maxY - focus.minY, 1);
  const aw = Math.max(width - 2 * padding, 1), ah = Math.max(height - 2 * padding, 1);
  const readable = READABLE_HEIGHT / Math.max(nodeHeight, 1);
  const whole = Math.min(aw / bw, ah / bh, 2);
  if (whole >= readable) return { x: (focus.minX + focus.maxX) / 2, y: (focus.minY + focus.maxY) / 2, scale: whole };
  const scale = readable;
  const halfW = aw / 2 / scale, halfH = ah / 2 / scale;
  const x = bw / 2 > halfW ? focus.minX + halfW : (focus.minX + focus.maxX) / 2;
  const y = bh / 2 > halfH ? focus.minY + halfH : (focus.minY + focus.maxY) / 2;
  return { x, y, scale };
}
