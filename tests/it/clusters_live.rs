//! Live semantic zoom: a graph's cluster view grows as events arrive, over its own stream. New
//! clusters are placed without moving the boxes drawn, counts change in place, edges between
//! clusters are counted once (re-writing the same events changes nothing), and the live counts
//! always equal a fresh count of the graph.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use provex::api::{StreamMessage, StreamRequest, View, ViewEdge, ViewNode};
use provex::facade::{Provex, ViewRequest};
use provex::model::{Edge, EdgeKind, GraphDelta, Label, Node, NodeRef, ProvRelation, RelType};

use crate::common;

const LIMIT: u32 = 10;

fn top() -> ViewRequest {
    ViewRequest { limit: Some(LIMIT), ..Default::default() }
}

fn activity(agent: &str, i: usize) -> Node {
    Node::new(Label::LlmCall, format!("{agent}-{i}"))
        .with("a2a:agent_id", agent)
        .with("a2a:context_id", format!("ctx-{agent}"))
}

fn link(a: &str, b: &str) -> Edge {
    Edge::new(
        RelType::WasUsedBy,
        EdgeKind::Prov(ProvRelation::Used),
        NodeRef::new(Label::LlmCall, a),
        NodeRef::new(Label::LlmCall, b),
    )
}

/// `n` activities of `agent`, each informed by the one before.
fn run(agent: &str, n: usize) -> GraphDelta {
    let mut d = GraphDelta::new();
    for i in 0..n {
        d.add_node(activity(agent, i));
        if i > 0 {
            d.add_edge(link(&format!("{agent}-{}", i - 1), &format!("{agent}-{i}")));
        }
    }
    d
}

/// The boxes and edges a client draws, kept current from the stream as the UI keeps them.
#[derive(Default)]
struct Drawing {
    boxes: BTreeMap<String, ViewNode>,
    edges: BTreeMap<(String, String), String>,
}

impl Drawing {
    fn from(v: &View) -> Drawing {
        let mut d = Drawing::default();
        d.take(&v.nodes, &v.edges);
        d
    }

    fn take(&mut self, nodes: &[ViewNode], edges: &[ViewEdge]) {
        for n in nodes {
            if let Some(old) = self.boxes.get(&n.id) {
                assert_eq!((old.x, old.y), (n.x, n.y), "a drawn box never moves: {}", n.id);
            }
            self.boxes.insert(n.id.clone(), n.clone());
        }
        for e in edges {
            self.edges.insert((e.source.clone(), e.target.clone()), e.rel.clone());
        }
    }

    fn members(&self) -> BTreeMap<String, u64> {
        let count = |b: &ViewNode| b.cluster.as_ref().unwrap().members;
        self.boxes.iter().filter(|(_, b)| count(b) > 0).map(|(k, b)| (k.clone(), count(b))).collect()
    }
}

/// Applies stream messages until `done` holds (30 s at most).
async fn follow(
    rx: &mut tokio::sync::broadcast::Receiver<Arc<StreamMessage>>,
    d: &mut Drawing,
    mut done: impl FnMut(&Drawing) -> bool,
) -> u64 {
    let mut last = 0;
    while !done(d) {
        let msg = tokio::time::timeout(Duration::from_secs(30), rx.recv())
            .await
            .expect("a message in time")
            .unwrap();
        match &*msg {
            StreamMessage::Clusters { seq, nodes, edges, .. } => {
                d.take(nodes, edges);
                last = *seq;
            }
            other => panic!("a cluster stream sends clusters, got {other:?}"),
        }
    }
    last
}

/// The live counts against a fresh count of the graph by another client.
async fn recount(graph: &str) -> View {
    let (other, _) = common::open("clusters_live_recount").await;
    let other: Provex = other;
    other.view(graph, top()).await.unwrap();
    other.cluster_edges(graph, None).await.unwrap();
    other.view(graph, top()).await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cluster_view_grows_live_and_counts_each_event_once() {
    let (provex, graph) = common::open("clusters_live").await;
    let mut first = run("alice", 40);
    // A node of a task no agent is named on, yet.
    first.add_node(Node::new(Label::LlmCall, "loose").with("a2a:context_id", "ctx-x"));
    provex.write(&graph, first).await.unwrap();
    let view = provex.view(&graph, top()).await.unwrap();
    assert_eq!(view.mode, provex::api::ViewMode::Clusters);
    let mut d = Drawing::from(&view);
    assert_eq!(d.members(), BTreeMap::from([("agent:alice".to_owned(), 40), ("tasks".to_owned(), 1)]));
    let (backlog, mut rx) = provex.watch(&StreamRequest::clusters(&graph, view.seq), view.seq).await.unwrap();
    for m in backlog {
        if let StreamMessage::Clusters { nodes, edges, .. } = &*m {
            d.take(nodes, edges);
        }
    }

    // A second agent's run, an edge from the first agent's work to it, and a forged signature
    // on one of the first agent's nodes.
    let mut delta = run("bob", 5);
    delta.add_edge(link("alice-39", "bob-0"));
    delta.add_node(Node::new(Label::LlmCall, "alice-3").with("signature_status", "invalid"));
    // The loose node's agent becomes known: it moves from the tasks to that agent.
    delta.add_node(Node::new(Label::LlmCall, "loose").with("a2a:agent_id", "dave"));
    provex.write(&graph, delta).await.unwrap();
    follow(&mut rx, &mut d, |d| {
        d.members().get("agent:bob") == Some(&5)
            && d.edges.contains_key(&("agent:alice".to_owned(), "agent:bob".to_owned()))
            && d.boxes["agent:alice"].status.as_deref() == Some("invalid")
    })
    .await;
    assert_eq!(d.members()["agent:alice"], 40, "a status change is no new node");
    assert_eq!((d.members().get("tasks"), d.members().get("agent:dave")), (None, Some(&1)));
    assert_eq!(d.edges[&("agent:alice".to_owned(), "agent:bob".to_owned())], "1 edges");
    let (a, b) = (&d.boxes["agent:alice"], &d.boxes["agent:bob"]);
    let apart = (a.x - b.x).abs() * 2.0 >= a.w + b.w - 1e-6 || (a.y - b.y).abs() * 2.0 >= a.h + b.h - 1e-6;
    assert!(apart, "the new box is placed clear of the drawn one: {a:?} {b:?}");

    // The same events again change nothing; a new one after them is counted once.
    let mut again = run("bob", 5);
    again.add_edge(link("alice-39", "bob-0"));
    // An update naming only the context keeps the agent the store keeps.
    again.add_node(Node::new(Label::LlmCall, "loose").with("a2a:context_id", "ctx-x"));
    provex.write(&graph, again).await.unwrap();
    provex.write(&graph, run("carol", 2)).await.unwrap();
    follow(&mut rx, &mut d, |d| d.members().contains_key("agent:carol")).await;
    assert_eq!(d.members()["agent:bob"], 5);
    assert_eq!(d.edges[&("agent:alice".to_owned(), "agent:bob".to_owned())], "1 edges");

    // What the stream drew is what a fresh count finds, and what a new view of this one says.
    let fresh = recount(&graph).await;
    assert_eq!(Drawing::from(&fresh).members(), d.members());
    assert_eq!(Drawing::from(&fresh).edges, d.edges);
    let now = provex.view(&graph, top()).await.unwrap();
    assert_eq!(Drawing::from(&now).members(), d.members());
    assert_eq!(now.total_nodes, 48);
    assert_eq!(d.members()["agent:dave"], 1);
    assert!(now.seq >= 2, "the view is numbered as its stream: {}", now.seq);
    let _ = provex.delete_graph(&graph).await;
}
