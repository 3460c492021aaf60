//! Benchmark of the layered layout on seeded random layered DAGs.
//!
//! Usage: `cargo run --release --example layout_bench -- <out-dir> [sizes...]`
//! (default sizes 1000 5000 20000 100000). For each size it writes the graph as
//! `<out-dir>/graph-<n>.json` (the app's graph-file format) and prints time and crossings; on the
//! largest size it also times single-node appends and measures the tidy-up. A summary is written
//! to `<out-dir>/provex-results.json`. Each size is also laid out with one edge in 20
//! reversed (`provex-cyclic`, sizes up to 20,000), so that cycle breaking is measured too.
//!
//! Graph generator (so other tools can rebuild it): splitmix64 seeded with `n`; L = max(4,
//! round(sqrt(n)/2)) layers; node i (id `n<i>`) lies in layer floor(i·L/n); every node outside
//! layer 0 gets one parent drawn from the layer above; then edges are added until there are
//! round(1.5·n) draws: a random node outside layer 0, a span of 1 (70%), 2 (20%) or 3 (10%)
//! layers (clamped to the layer), a random source in that layer; duplicates are skipped.

use std::collections::HashSet;
use std::time::Instant;

use provex::layout;

use layout::{EdgeSpec, GraphEdge, GraphFile, GraphNode, Incremental, LayoutNode, LayoutOptions};

struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, k: usize) -> usize {
        (self.next() % k as u64) as usize
    }
}

const WORDS: [&str; 6] = ["data", "run", "user", "dataset", "training-run", "model"];
const TYPES: [&str; 3] = ["entity", "activity", "agent"];

fn generate(n: usize) -> GraphFile {
    let mut rng = SplitMix64(n as u64);
    let layers = ((n as f64).sqrt() / 2.0).round().max(4.0) as usize;
    let layer_of = |i: usize| i * layers / n;
    let start = |l: usize| (l * n).div_ceil(layers);
    let nodes: Vec<GraphNode> = (0..n)
        .map(|i| {
            let w = rng.below(WORDS.len());
            GraphNode {
                id: format!("n{i}"),
                label: format!("{}{i}", WORDS[w]),
                base_type: Some(TYPES[w % 3].to_string()),
                time: None,
            }
        })
        .collect();
    let mut seen = HashSet::new();
    let mut edges = Vec::new();
    let mut add = |s: usize, t: usize, edges: &mut Vec<GraphEdge>| {
        if seen.insert((s, t)) {
            edges.push(GraphEdge { source: format!("n{s}"), target: format!("n{t}"), kind: None });
        }
    };
    let first = start(1);
    for t in first..n {
        let l = layer_of(t);
        let s = start(l - 1) + rng.below(start(l) - start(l - 1));
        add(s, t, &mut edges);
    }
    let draws = (1.5 * n as f64).round() as usize;
    for _ in (n - first)..draws {
        let t = first + rng.below(n - first);
        let l = layer_of(t);
        let r = rng.below(10);
        let span = (if r < 7 {
            1
        } else if r < 9 {
            2
        } else {
            3
        })
        .min(l);
        let sl = l - span;
        let s = start(sl) + rng.below(start(sl + 1) - start(sl));
        add(s, t, &mut edges);
    }
    GraphFile { nodes, edges }
}

/// Lays `g` out three times: the last layout, and the times sorted (best, median, worst).
fn three_layouts(g: &layout::LayoutGraph, opts: &LayoutOptions) -> (layout::Layout, Vec<f64>) {
    let mut times = Vec::new();
    let mut last = None;
    for _ in 0..3 {
        let t = Instant::now();
        last = Some(layout::full(g, opts));
        times.push(ms(t.elapsed()));
    }
    times.sort_by(f64::total_cmp);
    (last.expect("ran"), times)
}

