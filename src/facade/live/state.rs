//! One graph's live view: its own lock around the drawn nodes, edges, incremental layout
//! and stream, an inbox that deltas enter in order without waiting for that lock, and a
//! load state that callers wait on (woken when the view is ready, no polling).
//!
//! A layout that fails or panics breaks only its own graph's view: the panic is caught,
//! the view's clients get a `reset`, and the view is loaded afresh on next use.

use std::collections::{HashMap, HashSet, VecDeque};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::sync::watch;

use super::backlog::Backlog;
use super::convert::{from_edge, from_node, layout_node, now_ms, verification_update};
use crate::api::{Columns, NodeMove, StreamMessage, View, ViewColumns, ViewEdge, ViewMode, ViewNode};
use crate::facade::DeltaBatch;
use crate::layout::{EdgeSpec, Incremental, Move};

/// Where loading a view stands.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Load {
    Loading,
    Ready,
    Failed(String),
}

/// See the module docs.
pub(crate) struct GraphView {
    pub(super) graph: String,
    /// Deltas not applied yet, in the order they were published.
    inbox: Mutex<VecDeque<Arc<DeltaBatch>>>,
    state: Mutex<State>,
    pub(super) load: watch::Sender<Load>,
    /// One tidy-up at a time.
    pub(super) tidying: Arc<tokio::sync::Mutex<()>>,
    /// Tests: a tidy-up says it started, then waits to be let go.
    #[cfg(test)]
    pub(super) hold_tidy: Mutex<Option<TidyHold>>,
}

/// Tests: where a held tidy-up says it started, and where it waits.
#[cfg(test)]
pub(super) type TidyHold = (tokio::sync::oneshot::Sender<()>, std::sync::mpsc::Receiver<()>);

/// What one graph's view holds.
pub(super) struct State {
    graph: String,
    /// `None` while the view loads or a tidy-up runs: deltas wait in the inbox meanwhile.
    pub(super) layout: Option<Incremental>,
    pub(super) nodes: HashMap<String, ViewNode>,
    pub(super) edges: HashSet<ViewEdge>,
    pub(super) edge_list: Vec<ViewEdge>,
    pub(super) next_arrival: u32,
    pub(super) stream: Backlog,
    /// The layout failed or panicked: the view is dropped and loaded afresh.
    pub(super) broken: bool,
    /// Counts the changes of the drawing (a delta that adds or changes a node or an edge, a
    /// tidy-up's moves, a load), so that columns encoded outside the lock are kept only if
    /// nothing changed meanwhile.
    pub(super) revision: u64,
    /// The whole view's columns as JSON, for the revision, limit and edge total they were
    /// made at ([`State::keep_columns`]): sent again until the drawing changes.
    kept: Option<KeptColumns>,
    /// Tests: the next append panics.
    #[cfg(test)]
    pub(super) panic_next: bool,
}

/// See [`State::kept`].
struct KeptColumns {
    revision: u64,
    limit: u32,
    total_edges: u64,
    json: Arc<serde_json::value::RawValue>,
}

/// The text of a caught panic.
pub(super) fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".to_owned())
}

impl GraphView {
    /// An empty view, loading.
    pub(super) fn new(graph: &str, backlog_bytes: usize) -> GraphView {
        GraphView {
            graph: graph.to_owned(),
            inbox: Mutex::new(VecDeque::new()),
            state: Mutex::new(State {
                graph: graph.to_owned(),
                layout: None,
                nodes: HashMap::new(),
                edges: HashSet::new(),
                edge_list: Vec::new(),
                next_arrival: 0,
                stream: Backlog::new(graph, backlog_bytes),
                broken: false,
                revision: 0,
                kept: None,
                #[cfg(test)]
                panic_next: false,
            }),
            load: watch::channel(Load::Loading).0,
            tidying: Arc::new(tokio::sync::Mutex::new(())),
            #[cfg(test)]
            hold_tidy: Mutex::new(None),
        }
    }

