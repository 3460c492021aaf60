//! Reads checked against an independent computation: `trace` and `path` must equal a
//! petgraph search over the same nodes and edges (FalkorDB has lost results on unbound
//! variable-length paths, see falkordb.md).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::EdgeRef;
use petgraph::Direction;
use provex::facade::{Provex, Quiet};
use provex::ingest::IngestOptions;
use provex::store::{EdgeRecord, TraceDirection};

use crate::common;

struct Reference {
    graph: DiGraph<String, ()>,
    /// Every stored edge with its type and kind, as user Cypher reads it.
    edges: Vec<EdgeRecord>,
    index: HashMap<String, NodeIndex>,
}

async fn reference(provex: &Provex, graph: &str) -> Reference {
    let dump = provex.dump(graph).await.unwrap();
    let mut g = DiGraph::new();
    let mut index = HashMap::new();
    for n in &dump.nodes {
        index.insert(n.id.clone(), g.add_node(n.id.clone()));
    }
    let rows = provex
        .query(
            graph,
            "MATCH (a)-[e]->(b) RETURN a.name, b.name, type(e), e.`prov:base_type`, e.`a2a:relation`",
        )
        .await
        .unwrap();
    let text = |v: &serde_json::Value| v.as_str().map(str::to_owned);
    let mut edges = Vec::new();
    for r in &rows.rows {
        g.add_edge(index[r[0].as_str().unwrap()], index[r[1].as_str().unwrap()], ());
        edges.push(EdgeRecord {
            source: text(&r[0]).unwrap(),
            target: text(&r[1]).unwrap(),
            rel: text(&r[2]).unwrap(),
            prov: text(&r[3]),
            a2a: text(&r[4]),
        });
    }
    Reference { graph: g, edges, index }
}

impl Reference {
    /// Breadth-first distances from `root`, up to `depth`, along (`Outgoing`) or against
    /// (`Incoming`) the edges.
    fn distances(&self, root: &str, dir: Direction, depth: u32) -> BTreeMap<String, u32> {
        let mut dist = BTreeMap::from([(root.to_owned(), 0)]);
        let mut frontier = vec![self.index[root]];
        for d in 1..=depth {
            let mut next = Vec::new();
            for n in frontier {
                for m in self.graph.neighbors_directed(n, dir) {
                    let name = &self.graph[m];
                    if !dist.contains_key(name) {
                        dist.insert(name.clone(), d);
                        next.push(m);
                    }
                }
            }
            frontier = next;
        }
        dist
    }

    /// The edges a trace to `depth` walks: those leaving (`Outgoing`) or entering
    /// (`Incoming`) a node reached before the last level.
    fn trace_edges(&self, dist: &BTreeMap<String, u32>, dir: Direction, depth: u32) -> BTreeSet<EdgeRecord> {
        let near =
            |e: &EdgeRecord| if dir == Direction::Outgoing { e.source.clone() } else { e.target.clone() };
        self.edges.iter().filter(|e| dist.get(&near(e)).is_some_and(|d| *d < depth)).cloned().collect()
    }

    fn undirected_distance(&self, a: &str, b: &str) -> Option<usize> {
        let ug = self.graph.clone().into_edge_type::<petgraph::Undirected>();
        let costs = petgraph::algo::dijkstra(&ug, self.index[a], Some(self.index[b]), |_| 1usize);
        costs.get(&self.index[b]).copied()
    }

    fn has_edge(&self, a: &str, b: &str) -> bool {
        self.graph.edges(self.index[a]).any(|e| self.graph[e.target()] == b)
    }
}

async fn ingested(test: &str, files: &[std::path::PathBuf]) -> (Provex, String) {
    let (provex, graph) = common::open(test).await;
    provex
        .ingest(&graph, files, IngestOptions::default(), Arc::new(AtomicBool::new(false)), Arc::new(Quiet))
        .await
        .unwrap();
    (provex, graph)
}

