//! The semantic part of a lineage confidence: embeddings from an OpenAI-compatible
//! `/v1/embeddings` endpoint the user configures (`PROVEX_EMBEDDINGS_URL`,
//! `PROVEX_EMBEDDINGS_MODEL`, `PROVEX_EMBEDDINGS_KEY`), cached by text, compared by cosine.
//! Without an endpoint the confidence is renormalised; when it fails, the prompt-lineage format's
//! `CONFIDENCE_COMPUTATION_ERROR` recovery applies (see `apply::breakdown`).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use serde::Deserialize;
use serde_json::json;

use super::apply::Semantic;
use super::confidence::cosine;
use crate::openai::EMBEDDINGS;

/// Where embeddings come from ([`EMBEDDINGS`]: `PROVEX_EMBEDDINGS_URL`,
/// `PROVEX_EMBEDDINGS_MODEL`, default `text-embedding-3-small`, `PROVEX_EMBEDDINGS_KEY`).
pub type EmbeddingsConfig = crate::openai::Endpoint;

#[derive(Deserialize)]
struct Reply {
    data: Vec<Item>,
}

#[derive(Deserialize)]
struct Item {
    #[serde(default)]
    index: usize,
    embedding: Vec<f32>,
}

/// An embeddings client with a cache of the texts it has embedded.
pub struct Embedder {
    config: EmbeddingsConfig,
    http: reqwest::Client,
    cache: Mutex<HashMap<String, Vec<f32>>>,
}

impl std::fmt::Debug for Embedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Embedder").field("url", &self.config.url).field("model", &self.config.model).finish()
    }
}

impl Embedder {
    pub fn new(config: EmbeddingsConfig) -> Embedder {
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(30))
            .build()
            .unwrap_or_else(|_| reqwest::Client::new());
        Embedder { config, http, cache: Mutex::new(HashMap::new()) }
    }

    pub fn config(&self) -> &EmbeddingsConfig {
        &self.config
    }

    /// The embeddings of `texts`, in order; one request for those not cached.
    pub async fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, String> {
        let missing: Vec<&str> = {
            let cache = self.cache.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            let mut m: Vec<&str> = texts.iter().copied().filter(|t| !cache.contains_key(*t)).collect();
            m.dedup();
            m
        };
        if !missing.is_empty() {
            let mut req = self.http.post(self.config.url_for(&EMBEDDINGS)).json(&json!({
                "model": self.config.model,
                "input": missing,
            }));
            if let Some(k) = &self.config.key {
                req = req.bearer_auth(k);
            }
            let endpoint = self.config.url_for(&EMBEDDINGS);
            let resp = req.send().await.map_err(|e| format!("{endpoint}: {e}"))?;
            let status = resp.status();
            if !status.is_success() {
                let body = resp.text().await.unwrap_or_default();
                return Err(format!(
                    "{endpoint} answered {status}: {}",
                    body.chars().take(200).collect::<String>()
                ));
            }
            let reply: Reply =
                resp.json().await.map_err(|e| format!("{endpoint}: not an embeddings reply ({e})"))?;
            if reply.data.len() != missing.len() {
                return Err(format!(
                    "{endpoint}: {} embeddings for {} texts",
                    reply.data.len(),
                    missing.len()
                ));
            }
            let mut cache = self.cache.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            for (pos, item) in reply.data.into_iter().enumerate() {
                let at = if item.index < missing.len() { item.index } else { pos };
                cache.insert(missing[at].to_owned(), item.embedding);
            }
        }
        let cache = self.cache.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        texts
            .iter()
            .map(|t| {
                cache.get(*t).cloned().ok_or_else(|| "an embedding is missing from the reply".to_owned())
            })
            .collect()
    }

    /// The semantic similarity of two texts.
    pub async fn semantic(&self, a: &str, b: &str) -> Semantic {
        match self.embed(&[a, b]).await {
            Ok(v) => match cosine(&v[0], &v[1]) {
                // Cosine is in [-1, 1]; a confidence part is in [0, 1].
                Some(c) => Semantic::Value(c.max(0.0)),
                None => Semantic::Failed(
                    "the embeddings cannot be compared (empty, zero or of different lengths)".into(),
                ),
            },
            Err(e) => Semantic::Failed(e),
        }
    }
}

/// The semantic part for an optional embedder (`Unconfigured` without one).
pub async fn semantic(embedder: Option<&Embedder>, a: &str, b: &str) -> Semantic {
    match embedder {
        Some(e) => e.semantic(a, b).await,
        None => Semantic::Unconfigured,
    }
}
