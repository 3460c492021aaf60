//! The prompt-lineage reads (`docs/FORMATS.md` "Prompt lineage"): a prompt, its lineage, a
//! subgraph around it, a graph's lineages and rejected records, the confidence of two texts
//! (the commands built on these are in `commands`); and the context an ingest of lineage
//! records checks against (the graph's lineages, loaded once per ingest, and the embeddings
//! endpoint).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use serde_json::Value;
use uuid::Uuid;

use crate::error::{Error, Result};
use crate::model::vocab::PROV_BASE_TYPE;
use crate::sources::lineage::apply::{breakdown, prompt_name, Semantic};
use crate::sources::lineage::embeddings::{self, Embedder};
use crate::sources::lineage::stored::string as s;
use crate::sources::lineage::stored::{edge_row, load_book, prompt_row, EDGE_COLUMNS, PROMPT_COLUMNS};
use crate::sources::lineage::views::{EvolutionView, LineageGraph, PromptView};
use crate::sources::lineage::{EvolutionType, LineageContext};
use crate::sources::Session;

/// The most prompts a lineage read returns.
pub const MAX_LINEAGE: usize = 50_000;

/// The deepest `lineage retrieve` goes either way.
pub const MAX_DEPTH: u32 = 50;

/// A prompt id as the user wrote it: a bare UUID or `prompt:<uuid>`.
pub fn parse_prompt_id(text: &str) -> Result<Uuid> {
    let bare = text.trim().strip_prefix("prompt:").unwrap_or(text.trim());
    Uuid::parse_str(bare).map_err(|_| {
        Error::BadRequest(format!("VALIDATION_ERROR: {text:?} is not a prompt id (a UUID or prompt:<uuid>)"))
    })
}

impl Session {
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
        let book = load_book(&self.store, graph).await?;
        let embedder = self.embedder();
        let blocks = embedder.is_some();
        let handle = tokio::runtime::Handle::current();
        let semantic: Box<crate::sources::lineage::source::SemanticFn> = match embedder {
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
