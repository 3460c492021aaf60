//! Public-API tests of the layered DAG layout (issue 4): properties on random graphs, text
//! snapshots of small graphs, crossing counts on graphs whose minimum is known.

use provex::layout;

use std::collections::{BTreeMap, HashMap};

use layout::{
    Direction, EdgeSpec, GraphFile, Incremental, Layout, LayoutEdge, LayoutGraph, LayoutNode, LayoutOptions,
};
use proptest::prelude::*;

/// A graph of `n` nodes `v0..` with widths from `widths` (cycled) and the given edges.
fn graph(n: usize, widths: &[f64], edges: &[(usize, usize)]) -> LayoutGraph {
    let mut g = LayoutGraph::new();
    let ids: Vec<_> = (0..n)
        .map(|i| g.add_node(LayoutNode::new(format!("v{i}"), widths[i % widths.len()], 30.0)))
        .collect();
    for &(a, b) in edges {
        g.add_edge(ids[a], ids[b], LayoutEdge::default());
    }
    g
}

/// Layers top to bottom, each listing ids left to right.
fn render(l: &Layout) -> String {
    let mut rows: BTreeMap<u32, Vec<(f64, &str)>> = BTreeMap::new();
    for n in &l.nodes {
        let across = if l.direction == Direction::Down { n.x } else { n.y };
        rows.entry(n.layer).or_default().push((across, &n.id));
    }
    rows.into_iter()
        .map(|(layer, mut r)| {
            r.sort_by(|a, b| a.0.total_cmp(&b.0));
            let ids: Vec<&str> = r.into_iter().map(|p| p.1).collect();
            format!("{layer}: {}", ids.join(" "))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn assert_no_overlap(l: &Layout) {
    for (i, a) in l.nodes.iter().enumerate() {
        for b in &l.nodes[i + 1..] {
            let apart_x = (a.x - b.x).abs() >= (a.width + b.width) / 2.0 - 1e-6;
            let apart_y = (a.y - b.y).abs() >= (a.height + b.height) / 2.0 - 1e-6;
            assert!(apart_x || apart_y, "{} and {} overlap: {a:?} {b:?}", a.id, b.id);
        }
    }
}

/// Every non-loop edge goes to a later layer, except the reported reversed ones, which go to an
/// earlier layer; the reversed list matches those edges exactly.
fn assert_edges_flow(l: &Layout) {
    let layer: HashMap<&str, u32> = l.nodes.iter().map(|n| (n.id.as_str(), n.layer)).collect();
    let mut backwards: Vec<(String, String)> = Vec::new();
    for e in &l.edges {
        let (s, t) = (layer[e.source.as_str()], layer[e.target.as_str()]);
        if e.source == e.target {
            continue;
        }
        assert_ne!(s, t, "edge {} -> {} inside one layer", e.source, e.target);
        if s > t {
            backwards.push((e.source.clone(), e.target.clone()));
        }
    }
    let mut reported: Vec<(String, String)> =
        l.reversed.iter().map(|r| (r.source.clone(), r.target.clone())).collect();
    backwards.sort();
    reported.sort();
    assert_eq!(backwards, reported);
}

fn positions(l: &Layout) -> HashMap<String, (f64, f64)> {
    l.nodes.iter().map(|n| (n.id.clone(), (n.x, n.y))).collect()
}

/// Random DAG on up to `max_n` nodes: edges join a lower to a higher position of a random
/// permutation, so node index order is scrambled relative to the flow.
fn dag(max_n: usize) -> impl Strategy<Value = (usize, Vec<(usize, usize)>, Vec<f64>)> {
    (2..=max_n).prop_flat_map(|n| {
        (
            Just(n),
            Just((0..n).collect::<Vec<_>>()).prop_shuffle(),
            prop::collection::vec((0..n, 0..n), 0..=2 * n),
            prop::collection::vec(20.0f64..120.0, 1..5),
        )
            .prop_map(|(n, perm, pairs, widths)| {
                let edges = pairs
                    .into_iter()
                    .filter(|(a, b)| a != b)
                    .map(|(a, b)| (perm[a.min(b)], perm[a.max(b)]))
                    .collect();
                (n, edges, widths)
            })
    })
}

/// Random directed graph with cycles and self-loops.
fn any_graph(max_n: usize) -> impl Strategy<Value = (usize, Vec<(usize, usize)>)> {
    (1..=max_n).prop_flat_map(|n| (Just(n), prop::collection::vec((0..n, 0..n), 0..=2 * n)))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, .. ProptestConfig::default() })]

    #[test]
    fn dag_layout_flows_down_without_overlap_and_is_deterministic((n, edges, widths) in dag(50), right in any::<bool>()) {
        let g = graph(n, &widths, &edges);
        let opts = LayoutOptions { direction: if right { Direction::Right } else { Direction::Down }, ..LayoutOptions::default() };
        let l = layout::full(&g, &opts);
        prop_assert!(l.reversed.is_empty());
        assert_edges_flow(&l);
        assert_no_overlap(&l);
        let again = layout::full(&g.clone(), &opts);
        prop_assert_eq!(l.to_json(), again.to_json());
    }

    #[test]
    fn cyclic_graphs_are_broken_into_layers((n, edges) in any_graph(40)) {
        let g = graph(n, &[40.0, 90.0], &edges);
        let l = layout::full(&g, &LayoutOptions::default());
        assert_edges_flow(&l);
        assert_no_overlap(&l);
        prop_assert_eq!(l.to_json(), layout::full(&g, &LayoutOptions::default()).to_json());
    }

    #[test]
    fn trees_have_no_crossings(parents in prop::collection::vec(any::<prop::sample::Index>(), 1..60)) {
        let n = parents.len() + 1;
        let edges: Vec<(usize, usize)> = parents.iter().enumerate().map(|(i, p)| (p.index(i + 1), i + 1)).collect();
        let l = layout::full(&graph(n, &[30.0, 70.0], &edges), &LayoutOptions::default());
        prop_assert_eq!(layout::crossings(&l), 0);
    }

    #[test]
    fn time_buckets_order_layers((n, edges, _w) in dag(40), steps in prop::collection::vec(0u8..3, 40)) {
        // Times grow along every edge (node order of the flow), so time order must match layers.
        let mut order: Vec<usize> = (0..n).collect();
        // a topological order: sort by longest path from sources via repeated relaxation
        let mut depth = vec![0usize; n];
        for _ in 0..n { for &(a, b) in &edges { depth[b] = depth[b].max(depth[a] + 1); } }
        order.sort_by_key(|&v| (depth[v], v));
        let mut time = vec![0.0; n];
        let mut t = 0.0;
        for (k, &v) in order.iter().enumerate() { t += steps[k] as f64; time[v] = t; }
        for &(a, b) in &edges { prop_assume!(time[a] <= time[b]); }
        let mut g = graph(n, &[50.0], &edges);
        for (i, w) in g.node_weights_mut().enumerate() { w.time = Some(time[i]); }
        let opts = LayoutOptions { align_by_time: true, ..LayoutOptions::default() };
        let l = layout::full(&g, &opts);
        assert_edges_flow(&l);
        assert_no_overlap(&l);
        for a in 0..n { for b in 0..n {
            if time[a] < time[b] { prop_assert!(l.nodes[a].layer < l.nodes[b].layer, "time {} < {} but layers {} >= {}", time[a], time[b], l.nodes[a].layer, l.nodes[b].layer); }
        }}
    }

    #[test]
    fn appends_never_move_placed_nodes_and_tidy_up_keeps_order((n, edges, widths) in dag(60), cuts in prop::collection::vec(1usize..8, 1..12)) {
        // Feed the DAG in batches along a topological order; edges arrive with their later end.
        let mut depth = vec![0usize; n];
        for _ in 0..n { for &(a, b) in &edges { depth[b] = depth[b].max(depth[a] + 1); } }
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by_key(|&v| (depth[v], v));
        let rank: Vec<usize> = { let mut r = vec![0; n]; for (k, &v) in order.iter().enumerate() { r[v] = k; } r };
        let mut inc = Incremental::new(LayoutOptions::default());
        let mut before = inc.layout();
        let mut start = 0;
        let mut cut = cuts.iter().cycle();
        while start < n {
            let end = (start + cut.next().unwrap()).min(n);
            let nodes: Vec<LayoutNode> = order[start..end].iter().map(|&v| LayoutNode::new(format!("v{v}"), widths[v % widths.len()], 30.0)).collect();
            let batch_edges: Vec<EdgeSpec> = edges.iter()
                .filter(|&&(a, b)| rank[a].max(rank[b]) >= start && rank[a].max(rank[b]) < end)
                .map(|&(a, b)| EdgeSpec::new(format!("v{a}"), format!("v{b}")))
                .collect();
            let placed = inc.append(nodes, batch_edges).unwrap();
            prop_assert_eq!(placed.len(), end - start);
            let now = inc.layout();
            let old = positions(&before);
            for node in &now.nodes {
                if let Some(&(x, y)) = old.get(&node.id) { prop_assert_eq!((node.x, node.y), (x, y), "{} moved", node.id); }
            }
            assert_no_overlap(&now);
            assert_edges_flow(&now);
            before = now;
            start = end;
        }
        let drift = inc.drift();
        prop_assert!(drift.width > 0.0 && drift.fresh_width > 0.0);
        let moves = inc.tidy_up();
        let after = inc.layout();
        let (changed, total) = layout::order_changes(&before, &after);
        prop_assert!(changed as f64 <= 0.05 * total as f64, "{changed} of {total} pairs reordered");
        assert_no_overlap(&after);
        let old = positions(&before);
        let moved: std::collections::HashSet<&str> = moves.iter().map(|m| m.id.as_str()).collect();
        for node in &after.nodes {
            let was = old[&node.id];
            prop_assert_eq!(moved.contains(node.id.as_str()), was != (node.x, node.y));
        }
        for m in &moves { prop_assert_eq!(m.from, [old[&m.id].0, old[&m.id].1]); }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, .. ProptestConfig::default() })]

    /// Packing to an aspect ratio (issue 16): whatever the graph, the ratio or the direction, no
    /// two nodes overlap, layers and reversed edges are those of the unfolded layout, and the
    /// result is deterministic.
    #[test]
    fn packing_to_an_aspect_ratio_never_overlaps_nodes(
        (n, edges, widths) in dag(80),
        extra in prop::collection::vec((0usize..80, 0usize..80), 0..20),
        aspect in 0.3f64..4.0,
        right in any::<bool>(),
    ) {
        // Some cycles too, so reversed edges and backward routes are folded as well.
        let edges: Vec<(usize, usize)> = edges.into_iter().chain(extra.into_iter().filter(|&(a, b)| a < n && b < n)).collect();
        let g = graph(n, &widths, &edges);
        let direction = if right { Direction::Right } else { Direction::Down };
        let plain = LayoutOptions { direction, ..LayoutOptions::default() };
        let opts = LayoutOptions { aspect: Some(aspect), ..plain.clone() };
        let l = layout::full(&g, &opts);
        assert_no_overlap(&l);
        let unfolded = layout::full(&g, &plain);
        let layers = |l: &Layout| l.nodes.iter().map(|n| n.layer).collect::<Vec<_>>();
        prop_assert_eq!(layers(&l), layers(&unfolded));
        prop_assert_eq!(&l.reversed, &unfolded.reversed);
        prop_assert_eq!(l.to_json(), layout::full(&g, &opts).to_json());
    }

    /// Streaming into a packed drawing: appends never move a placed node and never overlap one,
    /// also in layers deeper than the strips were made for; a tidy-up packs again without
    /// overlaps.
    #[test]
    fn appends_to_a_packed_drawing_never_move_or_overlap_nodes(
        (n, edges, widths) in dag(70),
        first in 1usize..40,
        cuts in prop::collection::vec(1usize..6, 1..10),
        aspect in 0.5f64..2.5,
    ) {
        let first = first.min(n);
        // Edges among the first nodes make the loaded graph; the rest stream in.
        let mut g = LayoutGraph::new();
        let ids: Vec<_> = (0..first).map(|i| g.add_node(LayoutNode::new(format!("v{i}"), widths[i % widths.len()], 30.0))).collect();
        for &(a, b) in edges.iter().filter(|&&(a, b)| a < first && b < first) {
            g.add_edge(ids[a], ids[b], LayoutEdge::default());
        }
        let opts = LayoutOptions { aspect: Some(aspect), ..LayoutOptions::default() };
        let mut inc = Incremental::from_graph(&g, opts).unwrap();
        let mut before = inc.layout();
        assert_no_overlap(&before);
        let mut start = first;
        let mut cut = cuts.iter().cycle();
        while start < n {
            let end = (start + cut.next().unwrap()).min(n);
            let nodes: Vec<LayoutNode> = (start..end).map(|v| LayoutNode::new(format!("v{v}"), widths[v % widths.len()], 30.0)).collect();
            let batch: Vec<EdgeSpec> = edges.iter()
                .filter(|&&(a, b)| a.max(b) >= start && a.max(b) < end)
                .map(|&(a, b)| EdgeSpec::new(format!("v{a}"), format!("v{b}")))
                .collect();
            let placed = inc.append(nodes, batch).unwrap();
            let now = inc.layout();
            let at = positions(&now);
            for p in &placed { prop_assert_eq!(at[&p.id], (p.x, p.y), "{} is shown where append said", p.id); }
            let old = positions(&before);
            for node in &now.nodes {
                if let Some(&was) = old.get(&node.id) { prop_assert_eq!((node.x, node.y), was, "{} moved", node.id); }
            }
            assert_no_overlap(&now);
            before = now;
            start = end;
        }
        inc.tidy_up();
        assert_no_overlap(&inc.layout());
    }
}

