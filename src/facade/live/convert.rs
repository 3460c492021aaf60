//! Conversions from stored and streamed graph data to what a view draws: node boxes sized
//! for their captions, view nodes and edges, verification results.

use std::time::{SystemTime, UNIX_EPOCH};

use crate::api::{VerificationKind, VerificationUpdate, ViewEdge, ViewNode};
use crate::layout::{self, LayoutNode, NODE_HEIGHT};
use crate::model::{Edge, Label, Node, PropValue};
use crate::store::canvas_reads::{EdgeSummary, NodeSummary, STANDING_KEY, STATUS_KEY, TEXT_CHARS};
use crate::store::read::EdgeRecord;

/// Widest node box, in layout pixels.
const MAX_WIDTH: f64 = 200.0;
/// Width of a claim's box: wide enough that its text, not just its type, can be read in the
/// first view.
const CLAIM_WIDTH: f64 = 320.0;

pub(super) fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0)
}

/// The short caption a node box is sized for: the last part of its name.
fn caption(name: &str) -> &str {
    let tail = name.rsplit([':', '/', '#']).find(|s| !s.is_empty()).unwrap_or(name);
    let end = tail.char_indices().nth(24).map_or(tail.len(), |(i, _)| i);
    &tail[..end]
}

pub(super) fn layout_node(id: &str, label: &str, base_type: Option<&str>) -> LayoutNode {
    let width = if label == Label::Statement.as_str() {
        CLAIM_WIDTH
    } else {
        layout::label_width(caption(id)).min(MAX_WIDTH)
    };
    let mut n = LayoutNode::new(id, width, NODE_HEIGHT);
    n.label = label.to_owned();
    n.base_type = base_type.map(str::to_owned);
    n
}

fn truncate(s: &str) -> String {
    match s.char_indices().nth(TEXT_CHARS) {
        Some((i, _)) => s[..i].to_owned(),
        None => s.to_owned(),
    }
}

fn prop_text(v: &PropValue) -> Option<String> {
    match v {
        PropValue::Str(s) => Some(s.clone()),
        PropValue::Int(i) => Some(i.to_string()),
        PropValue::Float(f) => Some(f.to_string()),
        PropValue::Bool(b) => Some(b.to_string()),
        PropValue::List(_) => None,
    }
}

fn first_prop(n: &Node, keys: &[&str]) -> Option<String> {
    keys.iter().find_map(|k| n.props.get(*k).and_then(prop_text))
}

/// A stored node's view data (position filled in later).
pub(super) fn from_summary(s: NodeSummary, arrival: u32) -> ViewNode {
    ViewNode {
        cluster: None,
        id: s.name,
        label: s.label,
        base_type: s.base_type,
        x: 0.0,
        y: 0.0,
        w: 0.0,
        h: 0.0,
        layer: 0,
        arrival,
        agent: s.agent,
        context: s.context,
        status: s.status,
        text: s.text.as_deref().map(truncate),
        standing: s.standing,
    }
}

/// A delta node's view data (position filled in later), drawn as a stored node would be.
pub(super) fn from_node(n: &Node, arrival: u32) -> ViewNode {
    let label = n.label.as_str().to_owned();
    let base_type = Some(n.label.base_type().as_str().to_owned());
    from_summary(
        NodeSummary::from_props(n.name.clone(), label, base_type, |keys| first_prop(n, keys)),
        arrival,
    )
}

pub(super) fn from_edge(e: &Edge) -> ViewEdge {
    let (prov, a2a) = crate::facade::edge_relations(e);
    ViewEdge {
        source: e.source.name.clone(),
        target: e.target.name.clone(),
        rel: e.rel.as_str().to_owned(),
        prov,
        a2a,
    }
}

impl From<EdgeSummary> for ViewEdge {
    fn from(e: EdgeSummary) -> ViewEdge {
        ViewEdge { source: e.source, target: e.target, rel: e.rel, prov: e.prov, a2a: e.a2a }
    }
}

impl From<EdgeRecord> for ViewEdge {
    fn from(e: EdgeRecord) -> ViewEdge {
        ViewEdge { source: e.source, target: e.target, rel: e.rel, prov: e.prov, a2a: e.a2a }
    }
}

/// The verification result a statement or verification node carries.
pub(super) fn verification_update(n: &Node) -> Option<VerificationUpdate> {
    let kind = match n.label {
        Label::Statement => VerificationKind::Statement,
        Label::Verification => VerificationKind::Verification,
        _ => return None,
    };
    let num = |k: &str| match n.props.get(k) {
        Some(PropValue::Float(f)) => Some(*f),
        Some(PropValue::Int(i)) => Some(*i as f64),
        _ => None,
    };
    let flag = |k: &str| match n.props.get(k) {
        Some(PropValue::Bool(b)) => Some(*b),
        _ => None,
    };
    Some(VerificationUpdate {
        id: n.name.clone(),
        kind,
        signature: first_prop(n, &[STATUS_KEY]),
        verdict: first_prop(n, &["verdict"]),
        consensus: num("consensus_score"),
        verified: flag("verified"),
        standing: first_prop(n, &[STANDING_KEY]),
    })
}

pub(super) fn place(node: &mut ViewNode, p: &layout::NodePos) {
    node.x = p.x;
    node.y = p.y;
    node.w = p.width;
    node.h = p.height;
    node.layer = p.layer;
}