    /// The view's state. A lock poisoned by a panic the view did not catch marks the view
    /// broken rather than spreading the panic.
    pub(super) fn state(&self) -> MutexGuard<'_, State> {
        match self.state.lock() {
            Ok(st) => st,
            Err(poisoned) => {
                let mut st = poisoned.into_inner();
                self.state.clear_poison();
                self.fail(&mut st, "the view's state was left half-changed by a panic");
                st
            }
        }
    }

    /// Queues a delta (cheap: callers hold the delta log's lock, which fixes the order).
    pub(super) fn enqueue(&self, batch: Arc<DeltaBatch>) {
        self.inbox.lock().unwrap_or_else(PoisonError::into_inner).push_back(batch);
    }

    /// Applies the queued deltas, unless the view is loading or being tidied (then whoever
    /// finishes that applies them). Returns `false` when the view broke.
    pub(super) fn drain(&self) -> bool {
        let mut st = self.state();
        loop {
            if st.broken {
                self.inbox.lock().unwrap_or_else(PoisonError::into_inner).clear();
                return false;
            }
            if st.layout.is_none() {
                return true;
            }
            let Some(batch) = self.inbox.lock().unwrap_or_else(PoisonError::into_inner).pop_front() else {
                return true;
            };
            let reason = match catch_unwind(AssertUnwindSafe(|| st.apply(&batch))) {
                Ok(Ok(())) => continue,
                Ok(Err(e)) => e,
                Err(p) => format!("the incremental layout of {} panicked: {}", self.graph, panic_text(&*p)),
            };
            tracing::warn!("{reason}; the view will be rebuilt");
            self.fail(&mut st, &reason);
        }
    }

    /// Marks the view broken: its clients get a `reset`, callers waiting for it to load get
    /// the reason, and it is replaced on next use.
    pub(super) fn fail(&self, st: &mut State, reason: &str) {
        st.fail(reason);
        self.load.send_replace(Load::Failed(reason.to_owned()));
    }

    /// Whether the view broke (without taking its lock).
    pub(super) fn is_broken(&self) -> bool {
        matches!(*self.load.borrow(), Load::Failed(_))
    }

    /// Waits until the view is loaded (woken by the loader, no polling).
    pub(super) async fn ready(&self) -> Result<(), String> {
        let mut rx = self.load.subscribe();
        let load = rx.wait_for(|l| *l != Load::Loading).await.map(|l| l.clone());
        match load {
            Ok(Load::Ready) => Ok(()),
            Ok(Load::Failed(reason)) => Err(reason),
            Ok(Load::Loading) | Err(_) => Err("the view went away".to_owned()),
        }
    }
}

impl State {
    /// Marks the view broken and tells its clients to load it again (see [`GraphView::fail`]).
    fn fail(&mut self, reason: &str) {
        if !self.broken {
            self.broken = true;
            self.layout = None;
            self.stream.reset(reason);
        }
    }

    /// Applies a delta: places new nodes, updates changed ones, adds new edges, and
    /// publishes what changed as one batch. The layout must be there.
    fn apply(&mut self, delta: &DeltaBatch) -> Result<(), String> {
        let mut new_nodes = Vec::new();
        let mut changed = Vec::new();
        let mut verifications = Vec::new();
        let mut fresh: HashMap<&str, ViewNode> = HashMap::new();
        for n in &delta.nodes {
            if let Some(v) = verification_update(n) {
                verifications.push(v);
            }
            match self.nodes.get(&n.name) {
                // A placeholder (a node with nothing but its name, under a stand-in label)
                // written for a node drawn already under its own label: the store folds it
                // into that node, so the drawing keeps the node.
                Some(old) if n.props.is_empty() && old.label != n.label.as_str() => {}
                Some(old) => {
                    let mut v = from_node(n, old.arrival);
                    // A delta may hold only what changed (a statement's consensus): what it
                    // leaves out is kept, as the store keeps it.
                    v.agent = v.agent.or_else(|| old.agent.clone());
                    v.context = v.context.or_else(|| old.context.clone());
                    v.status = v.status.or_else(|| old.status.clone());
                    v.standing = v.standing.or_else(|| old.standing.clone());
                    v.text = v.text.or_else(|| old.text.clone());
                    v.x = old.x;
                    v.y = old.y;
                    v.w = old.w;
                    v.h = old.h;
                    v.layer = old.layer;
                    if &v != old {
                        changed.push(v);
                    }
                }
                None => {
                    if !fresh.contains_key(n.name.as_str()) {
                        new_nodes.push(layout_node(
                            &n.name,
                            n.label.as_str(),
                            Some(n.label.base_type().as_str()),
                        ));
                    }
                    let arrival = fresh.get(n.name.as_str()).map(|v| v.arrival);
                    let arrival = arrival.unwrap_or_else(|| {
                        self.next_arrival += 1;
                        self.next_arrival - 1
                    });
                    fresh.insert(&n.name, from_node(n, arrival));
                }
            }
        }
        let mut specs = Vec::new();
        let mut edges = Vec::new();
        for e in &delta.edges {
            let v = from_edge(e);
            let known = |id: &str| self.nodes.contains_key(id) || fresh.contains_key(id);
            if self.edges.contains(&v) || !known(&v.source) || !known(&v.target) {
                continue;
            }
            specs.push(EdgeSpec {
                source: v.source.clone(),
                target: v.target.clone(),
                kind: Some(v.rel.clone()),
            });
            self.edges.insert(v.clone());
            edges.push(v);
        }
        #[cfg(test)]
        if std::mem::take(&mut self.panic_next) {
            panic!("a layout fault injected by a test");
        }
        let layout = self.layout.as_mut().expect("drain checks the layout is there");
        let placed = layout
            .append(new_nodes, specs)
            .map_err(|e| format!("incremental layout of {}: {e}", self.graph))?;
        let mut out_nodes = Vec::with_capacity(placed.len() + changed.len());
        for p in placed {
            if let Some(mut v) = fresh.remove(p.id.as_str()) {
                v.x = p.x;
                v.y = p.y;
                v.layer = p.layer;
                out_nodes.push(v);
            }
        }
        for v in out_nodes.iter_mut() {
            let ln = layout_node(&v.id, &v.label, v.base_type.as_deref());
            v.w = ln.width;
            v.h = ln.height;
        }
        if !(out_nodes.is_empty() && changed.is_empty() && edges.is_empty()) {
            self.changed();
        }
        for v in out_nodes.iter().chain(&changed) {
            self.nodes.insert(v.id.clone(), v.clone());
        }
        out_nodes.extend(changed);
        self.edge_list.extend(edges.iter().cloned());
        if !(out_nodes.is_empty() && edges.is_empty() && verifications.is_empty()) {
            let seq = self.stream.next_seq();
            self.stream.publish(StreamMessage::Batch {
                graph: self.graph.clone(),
                seq,
                time_ms: now_ms(),
                nodes: out_nodes,
                edges,
                verifications,
            });
        }
        self.stream.publish_knowledge(&self.graph, &delta.knowledge);
        Ok(())
    }