/// A long row of small components, laid out for a square screen, becomes several strips whose
/// drawing is about as wide as it is high, and each component stays whole in one strip.
#[test]
fn many_components_pack_into_rows_near_the_aspect_ratio() {
    // 60 components: a parent over two children.
    let edges: Vec<(usize, usize)> = (0..60).flat_map(|c| [(3 * c, 3 * c + 1), (3 * c, 3 * c + 2)]).collect();
    let g = graph(180, &[60.0, 90.0], &edges);
    let extent = |l: &Layout| {
        let lo_x = l.nodes.iter().map(|n| n.x - n.width / 2.0).fold(f64::MAX, f64::min);
        let hi_x = l.nodes.iter().map(|n| n.x + n.width / 2.0).fold(f64::MIN, f64::max);
        let lo_y = l.nodes.iter().map(|n| n.y - n.height / 2.0).fold(f64::MAX, f64::min);
        let hi_y = l.nodes.iter().map(|n| n.y + n.height / 2.0).fold(f64::MIN, f64::max);
        (hi_x - lo_x) / (hi_y - lo_y)
    };
    let row = layout::full(&g, &LayoutOptions::default());
    assert!(extent(&row) > 50.0, "unfolded: {}", extent(&row));
    let l = layout::full(&g, &LayoutOptions { aspect: Some(1.0), ..LayoutOptions::default() });
    let ratio = extent(&l);
    assert!((0.6..1.6).contains(&ratio), "folded width / height = {ratio}");
    assert_no_overlap(&l);
    // Each component's parent sits straight above the middle of its children, in one strip.
    for c in 0..60 {
        let (p, a, b) = (&l.nodes[3 * c], &l.nodes[3 * c + 1], &l.nodes[3 * c + 2]);
        assert!(a.y > p.y && b.y > p.y && a.y - p.y < 200.0, "component {c} is split: {p:?} {a:?} {b:?}");
        assert!((p.x - (a.x + b.x) / 2.0).abs() < 1e-6, "component {c} is bent");
    }
}

