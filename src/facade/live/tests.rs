//! Unit tests of the live views' locking: a layout that panics breaks only its own graph,
//! a tidy-up holds no lock other graphs or readers need, and waiting for a view to load is
//! woken by the loader; a delta that names only what changed keeps the rest; a whole view's
//! columns are kept as JSON only while the drawing is unchanged.

use std::sync::{Arc, Mutex};

use super::state::{GraphView, Load};
use super::{LiveViews, Loading};
use crate::api::StreamMessage;
use crate::facade::DeltaBatch;
use crate::layout::{Incremental, LayoutOptions};
use crate::model::{Edge, EdgeKind, Label, Node, NodeRef, ProvRelation, RelType};

/// A view that finished loading an empty graph.
fn loaded(views: &LiveViews, graph: &str) -> Arc<GraphView> {
    let (view, fresh) = views.get_or_insert(graph);
    assert!(fresh);
    view.state().layout = Some(Incremental::new(LayoutOptions::default()));
    view.load.send_replace(Load::Ready);
    view
}

/// What the facade's publisher does: number and queue under the delta log's lock, lay out after.
fn publish(views: &LiveViews, log: &Mutex<u64>, graph: &str, nodes: &[&str], edges: &[(&str, &str)]) {
    let view = {
        let mut next = log.lock().unwrap();
        *next += 1;
        let batch = Arc::new(DeltaBatch {
            graph: graph.to_owned(),
            seq: *next,
            nodes: nodes.iter().map(|n| Node::new(Label::Artifact, *n)).collect(),
            edges: edges
                .iter()
                .map(|(s, t)| {
                    Edge::new(
                        RelType::WasUsedBy,
                        EdgeKind::Prov(ProvRelation::Used),
                        NodeRef::new(Label::Artifact, *s),
                        NodeRef::new(Label::Artifact, *t),
                    )
                })
                .collect(),
            knowledge: vec![],
        });
        views.route(&batch)
    };
    views.apply(view);
}

fn batch_of(msg: &StreamMessage) -> (u64, Vec<&str>, usize) {
    match msg {
        StreamMessage::Batch { seq, nodes, edges, .. } => {
            (*seq, nodes.iter().map(|n| n.id.as_str()).collect(), edges.len())
        }
        other => panic!("expected a batch, got {other:?}"),
    }
}

#[test]
fn a_layout_that_panics_breaks_only_its_own_graph() {
    let views = LiveViews::default();
    let log = Mutex::new(0);
    let a = loaded(&views, "a");
    let b = loaded(&views, "b");
    let mut a_rx = a.state().stream.subscribe();
    let mut b_rx = b.state().stream.subscribe();

    a.state().panic_next = true;
    publish(&views, &log, "a", &["a1"], &[]);
    // A's clients are told to load it again; A is dropped and loaded afresh on next use.
    let msg = a_rx.try_recv().unwrap();
    assert_eq!(
        *msg,
        StreamMessage::Reset {
            graph: "a".into(),
            seq: 1,
            reason: "the incremental layout of a panicked: a layout fault injected by a test".into()
        }
    );
    assert!(a.is_broken());
    assert!(views.map().get("a").is_none());
    assert!(!log.is_poisoned());

    // B goes on as if nothing happened.
    publish(&views, &log, "b", &["b1", "b2"], &[("b1", "b2")]);
    assert_eq!(batch_of(&b_rx.try_recv().unwrap()), (1, vec!["b1", "b2"], 1));
    assert!(!b.is_broken());

    // A comes back.
    let (again, fresh) = views.get_or_insert("a");
    assert!(fresh);
    assert!(!Arc::ptr_eq(&a, &again));
}