#[tokio::test(flavor = "multi_thread")]
async fn trace_equals_petgraph_from_every_node() {
    let (provex, graph) = ingested("trace_ref", &[common::repo().join("examples/a2a-run.jsonl")]).await;
    let reference = reference(&provex, &graph).await;
    assert!(reference.graph.node_count() > 50);
    assert!(
        reference.edges.iter().any(|e| e.a2a.is_some()) && reference.edges.iter().any(|e| e.prov.is_some())
    );
    for name in reference.index.keys() {
        for (dir, pdir) in
            [(TraceDirection::Up, Direction::Outgoing), (TraceDirection::Down, Direction::Incoming)]
        {
            for depth in [1, 3, 10] {
                let got = provex.trace(&graph, name, dir, depth).await.unwrap();
                let got_dist: BTreeMap<String, u32> =
                    got.nodes.iter().map(|n| (n.id.clone(), n.depth.unwrap())).collect();
                let want = reference.distances(name, pdir, depth);
                assert_eq!(got_dist, want, "{name} {dir:?} {depth}");
                // The same edges, each with its type and its PROV or A2A relation.
                let got_edges: BTreeSet<EdgeRecord> = got.edges.iter().cloned().collect();
                assert_eq!(got_edges.len(), got.edges.len(), "duplicate edges from {name}");
                assert_eq!(got_edges, reference.trace_edges(&want, pdir, depth), "{name} {dir:?} {depth}");
            }
        }
    }
    provex.delete_graph(&graph).await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn trace_equals_petgraph_on_a_larger_graph() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("synthetic.jsonl");
    crate::ingest::synthetic_events(&file, 3_000);
    let (provex, graph) = ingested("trace_big", &[file]).await;
    let reference = reference(&provex, &graph).await;
    // The agents and the runner are reached from thousands of tasks.
    for name in ["agent:runner", "agent_instance:agent-3", "artifact:art-17", "task:task-2999"] {
        for (dir, pdir) in
            [(TraceDirection::Up, Direction::Outgoing), (TraceDirection::Down, Direction::Incoming)]
        {
            let got = provex.trace(&graph, name, dir, 10).await.unwrap();
            let got_dist: BTreeMap<String, u32> =
                got.nodes.iter().map(|n| (n.id.clone(), n.depth.unwrap())).collect();
            assert_eq!(got_dist, reference.distances(name, pdir, 10), "{name} {dir:?}");
        }
    }
    provex.delete_graph(&graph).await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn path_is_a_shortest_path() {
    let (provex, graph) = ingested("path_ref", &[common::repo().join("examples/a2a-run.jsonl")]).await;
    let reference = reference(&provex, &graph).await;
    let mut names: Vec<&String> = reference.index.keys().collect();
    names.sort();
    let mut checked = 0;
    for (i, a) in names.iter().enumerate().step_by(3) {
        for b in names.iter().skip(i % 5).step_by(7) {
            let got = provex.path(&graph, a, b).await.unwrap();
            match (got, reference.undirected_distance(a, b)) {
                (None, None) => {}
                (Some(p), Some(d)) => {
                    assert_eq!(p.edges.len(), d, "{a} -> {b}");
                    assert_eq!(p.nodes.first().unwrap().id, **a);
                    assert_eq!(p.nodes.last().unwrap().id, **b);
                    for (k, e) in p.edges.iter().enumerate() {
                        let (x, y) = (&p.nodes[k].id, &p.nodes[k + 1].id);
                        assert!(
                            (e.source == *x && e.target == *y) || (e.source == *y && e.target == *x),
                            "edge {e:?} does not join {x} and {y}"
                        );
                        assert!(reference.has_edge(&e.source, &e.target));
                    }
                    checked += 1;
                }
                (got, want) => panic!("{a} -> {b}: got {got:?}, petgraph says {want:?}"),
            }
        }
    }
    assert!(checked > 20);
    let missing = provex.path(&graph, "no-such-node", "agent:runner").await.unwrap_err();
    assert_eq!(missing.code(), provex::api::ErrorCode::NotFound);
    provex.delete_graph(&graph).await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn user_cypher_runs_read_only() {
    let (provex, graph) = ingested("ro", &[common::repo().join("examples/a2a-run.jsonl")]).await;
    let before = provex.stats(&graph).await.unwrap();
    let err = provex.query(&graph, "MATCH (n) DETACH DELETE n").await.unwrap_err();
    assert_eq!(err.code(), provex::api::ErrorCode::WriteRefused);
    assert_eq!(provex.stats(&graph).await.unwrap(), before);
    let t = provex.query(&graph, "MATCH (n:LlmCall) RETURN count(n) AS calls").await.unwrap();
    assert_eq!(t.columns, ["calls"]);
    assert_eq!(t.rows, vec![vec![serde_json::json!(6)]]);
    let n = provex.neighbours(&graph, "task_execution_task-research-q3").await.unwrap();
    assert!(n.nodes.iter().any(|x| x.id == "task:task-research-q3"));
    assert!(n.nodes.iter().any(|x| x.id == "tool_call:evt-0011"));
    provex.delete_graph(&graph).await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn names_resolve_whatever_label_their_prefix_had_before() {
    use provex::model::vocab::Label;
    use provex::model::{GraphDelta, Node};
    let (provex, graph) = common::open("prefix_labels").await;
    let mut delta = GraphDelta::new();
    // One prefix, two labels: the label remembered for `x:` is wrong for one of them.
    delta.add_node(Node::new(Label::Artifact, "x:1"));
    delta.add_node(Node::new(Label::A2ATask, "x:2"));
    delta.add_node(Node::new(Label::Artifact, "x:3"));
    provex.write(&graph, delta).await.unwrap();
    for (name, label) in [("x:1", "Artifact"), ("x:2", "A2ATask"), ("x:3", "Artifact"), ("x:2", "A2ATask")] {
        let node = provex.node(&graph, name).await.unwrap();
        assert_eq!((node.id.as_str(), node.label.as_str()), (name, label));
        let trace = provex.trace(&graph, name, TraceDirection::Up, 1).await.unwrap();
        assert_eq!(trace.nodes[0].label, label);
    }
    assert!(provex.node(&graph, "x:4").await.is_err());
    provex.delete_graph(&graph).await.unwrap();
}