#[test]
fn diamond_snapshot() {
    let g = graph(4, &[40.0], &[(0, 1), (0, 2), (1, 3), (2, 3)]);
    let l = layout::full(&g, &LayoutOptions::default());
    assert_eq!(render(&l), "0: v0\n1: v1 v2\n2: v3");
    assert_eq!(layout::crossings(&l), 0);
    // the source is centred over its two children, the sink under them
    assert!((l.nodes[0].x - (l.nodes[1].x + l.nodes[2].x) / 2.0).abs() < 1e-9);
    assert!((l.nodes[3].x - l.nodes[0].x).abs() < 1e-9);
}

#[test]
fn long_edge_snapshot_and_route_through_dummies() {
    // v0 -> v1 -> v2 -> v3 and a shortcut v0 -> v3; v4 hangs off v2 at the right.
    let g = graph(5, &[40.0, 60.0], &[(0, 1), (1, 2), (2, 3), (0, 3), (2, 4)]);
    let l = layout::full(&g, &LayoutOptions::default());
    assert_eq!(render(&l), "0: v0\n1: v1\n2: v2\n3: v4 v3");
    let shortcut = &l.edges[3];
    assert_eq!(shortcut.points.len(), 4, "start, two dummies, end");
    assert_eq!(shortcut.points[1][0], shortcut.points[2][0], "long edge is straight between dummies");
    assert!(shortcut.points.windows(2).all(|w| w[0][1] < w[1][1]));
    assert_eq!(layout::crossings(&l), 0);
}