#[test]
fn a_poisoned_view_lock_marks_only_that_view_broken() {
    let views = LiveViews::default();
    let log = Mutex::new(0);
    let a = loaded(&views, "a");
    let b = loaded(&views, "b");
    let mut a_rx = a.state().stream.subscribe();
    let a2 = a.clone();
    let died = std::thread::spawn(move || {
        let _st = a2.state();
        panic!("a panic while holding the view's lock");
    })
    .join();
    assert!(died.is_err());

    publish(&views, &log, "a", &["a1"], &[]);
    let msg = a_rx.try_recv().unwrap();
    assert_eq!(
        *msg,
        StreamMessage::Reset {
            graph: "a".into(),
            seq: 1,
            reason: "the view's state was left half-changed by a panic".into()
        }
    );
    assert!(views.map().get("a").is_none());
    let mut b_rx = b.state().stream.subscribe();
    publish(&views, &log, "b", &["b1"], &[]);
    assert_eq!(batch_of(&b_rx.try_recv().unwrap()), (1, vec!["b1"], 0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tidy_up_blocks_neither_readers_nor_other_graphs() {
    let views = LiveViews::default();
    let log = Mutex::new(0);
    let a = loaded(&views, "a");
    let b = loaded(&views, "b");
    let ids: Vec<String> = (0..40).map(|i| format!("a{i}")).collect();
    let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
    // A tree whose appended drawing a tidy-up changes.
    let edges: Vec<(&str, &str)> = (1..40).map(|i| (ids[(i - 1) / 3], ids[i])).collect();
    publish(&views, &log, "a", &ids, &edges);
    let mut a_rx = a.state().stream.subscribe();
    let mut b_rx = b.state().stream.subscribe();

    let (started_tx, started) = tokio::sync::oneshot::channel();
    let (go, go_rx) = std::sync::mpsc::channel();
    *a.hold_tidy.lock().unwrap() = Some((started_tx, go_rx));
    let tidy = tokio::spawn({
        let a = a.clone();
        async move { a.tidy().await }
    });
    started.await.unwrap();

    // While A's tidy-up runs: A's view answers, a delta for A waits, B's is drawn at once.
    let view = a.state().snapshot(100, 0, false).0;
    assert_eq!((view.seq, view.nodes.len(), view.edges.len()), (1, 40, 39));
    publish(&views, &log, "a", &["a_late"], &[("a0", "a_late")]);
    assert_eq!(a.state().stream.seq(), 1);
    publish(&views, &log, "b", &["b1"], &[]);
    assert_eq!(batch_of(&b_rx.try_recv().unwrap()), (1, vec!["b1"], 0));
    assert_eq!(b.state().snapshot(100, 0, false).0.nodes.len(), 1);
    assert!(!tidy.is_finished());

    go.send(()).unwrap();
    let moved = tidy.await.unwrap().unwrap().unwrap();
    // The moves first, then the delta that waited, placed by the tidied layout.
    match &*a_rx.try_recv().unwrap() {
        StreamMessage::Moves { seq, moves, .. } => assert_eq!((*seq, moves), (2, &moved)),
        other => panic!("expected moves, got {other:?}"),
    }
    assert_eq!(batch_of(&a_rx.try_recv().unwrap()), (3, vec!["a_late"], 1));
    let view = a.state().snapshot(100, 0, false).0;
    assert_eq!((view.seq, view.nodes.len(), view.edges.len()), (3, 41, 40));
    // The same view in columns, built from the drawing: the same records, in arrival order.
    let columns = a.state().snapshot(100, 0, true).0;
    assert!(columns.nodes.is_empty() && columns.edges.is_empty());
    assert_eq!(columns.records().unwrap(), (view.nodes.clone(), view.edges.clone()));
    assert_eq!((columns.seq, columns.total_nodes, columns.total_edges), (3, 41, 40));
    assert!(a.state().layout.is_some());
}

#[tokio::test]
async fn waiting_for_a_view_is_woken_by_its_loader() {
    let view = Arc::new(GraphView::new("g", 1024));
    let waiter = tokio::spawn({
        let view = view.clone();
        async move { view.ready().await }
    });
    // Time does not pass on this thread: a waiter that polled on a timer would not finish.
    for _ in 0..3 {
        tokio::task::yield_now().await;
    }
    assert!(!waiter.is_finished());
    view.load.send_replace(Load::Ready);
    for _ in 0..3 {
        tokio::task::yield_now().await;
    }
    assert!(waiter.is_finished());
    assert_eq!(waiter.await.unwrap(), Ok(()));
}

#[tokio::test]
async fn a_loader_that_stops_wakes_its_waiters_with_the_reason() {
    let views = LiveViews::default();
    let (view, fresh) = views.get_or_insert("g");
    assert!(fresh);
    let waiter = tokio::spawn({
        let view = view.clone();
        async move { view.ready().await }
    });
    tokio::task::yield_now().await;
    assert!(!waiter.is_finished());
    drop(Loading { views: &views, view: &view, reason: Some("loading was stopped".into()) });
    assert_eq!(waiter.await.unwrap(), Err("loading was stopped".to_owned()));
    assert!(views.map().get("g").is_none());
    let (_, fresh) = views.get_or_insert("g");
    assert!(fresh);
}

#[test]
fn a_partial_update_keeps_what_it_leaves_out() {
    let views = LiveViews::default();
    let view = loaded(&views, "g");
    let send = |seq: u64, node: Node| {
        let batch = Arc::new(DeltaBatch {
            graph: "g".into(),
            seq,
            nodes: vec![node],
            edges: vec![],
            knowledge: vec![],
        });
        let routed = views.route(&batch);
        views.apply(routed);
    };
    send(
        1,
        Node::new(Label::Statement, "st-1")
            .with("author_id", "urn:agent:a")
            .with("claim_text", "The council approved the zoning change.")
            .with("signature_status", "valid")
            .with("standing", "unverified"),
    );
    // The consensus update names only what changed.
    send(
        2,
        Node::new(Label::Statement, "st-1").with("consensus_score", 0.5).with("signature_status", "invalid"),
    );
    let st = view.state();
    let v = &st.nodes["st-1"];
    assert_eq!(v.agent.as_deref(), Some("urn:agent:a"));
    assert_eq!(v.text.as_deref(), Some("The council approved the zoning change."));
    assert_eq!(v.status.as_deref(), Some("invalid"));
    assert_eq!(v.standing.as_deref(), Some("unverified"), "kept when the update leaves it out");
    drop(st);
    // A standing that changes (the headline) reaches the view and the verification update.
    let changed =
        Node::new(Label::Statement, "st-1").with("verified", true).with("standing", "invalid_signature");
    let update = super::convert::verification_update(&changed).unwrap();
    assert_eq!((update.verified, update.standing.as_deref()), (Some(true), Some("invalid_signature")));
    send(3, changed);
    assert_eq!(view.state().nodes["st-1"].standing.as_deref(), Some("invalid_signature"));
}

/// A tidy-up preview is the caller's alone: the served drawing, the stream and the layout
/// stay as they were; saving it afterwards makes exactly the moves the preview showed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tidy_up_preview_changes_nothing_that_is_served() {
    let views = LiveViews::default();
    let log = Mutex::new(0);
    let a = loaded(&views, "a");
    let ids: Vec<String> = (0..40).map(|i| format!("a{i}")).collect();
    let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
    // Appended in pieces, so that a tidy-up changes the drawing.
    for piece in ids.chunks(7) {
        let edges: Vec<(&str, &str)> = piece
            .iter()
            .filter_map(|id| {
                let i: usize = id[1..].parse().unwrap();
                (i > 0).then(|| (ids[(i - 1) / 3], *id))
            })
            .collect();
        publish(&views, &log, "a", piece, &edges);
    }
    let mut rx = a.state().stream.subscribe();
    let before = a.state().snapshot(100, 0, false).0;

    let preview = a.tidy_preview().await.unwrap();
    assert!(!preview.is_empty(), "the appended drawing is untidy");
    assert_eq!(a.state().snapshot(100, 0, false).0, before, "the served view is unchanged");
    assert!(rx.try_recv().is_err(), "nothing went out on the stream");
    // A second preview of the same drawing shows the same moves.
    assert_eq!(a.tidy_preview().await.unwrap(), preview);

    let saved = a.tidy().await.unwrap().unwrap();
    assert_eq!(saved, preview, "saving makes the moves the preview showed");
    match &*rx.try_recv().unwrap() {
        StreamMessage::Moves { moves, .. } => assert_eq!(moves, &preview),
        other => panic!("expected moves, got {other:?}"),
    }
    let after = a.state().snapshot(100, 0, false).0;
    for m in &preview {
        let n = after.nodes.iter().find(|n| n.id == m.id).unwrap();
        assert_eq!((n.x, n.y), (m.x, m.y));
    }
}

#[test]
fn a_whole_views_columns_are_sent_again_as_kept_until_the_drawing_changes() {
    use crate::api::Columns;
    let views = LiveViews::default();
    let log = Mutex::new(0);
    let a = loaded(&views, "a");
    publish(&views, &log, "a", &["a0", "a1"], &[("a0", "a1")]);
    let (first, revision) = a.state().snapshot(100, 1, true);
    assert!(matches!(first.columns, Some(Columns::Built(_))), "nothing kept yet");
    let json = first.columns.as_ref().unwrap().to_json().unwrap();
    a.state().keep_columns(revision, 100, 1, json.clone());
    // The same drawing: the kept JSON, the same records, the same bytes sent.
    let (again, _) = a.state().snapshot(100, 1, true);
    assert!(matches!(&again.columns, Some(Columns::Json(j)) if Arc::ptr_eq(j, &json)));
    assert_eq!(again.records().unwrap(), first.records().unwrap());
    assert_eq!(serde_json::to_string(&again).unwrap(), serde_json::to_string(&first).unwrap());
    // Asked with another limit or edge total, or as records: built afresh.
    assert!(matches!(a.state().snapshot(50, 1, true).0.columns, Some(Columns::Built(_))));
    assert!(matches!(a.state().snapshot(100, 2, true).0.columns, Some(Columns::Built(_))));
    assert!(a.state().snapshot(100, 1, false).0.columns.is_none());
    // A delta that changes nothing drawn (a node written again as it was) keeps them.
    publish(&views, &log, "a", &["a0"], &[("a0", "a1")]);
    assert!(matches!(a.state().snapshot(100, 1, true).0.columns, Some(Columns::Json(_))));
    // A delta changes the drawing: the kept columns are gone, and columns encoded before it
    // are not kept.
    publish(&views, &log, "a", &["a2"], &[("a1", "a2")]);
    let (after, _) = a.state().snapshot(100, 1, true);
    assert!(matches!(after.columns, Some(Columns::Built(_))));
    assert_eq!(after.records().unwrap().0.len(), 3);
    a.state().keep_columns(revision, 100, 1, json);
    assert!(matches!(a.state().snapshot(100, 1, true).0.columns, Some(Columns::Built(_))));
}
