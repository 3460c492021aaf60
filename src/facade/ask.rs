//! `ask` through the facade: the graph's schema read from FalkorDB, the model's Cypher
//! checked (`ask::check`: nothing reaches the server unless it passes), then run with
//! `GRAPH.RO_QUERY`, the server's timeout and a row limit.

use std::sync::{Arc, Mutex};

use serde_json::Value;

use super::Provex;
use crate::ask::{self, check, cypher, Answer, GraphSchema, LlmConfig};
use crate::error::{Error, Result};
use crate::store::value::to_json;

/// Edges read for the labels each relationship type joins.
const EDGES_SAMPLED: usize = 10_000;
/// Most patterns in a prompt.
const MAX_PATTERNS: usize = 200;

impl Provex {
    /// Sets the chat endpoint questions go to (`None`: none, whatever the environment says).
    pub fn set_llm(&self, config: Option<LlmConfig>) {
        *self.llm.lock().unwrap_or_else(|e| e.into_inner()) = Some(config.map(Arc::new));
    }

    fn llm(&self) -> Option<Arc<LlmConfig>> {
        let mut slot = self.llm.lock().unwrap_or_else(|e| e.into_inner());
        slot.get_or_insert_with(|| LlmConfig::from_env(&crate::openai::CHAT).map(Arc::new)).clone()
    }

    /// The labels, relationship types (with the labels they join) and property names of a graph.
    pub async fn graph_schema(&self, graph: &str) -> Result<GraphSchema> {
        let list = |q: &'static str| async move {
            let (_, rows) = self.store.run_ro(graph, q, vec![]).await?;
            let mut v: Vec<String> = rows
                .iter()
                .filter_map(|r| r.first().map(to_json))
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect();
            v.sort();
            Ok::<_, Error>(v)
        };
        // A graph holds every label and type Provex writes (`store::schemas`): the prompt
        // names those the graph uses.
        let labels =
            self.in_use(graph, list("CALL db.labels() YIELD label RETURN label").await?, "(x:`{}`)").await?;
        let relationships = self
            .in_use(
                graph,
                list("CALL db.relationshipTypes() YIELD relationshipType RETURN relationshipType").await?,
                "()-[x:`{}`]->()",
            )
            .await?;
        let properties = list("CALL db.propertyKeys() YIELD propertyKey RETURN propertyKey").await?;
        // Which labels each type joins, from the graph's first edges: a DISTINCT over every
        // edge reads them all on every question (about 1 s at 500,000 edges, growing with the
        // graph), this sample about 20 ms whatever the size (docs/ASK.md). A type whose edges
        // all come later is still listed, without its pattern.
        let sample = format!(
            "MATCH (a)-[r]->(b) WITH a, r, b LIMIT {EDGES_SAMPLED} RETURN DISTINCT labels(a)[0], type(r), labels(b)[0]"
        );
        let (_, rows) = self.store.run_ro(graph, &sample, vec![]).await?;
        let found: std::collections::BTreeSet<String> = rows
            .iter()
            .map(|r| {
                let s = |i: usize| {
                    r.get(i).map(to_json).and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default()
                };
                format!("(:{})-[:{}]->(:{})", s(0), s(1), s(2))
            })
            .collect();
        let patterns: Vec<String> = found.into_iter().take(MAX_PATTERNS).collect();
        Ok(GraphSchema { labels, relationships, properties, patterns })
    }

    /// Those of `names` (labels or types) that some node or edge of `graph` has, asked in one
    /// query of a `LIMIT 1` match per name (`pattern` with `{}` for the name, bound to `x`).
    /// A name a backquote cannot be quoted in is kept unasked.
    async fn in_use(&self, graph: &str, names: Vec<String>, pattern: &str) -> Result<Vec<String>> {
        let (plain, odd): (Vec<String>, Vec<String>) = names.into_iter().partition(|n| !n.contains('`'));
        if plain.is_empty() {
            return Ok(odd);
        }
        let q = plain
            .iter()
            .enumerate()
            .map(|(i, n)| format!("MATCH {} WITH x LIMIT 1 RETURN {i} AS i", pattern.replace("{}", n)))
            .collect::<Vec<_>>()
            .join(" UNION ALL ");
        let (_, rows) = self.store.run_ro(graph, &q, vec![]).await?;
        let mut used: Vec<String> = rows
            .iter()
            .filter_map(|r| r.first().map(to_json).and_then(|v| v.as_u64()))
            .filter_map(|i| plain.get(i as usize).cloned())
            .chain(odd)
            .collect();
        used.sort();
        Ok(used)
    }

    /// Answers a question about `graph` with the Cypher a model writes for it, run read-only.
    pub async fn ask(&self, graph: &str, question: &str) -> Result<Answer> {
        let question = question.trim();
        if question.is_empty() {
            return Err(Error::Usage("ask what? the question is empty".into()));
        }
        let config = self.llm().ok_or(Error::LlmNotConfigured)?;
        let started = std::time::Instant::now();
        let schema = self.graph_schema(graph).await?;
        let reply = ask::complete(&config, ask::messages(question, &schema)).await?;
        let q = cypher::extract(&reply).ok_or_else(|| Error::Llm {
            url: config.url_for(&crate::openai::CHAT),
            reason: "the reply holds no Cypher".into(),
        })?;
        // Comments out, checked, the row limit written in (the server stops there); the
        // answer shows the Cypher that ran.
        let q = check::prepare(&q).map_err(|why| Error::WriteRefused(format!("{why}: {q}")))?;
        let (columns, rows) = match self.store.run_ro(graph, &q, vec![]).await {
            Ok(r) => r,
            Err(Error::WriteRefused(_)) => {
                return Err(Error::WriteRefused(format!(
                    "FalkorDB refused the generated Cypher as a write: {q}"
                )))
            }
            Err(Error::Query(m)) => return Err(Error::Query(format!("{m} (the generated Cypher: {q})"))),
            Err(e) => return Err(e),
        };
        let truncated = rows.len() > ask::MAX_ROWS;
        let rows: Vec<Vec<Value>> =
            rows.iter().take(ask::MAX_ROWS).map(|r| r.iter().map(to_json).collect()).collect();
        Ok(Answer {
            question: question.to_owned(),
            cypher: q,
            columns,
            rows,
            truncated,
            model: config.model.clone(),
            elapsed_ms: started.elapsed().as_millis() as u64,
        })
    }
}

/// The slot of the chat endpoint: `None` until first used.
pub(crate) type LlmSlot = Mutex<Option<Option<Arc<LlmConfig>>>>;
