// Keyboard moves along edges: from the selected node, an arrow key picks the
// neighbour (joined by an edge either way) that lies most nearly in that direction on the
// canvas, so the keyboard can walk a trail as the eye does.

export type Arrow = "up" | "down" | "left" | "right";

const DIRECTION: Record<Arrow, readonly [number, number]> = {
  up: [0, -1], down: [0, 1], left: [-1, 0], right: [1, 0],
};

/** Neighbours further than this angle from the arrow's direction are not candidates. */
const MAX_ANGLE_COS = Math.cos((70 * Math.PI) / 180);

interface Placed { x: number, y: number }
interface Joined { source: string, target: string }

/** The neighbour of `from` an arrow key moves to, or null when none lies that way.
 *  `shown` leaves out nodes that are filtered away. Ties go to the nearer, then the one
 *  nearer the arrow's line, then the smaller id (so the answer does not depend on order). */
export function neighbourToward(nodes: ReadonlyMap<string, Placed>, edges: Iterable<Joined>, from: string, arrow: Arrow,
  shown: ((id: string) => boolean) | null = null): string | null {
  const at = nodes.get(from);
  if (!at) return null;
  const [dx, dy] = DIRECTION[arrow];
  let best: string | null = null;
  let bestCost = Infinity;
  for (const e of edges) {
    const other = e.source === from ? e.target : e.target === from ? e.source : null;
    if (other === null || other === from || (shown && !shown(other))) continue;
    const n = nodes.get(other);
    if (!n) continue;
    const vx = n.x - at.x, vy = n.y - at.y;
    const dist = Math.hypot(vx, vy);
    if (dist === 0) continue;
    const cos = (vx * dx + vy * dy) / dist;
    if (cos < MAX_ANGLE_COS) continue;
    // Off the arrow's line costs extra: straight up beats up-and-far-right.
    const cost = dist * (1 + 2 * (1 - cos));
    if (cost < bestCost - 1e-9 || (Math.abs(cost - bestCost) <= 1e-9 && best !== null && other < best)) {
      best = other;
      bestCost = cost;
    }
  }
  return best;
}
