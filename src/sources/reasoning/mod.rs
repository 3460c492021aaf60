//! Query-time provenance from TrustGraph (docs/FORMATS.md "TrustGraph query-time provenance"): its shipped stream
//! (`AgentResponse` messages whose `explain` ones carry RDF triples: ReAct agent, GraphRAG
//! and DocRAG sessions) and the design note's own JSON nodes and `provenance_refs` events, read line
//! by line into graph upserts. A stream's thoughts, observations and answer text are kept as
//! `DialogMessage` nodes `IN_SESSION` of their session, numbered in stream order, so the
//! explorer can show them beside the DAG. The operations that read sessions and chains back
//! are in `ops`.

pub mod explain;
pub mod ops;
pub mod relink;
pub mod seed;
pub mod source;
pub mod views;
pub mod wire;

use std::collections::HashMap;

use serde_json::Value;

use crate::model::vocab::{EdgeKind, RelType};
use crate::model::{Edge, GraphDelta, Label, Node, NodeRef};

/// Whether a JSON object is a TrustGraph record of any shape.
pub fn looks_like(obj: &serde_json::Map<String, Value>) -> bool {
    wire::looks_like(obj) || seed::looks_like(obj) || (obj.contains_key("provenance_refs") && obj.len() <= 3)
}

/// What a stream has told so far: the session its dialog messages belong to (by envelope
/// request id), and how many messages each session has.
#[derive(Debug, Default)]
pub struct StreamState {
    current: HashMap<Option<String>, String>,
    counts: HashMap<String, u64>,
}

impl StreamState {
    /// Reads one line into `delta`, or says why it cannot be.
    pub fn line(&mut self, v: &Value, delta: &mut GraphDelta) -> Result<(), String> {
        let obj = v.as_object().ok_or("a record is a JSON object")?;
        if !wire::looks_like(obj) {
            if seed::looks_like(obj) {
                return seed::add_node(v, delta).map(drop);
            }
            if let Some(refs) = obj.get("provenance_refs") {
                let refs: Vec<String> = serde_json::from_value(refs.clone())
                    .map_err(|_| "provenance_refs is not a list of IRIs")?;
                seed::add_refs(&refs, delta);
                return Ok(());
            }
            return Err("not a TrustGraph record: neither a response (message_type), a provenance node nor provenance_refs".into());
        }
        let m = wire::Message::read(v)?;
        let r = &m.response;
        match r.kind.as_str() {
            "explain" => {
                let scope = r.explain_id.clone().unwrap_or_else(|| "urn:provex:explain".into());
                let subjects = explain::add_triples(&r.triples, r.explain_graph.as_deref(), &scope, delta)?;
                let session = r
                    .explain_id
                    .as_deref()
                    .and_then(explain::session_of)
                    .or_else(|| subjects.iter().find_map(|s| explain::session_of(s)));
                if let Some(s) = session {
                    self.current.insert(m.request.clone(), s);
                }
                Ok(())
            }
            "provenance" => {
                seed::add_refs(&r.provenance_refs, delta);
                Ok(())
            }
            kind => {
                let session = self.current.get(&m.request).cloned().unwrap_or_else(|| match &m.request {
                    Some(id) => format!("urn:provex:request:{id}"),
                    None => "urn:provex:dialog".into(),
                });
                let n = self.counts.entry(session.clone()).or_default();
                *n += 1;
                let name = format!("{session}#{}", r.message_id.clone().unwrap_or_else(|| n.to_string()));
                let mut node = Node::new(Label::DialogMessage, name.clone())
                    .with("kind", kind)
                    .with("seq", *n)
                    .with("tg:session", session.as_str())
                    .with("end_of_dialog", r.end_of_dialog);
                if let Some(c) = &r.content {
                    node = node.with("content", c.as_str());
                }
                if let Some(e) = &r.error {
                    node = node.with("error", e.as_str());
                }
                for (key, v) in [("in_token", r.in_token), ("out_token", r.out_token)] {
                    if let Some(v) = v {
                        node = node.with(key, v);
                    }
                }
                if let Some(m) = &r.model {
                    node = node.with("model", m.as_str());
                }
                delta.add_node(node);
                let at = delta.upsert_node(Label::Explain, &session);
                if r.end_of_dialog || kind == "error" {
                    let status = if kind == "error" || r.error.is_some() { "failed" } else { "answered" };
                    delta.node_props(at).insert("provex:status".into(), status.into());
                }
                delta.add_edge(Edge::new(
                    RelType::InSession,
                    EdgeKind::Plain,
                    NodeRef::new(Label::DialogMessage, name),
                    NodeRef::new(Label::Explain, session),
                ));
                Ok(())
            }
        }
    }
}