#[test]
fn cycle_snapshot_reports_reversed_edge() {
    let g = graph(3, &[40.0], &[(0, 1), (1, 2), (2, 0)]);
    let l = layout::full(&g, &LayoutOptions::default());
    assert_eq!(render(&l), "0: v0\n1: v1\n2: v2");
    assert_eq!(l.reversed.len(), 1);
    assert_eq!((l.reversed[0].source.as_str(), l.reversed[0].target.as_str()), ("v2", "v0"));
    let back = &l.edges[2].points;
    assert!(back.first().unwrap()[1] > back.last().unwrap()[1], "reversed edge drawn from v2 up to v0");
}

#[test]
fn components_are_packed_side_by_side() {
    let g = graph(5, &[40.0], &[(0, 1), (2, 3), (2, 4)]);
    let l = layout::full(&g, &LayoutOptions::default());
    assert_eq!(render(&l), "0: v0 v2\n1: v1 v3 v4");
    let right_of_first = l.nodes[..2].iter().map(|n| n.x + n.width / 2.0).fold(f64::MIN, f64::max);
    let left_of_second = l.nodes[2..].iter().map(|n| n.x - n.width / 2.0).fold(f64::MAX, f64::min);
    assert!(left_of_second - right_of_first >= LayoutOptions::default().component_spacing - 1e-9);
}

