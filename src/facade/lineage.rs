//! The facade's prompt-lineage reads (seed 002's CLI contract): a prompt's lineage, its
//! history, a subgraph around it, the replay of its lineage, statistics, comparison and
//! similar prompts; and the context an ingest of lineage records checks against (the
//! graph's lineages, loaded once per ingest, and the embeddings endpoint).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use serde_json::Value;
use uuid::Uuid;

use super::Provex;
use crate::error::{Error, Result};
use crate::ingest::lineage::LineageContext;
use crate::sources::lineage::apply::{breakdown, prompt_name, Semantic};
use crate::sources::lineage::book::{Evolution, Known};
use crate::sources::lineage::embeddings::{self, Embedder};
use crate::sources::lineage::views::{EvolutionView, LineageGraph, PromptView};
use crate::sources::lineage::{Book, EvolutionType, Version};
use crate::model::vocab::PROV_BASE_TYPE;

/// Node ids read per query when loading a whole graph's lineages.
const SLICE: i64 = 200_000;

/// The most prompts a lineage read returns.
pub const MAX_LINEAGE: usize = 50_000;

/// The deepest `lineage retrieve` goes either way.
pub const MAX_DEPTH: u32 = 50;

const PROMPT_COLUMNS: &str =
    "p.id, p.lineage_id, p.version, p.timestamp, p.chain_position, p.is_root, p.is_head, p.branch, p.model, p.content";

const EDGE_COLUMNS: &str = "c.id, p.id, e.`lineage:evolution_type`, type(e), e.`lineage:confidence`, \
     e.`lineage:similarity_score`, e.`lineage:reason`, e.created_at, e.`lineage:primary`";

/// A prompt id as the user wrote it: a bare UUID or `prompt:<uuid>`.
pub fn parse_prompt_id(text: &str) -> Result<Uuid> {
    let bare = text.trim().strip_prefix("prompt:").unwrap_or(text.trim());
    Uuid::parse_str(bare).map_err(|_| {
        Error::BadRequest(format!("VALIDATION_ERROR: {text:?} is not a prompt id (a UUID or prompt:<uuid>)"))
    })
}

