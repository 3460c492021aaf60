//! The shaders' GLSL source, one text for WebGL 2 and WebGL 1 (its header differs): the node
//! programs draw each node's shape and stroke by signed distance, and, built with `DECOR`,
//! its badge, ring and glow (two programs, because software GL pays for every branch of a
//! fragment shader on every pixel); the edge program a quad and an arrow head stopping at
//! the target's outline (programs.ts runs them). Records are read from data textures by
//! vertex number.

import { GLOW_SECONDS } from "./scene";
import { BADGE_RADIUS, HOUSE_ROOF, ROUNDED_RADIUS } from "./style";
import { ListTexture } from "./gl";

const LIST_TEXELS_PER_ROW = ListTexture.TEXELS_PER_ROW;

/** Node records per row of the node texture, edge records per row of the edge texture. */
export const NODES_PER_ROW = 512;
export const EDGES_PER_ROW = 1024;

export function vertexHeader(webgl2: boolean): string {
  const common = `
float bit(float flags, float b) { return mod(floor(flags / b), 2.0); }
float moveT(vec2 move, float time) {
  float t = move.y > 0.0 ? clamp((time - move.x) / move.y, 0.0, 1.0) : 1.0;
  return t * t * (3.0 - 2.0 * t);
}
uniform sampler2D u_nodes;
uniform vec2 u_nodeTex;
vec4 nodeTexel(float i, float k) {
  float row = floor((i + 0.5) / ${NODES_PER_ROW.toFixed(1)});
  return texelAt(u_nodes, u_nodeTex, (i - row * ${NODES_PER_ROW.toFixed(1)}) * 3.0 + k, row);
}
// Culling: slot n draws the record listed at n (four per texel), or record n itself.
uniform sampler2D u_list;
uniform vec2 u_listTex;
uniform float u_useList;
float record(float slot) {
  if (u_useList < 0.5) return slot;
  float texel = floor((slot + 0.5) / 4.0);
  float c = slot - texel * 4.0;
  float row = floor((texel + 0.5) / ${LIST_TEXELS_PER_ROW.toFixed(1)});
  vec4 v = texelAt(u_list, u_listTex, texel - row * ${LIST_TEXELS_PER_ROW.toFixed(1)}, row);
  return c < 0.5 ? v.x : c < 1.5 ? v.y : c < 2.5 ? v.z : v.w;
}
`;
  return webgl2
    ? `#version 300 es
precision highp float;
precision highp sampler2D;
#define VID float(gl_VertexID)
#define varying out
vec4 texelAt(sampler2D t, vec2 size, float col, float row) { return texelFetch(t, ivec2(int(col), int(row)), 0); }
${common}`
    : `precision highp float;
attribute float a_vid;
#define VID a_vid
vec4 texelAt(sampler2D t, vec2 size, float col, float row) { return texture2D(t, (vec2(col, row) + 0.5) / size); }
${common}`;
}

export function fragmentHeader(webgl2: boolean): string {
  const common = `
float bit(float flags, float b) { return mod(floor(flags / b), 2.0); }
`;
  return webgl2
    ? `#version 300 es
precision highp float;
out vec4 fragColor;
#define gl_FragColor fragColor
#define varying in
${common}`
    : `#ifdef GL_FRAGMENT_PRECISION_HIGH
precision highp float;
#else
precision mediump float;
#endif
${common}`;
}

