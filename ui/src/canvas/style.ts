//! How a node or edge looks, decided in one place so the WebGL shaders, the hit test and
//! the SVG export agree: PROV's drawing convention (entity = yellow ellipse, activity =
//! blue rectangle, agent = orange house), theme palettes, and signature-status colours and
//! shapes. Status and edge colours come from Okabe & Ito's palette ("Color Universal Design",
//! 2002), which stays distinct under the common colour-vision deficiencies.

import type { Theme } from "./types";

/** Shape codes, as stored per node instance and switched on in the fragment shader. */
export const Shape = { Ellipse: 0, Box: 1, House: 2, Rounded: 3 } as const;
export type ShapeCode = (typeof Shape)[keyof typeof Shape];

/** The agent "house": the roof takes this fraction of the box height. */
export const HOUSE_ROOF = 0.35;
/** Corner radius of the unknown-type box, as a fraction of the smaller half-size. */
export const ROUNDED_RADIUS = 0.35;

export function shapeOf(baseType: string | null | undefined): ShapeCode {
  switch (baseType) {
    case "ProvEntity": return Shape.Ellipse;
    case "ProvActivity": return Shape.Box;
    case "ProvAgent": return Shape.House;
    default: return Shape.Rounded;
  }
}

/** Status codes, stored per node instance (0: no badge). */
export const Status = { None: 0, Valid: 1, Bad: 2, Doubtful: 3, Unsigned: 4 } as const;
export type StatusCode = (typeof Status)[keyof typeof Status];

export function statusCode(status: string | null | undefined): StatusCode {
  switch (status) {
    case null: case undefined: case "": return Status.None;
    case "valid": return Status.Valid;
    case "invalid": case "malformed": return Status.Bad;
    case "unknown_key": case "untrusted_key": return Status.Doubtful;
    // "unsigned" and anything the canvas does not know yet: a neutral badge.
    default: return Status.Unsigned;
  }
}

/** A node's badge: a claim's standing when it has one (so a claim verified by consensus but
 *  with an invalid signature or quote never shows ✓), else its signature status. */
export function badgeCode(n: { status: string | null; standing?: string | null }): StatusCode {
  switch (n.standing) {
    case null: case undefined: case "": return statusCode(n.status);
    case "verified": return Status.Valid;
    case "invalid_signature": case "claim_mismatch": case "quote_mismatch": case "challenged": return Status.Bad;
    // A span that failed (docs/FORMATS.md "OpenTelemetry traces").
    case "failed": return Status.Bad;
    case "unknown_signer": return Status.Doubtful;
    default: return Status.Unsigned;
  }
}

/** A glyph for the badge when it is large enough to read. */
export const STATUS_GLYPH: readonly string[] = ["", "✓", "✗", "?", "–"];

/** A badge's radius as a share of its node's smaller half-size (capped at 8 CSS px): large
 *  enough that its shape reads in the first view. */
export const BADGE_RADIUS = 0.45;

/** The badge's shape by status, so that no status is told by colour alone (the node shader,
 *  the SVG export and the legend draw these): valid a disc, invalid a diamond, an unknown
 *  key a square, unsigned a ring. */
export const BADGE_SHAPE: readonly string[] = ["", "disc", "diamond", "square", "ring"];

/** SVG markup of a status badge of radius `r` centred on (cx, cy). */
export function badgeSvg(status: number, cx: number, cy: number, r: number, colour: string, background: string): string {
  const f = (v: number) => (Math.round(v * 100) / 100).toString();
  const edge = `stroke="${background}" stroke-width="1"`;
  switch (BADGE_SHAPE[status]) {
    case "diamond": {
      const d = r * 0.8 * Math.SQRT2;
      return `<polygon class="badge" data-shape="diamond" points="${f(cx)},${f(cy - d)} ${f(cx + d)},${f(cy)} ${f(cx)},${f(cy + d)} ${f(cx - d)},${f(cy)}" fill="${colour}" ${edge}/>`;
    }
    case "square": {
      const s = r * 0.82;
      return `<rect class="badge" data-shape="square" x="${f(cx - s)}" y="${f(cy - s)}" width="${f(2 * s)}" height="${f(2 * s)}" fill="${colour}" ${edge}/>`;
    }
    case "ring":
      return `<circle class="badge" data-shape="ring" cx="${f(cx)}" cy="${f(cy)}" r="${f(r * 0.7)}" fill="none" stroke="${colour}" stroke-width="${f(r * 0.6)}"/>`;
    default:
      return `<circle class="badge" data-shape="disc" cx="${f(cx)}" cy="${f(cy)}" r="${f(r)}" fill="${colour}" ${edge}/>`;
  }
}

/** Edge colour classes: plain provenance, support, challenge, citation. */
export const EdgeKind = { Plain: 0, Support: 1, Challenge: 2, Citation: 3 } as const;
export type EdgeKindCode = (typeof EdgeKind)[keyof typeof EdgeKind];

/** Edge kinds by type as given, for the few types a graph has (a view's 77,000 edges would
 *  otherwise upper-case their type one by one). */
const kinds = new Map<string, EdgeKindCode>();
/** Past this many types they are not remembered (any input, any number of types). */
const KINDS_KEPT = 1024;

export function edgeKind(type: string): EdgeKindCode {
  const known = kinds.get(type);
  if (known !== undefined) return known;
  const kind = kindOf(type);
  if (kinds.size < KINDS_KEPT) kinds.set(type, kind);
  return kind;
}

