//! The reasoning operations: a graph's TrustGraph sessions, and one
//! session's chain from its question to a selected answer, with each step's parts, the dialog
//! beside it, and the nodes of other sources its steps name, so the chain goes on into them
//! (answer → reasoning → retrieved statements → their evidence).

use std::collections::{BTreeMap, HashMap, HashSet};

use falkordb::FalkorValue;
use serde_json::Value;

use crate::error::{Error, Result};
use crate::sources::reasoning::views::{
    CrossLink, DialogLine, ReasoningChain, ReasoningStep, SessionSummary,
};
use crate::sources::Session;
use crate::store::value::{str_param, to_json};

/// The most nodes one session's read returns.
const MAX_SESSION: usize = 5_000;

/// Edges that attach a part (a thought, a selection, a fact) to its step.
const PART_EDGES: &[&str] = &["HAS_THOUGHT", "SELECTED_EDGE", "SELECTED_CHUNK", "RETRIEVED"];

fn kind_of(session: &str) -> &'static str {
    if session.starts_with("urn:trustgraph:agent:") {
        "agent"
    } else if session.starts_with("urn:trustgraph:question:") {
        "graphrag"
    } else if session.starts_with("urn:trustgraph:docrag:") {
        "docrag"
    } else {
        "seed"
    }
}

fn text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Null => None,
        other => Some(other.to_string()),
    }
}

fn strings(v: &Value) -> Vec<String> {
    match v {
        Value::Array(a) => a.iter().filter_map(text).collect(),
        Value::Null => Vec::new(),
        other => text(other).into_iter().collect(),
    }
}

/// A session's node as read.
struct Read {
    labels: Vec<String>,
    props: BTreeMap<String, Value>,
}

impl Read {
    fn is(&self, t: &str) -> bool {
        self.labels.iter().any(|l| l == t)
    }
}

/// One session as read: its nodes, the edges out of them, and which nodes are parts of a
/// step (thoughts, selections, facts) rather than steps.
#[derive(Default)]
struct SessionRead {
    nodes: HashMap<String, Read>,
    out_edges: HashMap<String, Vec<(String, String)>>,
    parts: HashSet<String>,
}

impl SessionRead {
    /// What node `n` derives from.
    fn derived(&self, n: &str) -> Vec<String> {
        self.out_edges
            .get(n)
            .map(|v| v.iter().filter(|(t, _)| t == "WAS_DERIVED_FROM").map(|(_, b)| b.clone()).collect())
            .unwrap_or_default()
    }

