//! The signed statements' GraphQL schema, A2AP's queries over the A2AP graph (docs/FORMATS.md,
//! "A2AP documents"): `statementsAbout`, `evidenceChain`, `agentReputation`, `consensusOn`,
//! and the `Agent`, `Statement`, `Chunk`, `Verification` and `Document` types. Every answer comes from the graph's held ledger, the one `provex
//! trail` and `provex verify` read, so consensus, verdicts, signatures and reputations agree.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use async_graphql::{Context, Object, Result, ID};
use tokio::sync::OnceCell;

use crate::sources::graphql::{Bounds, Ctx};
use crate::sources::statements::{Ledger, Trail};

/// The most statements one list answers.
const MAX_LIST: usize = 10_000;

fn ctx<'a>(c: &'a Context<'_>) -> Result<&'a Ctx> {
    c.data::<Ctx>()
}

/// Reads the graph's ledger.
async fn read<R>(c: &Context<'_>, f: impl FnOnce(&Ledger) -> R) -> Result<R> {
    let x = ctx(c)?;
    Ok(x.session.with_ledger(&x.graph, f).await?)
}

/// Reads a list from the graph's ledger, charged to the request's budget (see `sources::graphql::budget`).
async fn read_list<T>(c: &Context<'_>, field: &str, f: impl FnOnce(&Ledger) -> Vec<T>) -> Result<Vec<T>> {
    let items = read(c, f).await?;
    ctx(c)?.charged(field, items)
}

/// A graph's statements as searched by topic: each id with its claim and quotes, lowercased
/// and joined (`\u{1}` between them, so no match spans two). Made again when the ledger grows.
struct Haystack {
    /// The ledger it was made from (its address, and how many entries it held).
    ledger: usize,
    entries: usize,
    items: Vec<(String, String)>,
}

fn haystacks() -> &'static Mutex<HashMap<String, Arc<Haystack>>> {
    static CACHE: OnceLock<Mutex<HashMap<String, Arc<Haystack>>>> = OnceLock::new();
    CACHE.get_or_init(Default::default)
}

fn haystack(graph: &str, ledger: &Ledger) -> Arc<Haystack> {
    let entries = ledger.entries().len();
    let at = ledger as *const Ledger as usize;
    let mut cache = haystacks().lock().unwrap_or_else(|e| e.into_inner());
    if let Some(h) = cache.get(graph).filter(|h| h.entries == entries && h.ledger == at) {
        return h.clone();
    }
    let items = ledger
        .statement_ids()
        .into_iter()
        .filter_map(|id| {
            let s = ledger.statement(id)?;
            let mut text = s.claim.text.to_lowercase();
            for q in s.evidence.iter().filter_map(|e| e.quote_text.as_ref()) {
                text.push('\u{1}');
                text.push_str(&q.to_lowercase());
            }
            Some((id.to_owned(), text))
        })
        .collect();
    let h = Arc::new(Haystack { ledger: at, entries, items });
    cache.insert(graph.to_owned(), h.clone());
    h
}

/// Statements whose claim or one of whose quotes contains `topic` (any case); "" matches all;
/// only those young enough for `bounds`.
fn statements_about(graph: &str, ledger: &Ledger, topic: &str, bounds: &Bounds) -> Vec<StatementObj> {
    let topic = topic.to_lowercase();
    haystack(graph, ledger)
        .items
        .iter()
        .filter(|(_, text)| topic.is_empty() || text.contains(topic.as_str()))
        .filter(|(id, _)| {
            bounds.since_ms.is_none()
                || ledger.statement(id).is_some_and(|s| bounds.admits_time(s.generated_at_time.as_deref()))
        })
        .take(MAX_LIST)
        .map(|(id, _)| StatementObj::new(id.clone()))
        .collect()
}

#[derive(Default)]
pub struct A2apQuery;

