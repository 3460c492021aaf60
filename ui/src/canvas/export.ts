//! Saving what the canvas shows: a standalone SVG built from plain arrays (so it can be
//! tested without WebGL) in the same PROV shapes and colours, and a PNG made by
//! compositing the WebGL frame with the text overlay.

import { EDGE_STRIDE, EFLAGS, EKIND, Flag, NFLAGS, NH, NODE_STRIDE, NSHAPE, NSTATUS, NW, type Scene } from "./scene";
import { BADGE_RADIUS, HOUSE_ROOF, ROUNDED_RADIUS, Shape, STATUS_GLYPH, badgeSvg, boundaryDistance, type Palette } from "./style";

export interface SvgNode {
  id: string;
  label: string;
  shape: number;
  /** Centre and size in layout pixels. */
  x: number;
  y: number;
  w: number;
  h: number;
  /** Status code (0: no badge). */
  status: number;
  dimmed: boolean;
}

export interface SvgEdge {
  type: string;
  kind: number;
  sx: number;
  sy: number;
  sw: number;
  sh: number;
  sshape: number;
  tx: number;
  ty: number;
  tw: number;
  th: number;
  tshape: number;
  dimmed: boolean;
}

const XML_INVALID = /[^\u0009\u000A\u000D\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/** Text safe inside an XML element or a double-quoted attribute. */
export function escapeXml(s: string): string {
  return s.replace(XML_INVALID, "").replace(/[&<>"']/g, (c) =>
    c === "&" ? "&amp;" : c === "<" ? "&lt;" : c === ">" ? "&gt;" : c === '"' ? "&quot;" : "&apos;");
}

function num(v: number): string {
  const r = Math.round(v * 100) / 100;
  return Object.is(r, -0) ? "0" : String(r);
}

/** Shortens a label to about `maxW` pixels at `size` px (no font metrics here). */
function shorten(label: string, maxW: number, size: number): string {
  const chars = Array.from(label.replace(/\s+/g, " ").trim());
  const fits = Math.max(0, Math.floor(maxW / (size * 0.56)));
  if (chars.length <= fits) return chars.join("");
  return fits <= 1 ? "" : chars.slice(0, fits - 1).join("").trimEnd() + "…";
}

function shapeElement(n: SvgNode, fill: string, stroke: string): string {
  const hw = n.w / 2, hh = n.h / 2;
  const paint = `fill="${fill}" stroke="${stroke}" stroke-width="1"`;
  switch (n.shape) {
    case Shape.Ellipse:
      return `<ellipse cx="${num(n.x)}" cy="${num(n.y)}" rx="${num(hw)}" ry="${num(hh)}" ${paint}/>`;
    case Shape.House: {
      const eave = n.y - hh + 2 * hh * HOUSE_ROOF;
      const pts = [
        [n.x - hw, n.y + hh], [n.x + hw, n.y + hh], [n.x + hw, eave], [n.x, n.y - hh], [n.x - hw, eave],
      ].map(([a, b]) => `${num(a)},${num(b)}`).join(" ");
      return `<polygon points="${pts}" ${paint}/>`;
    }
    case Shape.Rounded: {
      const r = Math.min(hw, hh) * ROUNDED_RADIUS;
      return `<rect x="${num(n.x - hw)}" y="${num(n.y - hh)}" width="${num(n.w)}" height="${num(n.h)}" rx="${num(r)}" ${paint}/>`;
    }
    default:
      return `<rect x="${num(n.x - hw)}" y="${num(n.y - hh)}" width="${num(n.w)}" height="${num(n.h)}" ${paint}/>`;
  }
}

function badgeElement(n: SvgNode, pal: Palette): string {
  if (n.status <= 0) return "";
  const hw = n.w / 2, hh = n.h / 2;
  const br = Math.min(Math.min(hw, hh) * BADGE_RADIUS, 8);
  if (br < 1) return "";
  let bx: number, by: number;
  if (n.shape === Shape.Ellipse) {
    bx = hw * 0.7071;
    by = -hh * 0.7071;
  } else if (n.shape === Shape.House) {
    bx = hw - 0.5 * br;
    by = -hh + 2 * hh * HOUSE_ROOF;
  } else {
    bx = hw - 0.5 * br;
    by = -hh + 0.5 * br;
  }
  const colour = pal.status[n.status] ?? pal.status[4];
  const glyph = br >= 4 ? `<text class="badge-glyph" x="${num(n.x + bx)}" y="${num(n.y + by)}" font-size="${num(br * 1.35)}" font-weight="bold" fill="${pal.background}" text-anchor="middle" dominant-baseline="central">${escapeXml(STATUS_GLYPH[n.status] ?? "")}</text>` : "";
  return `${badgeSvg(n.status, n.x + bx, n.y + by, br, colour, pal.background)}${glyph}`;
}

/** A standalone SVG document of these nodes and edges, framed around them. */
export function buildSVG(nodes: readonly SvgNode[], edges: readonly SvgEdge[], pal: Palette): string {
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  for (const n of nodes) {
    minX = Math.min(minX, n.x - n.w / 2);
    minY = Math.min(minY, n.y - n.h / 2);
    maxX = Math.max(maxX, n.x + n.w / 2);
    maxY = Math.max(maxY, n.y + n.h / 2);
  }
  if (!(minX <= maxX)) {
    minX = 0; minY = 0; maxX = 100; maxY = 100;
  }
  const pad = 20;
  const vx = minX - pad, vy = minY - pad, vw = maxX - minX + 2 * pad, vh = maxY - minY + 2 * pad;
  const out: string[] = [];
  out.push(`<?xml version="1.0" encoding="UTF-8"?>`);
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" version="1.1" viewBox="${num(vx)} ${num(vy)} ${num(vw)} ${num(vh)}" width="${num(vw)}" height="${num(vh)}" font-family="system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif">`);
  out.push("<defs>");
  for (let k = 0; k < pal.edge.length; k++) {
    out.push(`<marker id="arrow-${k}" viewBox="0 0 9 8" refX="9" refY="4" markerWidth="9" markerHeight="8" markerUnits="userSpaceOnUse" orient="auto"><path d="M0,0 L9,4 L0,8 z" fill="${pal.edge[k]}"/></marker>`);
  }
  out.push("</defs>");
  out.push(`<rect x="${num(vx)}" y="${num(vy)}" width="${num(vw)}" height="${num(vh)}" fill="${pal.background}"/>`);
  out.push(`<g class="edges" fill="none" stroke-width="1.2">`);
  for (const e of edges) {
    const dx = e.tx - e.sx, dy = e.ty - e.sy;
    const len = Math.hypot(dx, dy);
    if (len === 0) continue;
    const ux = dx / len, uy = dy / len;
    const rs = boundaryDistance(e.sshape, e.sw / 2, e.sh / 2, ux, uy);
    const rt = boundaryDistance(e.tshape, e.tw / 2, e.th / 2, -ux, -uy);
    if (len - rs - rt <= 0) continue;
    const kind = Math.max(0, Math.min(pal.edge.length - 1, e.kind));
    out.push(`<line x1="${num(e.sx + ux * rs)}" y1="${num(e.sy + uy * rs)}" x2="${num(e.tx - ux * rt)}" y2="${num(e.ty - uy * rt)}" stroke="${pal.edge[kind]}" marker-end="url(#arrow-${kind})" data-type="${escapeXml(e.type)}"${e.dimmed ? ` opacity="${pal.dimAlpha}"` : ""}/>`);
  }
  out.push("</g>");
  out.push(`<g class="nodes">`);
  for (const n of nodes) {
    const shape = n.shape >= 0 && n.shape <= 3 ? n.shape : Shape.Rounded;
    const size = Math.min(13, Math.max(6, n.h * 0.34));
    const frac = shape === Shape.Ellipse ? 0.78 : 0.9;
    const text = shorten(n.label || n.id, n.w * frac - 6, size);
    const ty = shape === Shape.House ? n.y + n.h * HOUSE_ROOF * 0.25 : n.y;
    out.push(`<g class="node" data-id="${escapeXml(n.id)}"${n.dimmed ? ` opacity="${pal.dimAlpha}"` : ""}>`
      + `<title>${escapeXml(n.label ? `${n.label} (${n.id})` : n.id)}</title>`
      + shapeElement({ ...n, shape }, pal.fill[shape], pal.stroke[shape])
      + badgeElement({ ...n, shape }, pal)
      + (text ? `<text class="label" x="${num(n.x)}" y="${num(ty)}" font-size="${num(size)}" fill="${pal.nodeText}" text-anchor="middle" dominant-baseline="central">${escapeXml(text)}</text>` : "")
      + "</g>");
  }
  out.push("</g>");
  out.push("</svg>");
  return out.join("\n");
}

/** The scene's visible nodes and edges at time `now` (seconds) as an SVG document. */
export function sceneToSVG(scene: Scene, pal: Palette, now: number): string {
  const nd = scene.nodes.data, ed = scene.edges.data;
  const nodes: SvgNode[] = [];
  for (let i = 0; i < scene.nodeCount; i++) {
    if (!scene.isShown(i)) continue;
    const o = i * NODE_STRIDE, v = scene.views[i];
    nodes.push({
      id: v.id, label: v.label, shape: nd[o + NSHAPE],
      x: scene.positionX(i, now), y: scene.positionY(i, now), w: nd[o + NW], h: nd[o + NH],
      status: nd[o + NSTATUS], dimmed: (nd[o + NFLAGS] & Flag.Dim) !== 0,
    });
  }
  const edges: SvgEdge[] = [];
  for (let ei = 0; ei < scene.edgeCount; ei++) {
    const f = ed[ei * EDGE_STRIDE + EFLAGS];
    if (f & Flag.Hidden) continue;
    const s = scene.edgeSrc[ei], t = scene.edgeTgt[ei];
    const so = s * NODE_STRIDE, to = t * NODE_STRIDE;
    edges.push({
      type: scene.edgeViews[ei].type, kind: ed[ei * EDGE_STRIDE + EKIND],
      sx: scene.positionX(s, now), sy: scene.positionY(s, now), sw: nd[so + NW], sh: nd[so + NH], sshape: nd[so + NSHAPE],
      tx: scene.positionX(t, now), ty: scene.positionY(t, now), tw: nd[to + NW], th: nd[to + NH], tshape: nd[to + NSHAPE],
      dimmed: (f & Flag.Dim) !== 0,
    });
  }
  return buildSVG(nodes, edges, pal);
}

/** Draws the WebGL frame and the overlay onto one canvas and encodes it as PNG. The
 *  WebGL canvas must have been drawn in this same task (its buffer is not preserved). */
export function compositePNG(gl: HTMLCanvasElement | null, overlay: HTMLCanvasElement | null,
  width: number, height: number, background: string): Promise<Blob> {
  const out = document.createElement("canvas");
  out.width = Math.max(1, width);
  out.height = Math.max(1, height);
  const ctx = out.getContext("2d");
  if (!ctx) return Promise.reject(new Error("no 2D canvas to export with"));
  ctx.fillStyle = background;
  ctx.fillRect(0, 0, out.width, out.height);
  if (gl) ctx.drawImage(gl, 0, 0, out.width, out.height);
  if (overlay) ctx.drawImage(overlay, 0, 0, out.width, out.height);
  return new Promise((resolve, reject) => {
    out.toBlob((b) => (b ? resolve(b) : reject(new Error("PNG encoding failed"))), "image/png");
  });
}