fn ms(d: std::time::Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dir = args.first().cloned().unwrap_or_else(|| "bench-out".to_string());
    let sizes: Vec<usize> = if args.len() > 1 {
        args[1..].iter().map(|s| s.parse().expect("size")).collect()
    } else {
        vec![1000, 5000, 20000, 100000]
    };
    std::fs::create_dir_all(&dir).expect("create out dir");
    let opts = LayoutOptions::default();
    let mut results = Vec::new();
    for &n in &sizes {
        let file = generate(n);
        std::fs::write(format!("{dir}/graph-{n}.json"), serde_json::to_string(&file).unwrap()).unwrap();
        let g = file.to_layout_graph().expect("valid graph");
        let (l, times) = three_layouts(&g, &opts);
        let crossings = layout::crossings(&l);
        let width = layout::width(&l);
        let depth = l.nodes.iter().map(|p| p.layer).max().unwrap_or(0) + 1;
        println!(
            "provex n={n} edges={} layers={depth} best={:.1}ms median={:.1}ms crossings={crossings} width={width:.0}",
            g.edge_count(),
            times[0],
            times[1]
        );
        results.push(serde_json::json!({
            "tool": "provex", "n": n, "edges": g.edge_count(), "best_ms": times[0],
            "median_ms": times[1], "crossings": crossings, "width": width, "layers": depth,
        }));
    }
    // The same graphs with one edge in 20 reversed: cyclic, so cycle breaking runs too (up
    // to 20,000 nodes: at 100,000 the reversed edges' long spans make one layout ~100 s).
    let mut cyclic = Vec::new();
    for &n in sizes.iter().filter(|&&n| n <= 20_000) {
        let mut file = generate(n);
        for e in file.edges.iter_mut().skip(19).step_by(20) {
            std::mem::swap(&mut e.source, &mut e.target);
        }
        let g = file.to_layout_graph().expect("valid graph");
        let (l, times) = three_layouts(&g, &opts);
        let crossings = layout::crossings(&l);
        println!(
            "provex-cyclic n={n} edges={} best={:.1}ms median={:.1}ms reversed={} crossings={crossings}",
            g.edge_count(),
            times[0],
            times[1],
            l.reversed.len()
        );
        cyclic.push(serde_json::json!({
            "n": n, "edges": g.edge_count(), "best_ms": times[0], "median_ms": times[1],
            "reversed": l.reversed.len(), "crossings": crossings,
        }));
    }
    let n = *sizes.iter().max().expect("a size");
    let g = generate(n).to_layout_graph().expect("valid graph");
    let mut inc = Incremental::from_graph(&g, opts.clone()).expect("unique ids");
    let mut rng = SplitMix64(0xC0FFEE);
    let mut samples = Vec::with_capacity(1000);
    for i in 0..1000 {
        let total = inc.graph().node_count();
        let id = format!("new{i}");
        let mut edges = vec![EdgeSpec::new(format!("n{}", rng.below(n)), id.clone())];
        if rng.below(2) == 0 {
            edges.push(EdgeSpec::new(inc.graph()[petgraph_index(rng.below(total))].id.clone(), id.clone()));
        }
        let node = LayoutNode::new(id.clone(), 7.0 * (id.len() as f64) + 24.0, layout::NODE_HEIGHT);
        let t = Instant::now();
        inc.append(vec![node], edges).expect("append");
        samples.push(t.elapsed().as_secs_f64() * 1e6);
    }
    samples.sort_by(f64::total_cmp);
    let pct = |p: f64| samples[((samples.len() as f64 * p).ceil() as usize - 1).min(samples.len() - 1)];
    let drift = inc.drift();
    let before = inc.layout();
    let t = Instant::now();
    let moves = inc.tidy_up();
    let tidy_ms = ms(t.elapsed());
    let after = inc.layout();
    let (changed, pairs) = layout::order_changes(&before, &after);
    let share = 100.0 * changed as f64 / pairs.max(1) as f64;
    println!(
        "incremental n={n}: append p50={:.2}us p99={:.2}us max={:.2}us; drift crossings {} vs fresh {}, width {:.0} vs fresh {:.0}",
        pct(0.5),
        pct(0.99),
        samples[samples.len() - 1],
        drift.crossings,
        drift.fresh_crossings,
        drift.width,
        drift.fresh_width
    );
    println!(
        "tidy-up n={n}: {tidy_ms:.0}ms, {} nodes moved, order changes {changed}/{pairs} pairs = {share:.3}%, crossings after {}",
        moves.len(),
        layout::crossings(&after)
    );
    let summary = serde_json::json!({
        "layouts": results,
        "cyclic": cyclic,
        "incremental": {
            "n": n, "appended": 1000, "p50_us": pct(0.5), "p99_us": pct(0.99),
            "max_us": samples[samples.len() - 1], "drift": drift,
            "tidy_ms": tidy_ms, "moved": moves.len(), "order_changed_pairs": changed,
            "same_layer_pairs": pairs, "order_change_pct": share,
            "crossings_after_tidy": layout::crossings(&after),
        }
    });
    std::fs::write(format!("{dir}/provex-results.json"), serde_json::to_string_pretty(&summary).unwrap())
        .unwrap();
}

fn petgraph_index(i: usize) -> petgraph::graph::NodeIndex {
    petgraph::graph::NodeIndex::new(i)
}
