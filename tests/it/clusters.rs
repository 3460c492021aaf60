//! Semantic zoom on the council demo with a low view limit: the graph opens as clusters that
//! partition it (members and edges add up to the graph's), a large cluster opens into
//! sub-clusters that partition it, and a small one into exactly its nodes.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use provex::api::{View, ViewMode, ViewNode};
use provex::facade::{self, Quiet, ViewRequest};
use provex::ingest::IngestOptions;
use provex::layout::cluster::{sub_key, top_key};

use crate::common;

/// The view limit of these views: the demo has some 260 nodes, its largest cluster 36.
const LIMIT: u32 = 30;

fn req(limit: u32, cluster: Option<&str>) -> ViewRequest {
    ViewRequest { limit: Some(limit), cluster: cluster.map(str::to_owned), ..Default::default() }
}

fn top_of(v: &ViewNode) -> String {
    top_key(&v.label, v.agent.as_deref(), v.context.as_deref().is_some_and(|c| !c.is_empty()))
}

fn members(v: &View) -> BTreeMap<String, u64> {
    v.nodes.iter().map(|n| (n.id.clone(), n.cluster.as_ref().expect("a cluster box").members)).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_council_demo_opens_as_clusters_that_partition_it() {
    let dir = tempfile::tempdir().unwrap();
    let files = facade::write_council_files(dir.path()).unwrap();
    let files: Vec<_> = files.into_iter().filter(|f| f.extension().is_some_and(|e| e == "jsonl")).collect();
    let (provex, graph) = common::open("clusters_council").await;
    provex
        .ingest(&graph, &files, IngestOptions::default(), Arc::new(AtomicBool::new(false)), Arc::new(Quiet))
        .await
        .unwrap();
    let whole = provex.view(&graph, req(10_000, None)).await.unwrap();
    assert_eq!(whole.mode, ViewMode::Whole);
    let n = whole.nodes.len() as u64;
    assert!(n > 200, "{n} nodes");

    // Above the limit: clusters, one per top-level key, with exactly its nodes counted.
    let top = provex.view(&graph, req(LIMIT, None)).await.unwrap();
    assert_eq!(top.mode, ViewMode::Clusters);
    let mut want: BTreeMap<String, u64> = BTreeMap::new();
    for v in &whole.nodes {
        *want.entry(top_of(v)).or_default() += 1;
    }
    assert_eq!(members(&top), want, "clusters partition the graph");
    assert_eq!(top.total_nodes, n);
    // The totals a view reports come from FalkorDB's own counts: the same as a full count.
    let stats = provex.stats(&graph).await.unwrap();
    assert_eq!((top.total_nodes, top.total_edges), (stats.nodes, stats.edges));
    assert!(top.nodes.iter().any(|c| c.id == "sources"), "the transcript has a box");
    assert!(top.nodes.iter().any(|c| c.id == "tasks"), "the runtime's tasks have a box");
    // Edges between boxes and inside them add up to the graph's edges.
    let key: HashMap<&str, String> = whole.nodes.iter().map(|v| (v.id.as_str(), top_of(v))).collect();
    let mut between: BTreeMap<(String, String), u64> = BTreeMap::new();
    for e in &whole.edges {
        let (a, b) = (key[e.source.as_str()].clone(), key[e.target.as_str()].clone());
        if a != b {
            *between.entry((a, b)).or_default() += 1;
        }
    }
    // The boxes come first; the edges between them from a second call, then with the boxes.
    assert!(top.edges.is_empty(), "edges are counted apart");
    let counted = provex.cluster_edges(&graph, None).await.unwrap();
    let again = provex.view(&graph, req(LIMIT, None)).await.unwrap();
    assert_eq!(again.edges.len(), counted.len(), "once counted, the view has them");
    let drawn: BTreeMap<(String, String), u64> = counted
        .iter()
        .map(|e| {
            (
                (e.source.clone(), e.target.clone()),
                e.rel.trim_end_matches(" edges").replace(',', "").parse().unwrap(),
            )
        })
        .collect();
    assert_eq!(drawn, between);
    // A box's badge is the worst signature status in it: the forged verification's agent shows invalid.
    let invalid: Vec<&str> =
        top.nodes.iter().filter(|c| c.status.as_deref() == Some("invalid")).map(|c| c.id.as_str()).collect();
    assert!(!invalid.is_empty(), "{:?}", top.nodes.iter().map(|c| (&c.id, &c.status)).collect::<Vec<_>>());

    // The largest cluster, above the limit, opens into sub-clusters that partition it.
    let (big, big_n) = want.iter().max_by_key(|(_, n)| **n).map(|(k, n)| (k.clone(), *n)).unwrap();
    assert!(big_n > u64::from(LIMIT), "{big}: {big_n}");
    let sub = provex.view(&graph, req(LIMIT, Some(&big))).await.unwrap();
    assert_eq!(sub.mode, ViewMode::Clusters);
    assert_eq!(sub.root.as_deref(), Some(big.as_str()));
    let mut want_sub: BTreeMap<String, u64> = BTreeMap::new();
    for v in whole.nodes.iter().filter(|v| key[v.id.as_str()] == big) {
        *want_sub.entry(sub_key(&v.label, v.agent.as_deref(), v.context.as_deref())).or_default() += 1;
    }
    assert_eq!(members(&sub), want_sub);
    let sub_key_of: HashMap<&str, String> = whole
        .nodes
        .iter()
        .filter(|v| key[v.id.as_str()] == big)
        .map(|v| (v.id.as_str(), sub_key(&v.label, v.agent.as_deref(), v.context.as_deref())))
        .collect();
    let mut want_sub_edges: BTreeMap<(String, String), u64> = BTreeMap::new();
    for e in &whole.edges {
        if let (Some(a), Some(b)) = (sub_key_of.get(e.source.as_str()), sub_key_of.get(e.target.as_str())) {
            if a != b {
                *want_sub_edges.entry((a.clone(), b.clone())).or_default() += 1;
            }
        }
    }
    let sub_edges: BTreeMap<(String, String), u64> = provex
        .cluster_edges(&graph, Some(&big))
        .await
        .unwrap()
        .iter()
        .map(|e| {
            (
                (e.source.clone(), e.target.clone()),
                e.rel.trim_end_matches(" edges").replace(',', "").parse().unwrap(),
            )
        })
        .collect();
    assert_eq!(sub_edges, want_sub_edges);

    // A sub-cluster opens into exactly its nodes, with the edges between them.
    let (leaf, leaf_n) = want_sub.iter().next().map(|(k, n)| (k.clone(), *n)).unwrap();
    let nodes = provex.view(&graph, req(LIMIT, Some(&leaf))).await.unwrap();
    assert_eq!(nodes.mode, ViewMode::Members);
    assert_eq!(nodes.total_nodes, leaf_n, "the cluster's size, of which LIMIT are drawn");
    let mut got: Vec<&str> = nodes.nodes.iter().map(|v| v.id.as_str()).collect();
    // The first LIMIT of its nodes in creation order (the whole view's order).
    let mut expect: Vec<&str> = whole
        .nodes
        .iter()
        .filter(|v| sub_key(&v.label, v.agent.as_deref(), v.context.as_deref()) == leaf)
        .map(|v| v.id.as_str())
        .take(LIMIT as usize)
        .collect();
    got.sort_unstable();
    expect.sort_unstable();
    assert_eq!(got.len() as u64, leaf_n.min(u64::from(LIMIT)));
    assert_eq!(got, expect);
    let inside: usize = whole
        .edges
        .iter()
        .filter(|e| got.contains(&e.source.as_str()) && got.contains(&e.target.as_str()))
        .count();
    assert_eq!(nodes.edges.len(), inside);
    assert!(nodes.nodes.iter().all(|v| v.w > 0.0 && v.h > 0.0), "laid out");

    // A small top-level cluster opens straight into its nodes.
    let (small, small_n) = want.iter().min_by_key(|(_, n)| **n).map(|(k, n)| (k.clone(), *n)).unwrap();
    let v = provex.view(&graph, req(LIMIT, Some(&small))).await.unwrap();
    assert_eq!(v.mode, ViewMode::Members);
    assert_eq!(v.nodes.len() as u64, small_n);

    // An unknown cluster key is a usage error.
    assert!(provex.view(&graph, req(LIMIT, Some("nonsense"))).await.is_err());
}