#[test]
fn right_direction_swaps_axes() {
    let g = graph(3, &[80.0], &[(0, 1), (1, 2)]);
    let l = layout::full(&g, &LayoutOptions { direction: Direction::Right, ..LayoutOptions::default() });
    assert!(l.nodes[0].x < l.nodes[1].x && l.nodes[1].x < l.nodes[2].x);
    assert_eq!(l.nodes[0].y, l.nodes[1].y);
    assert_eq!(render(&l), "0: v0\n1: v1\n2: v2");
}

#[test]
fn k22_has_exactly_one_crossing() {
    let g = graph(4, &[40.0], &[(0, 2), (0, 3), (1, 2), (1, 3)]);
    assert_eq!(layout::crossings(&layout::full(&g, &LayoutOptions::default())), 1);
}

#[test]
fn scrambled_planar_grid_reaches_zero_crossings() {
    // 4x4 grid DAG (i,j) -> (i+1,j), (i,j) -> (i,j+1), nodes added in a scrambled order.
    let k = 4;
    let scramble: Vec<usize> = (0..k * k).map(|i| (i * 7 + 3) % (k * k)).collect();
    let id = |i: usize, j: usize| scramble[i * k + j];
    let mut edges = Vec::new();
    for i in 0..k {
        for j in 0..k {
            if i + 1 < k {
                edges.push((id(i, j), id(i + 1, j)));
            }
            if j + 1 < k {
                edges.push((id(i, j), id(i, j + 1)));
            }
        }
    }
    edges.reverse();
    let l = layout::full(&graph(k * k, &[40.0, 70.0], &edges), &LayoutOptions::default());
    assert_eq!(layout::crossings(&l), 0);
}