export const NODE_VS = `
uniform vec4 u_view;
uniform float u_hover;
uniform float u_px;
uniform float u_time;
uniform vec2 u_move;
uniform float u_points;
uniform vec4 u_fill[4];
uniform vec4 u_stroke[4];
uniform vec4 u_badge[5];
varying vec2 v_local;
varying vec2 v_half;
varying float v_ext;
varying float v_shape;
varying float v_flags;
varying vec4 v_fill;
varying vec4 v_stroke;
#ifdef DECOR
varying float v_glow;
varying float v_pad;
varying vec4 v_badge;
varying float v_status;
#endif
void main() {
  float vid = VID;
  float inst;
  vec2 corner;
  if (u_points > 0.5) {
    inst = record(vid);
    corner = vec2(0.0);
  } else {
    float slot = floor((vid + 0.5) / 6.0);
    float k = vid - slot * 6.0;
    inst = record(slot);
    corner = vec2(((k > 0.5 && k < 2.5) || (k > 3.5 && k < 4.5)) ? 1.0 : -1.0,
                  ((k > 1.5 && k < 2.5) || k > 3.5) ? 1.0 : -1.0);
  }
  vec4 pos = nodeTexel(inst, 0.0);
  vec4 box = nodeTexel(inst, 1.0);
  vec4 meta = nodeTexel(inst, 2.0);
  float flags = meta.x;
  // Without hover (a cached picture draws it apart): as if the node were not hovered.
  if (u_hover < 0.5 && bit(flags, 16.0) > 0.5) flags -= 16.0;
  vec2 c = mix(pos.zw, pos.xy, moveT(u_move, u_time));
  // Never smaller than a dot, so a zoomed-out 50k graph still shows every node.
  vec2 hs = max(box.xy * 0.5, vec2(u_px * 1.5));
  float age = u_time - meta.y;
  float glow = (age >= 0.0 && age < ${GLOW_SECONDS.toFixed(3)}) ? 1.0 - age / ${GLOW_SECONDS.toFixed(3)} : 0.0;
  float ring = (bit(flags, 4.0) + bit(flags, 16.0)) > 0.5 ? 7.0 * u_px : 0.0;
  float gpad = glow > 0.0 ? max(min(hs.x, hs.y) * 0.9, 18.0 * u_px) : 0.0;
  float bpad = box.w > 0.5 ? min(hs.x, hs.y) * 0.3 : 0.0;
  // Past half a pixel outside its outline a node's pixels are clear (the fragment shader
  // discards them): a plain node's quad stops a quarter pixel further, a decorated one's
  // leaves room for its glow to fade.
#ifdef DECOR
  float pad = max(max(ring, gpad), bpad) + 1.5 * u_px;
#else
  float pad = max(max(ring, gpad), bpad) + 0.75 * u_px;
#endif
  vec2 local = corner * (hs + pad);
  v_local = local;
  v_half = hs;
  v_ext = max(hs.x, hs.y) + pad;
  v_shape = box.z;
  v_flags = flags;
  int shape = int(box.z + 0.5);
  int status = int(box.w + 0.5);
  v_fill = u_fill[shape];
  v_stroke = u_stroke[shape];
  // A node with a badge, a ring or a glow is drawn by the program with DECOR, any other by
  // the one without (programs.ts): software GL runs every branch of a fragment shader
  // whether a pixel takes it or not.
  bool decor = u_badge[status].a > 0.0 || ring > 0.0 || glow > 0.0;
#ifdef DECOR
  v_glow = glow;
  v_pad = pad;
  v_badge = u_badge[status];
  v_status = box.w;
  bool mine = decor;
#else
  bool mine = !decor;
#endif
  gl_PointSize = 2.0 * v_ext / u_px;
  vec2 p = (c + local - u_view.xy) * u_view.zw;
  gl_Position = bit(flags, 1.0) > 0.5 || !mine ? vec4(2.0, 2.0, 2.0, 1.0) : vec4(p, 0.0, 1.0);
}
`;

