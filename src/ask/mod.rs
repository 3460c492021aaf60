//! Questions in plain language (docs/ASK.md): an OpenAI-compatible chat
//! endpoint turns a question into Cypher, grounded in the graph's real labels, relationship
//! types (with the labels they connect) and property names read from FalkorDB; the Cypher is
//! checked (`cypher`) and runs read-only with the server's timeout and a row limit.

pub mod check;
pub mod cypher;
pub mod lexer;

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::error::{Error, Result};

/// The most rows an answer shows (the query's own `LIMIT` may be lower).
pub const MAX_ROWS: usize = 1000;
/// How long the chat endpoint may take.
const TIMEOUT: Duration = Duration::from_secs(60);

/// Where questions go: the chat endpoint ([`crate::openai::CHAT`]: `PROVEX_LLM_URL`,
/// `PROVEX_LLM_MODEL`, default `gpt-4o-mini`, `PROVEX_LLM_KEY`).
pub type LlmConfig = crate::openai::Endpoint;

/// What the prompt tells the model about the graph.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct GraphSchema {
    pub labels: Vec<String>,
    pub relationships: Vec<String>,
    pub properties: Vec<String>,
    /// `(:A)-[:T]->(:B)` patterns present in the graph.
    pub patterns: Vec<String>,
}

/// The chat messages for `question` over a graph with `schema`.
pub fn messages(question: &str, schema: &GraphSchema) -> Value {
    let list = |v: &[String]| if v.is_empty() { "(none)".to_owned() } else { v.join(", ") };
    let system = format!(
        "You translate questions about a provenance graph into one read-only Cypher query for FalkorDB.\n\
         Node labels: {}\nRelationship types: {}\nProperty names: {}\nPatterns present: {}\n\
         Rules: use only these labels, types and properties (quote names with ':' in backticks, e.g. n.`prov:type`); \
         only MATCH/OPTIONAL MATCH/WITH/WHERE/RETURN/ORDER BY/LIMIT, never CREATE, MERGE, SET, DELETE or REMOVE; \
         bound every variable-length path (*1..5); end with a LIMIT of at most {MAX_ROWS}. \
         Answer with the query alone in a ```cypher block.",
        list(&schema.labels),
        list(&schema.relationships),
        list(&schema.properties),
        list(&schema.patterns),
    );
    json!([{"role": "system", "content": system}, {"role": "user", "content": question}])
}

#[derive(Deserialize)]
struct Completion {
    choices: Vec<Choice>,
}

#[derive(Deserialize)]
struct Choice {
    message: Message,
}

#[derive(Deserialize)]
struct Message {
    #[serde(default)]
    content: Option<String>,
}

/// Asks the endpoint; the reply's text.
pub async fn complete(config: &LlmConfig, messages: Value) -> Result<String> {
    let url = config.url_for(&crate::openai::CHAT);
    let fail = |reason: String| Error::Llm { url: url.clone(), reason };
    let client = reqwest::Client::builder().timeout(TIMEOUT).build().map_err(|e| fail(e.to_string()))?;
    let mut req =
        client.post(&url).json(&json!({"model": config.model, "messages": messages, "temperature": 0}));
    if let Some(k) = &config.key {
        req = req.bearer_auth(k);
    }
    let resp = req.send().await.map_err(|e| fail(format!("unreachable ({e})")))?;
    let status = resp.status();
    let body = resp.text().await.map_err(|e| fail(format!("the reply could not be read ({e})")))?;
    if !status.is_success() {
        let short: String = body.chars().take(300).collect();
        return Err(fail(format!("answered HTTP {status}: {short}")));
    }
    parse_completion(&body).map_err(fail)
}

/// The text of a chat completion body; why not when it has none.
pub fn parse_completion(body: &str) -> std::result::Result<String, String> {
    let c: Completion =
        serde_json::from_str(body).map_err(|e| format!("the reply is not a chat completion ({e})"))?;
    let text = c.choices.into_iter().next().and_then(|c| c.message.content).unwrap_or_default();
    if text.trim().is_empty() {
        return Err("the reply holds no text".into());
    }
    Ok(text)
}

/// A question's answer: the Cypher that ran and what it returned.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct Answer {
    pub question: String,
    pub cypher: String,
    pub columns: Vec<String>,
    pub rows: Vec<Vec<Value>>,
    /// More rows than [`MAX_ROWS`] came back; the rest are not shown.
    pub truncated: bool,
    pub model: String,
    pub elapsed_ms: u64,
}