#[Object]
impl A2apQuery {
    /// Statements whose claim or one of whose quotes contains `topic` (any case; "" for all).
    async fn statements_about(&self, ctx: &Context<'_>, topic: String) -> Result<Vec<StatementObj>> {
        let Ctx { graph, bounds, .. } = ctx.data::<Ctx>()?.clone();
        read_list(ctx, "statementsAbout", |l| statements_about(&graph, l, &topic, &bounds)).await
    }

    /// A statement's evidence, in the order it cites it.
    async fn evidence_chain(&self, ctx: &Context<'_>, statement_id: ID) -> Result<Vec<ChunkObj>> {
        let chunks = read(ctx, |l| l.statement(&statement_id).map(chunks_of)).await?;
        let chunks = chunks.ok_or_else(|| format!("no statement {} in this graph", statement_id.0))?;
        ctx.data::<Ctx>()?.charged("evidenceChain", chunks)
    }

    /// An agent's reputation (A2AP), as consensus weighs it.
    async fn agent_reputation(&self, ctx: &Context<'_>, agent_id: ID) -> Result<f64> {
        let r = read(ctx, |l| known_agent(l, &agent_id).then(|| l.reputation(&agent_id))).await?;
        r.ok_or_else(|| format!("no agent {} in this graph", agent_id.0).into())
    }

    /// Statements about `topic` whose consensus is at least `minScore`.
    async fn consensus_on(
        &self,
        ctx: &Context<'_>,
        topic: String,
        min_score: f64,
    ) -> Result<Vec<StatementObj>> {
        let Ctx { graph, bounds, .. } = ctx.data::<Ctx>()?.clone();
        read_list(ctx, "consensusOn", |l| {
            statements_about(&graph, l, &topic, &bounds)
                .into_iter()
                .filter(|s| l.trail(&s.id).is_some_and(|t| t.consensus >= min_score))
                .collect()
        })
        .await
    }
}

fn known_agent(l: &Ledger, agent: &str) -> bool {
    l.statement_ids().iter().any(|id| l.statement(id).is_some_and(|s| s.agent.id() == agent))
        || l.statement_ids()
            .iter()
            .any(|id| l.trail(id).is_some_and(|t| t.verifications.iter().any(|v| v.agent == agent)))
}

fn chunks_of(s: &crate::sources::statements::document::Statement) -> Vec<ChunkObj> {
    s.evidence
        .iter()
        .map(|e| ChunkObj {
            id: e.chunk_id.clone(),
            text: e.quote_text.clone().unwrap_or_default(),
            byte_start: e.byte_range.start,
            byte_end: e.byte_range.end,
            document: e.source_document.clone(),
            timestamp_start: e.timestamp.as_ref().map(|t| t.start.clone()),
            timestamp_end: e.timestamp.as_ref().map(|t| t.end.clone()),
        })
        .collect()
}

fn signature_text<T: serde::Serialize>(s: &T) -> String {
    serde_json::to_value(s).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default()
}

/// `Agent`.
pub struct AgentObj {
    id: String,
}

#[Object(name = "Agent")]
impl AgentObj {
    async fn id(&self) -> ID {
        ID(self.id.clone())
    }
    async fn name(&self, ctx: &Context<'_>) -> Result<String> {
        Ok(info(ctx, &self.id, |i| i.name.clone()).await?.unwrap_or_else(|| self.id.clone()))
    }
    async fn version(&self, ctx: &Context<'_>) -> Result<String> {
        Ok(info(ctx, &self.id, |i| i.version.clone()).await?.unwrap_or_default())
    }
    async fn publisher(&self, ctx: &Context<'_>) -> Result<String> {
        Ok(info(ctx, &self.id, |i| i.publisher.clone()).await?.unwrap_or_default())
    }
    /// The statements the agent generated.
    // A list under a list: counted ten times, so fan-outs meet the complexity limit.
    #[graphql(complexity = "10 * child_complexity")]
    async fn statements(&self, ctx: &Context<'_>) -> Result<Vec<StatementObj>> {
        read_list(ctx, "statements", |l| {
            l.statement_ids()
                .into_iter()
                .filter(|id| l.statement(id).is_some_and(|s| s.agent.id() == self.id))
                .take(MAX_LIST)
                .map(StatementObj::new)
                .collect()
        })
        .await
    }
    /// The verifications the agent made.
    // A list under a list: counted ten times, so fan-outs meet the complexity limit.
    #[graphql(complexity = "10 * child_complexity")]
    async fn verifications(&self, ctx: &Context<'_>) -> Result<Vec<VerificationObj>> {
        read_list(ctx, "verifications", |l| {
            l.statement_ids()
                .into_iter()
                .filter_map(|id| l.trail(id))
                .flat_map(|t| {
                    let sid = t.statement_id.clone();
                    t.verifications.into_iter().map(move |v| VerificationObj { statement: sid.clone(), v })
                })
                .filter(|v| v.v.agent == self.id)
                .take(MAX_LIST)
                .collect()
        })
        .await
    }
    async fn reputation(&self, ctx: &Context<'_>) -> Result<f64> {
        read(ctx, |l| l.reputation(&self.id)).await
    }
}

