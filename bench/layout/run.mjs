// Peer layouts for the Provex layout benchmark: dagre and ELK layered on the same graph files.
//
//   node run.mjs one   <dir> <dagre|elk> <n>   lay out <dir>/graph-<n>.json once, print a JSON line
//   node run.mjs all   <dir> <plan> [timeoutSec]
//        plan: comma list of tool:n, e.g. dagre:1000,elk:1000,elk:5000; each runs in a child
//        process with a timeout (default 600 s); writes <dir>/peer-results.json
//   node run.mjs table <dir>                     print the markdown table of all results
//
// Node sizes follow the Rust side: width = max(7 px per label character + 24, 40), height 36.
// dagre: default graph options (rankdir TB). ELK: algorithm layered, default options except
// elk.direction DOWN so every tool draws time flowing down.
//
// Crossings are counted exactly as provex's `layout::crossings`: layers are the distinct node
// centre y values (sorted, merged within 1e-6); each edge is the polyline source centre -> the
// tool's edge points (dagre: edge.points; ELK: startPoint, bendPoints, endPoint) -> target
// centre; at every layer y it spans, the edge's x is read where the polyline first reaches that
// y; two edges cross between consecutive layers when their x order is strictly opposite.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const here = fileURLToPath(import.meta.url);

const nodeWidth = (label) => Math.max([...label].length * 7 + 24, 40);
const NODE_HEIGHT = 36;

function loadGraph(dir, n) {
  const g = JSON.parse(readFileSync(`${dir}/graph-${n}.json`, 'utf8'));
  for (const v of g.nodes) {
    v.width = nodeWidth(v.label || v.id);
    v.height = NODE_HEIGHT;
  }
  return g;
}

function runDagre(g) {
  const dagre = require('@dagrejs/dagre');
  const dg = new dagre.graphlib.Graph();
  dg.setGraph({});
  dg.setDefaultEdgeLabel(() => ({}));
  for (const v of g.nodes) dg.setNode(v.id, { width: v.width, height: v.height });
  for (const e of g.edges) dg.setEdge(e.source, e.target);
  const t0 = performance.now();
  dagre.layout(dg);
  const ms = performance.now() - t0;
  const nodes = g.nodes.map((v) => { const p = dg.node(v.id); return { id: v.id, x: p.x, y: p.y }; });
  const edges = g.edges.map((e) => ({
    source: e.source, target: e.target,
    points: dg.edge(e.source, e.target).points.map((p) => [p.x, p.y]),
  }));
  return { ms, nodes, edges };
}

async function runElk(g) {
  const ELK = require('elkjs/lib/elk.bundled.js');
  const elk = new ELK();
  const graph = {
    id: 'root',
    layoutOptions: { 'elk.algorithm': 'layered', 'elk.direction': 'DOWN' },
    children: g.nodes.map((v) => ({ id: v.id, width: v.width, height: v.height })),
    edges: g.edges.map((e, i) => ({ id: `e${i}`, sources: [e.source], targets: [e.target] })),
  };
  const t0 = performance.now();
  const out = await elk.layout(graph);
  const ms = performance.now() - t0;
  const nodes = out.children.map((v) => ({ id: v.id, x: v.x + v.width / 2, y: v.y + v.height / 2 }));
  const edges = out.edges.map((e, i) => {
    const s = (e.sections || [])[0];
    const pts = s ? [s.startPoint, ...(s.bendPoints || []), s.endPoint].map((p) => [p.x, p.y]) : [];
    return { source: g.edges[i].source, target: g.edges[i].target, points: pts };
  });
  return { ms, nodes, edges };
}

function inversions(a) {
  if (a.length < 2) return 0;
  const mid = a.length >> 1;
  const l = a.slice(0, mid), r = a.slice(mid);
  let c = inversions(l) + inversions(r);
  let i = 0, j = 0, k = 0;
  while (i < l.length && j < r.length) {
    if (r[j] < l[i]) { c += l.length - i; a[k++] = r[j++]; } else { a[k++] = l[i++]; }
  }
  while (i < l.length) a[k++] = l[i++];
  while (j < r.length) a[k++] = r[j++];
  return c;
}

export function crossings(layout) {
  const levels = layout.nodes.map((v) => v.y).sort((a, b) => a - b);
  // merge within tolerance like Rust's dedup_by (compare with the last kept value)
  const lv = [];
  for (const y of levels) if (!lv.length || Math.abs(y - lv[lv.length - 1]) >= 1e-6) lv.push(y);
  if (lv.length < 2) return 0;
  const levelOf = (y) => { let lo = 0, hi = lv.length; while (lo < hi) { const m = (lo + hi) >> 1; if (lv[m] < y - 1e-6) lo = m + 1; else hi = m; } return lo; };
  const at = new Map(layout.nodes.map((v) => [v.id, v]));
  const gaps = Array.from({ length: lv.length - 1 }, () => []);
  const crossAt = (pts, y) => {
    for (let i = 0; i + 1 < pts.length; i++) {
      const [p, q] = [pts[i], pts[i + 1]];
      const lo = Math.min(p[1], q[1]), hi = Math.max(p[1], q[1]);
      if (lo - 1e-9 <= y && y <= hi + 1e-9) {
        if (Math.abs(q[1] - p[1]) < 1e-12) return p[0];
        const t = Math.min(1, Math.max(0, (y - p[1]) / (q[1] - p[1])));
        return p[0] + t * (q[0] - p[0]);
      }
    }
    return pts[0][0];
  };
  for (const e of layout.edges) {
    const s = at.get(e.source), t = at.get(e.target);
    if (!s || !t) continue;
    const pts = [[s.x, s.y], ...e.points, [t.x, t.y]];
    const a = levelOf(s.y), b = levelOf(t.y);
    const [i0, i1] = a < b ? [a, b] : [b, a];
    const xs = [];
    for (let k = i0; k <= i1; k++) xs.push(crossAt(pts, lv[k]));
    for (let k = i0; k < i1; k++) gaps[k].push([xs[k - i0], xs[k - i0 + 1]]);
  }
  let total = 0;
  for (const g of gaps) {
    g.sort((p, q) => p[0] - q[0] || p[1] - q[1]);
    total += inversions(g.map((p) => p[1]));
  }
  return total;
}