export const NODE_FS = `
uniform float u_px;
uniform float u_css;
uniform float u_dim;
uniform float u_points;
uniform vec4 u_ring;
uniform vec4 u_glow;
uniform vec4 u_bg;
varying vec2 v_local;
varying vec2 v_half;
varying float v_ext;
varying float v_shape;
varying float v_flags;
varying vec4 v_fill;
varying vec4 v_stroke;
#ifdef DECOR
varying float v_glow;
varying float v_pad;
varying vec4 v_badge;
varying float v_status;
#endif
float sdBox(vec2 p, vec2 b, float r) {
  vec2 q = abs(p) - b + vec2(r);
  return length(max(q, 0.0)) + min(max(q.x, q.y), 0.0) - r;
}
float sdEllipse(vec2 p, vec2 ab) {
  float k0 = length(p / ab);
  float k1 = length(p / (ab * ab));
  return k1 > 0.0 ? k0 * (k0 - 1.0) / k1 : -min(ab.x, ab.y);
}
float sdHouse(vec2 p, vec2 h) {
  float roof = 2.0 * h.y * ${HOUSE_ROOF.toFixed(4)};
  vec2 n = normalize(vec2(roof, -h.x));
  float plane = dot(vec2(abs(p.x), p.y) - vec2(0.0, -h.y), n);
  return max(sdBox(p, h, 0.0), plane);
}
float shapeDist(vec2 p, vec2 h) {
  if (v_shape < 0.5) return sdEllipse(p, h);
  if (v_shape < 1.5) return sdBox(p, h, 0.0);
  if (v_shape < 2.5) return sdHouse(p, h);
  return sdBox(p, h, min(h.x, h.y) * ${ROUNDED_RADIUS.toFixed(4)});
}
vec4 over(vec4 top, vec4 under) { return top + under * (1.0 - top.a); }
void main() {
  float aa = u_px;
  vec2 local = u_points > 0.5 ? (gl_PointCoord * 2.0 - 1.0) * v_ext : v_local;
  float d = shapeDist(local, v_half);
  float strong = max(bit(v_flags, 8.0), bit(v_flags, 16.0));
  float fillA = 1.0 - smoothstep(-0.5 * aa, 0.5 * aa, d);
  float sw = min((1.0 + strong) * u_css, min(v_half.x, v_half.y) * 0.3);
  float edge = smoothstep(-sw - 0.5 * aa, -sw + 0.5 * aa, d);
  vec4 col = vec4(mix(v_fill.rgb, v_stroke.rgb, edge), 1.0) * fillA;
#ifdef DECOR
  float selected = bit(v_flags, 4.0);
  if (v_badge.a > 0.0) {
    float br = min(min(v_half.x, v_half.y) * ${BADGE_RADIUS.toFixed(4)}, 8.0 * u_css);
    vec2 bc;
    if (v_shape < 0.5) bc = vec2(v_half.x, -v_half.y) * 0.7071;
    else if (v_shape > 1.5 && v_shape < 2.5) bc = vec2(v_half.x - 0.5 * br, -v_half.y + 2.0 * v_half.y * ${HOUSE_ROOF.toFixed(4)});
    else bc = vec2(v_half.x - 0.5 * br, -v_half.y + 0.5 * br);
    // Each status has its own shape, so colour is never the only cue (style.ts BADGE_SHAPE).
    vec2 q = local - bc;
    float st = floor(v_status + 0.5);
    float bd = length(q) - br;
    if (st > 1.5 && st < 2.5) bd = (abs(q.x) + abs(q.y)) * 0.7071 - br * 0.8;
    else if (st > 2.5 && st < 3.5) bd = max(abs(q.x), abs(q.y)) - br * 0.82;
    else if (st > 3.5) bd = abs(length(q) - br * 0.7) - br * 0.3;
    float ba = (1.0 - smoothstep(-0.5 * aa, 0.5 * aa, bd)) * step(1.5 * u_css, br);
    float rim = smoothstep(-0.5 * aa, 0.5 * aa, bd + min(u_css, br * 0.25));
    col = over(vec4(mix(v_badge.rgb, u_bg.rgb, rim), 1.0) * ba, col);
  }
  if (selected + bit(v_flags, 16.0) > 0.5) {
    float gap = 2.0 * u_css;
    float rw = (selected > 0.5 ? 2.5 : 1.5) * u_css;
    float rd = abs(d - gap - 0.5 * rw) - 0.5 * rw;
    float ra = 1.0 - smoothstep(-0.5 * aa, 0.5 * aa, rd);
    vec4 rc = selected > 0.5 ? u_ring : vec4(v_stroke.rgb, 0.55);
    col = over(col, vec4(rc.rgb * rc.a, rc.a) * ra);
  }
  if (v_glow > 0.0) {
    float g = v_glow * exp(-max(d, 0.0) / max(v_pad * 0.35, aa)) * (1.0 - fillA);
    col = over(col, vec4(u_glow.rgb, 1.0) * g * 0.9);
  }
#endif
  col *= mix(1.0, u_dim, bit(v_flags, 2.0));
  if (col.a < 0.004) discard;
  gl_FragColor = col;
}
`;