/// A descriptive member of an agent, from the first statement that describes it.
async fn info(
    ctx: &Context<'_>,
    agent: &str,
    pick: impl Fn(&crate::sources::statements::document::AgentInfo) -> Option<String>,
) -> Result<Option<String>> {
    read(ctx, |l| {
        l.statement_ids()
            .into_iter()
            .filter_map(|id| l.statement(id))
            .filter(|s| s.agent.id() == agent)
            .find_map(|s| s.agent.info().and_then(&pick))
    })
    .await
}

/// `Statement`: its trail read once per request, whatever fields ask for it.
pub struct StatementObj {
    id: String,
    trail: OnceCell<Trail>,
}

impl StatementObj {
    fn new(id: impl Into<String>) -> Self {
        StatementObj { id: id.into(), trail: OnceCell::new() }
    }

    async fn trail(&self, ctx: &Context<'_>) -> Result<Trail> {
        let t = self
            .trail
            .get_or_try_init(|| async {
                let t = read(ctx, |l| l.trail(&self.id)).await?;
                t.ok_or_else(|| async_graphql::Error::new(format!("no statement {}", self.id)))
            })
            .await?;
        Ok(t.clone())
    }
}

#[Object(name = "Statement")]
impl StatementObj {
    async fn id(&self) -> ID {
        ID(self.id.clone())
    }
    async fn claim_text(&self, ctx: &Context<'_>) -> Result<String> {
        Ok(self.trail(ctx).await?.claim.text)
    }
    async fn confidence(&self, ctx: &Context<'_>) -> Result<f64> {
        Ok(self.trail(ctx).await?.claim.confidence.unwrap_or(0.0))
    }
    async fn generated_by(&self, ctx: &Context<'_>) -> Result<AgentObj> {
        Ok(AgentObj { id: self.trail(ctx).await?.agent })
    }
    async fn generated_at(&self, ctx: &Context<'_>) -> Result<Option<String>> {
        Ok(self.trail(ctx).await?.generated_at)
    }
    async fn evidence(&self, ctx: &Context<'_>) -> Result<Vec<ChunkObj>> {
        read_list(ctx, "evidence", |l| l.statement(&self.id).map(chunks_of).unwrap_or_default()).await
    }
    async fn verifications(&self, ctx: &Context<'_>) -> Result<Vec<VerificationObj>> {
        let t = self.trail(ctx).await?;
        let list =
            t.verifications.into_iter().map(|v| VerificationObj { statement: self.id.clone(), v }).collect();
        ctx.data::<Ctx>()?.charged("verifications", list)
    }
    /// The reputation-weighted consensus of its counted verifications (as `provex trail`).
    async fn consensus_score(&self, ctx: &Context<'_>) -> Result<f64> {
        Ok(self.trail(ctx).await?.consensus)
    }
    /// Whether the consensus reached the threshold.
    async fn verified(&self, ctx: &Context<'_>) -> Result<bool> {
        Ok(self.trail(ctx).await?.verified)
    }
    /// The headline: the worst of its signature, claim hash, evidence and consensus, one of
    /// invalid_signature, unknown_signer, unsigned, claim_mismatch, quote_mismatch, challenged,
    /// unverified, verified (worst first). `verified` true with an invalid signature reads
    /// invalid_signature here.
    async fn standing(&self, ctx: &Context<'_>) -> Result<String> {
        Ok(self.trail(ctx).await?.standing.as_str().to_owned())
    }
    /// The statement's signature check: valid, invalid, unknown_key, untrusted_key, malformed, unsigned.
    async fn signature(&self, ctx: &Context<'_>) -> Result<String> {
        Ok(signature_text(&self.trail(ctx).await?.signature))
    }
}