fn s(v: &Value) -> Option<String> {
    match v {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn b(v: &Value) -> bool {
    matches!(v, Value::Bool(true)) || v.as_str() == Some("true") || v.as_i64() == Some(1)
}

fn f(v: &Value) -> Option<f64> {
    v.as_f64().or_else(|| v.as_str().and_then(|s| s.parse().ok()))
}

pub(crate) fn prompt_row(r: &[Value]) -> Option<PromptView> {
    Some(PromptView {
        id: s(r.first()?)?,
        lineage_id: s(&r[1]).unwrap_or_default(),
        version: s(&r[2]).unwrap_or_default(),
        timestamp: s(&r[3]).unwrap_or_default(),
        chain_position: r[4].as_u64().unwrap_or(0) as u32,
        is_root: b(&r[5]),
        is_head: b(&r[6]),
        branch: s(&r[7]),
        model: s(&r[8]),
        content: s(&r[9]),
    })
}

pub(crate) fn edge_row(r: &[Value]) -> Option<EvolutionView> {
    Some(EvolutionView {
        child: s(r.first()?)?,
        parent: s(&r[1])?,
        evolution_type: s(&r[2]).unwrap_or_default(),
        relation: s(&r[3]).unwrap_or_default(),
        confidence: f(&r[4]),
        similarity_score: f(&r[5]),
        reason: s(&r[6]),
        created_at: s(&r[7]),
        primary: r.get(8).is_none_or(|v| !matches!(v, Value::Bool(false)) && v.as_str() != Some("false")),
    })
}

fn version(text: &str) -> Version {
    let mut it = text.split('.').map(|p| p.parse::<u16>().unwrap_or(0));
    Version { major: it.next().unwrap_or(1), minor: it.next().unwrap_or(0), patch: it.next().unwrap_or(0) }
}

impl Provex {
    /// The embeddings client: the one `set_embeddings` gave, else the environment's (read
    /// once per session), else none.
    pub fn embedder(&self) -> Option<Arc<Embedder>> {
        let mut slot = self.embedder.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        slot.get_or_insert_with(|| {
            embeddings::EmbeddingsConfig::from_env(&crate::openai::EMBEDDINGS)
                .map(|c| Arc::new(Embedder::new(c)))
        })
        .clone()
    }

    /// Uses this embeddings endpoint (none: the renormalised confidence) from now on, in
    /// place of the environment's (the desktop settings, tests).
    pub fn set_embeddings(&self, config: Option<embeddings::EmbeddingsConfig>) {
        *self.embedder.lock().unwrap_or_else(std::sync::PoisonError::into_inner) =
            Some(config.map(|c| Arc::new(Embedder::new(c))));
    }

    /// The semantic part of the confidence of two texts.
    pub async fn semantic(&self, a: &str, b: &str) -> Semantic {
        embeddings::semantic(self.embedder().as_deref(), a, b).await
    }

    /// What an ingest of lineage records into `graph` checks against: every prompt and
    /// evolution the graph holds, and the embeddings endpoint.
    pub(crate) async fn lineage_context(&self, graph: &str) -> Result<Arc<LineageContext>> {
        let mut book = Book::new();
        if self.store.graphs_list().await?.iter().any(|g| g == graph) {
            let max = self.store.compact_ro(graph, "MATCH (n) RETURN max(id(n))").await?;
            let max = max.first().and_then(|r| r.first()).and_then(Value::as_i64).unwrap_or(-1);
            let mut edges = Vec::new();
            let mut lo = 0;
            while lo <= max {
                let hi = lo + SLICE;
                let q = format!(
                    "MATCH (p:Prompt) WHERE id(p) >= {lo} AND id(p) < {hi} AND p.lineage_id IS NOT NULL RETURN {PROMPT_COLUMNS}"
                );
                for r in self.store.compact_ro(graph, &q).await? {
                    let Some(p) = prompt_row(&r) else { continue };
                    let (Ok(id), Ok(lineage)) = (Uuid::parse_str(&p.id), Uuid::parse_str(&p.lineage_id))
                    else {
                        continue;
                    };
                    let Ok(ts) = chrono::DateTime::parse_from_rfc3339(&p.timestamp) else { continue };
                    book.add_prompt(
                        id,
                        Known {
                            lineage,
                            timestamp: ts.to_utc(),
                            version: version(&p.version),
                            position: p.chain_position,
                            content: Arc::from(p.content.unwrap_or_default()),
                            children: 0,
                            root: p.is_root,
                        },
                    );
                }
                let q = format!(
                    "MATCH (c:Prompt)-[e]->(p:Prompt) WHERE id(c) >= {lo} AND id(c) < {hi} AND e.`{PROV_BASE_TYPE}` = 'WAS_DERIVED_FROM' RETURN {EDGE_COLUMNS}"
                );
                edges.extend(self.store.compact_ro(graph, &q).await?.iter().filter_map(|r| edge_row(r)));
                lo = hi;
            }
            for e in edges {
                let (Ok(child), Ok(parent)) = (Uuid::parse_str(&e.child), Uuid::parse_str(&e.parent)) else {
                    continue;
                };
                let kind = EvolutionType::parse(&e.evolution_type).unwrap_or(EvolutionType::Evolves);
                if let Err(err) = book.add_evolution(Evolution { child, parent, kind, primary: e.primary }) {
                    tracing::warn!("graph {graph}: a stored evolution is refused: {err}");
                }
            }
        }
        let embedder = self.embedder();
        let blocks = embedder.is_some();
        let handle = tokio::runtime::Handle::current();
        let semantic: Box<crate::ingest::lineage::SemanticFn> = match embedder {
            None => Box::new(|_, _| Semantic::Unconfigured),
            // Ingest parses on a blocking thread, which may wait on the runtime.
            Some(e) => Box::new(move |a, b| handle.block_on(e.semantic(a, b))),
        };
        Ok(Arc::new(LineageContext { book: std::sync::Mutex::new(book), semantic, blocks }))
    }

    async fn lineage_index(&self, graph: &str) {
        let _ = self.store.run(graph, "CREATE INDEX FOR (p:Prompt) ON (p.lineage_id)", vec![]).await;
    }

    /// One prompt as stored.
    pub async fn lineage_prompt(&self, graph: &str, id: &str) -> Result<PromptView> {
        let id = parse_prompt_id(id)?;
        let q = format!(
            "MATCH (p:Prompt {{name: '{}'}}) WHERE p.lineage_id IS NOT NULL RETURN {PROMPT_COLUMNS}",
            prompt_name(&id)
        );
        let rows = self.store.compact_ro(graph, &q).await?;
        rows.first()
            .and_then(|r| prompt_row(r))
            .ok_or_else(|| Error::NotFound { what: "prompt", name: id.to_string() })
    }

    /// The whole lineage a prompt belongs to (up to [`MAX_LINEAGE`] prompts).
    pub async fn lineage_graph(&self, graph: &str, id: &str) -> Result<LineageGraph> {
        let focus = self.lineage_prompt(graph, id).await?;
        self.lineage_index(graph).await;
        let lid = Uuid::parse_str(&focus.lineage_id)
            .map_err(|_| Error::Query("a stored lineage_id is not a UUID".into()))?;
        let q = format!(
            "MATCH (p:Prompt) WHERE p.lineage_id = '{lid}' RETURN {PROMPT_COLUMNS} ORDER BY p.timestamp, p.id LIMIT {MAX_LINEAGE}"
        );
        let prompts: Vec<PromptView> =
            self.store.compact_ro(graph, &q).await?.iter().filter_map(|r| prompt_row(r)).collect();
        let q = format!(
            "MATCH (c:Prompt)-[e]->(p:Prompt) WHERE c.lineage_id = '{lid}' AND e.`{PROV_BASE_TYPE}` = 'WAS_DERIVED_FROM' RETURN {EDGE_COLUMNS} ORDER BY c.timestamp LIMIT {}",
            MAX_LINEAGE * 4
        );
        let evolutions = self.store.compact_ro(graph, &q).await?.iter().filter_map(|r| edge_row(r)).collect();
        Ok(LineageGraph { focus: focus.id, lineage_id: lid.to_string(), prompts, evolutions })
    }

    /// The prompts within `up` evolutions above and `down` below a prompt, and the edges among
    /// them (bounded traversals, each at most [`MAX_DEPTH`]).
    pub async fn lineage_retrieve(
        &self,
        graph: &str,
        id: &str,
        up: u32,
        down: u32,
        content: bool,
    ) -> Result<LineageGraph> {
        let focus = self.lineage_prompt(graph, id).await?;
        let name = prompt_name(&parse_prompt_id(id)?);
        let rels = EvolutionType::ALL
            .iter()
            .map(|t| crate::sources::lineage::apply::rel_type(*t).as_str())
            .collect::<Vec<_>>()
            .join("|");
        let mut names: Vec<String> = vec![name.clone()];
        for (depth, arrow) in [(up.min(MAX_DEPTH), ("-", "->")), (down.min(MAX_DEPTH), ("<-", "-"))] {
            if depth == 0 {
                continue;
            }
            let q = format!(
                "MATCH (f:Prompt {{name: '{name}'}}){}[:{rels}*1..{depth}]{}(x:Prompt) RETURN DISTINCT x.name LIMIT {MAX_LINEAGE}",
                arrow.0, arrow.1
            );
            names
                .extend(self.store.compact_ro(graph, &q).await?.iter().filter_map(|r| r.first().and_then(s)));
        }
        let set: HashSet<String> = names.into_iter().collect();
        let list = serde_json::to_string(&set.iter().collect::<Vec<_>>()).unwrap_or_else(|_| "[]".into());
        let q = format!(
            "MATCH (p:Prompt) WHERE p.name IN {list} RETURN {PROMPT_COLUMNS} ORDER BY p.timestamp, p.id"
        );
        let mut prompts: Vec<PromptView> =
            self.store.compact_ro(graph, &q).await?.iter().filter_map(|r| prompt_row(r)).collect();
        if !content {
            for p in &mut prompts {
                p.content = None;
            }
        }
        let q = format!(
            "MATCH (c:Prompt)-[e]->(p:Prompt) WHERE c.name IN {list} AND p.name IN {list} AND e.`{PROV_BASE_TYPE}` = 'WAS_DERIVED_FROM' RETURN {EDGE_COLUMNS} ORDER BY c.timestamp"
        );
        let evolutions = self.store.compact_ro(graph, &q).await?.iter().filter_map(|r| edge_row(r)).collect();
        Ok(LineageGraph { focus: focus.id, lineage_id: focus.lineage_id, prompts, evolutions })
    }

    /// The lineages of a graph, most recently changed first.
    pub async fn lineages(&self, graph: &str) -> Result<Vec<crate::sources::lineage::views::LineageSummary>> {
        if !self.store.graphs_list().await?.iter().any(|g| g == graph) {
            return Err(Error::NotFound { what: "graph", name: graph.to_owned() });
        }
        let q = "MATCH (p:Prompt) WHERE p.lineage_id IS NOT NULL RETURN p.lineage_id, count(p), \
                 count(CASE WHEN p.is_head = true THEN 1 END), min(p.timestamp), max(p.timestamp), \
                 collect(CASE WHEN p.is_root THEN p.id ELSE null END), \
                 collect(CASE WHEN p.is_root THEN p.content ELSE null END) ORDER BY max(p.timestamp) DESC LIMIT 1000";
        let rows = self.store.compact_ro(graph, q).await?;
        Ok(rows
            .iter()
            .filter_map(|r| {
                let first = |v: &Value| v.as_array().and_then(|a| a.iter().find_map(s));
                let title: String = r
                    .get(6)
                    .and_then(first)
                    .unwrap_or_default()
                    .split_whitespace()
                    .take(12)
                    .collect::<Vec<_>>()
                    .join(" ");
                Some(crate::sources::lineage::views::LineageSummary {
                    lineage_id: s(r.first()?)?,
                    root: r.get(5).and_then(first),
                    title,
                    prompts: r.get(1)?.as_u64()?,
                    heads: r.get(2).and_then(Value::as_u64).unwrap_or(0),
                    first: r.get(3).and_then(s).unwrap_or_default(),
                    last: r.get(4).and_then(s).unwrap_or_default(),
                })
            })
            .collect())
    }

    /// Rejected lineage records kept in the graph, by code (of one file's records, or all).
    pub async fn lineage_rejects(&self, graph: &str) -> Result<BTreeMap<String, u64>> {
        let rows = self.store.compact_ro(graph, "MATCH (r:LineageReject) RETURN r.code, count(r)").await?;
        Ok(rows.iter().filter_map(|r| Some((s(r.first()?)?, r.get(1)?.as_u64()?))).collect())
    }

    /// The confidence of `child` from `parent` recomputed from their texts.
    pub async fn lineage_breakdown(
        &self,
        parent: &str,
        child: &str,
    ) -> (crate::sources::lineage::Breakdown, Option<String>) {
        breakdown(parent, child, self.semantic(parent, child).await)
    }
}

/// Children by parent, of a lineage's edges.
pub(crate) fn children_of(g: &LineageGraph) -> HashMap<&str, Vec<&EvolutionView>> {
    let mut m: HashMap<&str, Vec<&EvolutionView>> = HashMap::new();
    for e in &g.evolutions {
        m.entry(e.parent.as_str()).or_default().push(e);
    }
    m
}
