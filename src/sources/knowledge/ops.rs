//! The knowledge-graph statements' operations: an update checked (statements,
//! then the alignment rules) before anything is written, then written as PROV in one go and
//! announced to subscribers in commit order; the current statements; a resource's history.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use falkordb::FalkorValue;
use serde::Serialize;
use serde_json::{json, Value};
use tokio::sync::{broadcast, Mutex};

use crate::error::{Error, Result};
use crate::model::{Edge, EdgeKind, GraphDelta, Label, Node, NodeRef, PropValue, ProvRelation, RelType};
use crate::sources::knowledge::store::{self as kgs, from_row, RETURN_STATEMENT};
use crate::sources::knowledge::{
    Alignment, ChangeEvent, KgStatement, PatchOp, TripleFilter, UpdateParams, UpdateResult, Violation,
};
use crate::sources::Session;
use crate::store::value::{str_param, to_json};

/// A committed change, for subscribers.
#[derive(Debug, Clone)]
pub struct KgChange {
    pub graph: String,
    pub event: ChangeEvent,
}

/// What a session keeps for knowledge updates: one writer at a time (so events leave in
/// commit order), the subscribers' channel, and the alignment rules.
pub(crate) struct KnowledgeHub {
    writer: Mutex<()>,
    tx: broadcast::Sender<Arc<KgChange>>,
    alignment: RwLock<Option<Arc<Alignment>>>,
}

impl Default for KnowledgeHub {
    fn default() -> Self {
        let (tx, _) = broadcast::channel(8192);
        KnowledgeHub { writer: Mutex::new(()), tx, alignment: RwLock::new(None) }
    }
}

/// Why an update was refused; nothing was written.
#[derive(Debug, thiserror::Error)]
pub enum UpdateError {
    /// The request itself is malformed (JSON-RPC -32602).
    #[error("{0}")]
    Invalid(String),
    /// An alignment rule refuses it (-32013).
    #[error("alignment rule {}: {}", .0.rule, .0.details)]
    Alignment(Violation),
    /// The database failed (-32011).
    #[error(transparent)]
    Store(#[from] Error),
}

/// The verification status of an update the rules refused.
pub const REJECTED: &str = "Rejected - Alignment Violation";
pub const VERIFIED: &str = "Verified";

/// A statement with its id and whether it is current.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct StatementHistory {
    pub id: String,
    #[ts(type = "unknown")]
    pub statement: Value,
    pub current: bool,
    /// The updates that generated and invalidated it, oldest first.
    pub changes: Vec<StatementChange>,
}

/// One update's part in a statement's history.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct StatementChange {
    /// `added` or `removed`.
    pub change: String,
    pub update: String,
    pub source_agent_id: Option<String>,
    pub time: Option<String>,
    pub justification: Option<String>,
    pub verification_status: Option<String>,
    pub task_id: Option<String>,
    pub session_id: Option<String>,
}

/// A resource's statements (as subject or object), current ones first.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct ResourceKnowledge {
    pub resource: String,
    pub statements: Vec<StatementHistory>,
}

impl Session {
    /// Sets the alignment rules updates are checked against (`provex serve --alignment`).
    pub fn set_alignment(&self, rules: Option<Alignment>) {
        *self.knowledge.alignment.write().unwrap_or_else(|e| e.into_inner()) = rules.map(Arc::new);
    }