    /// Step `name` (with its parts, when asked).
    fn step(&self, name: &str, with_parts: bool) -> ReasoningStep {
        let r = self.nodes.get(name);
        let props = shown(r);
        let mut sub = if with_parts {
            self.out_edges
                .get(name)
                .map(|v| {
                    v.iter()
                        .filter(|(t, _)| PART_EDGES.contains(&t.as_str()))
                        .map(|(_, b)| b.clone())
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default()
        } else {
            Vec::new()
        };
        sub.sort();
        sub.dedup();
        ReasoningStep {
            id: name.to_owned(),
            types: r.map(|r| r.labels.clone()).unwrap_or_default(),
            label: props.get("rdfs:label").and_then(text),
            failed: r.is_some_and(|r| r.is("Error")) || props.contains_key("tg:toolError"),
            placeholder: r.is_none_or(|r| r.labels.is_empty() && !r.props.contains_key("prov:type")),
            derived_from: self.derived(name),
            parts: sub.iter().map(|p| step_leaf(&self.nodes, p, &self.derived(p))).collect(),
            properties: props,
        }
    }

    /// The chain from the question to `id`: back from it along the derivations that stay in
    /// the session, then reversed.
    fn chain_to(&self, id: &str) -> Vec<String> {
        let mut chain_names = vec![id.to_owned()];
        let mut seen: HashSet<String> = chain_names.iter().cloned().collect();
        loop {
            let at = chain_names.last().expect("one").clone();
            let next = self
                .derived(&at)
                .into_iter()
                .find(|p| self.nodes.contains_key(p) && !self.parts.contains(p) && !seen.contains(p));
            match next {
                Some(p) => {
                    seen.insert(p.clone());
                    chain_names.push(p);
                }
                None => break,
            }
        }
        chain_names.reverse();
        chain_names
    }

    /// The latest step: forward from the question along the derivations.
    fn latest_from(&self, first: Option<String>) -> Option<String> {
        let mut children: HashMap<&str, Vec<&str>> = HashMap::new();
        for (a, es) in &self.out_edges {
            for (t, b) in es {
                if t == "WAS_DERIVED_FROM" && self.nodes.contains_key(a) && !self.parts.contains(a) {
                    children.entry(b.as_str()).or_default().push(a.as_str());
                }
            }
        }
        let mut latest = first;
        let mut walked = HashSet::new();
        while let Some(at) = latest.clone() {
            if !walked.insert(at.clone()) {
                break;
            }
            match children.get(at.as_str()).and_then(|c| c.iter().max()) {
                Some(next) => latest = Some((*next).to_owned()),
                None => break,
            }
        }
        latest
    }

    /// The session's status as recorded, or answered once it has an answer, else running.
    fn status(&self, session: &str) -> String {
        self.nodes.get(session).and_then(|r| r.props.get("provex:status")).and_then(text).unwrap_or_else(
            || {
                let answered =
                    self.nodes.values().any(|r| r.is("Answer") || r.is("Conclusion") || r.is("Synthesis"));
                if answered { "answered" } else { "running" }.to_owned()
            },
        )
    }
}

impl Session {
    async fn rows(
        &self,
        graph: &str,
        cypher: &str,
        params: Vec<(&str, FalkorValue)>,
    ) -> Result<Vec<Vec<Value>>> {
        let (_, rows) = self.store.run_ro(graph, cypher, params).await?;
        Ok(rows.iter().map(|r| r.iter().map(to_json).collect()).collect())
    }

    /// The TrustGraph sessions (explain streams and provenance nodes) of a graph, newest first. A session's steps are
    /// what its chain shows after the question: thoughts (`Reflection`) are read inside their step.
    pub async fn sessions(&self, graph: &str) -> Result<Vec<SessionSummary>> {
        let counts = self
            .rows(
                graph,
                "MATCH (n:Explain) WHERE n.`tg:session` IS NOT NULL AND NOT n:Reflection RETURN n.`tg:session`, count(n)",
                vec![],
            )
            .await?;
        let questions = self
            .rows(
                graph,
                "MATCH (q:Explain) WHERE q.`tg:query` IS NOT NULL OR q.`provex:status` IS NOT NULL \
                 RETURN q.name, q.`tg:query`, q.`prov:startedAtTime`, q.`provex:status`",
                vec![],
            )
            .await?;
        let answers = self
            .rows(
                graph,
                "MATCH (a:Explain) WHERE a:Answer OR a:Conclusion OR a:Synthesis RETURN a.`tg:session`, a.name",
                vec![],
            )
            .await?;
        let started = self
            .rows(graph, "MATCH (n:Explain) WHERE n.`tg:session` IS NOT NULL RETURN n.`tg:session`, min(n.`prov:startedAtTime`)", vec![])
            .await?;
        let q: HashMap<String, &Vec<Value>> =
            questions.iter().filter_map(|r| Some((text(&r[0])?, r))).collect();
        let a: HashMap<String, String> =
            answers.iter().filter_map(|r| Some((text(&r[0])?, text(&r[1])?))).collect();
        let s: HashMap<String, String> =
            started.iter().filter_map(|r| Some((text(&r[0])?, text(&r[1])?))).collect();
        let mut out: Vec<SessionSummary> = counts
            .iter()
            .filter_map(|r| {
                let id = text(&r[0])?;
                let n = r[1].as_u64().unwrap_or(0);
                let question = q.get(&id);
                let status = question
                    .and_then(|r| text(&r[3]))
                    .unwrap_or_else(|| if a.contains_key(&id) { "answered" } else { "running" }.to_owned());
                Some(SessionSummary {
                    kind: kind_of(&id).to_owned(),
                    question: question.and_then(|r| text(&r[1])),
                    started: question.and_then(|r| text(&r[2])).or_else(|| s.get(&id).cloned()),
                    steps: n.saturating_sub(u64::from(question.is_some())),
                    answer: a.get(&id).cloned(),
                    status,
                    id,
                })
            })
            .collect();
        out.sort_by(|x, y| y.started.cmp(&x.started).then(x.id.cmp(&y.id)));
        Ok(out)
    }

    /// A session's chain from its question to `id` (an answer, conclusion, synthesis, or any
    /// step), with the dialog and the nodes of other sources its steps name.
    pub async fn reasoning(&self, graph: &str, id: &str) -> Result<ReasoningChain> {
        let found = self
            .rows(graph, "MATCH (n:Explain {name: $id}) RETURN n.`tg:session`", vec![("id", str_param(id))])
            .await?;
        let Some(row) = found.first() else {
            return Err(Error::NotFound { what: "reasoning step", name: id.to_owned() });
        };
        let session = text(&row[0]).ok_or_else(|| Error::Usage(format!("{id} belongs to no session")))?;
        let read = self.session_read(graph, &session).await?;
        let chain_names = read.chain_to(id);
        let chain: Vec<ReasoningStep> = chain_names.iter().map(|n| read.step(n, true)).collect();
        let latest = read.latest_from(chain_names.first().cloned());
        let question = read.nodes.get(&session).and_then(|r| r.props.get("tg:query")).and_then(text);
        let status = read.status(&session);
        let dialog = self.dialog(graph, &session).await?;
        let links = self.cross_links(graph, &chain).await?;
        let standing = links
            .iter()
            .filter_map(|l| l.standing.as_deref().and_then(crate::sources::statements::Standing::parse))
            .min()
            .map(|s| s.as_str().to_owned());
        Ok(ReasoningChain {
            kind: kind_of(&session).to_owned(),
            session,
            question,
            status,
            selected: id.to_owned(),
            chain,
            latest,
            dialog,
            links,
            standing,
        })
    }

    /// A session's nodes and the edges out of them.
    async fn session_read(&self, graph: &str, session: &str) -> Result<SessionRead> {
        let s = || vec![("s", str_param(session))];
        let nodes = self
            .rows(
                graph,
                &format!("MATCH (n:Explain) WHERE n.`tg:session` = $s RETURN n.name, labels(n), properties(n) LIMIT {MAX_SESSION}"),
                s(),
            )
            .await?;
        let mut read = SessionRead::default();
        for r in &nodes {
            let Some(name) = text(&r[0]) else { continue };
            let labels = strings(&r[1]).into_iter().filter(|l| l != "Explain").collect();
            let props = match &r[2] {
                Value::Object(m) => m.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
                _ => BTreeMap::new(),
            };
            read.nodes.insert(name, Read { labels, props });
        }
        let edges = self
            .rows(
                graph,
                &format!("MATCH (a:Explain)-[e]->(b) WHERE a.`tg:session` = $s RETURN a.name, type(e), b.name LIMIT {}", MAX_SESSION * 4),
                s(),
            )
            .await?;
        for r in &edges {
            let (Some(a), Some(t), Some(b)) = (text(&r[0]), text(&r[1]), text(&r[2])) else { continue };
            if PART_EDGES.contains(&t.as_str()) {
                read.parts.insert(b.clone());
            }
            read.out_edges.entry(a).or_default().push((t, b));
        }
        Ok(read)
    }

    /// A session's dialog, in order.
    async fn dialog(&self, graph: &str, session: &str) -> Result<Vec<DialogLine>> {
        Ok(self
            .rows(
                graph,
                "MATCH (m:DialogMessage)-[:IN_SESSION]->(q:Explain {name: $s}) \
                 RETURN m.seq, m.kind, m.content, m.model, m.in_token, m.out_token ORDER BY m.seq",
                vec![("s", str_param(session))],
            )
            .await?
            .iter()
            .map(|r| DialogLine {
                seq: r[0].as_u64().unwrap_or(0),
                kind: text(&r[1]).unwrap_or_default(),
                content: text(&r[2]),
                model: text(&r[3]),
                in_token: r[4].as_i64(),
                out_token: r[5].as_i64(),
            })
            .collect())
    }

    /// The nodes of other sources that a chain's steps name: what they derive from, their
    /// sources, the entities they explored, their selected edges' ends, their facts.
    async fn cross_links(&self, graph: &str, chain: &[ReasoningStep]) -> Result<Vec<CrossLink>> {
        let mut named: Vec<(String, String)> = Vec::new();
        let mut add = |from: &str, name: &str| {
            if !name.starts_with("urn:trustgraph:") && !named.iter().any(|(f, n)| f == from && n == name) {
                named.push((from.to_owned(), name.to_owned()));
            }
        };
        for st in chain {
            for d in &st.derived_from {
                add(&st.id, d);
            }
            for p in &st.parts {
                add(&st.id, &p.id);
                for key in ["tg:edge_s", "tg:edge_o"] {
                    if let Some(v) = p.properties.get(key).and_then(text) {
                        add(&st.id, &v);
                    }
                }
                for d in &p.derived_from {
                    add(&st.id, d);
                }
            }
        }
        if named.is_empty() {
            return Ok(Vec::new());
        }
        let names: Vec<FalkorValue> = named.iter().map(|(_, n)| str_param(n)).collect();
        let mut found: HashMap<String, (String, Option<String>, Option<String>)> = HashMap::new();
        for label in crate::sources::reasoning::relink::OTHER_SOURCES {
            let q = format!(
                "MATCH (y:`{label}`) WHERE y.name IN $names \
                 RETURN y.name, coalesce(y.claim_text, y.text, y.content, y.title, y.`rdfs:label`), y.standing"
            );
            for r in self.rows(graph, &q, vec![("names", FalkorValue::Array(names.clone()))]).await? {
                if let Some(n) = text(&r[0]) {
                    found.entry(n).or_insert((label.to_string(), text(&r[1]), text(&r[2])));
                }
            }
        }
        Ok(named
            .into_iter()
            .filter_map(|(from, id)| {
                let (label, text, standing) = found.get(&id)?.clone();
                Some(CrossLink { from, id, label, text, standing })
            })
            .collect())
    }
}

/// What a step shows of its node's properties: all but its name and Provex's own.
fn shown(r: Option<&Read>) -> BTreeMap<String, Value> {
    r.map(|r| {
        r.props
            .iter()
            .filter(|(k, _)| !k.starts_with("provex:") && k.as_str() != "name")
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    })
    .unwrap_or_default()
}

/// A part of a step (no parts of its own).
fn step_leaf(read: &HashMap<String, Read>, name: &str, derived: &[String]) -> ReasoningStep {
    let r = read.get(name);
    let properties = shown(r);
    ReasoningStep {
        id: name.to_owned(),
        types: r.map(|r| r.labels.clone()).unwrap_or_default(),
        label: properties.get("rdfs:label").and_then(text),
        failed: r.is_some_and(|r| r.is("Error")),
        placeholder: r.is_none(),
        derived_from: derived.to_vec(),
        parts: Vec::new(),
        properties,
    }
}