    /// Takes a tidy-up's moves into the drawing and sends them as one `moves` message.
    /// Returns the moves of the nodes drawn.
    pub(super) fn apply_moves(&mut self, moves: Vec<Move>) -> Vec<NodeMove> {
        self.changed();
        let mut out = Vec::with_capacity(moves.len());
        for m in moves {
            if let Some(n) = self.nodes.get_mut(&m.id) {
                n.x = m.to[0];
                n.y = m.to[1];
                out.push(NodeMove { id: m.id, x: m.to[0], y: m.to[1] });
            }
        }
        let seq = self.stream.next_seq();
        self.stream.publish(StreamMessage::Moves { graph: self.graph.clone(), seq, moves: out.clone() });
        out
    }

    /// A tidy-up's moves of the nodes drawn, changing nothing (a preview for one viewer).
    pub(super) fn preview_moves(&self, moves: Vec<Move>) -> Vec<NodeMove> {
        moves
            .into_iter()
            .filter(|m| self.nodes.contains_key(&m.id))
            .map(|m| NodeMove { id: m.id, x: m.to[0], y: m.to[1] })
            .collect()
    }

    /// The drawing changed: columns kept or being encoded are of an older drawing.
    pub(super) fn changed(&mut self) {
        tracing::debug!(graph = %self.graph, revision = self.revision + 1, "the drawing changed");
        self.revision += 1;
        self.kept = None;
    }

    /// Keeps a whole view's columns, encoded to JSON outside the lock, when the drawing is
    /// still the one they were built from (`revision`, as [`State::snapshot`] gave it).
    pub(super) fn keep_columns(
        &mut self,
        revision: u64,
        limit: u32,
        total_edges: u64,
        json: Arc<serde_json::value::RawValue>,
    ) {
        if revision == self.revision {
            self.kept = Some(KeptColumns { revision, limit, total_edges, json });
        }
        tracing::debug!(graph = %self.graph, revision, now = self.revision, limit, total_edges, "columns kept");
    }

    /// The whole view as it stands, nodes in arrival order; as columns (the kept JSON when
    /// the drawing has not changed since, else built from the drawing, no record copied) or
    /// as a record each. With it, the revision it is of.
    pub(super) fn snapshot(&self, limit: u32, total_edges: u64, columns: bool) -> (View, u64) {
        let kept = self.kept.as_ref().filter(|k| {
            columns && k.revision == self.revision && k.limit == limit && k.total_edges == total_edges
        });
        let (nodes, edges, columns) = if let Some(k) = kept {
            (Vec::new(), Vec::new(), Some(Columns::Json(k.json.clone())))
        } else {
            let mut nodes: Vec<&ViewNode> = self.nodes.values().collect();
            nodes.sort_by_key(|n| n.arrival);
            if columns {
                (Vec::new(), Vec::new(), Some(ViewColumns::encode(nodes, &self.edge_list).into()))
            } else {
                (nodes.into_iter().cloned().collect(), self.edge_list.clone(), None)
            }
        };
        let view = View {
            graph: self.graph.clone(),
            seq: self.stream.seq(),
            mode: ViewMode::Whole,
            root: None,
            total_nodes: self.nodes.len() as u64,
            total_edges: total_edges.max(self.edge_list.len() as u64),
            limit,
            nodes,
            edges,
            columns,
        };
        (view, self.revision)
    }
}