    fn alignment(&self) -> Option<Arc<Alignment>> {
        self.knowledge.alignment.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The changes committed from now on, in commit order.
    pub fn kg_subscribe(&self) -> broadcast::Receiver<Arc<KgChange>> {
        self.knowledge.tx.subscribe()
    }

    /// Applies a `knowledge/update`: all of it, or nothing when a statement is malformed or a
    /// rule refuses it.
    pub async fn kg_update(
        &self,
        graph: &str,
        params: &UpdateParams,
    ) -> std::result::Result<UpdateResult, UpdateError> {
        check_mutations(params)?;
        // An audit bundle opened as a graph stays as the bundle said, as for `/events`.
        self.refuse_read_only(graph).await?;
        let rules = self.alignment();
        if let Some(v) = rules.as_ref().and_then(|r| r.check(params)) {
            return Err(UpdateError::Alignment(v));
        }
        let _writer = self.knowledge.writer.lock().await;
        let now_ms = now_ms();
        let now = rfc3339(now_ms);
        let update = format!("update:{}", uuid::Uuid::new_v4());
        let mut delta = GraphDelta::new();
        let mut events: Vec<ChangeEvent> = Vec::new();
        let mut affected: Vec<String> = Vec::new();
        // What this update has already changed, over what the graph says.
        let mut current: HashMap<String, bool> = HashMap::new();
        let mut skipped = 0;
        for p in &params.mutations {
            let s = &p.statement;
            let id = s.id();
            match p.op {
                PatchOp::Add => {
                    kgs::add_statement(&mut delta, &id, s, &update, now_ms);
                    current.insert(id.clone(), true);
                    affected.push(id);
                    events.push(event(p.op, s.clone(), &now, &update, None));
                }
                PatchOp::Remove => {
                    let is_current = match current.get(&id) {
                        Some(c) => *c,
                        None => self.kg_is_current(graph, &id).await?,
                    };
                    if !is_current {
                        skipped += 1;
                        continue;
                    }
                    kgs::invalidate(&mut delta, &id, &update);
                    current.insert(id.clone(), false);
                    affected.push(id);
                    events.push(event(p.op, s.clone(), &now, &update, None));
                }
                PatchOp::Replace => {
                    let mut same = self.kg_same_slot(graph, s).await?;
                    // Statements this update added earlier to the same slot go too.
                    for m in &params.mutations {
                        let other = &m.statement;
                        if other.subject.id == s.subject.id
                            && other.predicate.id == s.predicate.id
                            && other.graph == s.graph
                        {
                            same.push(other.id());
                        }
                    }
                    same.sort();
                    same.dedup();
                    let mut replaced = Vec::new();
                    for old in same.into_iter().filter(|o| *o != id) {
                        let live = current.get(&old).copied();
                        let live = match live {
                            Some(c) => c,
                            None => self.kg_is_current(graph, &old).await?,
                        };
                        if live {
                            kgs::invalidate(&mut delta, &old, &update);
                            current.insert(old.clone(), false);
                            affected.push(old.clone());
                            replaced.push(old);
                        }
                    }
                    kgs::add_statement(&mut delta, &id, s, &update, now_ms);
                    current.insert(id.clone(), true);
                    affected.push(id);
                    events.push(event(p.op, s.clone(), &now, &update, Some(json!({"replaced": replaced}))));
                }
            }
        }
        let details = update_details(rules.is_some(), skipped);
        record_update(&mut delta, &update, &now, params, &details);
        self.store.write(graph, &delta).await?;
        self.publish_knowledge(graph, delta, &events);
        for e in events {
            let _ = self.knowledge.tx.send(Arc::new(KgChange { graph: graph.to_owned(), event: e }));
        }
        affected.dedup();
        Ok(UpdateResult {
            success: true,
            statements_affected: Some(affected.len() as u64),
            affected_ids: Some(affected),
            verification_status: Some(VERIFIED.into()),
            verification_details: Some(details),
        })
    }

    async fn kg_is_current(&self, graph: &str, id: &str) -> Result<bool> {
        let rows = self
            .kg_rows(
                graph,
                "MATCH (s:KGStatement {name: $id}) RETURN s.`kg:current`",
                vec![("id", str_param(id))],
            )
            .await?;
        Ok(rows.first().and_then(|r| r.first()).and_then(Value::as_bool).unwrap_or(false))
    }

    /// The current statements with the subject, predicate and graph of `s`.
    async fn kg_same_slot(&self, graph: &str, s: &KgStatement) -> Result<Vec<String>> {
        let mut params =
            vec![("subject", str_param(&s.subject.id)), ("predicate", str_param(&s.predicate.id))];
        let on_graph = match &s.graph {
            Some(g) => {
                params.push(("graph", str_param(g)));
                "s.`kg:graph` = $graph"
            }
            None => "s.`kg:graph` IS NULL",
        };
        let q = format!(
            "MATCH (s:KGStatement) WHERE s.`kg:subject` = $subject AND s.`kg:predicate` = $predicate \
             AND {on_graph} AND s.`kg:current` = true RETURN s.name LIMIT {}",
            kgs::MAX_TRIPLES
        );
        let rows = self.kg_rows(graph, &q, params).await?;
        Ok(rows.iter().filter_map(|r| r.first().and_then(Value::as_str).map(str::to_owned)).collect())
    }

    /// Rows as JSON; a graph that does not exist yet has none.
    async fn kg_rows(
        &self,
        graph: &str,
        q: &str,
        params: Vec<(&str, FalkorValue)>,
    ) -> Result<Vec<Vec<Value>>> {
        match self.store.run_ro(graph, q, params).await {
            Ok((_, rows)) => Ok(rows.iter().map(|r| r.iter().map(to_json).collect()).collect()),
            Err(Error::NotFound { what: "graph", .. }) => Ok(Vec::new()),
            Err(e) => Err(e),
        }
    }

    /// The current statements matching `filter`, with their ids (at most `limit`).
    pub async fn kg_triples(
        &self,
        graph: &str,
        filter: &TripleFilter,
        limit: i64,
    ) -> Result<Vec<(String, KgStatement)>> {
        let mut params = vec![("limit", FalkorValue::I64(limit.clamp(0, kgs::MAX_TRIPLES)))];
        for (k, v) in [
            ("subject", &filter.subject),
            ("predicate", &filter.predicate),
            ("object", &filter.object),
            ("graph", &filter.graph),
        ] {
            if let Some(v) = v {
                params.push((k, str_param(v)));
            }
        }
        if let Some(m) = filter.min_certainty {
            params.push(("minCertainty", FalkorValue::F64(m)));
        }
        if let Some(t) = filter.since_ms {
            params.push(("sinceMs", FalkorValue::I64(t)));
        }
        let rows = self.kg_rows(graph, &kgs::triples_query(filter), params).await?;
        Ok(rows.iter().filter_map(|r| from_row(r)).collect())
    }

    /// A resource's statements and their history: who added or removed each, when, why, and
    /// the update's verification status.
    pub async fn kg_resource(&self, graph: &str, resource: &str) -> Result<ResourceKnowledge> {
        let q = format!(
            "MATCH (s:KGStatement) WHERE s.`kg:subject` = $r OR s.`kg:objectId` = $r \
             OPTIONAL MATCH (s)-[e:WAS_GENERATED_BY|WAS_INVALIDATED_BY]->(u:KnowledgeUpdate) \
             RETURN {RETURN_STATEMENT}, s.`kg:current`, type(e), u.name, u.`kg:sourceAgentId`, \
             u.`prov:startedAtTime`, u.`kg:justification`, u.`kg:verificationStatus`, u.`kg:taskId`, \
             u.`kg:sessionId` ORDER BY s.name, u.`prov:startedAtTime` LIMIT {}",
            kgs::MAX_TRIPLES
        );
        let rows = self.kg_rows(graph, &q, vec![("r", str_param(resource))]).await?;
        if rows.is_empty() {
            let known = self
                .kg_rows(
                    graph,
                    "MATCH (r:KGResource {name: $r}) RETURN r.name",
                    vec![("r", str_param(resource))],
                )
                .await?;
            if known.is_empty() {
                return Err(Error::NotFound { what: "knowledge-graph resource", name: resource.to_owned() });
            }
        }
        let mut out: Vec<StatementHistory> = Vec::new();
        let s = |r: &[Value], i: usize| r.get(i).and_then(Value::as_str).map(str::to_owned);
        for r in &rows {
            let Some((id, st)) = from_row(r) else { continue };
            if out.last().is_none_or(|h| h.id != id) {
                out.push(StatementHistory {
                    id: id.clone(),
                    statement: serde_json::to_value(&st).unwrap_or(Value::Null),
                    current: r.get(10).and_then(Value::as_bool).unwrap_or(false),
                    changes: Vec::new(),
                });
            }
            if let (Some(kind), Some(update)) = (s(r, 11), s(r, 12)) {
                let h = out.last_mut().expect("pushed");
                h.changes.push(StatementChange {
                    change: if kind == "WAS_INVALIDATED_BY" { "removed" } else { "added" }.into(),
                    update,
                    source_agent_id: s(r, 13),
                    time: s(r, 14),
                    justification: s(r, 15),
                    verification_status: s(r, 16),
                    task_id: s(r, 17),
                    session_id: s(r, 18),
                });
            }
        }
        for h in &mut out {
            h.changes.sort_by(|a, b| a.time.cmp(&b.time).then(a.change.cmp(&b.change)));
        }
        out.sort_by(|a, b| b.current.cmp(&a.current).then(a.id.cmp(&b.id)));
        Ok(ResourceKnowledge { resource: resource.to_owned(), statements: out })
    }
}

fn event(op: PatchOp, statement: KgStatement, now: &str, update: &str, extra: Option<Value>) -> ChangeEvent {
    let mut meta = json!({"update": update});
    if let (Some(Value::Object(m)), Value::Object(into)) = (extra, &mut meta) {
        into.extend(m);
    }
    ChangeEvent {
        op,
        statement,
        change_id: uuid::Uuid::new_v4().to_string(),
        timestamp: now.to_owned(),
        change_metadata: Some(meta),
    }
}

/// Now, in milliseconds since the epoch.
pub(crate) fn now_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}