function width(layout, g) {
  const size = new Map(g.nodes.map((v) => [v.id, v.width]));
  let lo = Infinity, hi = -Infinity;
  for (const v of layout.nodes) { lo = Math.min(lo, v.x - size.get(v.id) / 2); hi = Math.max(hi, v.x + size.get(v.id) / 2); }
  return hi - lo;
}

async function one(dir, tool, n) {
  const g = loadGraph(dir, n);
  const res = tool === 'dagre' ? runDagre(g) : await runElk(g);
  const out = { tool, n: Number(n), edges: g.edges.length, ms: res.ms, crossings: crossings(res), width: width(res, g) };
  process.stdout.write(JSON.stringify(out) + '\n');
}

function all(dir, plan, timeoutSec) {
  const results = [];
  for (const item of plan.split(',').filter(Boolean)) {
    const [tool, n] = item.split(':');
    const t0 = Date.now();
    const child = spawnSync(process.execPath, [here, 'one', dir, tool, n], {
      encoding: 'utf8', timeout: timeoutSec * 1000, killSignal: 'SIGKILL', maxBuffer: 1 << 26,
    });
    const wall = (Date.now() - t0) / 1000;
    let rec;
    if (child.error && child.error.code === 'ETIMEDOUT' || child.signal === 'SIGKILL') {
      rec = { tool, n: Number(n), status: `timeout > ${timeoutSec} s` };
    } else if (child.status !== 0) {
      const err = (child.stderr || '').split('\n').find((l) => /RangeError|Error|error/.test(l)) || `exit ${child.status}`;
      rec = { tool, n: Number(n), status: `failed after ${wall.toFixed(0)} s: ${err.trim().slice(0, 120)}` };
    } else {
      rec = { ...JSON.parse(child.stdout.trim().split('\n').pop()), status: 'ok' };
    }
    console.error(JSON.stringify(rec));
    results.push(rec);
  }
  writeFileSync(`${dir}/peer-results.json`, JSON.stringify(results, null, 2));
}

function table(dir) {
  const ours = JSON.parse(readFileSync(`${dir}/provex-results.json`, 'utf8'));
  const peers = existsSync(`${dir}/peer-results.json`) ? JSON.parse(readFileSync(`${dir}/peer-results.json`, 'utf8')) : [];
  const skipped = existsSync(`${dir}/peer-skipped.json`) ? JSON.parse(readFileSync(`${dir}/peer-skipped.json`, 'utf8')) : [];
  const fmt = (x) => (x >= 100 ? x.toFixed(0) : x.toFixed(1));
  const lines = [
    '| nodes | edges | provex best / median (ms) | provex crossings | dagre time | dagre crossings | ELK time | ELK crossings |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of ours.layouts) {
    const cell = (tool) => {
      const p = peers.find((q) => q.tool === tool && q.n === r.n);
      if (p && p.status === 'ok') return [`${fmt(p.ms / 1000)} s`, String(p.crossings)];
      if (p) return [p.status, '–'];
      const s = skipped.find((q) => q.tool === tool && q.n === r.n);
      return [s ? s.status : 'not run', '–'];
    };
    const [dt, dc] = cell('dagre');
    const [et, ec] = cell('elk');
    lines.push(`| ${r.n} | ${r.edges} | ${fmt(r.best_ms)} / ${fmt(r.median_ms)} | ${r.crossings} | ${dt} | ${dc} | ${et} | ${ec} |`);
  }
  const inc = ours.incremental;
  lines.push('');
  lines.push(`Incremental on the ${inc.n}-node layout, ${inc.appended} single-node appends: p50 ${inc.p50_us.toFixed(2)} µs, ` +
    `p99 ${inc.p99_us.toFixed(2)} µs, max ${inc.max_us.toFixed(1)} µs. Drift before tidy-up: ${inc.drift.crossings} crossings ` +
    `(fresh layout ${inc.drift.fresh_crossings}), width ${inc.drift.width.toFixed(0)} (fresh ${inc.drift.fresh_width.toFixed(0)}). ` +
    `Tidy-up: ${inc.tidy_ms.toFixed(0)} ms, ${inc.order_changed_pairs} of ${inc.same_layer_pairs} same-layer pairs changed order ` +
    `(${inc.order_change_pct.toFixed(3)} %), ${inc.crossings_after_tidy} crossings after.`);
  console.log(lines.join('\n'));
}

const [mode, dir, a, b] = process.argv.slice(2);
if (mode === 'one') await one(dir, a, b);
else if (mode === 'all') all(dir, a, Number(b || 600));
else if (mode === 'table') table(dir);
else { console.error('usage: node run.mjs one|all|table <dir> ...'); process.exit(2); }