function kindOf(type: string): EdgeKindCode {
  switch (type.toUpperCase()) {
    case "VERIFIED": case "VALIDATED": case "VALIDATES": case "SUPPORTS":
      return EdgeKind.Support;
    case "CHALLENGED": case "CONTRADICTS": case "REFUTES": case "DISPUTES":
      return EdgeKind.Challenge;
    case "CITES": case "QUOTES": case "SOURCED_FROM":
      return EdgeKind.Citation;
    default:
      return EdgeKind.Plain;
  }
}

export interface Palette {
  background: string;
  /** Fill and stroke by shape code (Ellipse, Box, House, Rounded). */
  fill: readonly [string, string, string, string];
  stroke: readonly [string, string, string, string];
  /** Text drawn on nodes (the fills are light in both themes). */
  nodeText: string;
  /** Text drawn on the background (edge labels). */
  text: string;
  /** Label pill behind edge labels. */
  labelBackground: string;
  /** Edge colour by edge kind. */
  edge: readonly [string, string, string, string];
  /** Badge colour by status code (index 0 unused). */
  status: readonly [string, string, string, string, string];
  selection: string;
  glow: string;
  /** Opacity of things dimmed by a highlight. */
  dimAlpha: number;
}

const LIGHT: Palette = {
  background: "#ffffff",
  fill: ["#FFFC87", "#9FB1FC", "#FED37F", "#DCDCDC"],
  stroke: ["#808080", "#0000FF", "#000000", "#8A8A8A"],
  nodeText: "#111111",
  text: "#1F2937",
  labelBackground: "#FFFFFFE6",
  edge: ["#8C8C8C", "#009E73", "#D55E00", "#6D5BD0"],
  status: ["#000000", "#009E73", "#D55E00", "#E69F00", "#8A919C"],
  selection: "#D6336C",
  glow: "#00A8FF",
  dimAlpha: 0.14,
};

const DARK: Palette = {
  background: "#15171C",
  fill: ["#D8D56A", "#8195E6", "#E2B563", "#A3A8B1"],
  stroke: ["#F2F0A8", "#C9D3FF", "#FFE2AE", "#D5D8DE"],
  nodeText: "#0B0B0B",
  text: "#E5E7EB",
  labelBackground: "#15171CE6",
  edge: ["#7B8190", "#2EC4A0", "#F07A2A", "#9D8CF2"],
  status: ["#000000", "#2EC4A0", "#F07A2A", "#F2B531", "#9CA3AF"],
  selection: "#FF5C97",
  glow: "#38BDF8",
  dimAlpha: 0.16,
};

export function palette(theme: Theme): Palette {
  return theme === "dark" ? DARK : LIGHT;
}

/** Parses "#RGB", "#RRGGBB" or "#RRGGBBAA" into 0..1 floats, written into `out` at `at`. */
export function hexToRgba(hex: string, out: Float32Array | number[] = new Float32Array(4), at = 0): Float32Array | number[] {
  let h = hex.startsWith("#") ? hex.slice(1) : hex;
  if (h.length === 3) h = h[0] + h[0] + h[1] + h[1] + h[2] + h[2];
  if (!/^[0-9a-fA-F]{6}([0-9a-fA-F]{2})?$/.test(h)) throw new Error(`not a colour: ${hex}`);
  out[at] = parseInt(h.slice(0, 2), 16) / 255;
  out[at + 1] = parseInt(h.slice(2, 4), 16) / 255;
  out[at + 2] = parseInt(h.slice(4, 6), 16) / 255;
  out[at + 3] = h.length === 8 ? parseInt(h.slice(6, 8), 16) / 255 : 1;
  return out;
}

/** Whether the point (dx, dy) relative to a node's centre lies inside its drawn shape
 *  with half-sizes hw, hh (y grows downward, so the house roof is at negative dy). */
export function insideShape(shape: number, dx: number, dy: number, hw: number, hh: number): boolean {
  if (hw <= 0 || hh <= 0) return false;
  const ax = Math.abs(dx);
  if (ax > hw || Math.abs(dy) > hh) return false;
  switch (shape) {
    case Shape.Ellipse: {
      const u = dx / hw, v = dy / hh;
      return u * u + v * v <= 1;
    }
    case Shape.House: {
      const roof = 2 * hh * HOUSE_ROOF;
      const fromTop = dy + hh; // 0 at the apex
      if (fromTop >= roof) return true;
      return ax <= (hw * fromTop) / roof;
    }
    case Shape.Rounded: {
      const r = Math.min(hw, hh) * ROUNDED_RADIUS;
      const qx = ax - (hw - r), qy = Math.abs(dy) - (hh - r);
      if (qx <= 0 || qy <= 0) return true;
      return qx * qx + qy * qy <= r * r;
    }
    default:
      return true;
  }
}

/** Distance from a node's centre to its outline along the unit direction (ux, uy):
 *  where an edge leaving or entering the node should stop. Mirrors the edge shader. */
export function boundaryDistance(shape: number, hw: number, hh: number, ux: number, uy: number): number {
  if (shape === Shape.Ellipse) {
    const a = ux / hw, b = uy / hh;
    return 1 / Math.sqrt(a * a + b * b);
  }
  const ax = Math.abs(ux), ay = Math.abs(uy);
  let t = Math.min(ax > 1e-9 ? hw / ax : Infinity, ay > 1e-9 ? hh / ay : Infinity);
  if (shape === Shape.House && uy < 0) {
    // Roof line from the apex (0, -hh) to the eave (hw, -hh + roof), outward normal (roof, -hw).
    const roof = 2 * hh * HOUSE_ROOF;
    const nx = roof, ny = -hw;
    const denom = ax * nx + uy * ny;
    if (denom > 1e-12) t = Math.min(t, (-hh * ny) / denom);
  }
  return t;
}
