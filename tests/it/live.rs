//! Live views under load: a tidy-up of one graph holds up neither that graph's reads and
//! writes nor any other graph's, and the stream's backlog is bounded in bytes.

use std::sync::Arc;
use std::time::{Duration, Instant};

use provex::api::{StreamMessage, StreamRequest};
use provex::facade::{Provex, ViewRequest};
use provex::model::{Edge, EdgeKind, GraphDelta, Label, Node, NodeRef, ProvRelation, RelType};

use crate::common;

/// Nodes `{prefix}{from}..{prefix}{to}` in a tree (each node used by the one a third of its
/// number), written in one delta.
fn tree(prefix: &str, from: usize, to: usize) -> GraphDelta {
    let name = |i: usize| format!("{prefix}{i}");
    let mut d = GraphDelta::new();
    for i in from..to {
        d.add_node(Node::new(Label::Artifact, name(i)));
        if i > 0 {
            d.add_edge(Edge::new(
                RelType::WasUsedBy,
                EdgeKind::Prov(ProvRelation::Used),
                NodeRef::new(Label::Artifact, name((i - 1) / 3)),
                NodeRef::new(Label::Artifact, name(i)),
            ));
        }
    }
    d
}

async fn next(rx: &mut tokio::sync::broadcast::Receiver<Arc<StreamMessage>>) -> Arc<StreamMessage> {
    tokio::time::timeout(Duration::from_secs(30), rx.recv()).await.expect("a message in time").unwrap()
}

fn batch_ids(msg: &StreamMessage) -> (u64, Vec<String>) {
    match msg {
        StreamMessage::Batch { seq, nodes, .. } => (*seq, nodes.iter().map(|n| n.id.clone()).collect()),
        other => panic!("expected a batch, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tidy_up_holds_up_no_read_or_write() {
    let (provex, big) = common::open("live_tidy_big").await;
    let provex = Arc::new(provex);
    let small = format!("{big}_small");
    let _ = provex.delete_graph(&small).await;
    const N: usize = 48_000;
    for start in (0..N).step_by(8_000) {
        provex.write(&big, tree("n", start, start + 8_000)).await.unwrap();
    }
    provex.write(&small, tree("s", 0, 3)).await.unwrap();
    let whole = ViewRequest { limit: Some(N as u32 + 10), ..Default::default() };
    assert_eq!(provex.view(&big, whole.clone()).await.unwrap().nodes.len(), N);
    assert_eq!(provex.view(&small, ViewRequest::default()).await.unwrap().nodes.len(), 3);

    // How long a tidy-up of the big graph takes alone (after a first one settled it).
    provex.tidy(&big).await.unwrap();
    let started = Instant::now();
    provex.tidy(&big).await.unwrap();
    let alone = started.elapsed();
    let (_, mut big_rx) = provex.watch(&StreamRequest::whole(&big, u64::MAX), u64::MAX).await.unwrap();
    let big_seq = provex.view(&big, whole.clone()).await.unwrap().seq;
    let (_, mut small_rx) = provex.watch(&StreamRequest::whole(&small, 0), 0).await.unwrap();

    // The same again, with reads and writes of both graphs meanwhile.
    let tidy = tokio::spawn({
        let (p, g) = (provex.clone(), big.clone());
        async move { p.tidy(&g).await }
    });
    tokio::time::sleep(alone / 10).await;
    let others = Instant::now();
    provex.write(&big, tree("late", 0, 1)).await.unwrap();
    provex.write(&small, tree("s", 3, 4)).await.unwrap();
    assert_eq!(batch_ids(&*next(&mut small_rx).await), (1, vec!["s3".to_owned()]));
    let view = provex.view(&small, ViewRequest::default()).await.unwrap();
    assert_eq!((view.nodes.len(), view.seq), (4, 1));
    // The big graph's view answers too, as it was before the tidy-up.
    let view = provex.view(&big, whole.clone()).await.unwrap();
    assert_eq!((view.nodes.len(), view.seq), (N, big_seq));
    let others = others.elapsed();
    assert!(!tidy.is_finished(), "reads and writes took {others:?}; a tidy-up alone {alone:?}");
    tidy.await.unwrap().unwrap();

    // The moves go out first, then the delta that arrived meanwhile.
    assert!(matches!(&*next(&mut big_rx).await, StreamMessage::Moves { seq, .. } if *seq == big_seq + 1));
    assert_eq!(batch_ids(&*next(&mut big_rx).await), (big_seq + 2, vec!["late0".to_owned()]));
    assert_eq!(provex.view(&big, whole).await.unwrap().nodes.len(), N + 1);
    eprintln!("tidy-up of {N} nodes alone: {alone:?}; reads and writes during one: {others:?}");
    provex.delete_graph(&big).await.unwrap();
    provex.delete_graph(&small).await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn the_stream_backlog_is_bounded_in_bytes() {
    let (provex, graph) = common::open("live_backlog").await;
    let provex: Provex = provex;
    provex.write(&graph, tree("b", 0, 1)).await.unwrap();
    let (_, mut rx) = provex.watch(&StreamRequest::whole(&graph, 0), 0).await.unwrap();
    // One message of the size the next ones have, to size the budget.
    provex.write(&graph, tree("b", 1, 2)).await.unwrap();
    let one = serde_json::to_vec(&*next(&mut rx).await).unwrap().len();
    provex.set_stream_backlog_bytes(3 * one + one / 2);
    for i in 2..7 {
        provex.write(&graph, tree("b", i, i + 1)).await.unwrap();
        assert_eq!(batch_ids(&*next(&mut rx).await), (i as u64, vec![format!("b{i}")]));
    }
    // Messages 1 to 6 went out; 4, 5 and 6 fit the budget.
    let (backlog, _) = provex.watch(&StreamRequest::whole(&graph, 3), 3).await.unwrap();
    let seqs: Vec<u64> = backlog.iter().map(|m| m.seq()).collect();
    assert_eq!(seqs, vec![4, 5, 6]);
    let (backlog, _) = provex.watch(&StreamRequest::whole(&graph, 2), 2).await.unwrap();
    assert_eq!(
        backlog.iter().map(|m| (**m).clone()).collect::<Vec<_>>(),
        vec![StreamMessage::Reset { graph: graph.clone(), seq: 6, reason: "too far behind".into() }]
    );
    provex.delete_graph(&graph).await.unwrap();
}