/// `ms` since the epoch as RFC 3339, in UTC with milliseconds.
fn rfc3339(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .unwrap_or_default()
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// Refuses an update with no mutations, or with a malformed statement (naming which).
fn check_mutations(params: &UpdateParams) -> std::result::Result<(), UpdateError> {
    if params.mutations.is_empty() {
        return Err(UpdateError::Invalid("mutations is empty".into()));
    }
    for (i, p) in params.mutations.iter().enumerate() {
        p.statement.check().map_err(|r| UpdateError::Invalid(format!("mutations[{i}].statement: {r}")))?;
    }
    Ok(())
}

/// What an update's verification details say: whether rules were checked, and how many
/// removals named no current statement.
fn update_details(has_rules: bool, skipped: usize) -> String {
    let details = if has_rules {
        "checked against the server's alignment rules".to_owned()
    } else {
        "no alignment rules are set on this server".to_owned()
    };
    if skipped > 0 {
        format!("{details}; {skipped} removal(s) named no current statement")
    } else {
        details
    }
}

/// The update's own node (what it was, when, why, by whom) and its agent, into `delta`.
fn record_update(delta: &mut GraphDelta, update: &str, now: &str, params: &UpdateParams, details: &str) {
    let mut node = Node::new(Label::KnowledgeUpdate, update)
        .with("kg:verificationStatus", VERIFIED)
        .with("kg:verificationDetails", details)
        .with("prov:startedAtTime", now)
        .with("kg:mutations", params.mutations.len() as i64)
        .with("text", params.justification.clone().unwrap_or_else(|| "knowledge update".into()));
    for (key, v) in [
        ("kg:justification", &params.justification),
        ("kg:sourceAgentId", &params.source_agent_id),
        ("kg:taskId", &params.task_id),
        ("kg:sessionId", &params.session_id),
    ] {
        node = node.with_opt(key, v.clone().map(PropValue::from));
    }
    delta.add_node(node);
    if let Some(agent) = &params.source_agent_id {
        delta.add_node(Node::new(Label::Agent, agent.as_str()));
        delta.add_edge(Edge::new(
            RelType::WasAssociatedWith,
            EdgeKind::Prov(ProvRelation::WasAssociatedWith),
            NodeRef::new(Label::KnowledgeUpdate, update.to_owned()),
            NodeRef::new(Label::Agent, agent.clone()),
        ));
    }
}