export const EDGE_VS = `
uniform sampler2D u_edges;
uniform vec2 u_edgeTex;
uniform vec4 u_view;
uniform float u_px;
uniform float u_css;
uniform float u_time;
uniform vec2 u_move;
uniform float u_dim;
uniform float u_lines;
uniform float u_heads;
uniform vec4 u_edge[4];
varying vec4 v_color;
varying float v_side;
varying float v_halfw;
varying vec2 v_tri;
float boundary(float shape, vec2 h, vec2 u) {
  if (shape < 0.5) { vec2 q = u / h; return inversesqrt(dot(q, q)); }
  vec2 a = abs(u);
  float t = min(a.x > 1e-6 ? h.x / a.x : 1e9, a.y > 1e-6 ? h.y / a.y : 1e9);
  if (shape > 1.5 && shape < 2.5 && u.y < 0.0) {
    vec2 n = vec2(2.0 * h.y * ${HOUSE_ROOF.toFixed(4)}, -h.x);
    float den = a.x * n.x + u.y * n.y;
    if (den > 1e-9) t = min(t, (-h.y * n.y) / den);
  }
  return t;
}
void main() {
  float vid = VID;
  // Heads only: the last three of the nine vertices (the body is drawn elsewhere).
  float vpe = u_lines > 0.5 ? 2.0 : u_heads > 0.5 ? 3.0 : 9.0;
  float slot = floor((vid + 0.5) / vpe);
  float k = vid - slot * vpe + (u_heads > 0.5 ? 6.0 : 0.0);
  float e = record(slot);
  // Per vertex: position along the edge (0..1), side (-1..1), 1 for the arrow head. A
  // plain line is just its two ends: the start, and the tip (as the head's tip).
  vec3 v;
  if (u_lines > 0.5) {
    v = vec3(k, 0.0, k);
  } else {
    v.x = (k > 0.5 && k < 2.5) || (k > 3.5 && k < 4.5) || (k > 5.5 && k < 6.5) ? 1.0 : 0.0;
    v.y = (k > 5.5 && k < 6.5) ? 0.0 : (k < 1.5 || (k > 2.5 && k < 3.5) || (k > 6.5 && k < 7.5)) ? -1.0 : 1.0;
    v.z = k > 5.5 ? 1.0 : 0.0;
  }
  float row = floor((e + 0.5) / ${EDGES_PER_ROW.toFixed(1)});
  vec4 rec = texelAt(u_edges, u_edgeTex, e - row * ${EDGES_PER_ROW.toFixed(1)}, row);
  vec4 sPos = nodeTexel(rec.x, 0.0), sBox = nodeTexel(rec.x, 1.0);
  vec4 tPos = nodeTexel(rec.y, 0.0), tBox = nodeTexel(rec.y, 1.0);
  float flags = rec.w;
  float m = moveT(u_move, u_time);
  vec2 s = mix(sPos.zw, sPos.xy, m);
  vec2 t = mix(tPos.zw, tPos.xy, m);
  vec2 d = t - s;
  float len = length(d);
  vec2 u = len > 0.0 ? d / len : vec2(1.0, 0.0);
  vec2 n = vec2(-u.y, u.x);
  float rs = boundary(sBox.z, max(sBox.xy * 0.5, vec2(u_px * 1.5)), u);
  float rt = boundary(tBox.z, max(tBox.xy * 0.5, vec2(u_px * 1.5)), -u);
  float avail = len - rs - rt;
  float strong = max(bit(flags, 8.0), bit(flags, 16.0));
  float head = min(clamp(9.0, 4.0 * u_css, 12.0 * u_css) * (1.0 + 0.25 * strong), avail * 0.6);
  float hw = (0.6 + 0.7 * strong) * u_css;
  vec2 start = s + u * rs;
  vec2 tip = t - u * rt;
  vec2 base = tip - u * head;
  vec2 p;
  if (v.z < 0.5) {
    // The body's pixels are clear from half a pixel past its half-width on (EDGE_FS).
    p = mix(start, base + u * head * 0.2, v.x) + n * (v.y * (hw + 0.75 * u_px));
    v_side = v.y * (hw + 0.75 * u_px);
    v_tri = vec2(100.0);
  } else {
    p = v.x > 0.5 ? tip : base + n * (v.y * head * 0.42);
    v_side = 0.0;
    // Distances (device px) to the head's two slanted sides, for smoothing them.
    float alt = head * 0.7745 / u_px;
    v_tri = u_lines > 0.5 ? vec2(100.0) : v.x > 0.5 ? vec2(0.0) : v.y < 0.0 ? vec2(0.0, alt) : vec2(alt, 0.0);
  }
  v_halfw = hw;
  vec4 c = u_edge[int(rec.z + 0.5)];
  float alpha = mix(u_lines > 0.5 ? 0.55 : 0.75, 1.0, strong) * mix(1.0, u_dim, bit(flags, 2.0));
  v_color = vec4(c.rgb * alpha, alpha);
  bool hidden = bit(flags, 1.0) > 0.5 || avail <= 0.0;
  gl_Position = hidden ? vec4(2.0, 2.0, 2.0, 1.0) : vec4((p - u_view.xy) * u_view.zw, 0.0, 1.0);
}
`;

export const EDGE_FS = `
uniform float u_px;
varying vec4 v_color;
varying float v_side;
varying float v_halfw;
varying vec2 v_tri;
void main() {
  float a = clamp((v_halfw + 0.5 * u_px - abs(v_side)) / u_px, 0.0, 1.0);
  a *= clamp(min(v_tri.x, v_tri.y) + 0.5, 0.0, 1.0);
  if (a <= 0.0) discard;
  gl_FragColor = v_color * a;
}
`;

export const NODE_UNIFORMS = ["u_list", "u_listTex", "u_useList", "u_nodes", "u_nodeTex", "u_view", "u_hover", "u_px", "u_css", "u_time", "u_move", "u_points", "u_fill",
  "u_stroke", "u_badge", "u_dim", "u_ring", "u_glow", "u_bg"];
export const EDGE_UNIFORMS = ["u_list", "u_listTex", "u_useList", "u_nodes", "u_nodeTex", "u_edges", "u_edgeTex", "u_view", "u_px", "u_css", "u_time", "u_move",
  "u_dim", "u_lines", "u_heads", "u_edge"];