#[test]
fn json_output_has_the_documented_shape() {
    let file = GraphFile::from_json(
        r#"{"nodes":[{"id":"a","label":"Alpha","base_type":"entity"},{"id":"b","label":"Run","base_type":"activity","time":3}],
            "edges":[{"source":"b","target":"a","type":"wasGeneratedBy"},{"source":"a","target":"b","type":"used"}]}"#,
    )
    .unwrap();
    let g = file.to_layout_graph().unwrap();
    let v: serde_json::Value =
        serde_json::from_str(&layout::full(&g, &LayoutOptions::default()).to_json()).unwrap();
    let keys = |o: &serde_json::Value| {
        let mut k: Vec<String> = o.as_object().unwrap().keys().cloned().collect();
        k.sort();
        k
    };
    assert_eq!(keys(&v), ["edges", "nodes", "reversed"]);
    assert_eq!(keys(&v["nodes"][0]), ["height", "id", "layer", "width", "x", "y"]);
    assert_eq!(keys(&v["edges"][0]), ["points", "source", "target"]);
    assert_eq!(keys(&v["reversed"][0]), ["source", "target"]);
    assert_eq!(v["nodes"][0]["width"], 5.0 * 7.0 + 24.0);
    assert!(v["edges"][0]["points"][0].as_array().unwrap().len() == 2);
}

#[test]
fn graph_file_errors_are_typed() {
    let file =
        GraphFile::from_json(r#"{"nodes":[{"id":"a","label":"A"}],"edges":[{"source":"a","target":"b"}]}"#)
            .unwrap();
    assert!(matches!(file.to_layout_graph(), Err(layout::LayoutError::UnknownNode { .. })));
}

#[test]
fn views_and_svg_through_the_public_api() {
    let g = graph(6, &[50.0], &[(0, 1), (1, 2), (2, 3), (3, 4), (5, 3)]);
    let sub = layout::neighbourhood(&g, "v2", 1, 1).unwrap();
    let l = layout::full(&sub, &LayoutOptions::default());
    assert_eq!(render(&l), "0: v1\n1: v2\n2: v3");
    // The chain v1 → v2 (one parent, one child each) becomes one node of two; nothing else
    // merges (the labels differ).
    let c = layout::collapse(&g);
    assert_eq!(c.graph.node_count(), 5);
    let merged: Vec<&Vec<String>> = c.members.iter().filter(|m| m.len() > 1).collect();
    assert_eq!(merged, [&vec!["v1".to_owned(), "v2".to_owned()]]);
    let svg = layout::to_svg(&layout::full(&c.graph, &LayoutOptions::default()), &c.graph);
    assert_eq!(svg.matches('×').count(), 1, "{svg}");
    assert_eq!(svg.matches(">×2</text>").count(), 1, "collapsed count shown: {svg}");
}

#[test]
fn incremental_places_after_parents_in_free_slots() {
    let g = graph(3, &[40.0], &[(0, 1), (0, 2)]);
    let mut inc = Incremental::from_graph(&g, LayoutOptions::default()).unwrap();
    let before = inc.layout();
    let placed = inc
        .append(
            vec![LayoutNode::new("n", 40.0, 30.0)],
            vec![EdgeSpec::new("v1", "n"), EdgeSpec::new("v2", "n")],
        )
        .unwrap();
    assert_eq!(placed[0].layer, 2);
    assert!((placed[0].x - (before.nodes[1].x + before.nodes[2].x) / 2.0).abs() < 1e-9, "at the barycentre");
    // a sibling of v1 with the same wish must move aside
    let p2 = inc
        .append(
            vec![LayoutNode::new("m", 40.0, 30.0)],
            vec![EdgeSpec::new("v1", "m"), EdgeSpec::new("v2", "m")],
        )
        .unwrap();
    assert!((p2[0].x - placed[0].x).abs() >= 40.0 + LayoutOptions::default().node_spacing - 1e-9);
    assert_no_overlap(&inc.layout());
}