/// `Chunk`: an evidence segment, a byte range of a source document.
pub struct ChunkObj {
    id: String,
    text: String,
    byte_start: u64,
    byte_end: u64,
    document: String,
    timestamp_start: Option<String>,
    timestamp_end: Option<String>,
}

#[Object(name = "Chunk")]
impl ChunkObj {
    async fn id(&self) -> ID {
        ID(self.id.clone())
    }
    /// The quoted text.
    async fn text(&self) -> &str {
        &self.text
    }
    async fn byte_start(&self) -> i64 {
        self.byte_start as i64
    }
    async fn byte_end(&self) -> i64 {
        self.byte_end as i64
    }
    /// Where in the recording it was said (`hh:mm:ss`).
    async fn timestamp_start(&self) -> Option<&str> {
        self.timestamp_start.as_deref()
    }
    async fn timestamp_end(&self) -> Option<&str> {
        self.timestamp_end.as_deref()
    }
    async fn document(&self, ctx: &Context<'_>) -> Result<DocumentObj> {
        let title = read(ctx, |l| l.source(&self.document).and_then(|d| d.title.clone())).await?;
        Ok(DocumentObj { id: self.document.clone(), title })
    }
    /// The statements that cite this chunk.
    // A list under a list: counted ten times, so fan-outs meet the complexity limit.
    #[graphql(complexity = "10 * child_complexity")]
    async fn cited_by(&self, ctx: &Context<'_>) -> Result<Vec<StatementObj>> {
        read_list(ctx, "citedBy", |l| {
            l.statement_ids()
                .into_iter()
                .filter(|id| {
                    l.statement(id).is_some_and(|s| s.evidence.iter().any(|e| e.chunk_id == self.id))
                })
                .take(MAX_LIST)
                .map(StatementObj::new)
                .collect()
        })
        .await
    }
}

/// `Document`: a source document.
pub struct DocumentObj {
    id: String,
    title: Option<String>,
}

#[Object(name = "Document")]
impl DocumentObj {
    async fn id(&self) -> ID {
        ID(self.id.clone())
    }
    async fn title(&self) -> Option<&str> {
        self.title.as_deref()
    }
}

/// `Verification`: one agent's verdict on a statement.
pub struct VerificationObj {
    statement: String,
    v: crate::sources::statements::trail::TrailVerification,
}

#[Object(name = "Verification")]
impl VerificationObj {
    async fn id(&self) -> ID {
        ID(self.v.verification_id.clone())
    }
    async fn verifier(&self) -> AgentObj {
        AgentObj { id: self.v.agent.clone() }
    }
    async fn statement(&self) -> StatementObj {
        StatementObj::new(self.statement.clone())
    }
    /// VALIDATED, CHALLENGED, …
    async fn verdict(&self) -> &str {
        &self.v.verdict
    }
    async fn confidence(&self) -> f64 {
        self.v.confidence
    }
    async fn verified_at(&self) -> Option<&str> {
        self.v.time.as_deref()
    }
    async fn signature(&self) -> String {
        signature_text(&self.v.signature)
    }
    /// Whether consensus counts it (a bad signature or a self-verification is not counted).
    async fn counted(&self) -> bool {
        self.v.counted
    }
}
