//! The knowledge-graph statements' GraphQL schema: the knowledge-graph extension's `triples`
//! query and subscription (docs/FORMATS.md, "Knowledge-graph statements"), with its types
//! named exactly as the extension names them.

use async_graphql::{Context, Json, Object, Result, SimpleObject, Subscription, ID};
use futures_util::stream::{self, Stream, StreamExt};
use serde_json::Value;
use tokio::sync::broadcast::error::RecvError;

use crate::sources::graphql::Ctx;
use crate::sources::knowledge::store::MAX_TRIPLES;
use crate::sources::knowledge::{ChangeEvent, KgStatement, TripleFilter};

#[derive(SimpleObject, Clone)]
#[graphql(name = "KGSubject")]
pub struct GqlSubject {
    pub id: ID,
    #[graphql(name = "type")]
    pub ty: Option<String>,
}

#[derive(SimpleObject, Clone)]
#[graphql(name = "KGPredicate")]
pub struct GqlPredicate {
    pub id: ID,
}

#[derive(SimpleObject, Clone)]
#[graphql(name = "KGObject")]
pub struct GqlObject {
    pub id: Option<ID>,
    pub value: Option<Json<Value>>,
    #[graphql(name = "type")]
    pub ty: Option<String>,
}

#[derive(SimpleObject, Clone)]
#[graphql(name = "KGStatement")]
pub struct GqlStatement {
    /// The statement's node: `kg:` + SHA-256 of its triple (docs/FORMATS.md, "Knowledge-graph statements").
    pub id: ID,
    pub subject: GqlSubject,
    pub predicate: GqlPredicate,
    pub object: GqlObject,
    pub graph: Option<ID>,
    pub certainty: Option<f64>,
    pub provenance: Option<Json<Value>>,
}

impl GqlStatement {
    pub fn new(id: String, s: KgStatement) -> Self {
        GqlStatement {
            id: ID(id),
            subject: GqlSubject { id: ID(s.subject.id), ty: s.subject.ty },
            predicate: GqlPredicate { id: ID(s.predicate.id) },
            object: GqlObject { id: s.object.id.map(ID), value: s.object.value.map(Json), ty: s.object.ty },
            graph: s.graph.map(ID),
            certainty: s.certainty,
            provenance: s.provenance.map(Json),
        }
    }
}

#[derive(SimpleObject, Clone)]
#[graphql(name = "KnowledgeGraphChangeEvent")]
pub struct GqlChange {
    pub op: String,
    pub statement: GqlStatement,
    pub change_id: ID,
    pub timestamp: String,
    pub change_metadata: Option<Json<Value>>,
}

impl From<&ChangeEvent> for GqlChange {
    fn from(e: &ChangeEvent) -> Self {
        GqlChange {
            op: e.op.as_str().to_owned(),
            statement: GqlStatement::new(e.statement.id(), e.statement.clone()),
            change_id: ID(e.change_id.clone()),
            timestamp: e.timestamp.clone(),
            change_metadata: e.change_metadata.clone().map(Json),
        }
    }
}

#[derive(Default)]
pub struct KgQuery;

#[Object]
impl KgQuery {
    /// The current statements (not removed nor replaced) matching every argument given, at
    /// most 10,000, ordered by subject and predicate.
    async fn triples(
        &self,
        ctx: &Context<'_>,
        subject: Option<ID>,
        predicate: Option<ID>,
        object: Option<ID>,
        graph: Option<ID>,
        min_certainty: Option<f64>,
    ) -> Result<Vec<GqlStatement>> {
        let c = ctx.data::<Ctx>()?;
        let min = match (min_certainty, c.bounds.required_certainty) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        let filter = TripleFilter {
            subject: subject.map(|i| i.0),
            predicate: predicate.map(|i| i.0),
            object: object.map(|i| i.0),
            graph: graph.map(|i| i.0),
            min_certainty: min,
            since_ms: c.bounds.since_ms,
        };
        // Rows reserved from the request's budget before anything is read: past it, this
        // field fails without reading. With fewer than the usual cap left, one more row is
        // read to tell "all of them" from "more than the budget".
        let want = MAX_TRIPLES as usize;
        let got = c.budget.reserve("triples", want)?;
        let limit = if got < want { got + 1 } else { got };
        let rows = c.session.kg_triples(&c.graph, &filter, limit as i64).await?;
        if rows.len() > got {
            c.budget.refund(got);
            return Err(c.budget.charge_rows("triples", got + 1).unwrap_err().into());
        }
        c.budget.refund(got - rows.len());
        let bytes: usize =
            rows.iter().map(|(id, s)| id.len() + serde_json::to_vec(s).map_or(0, |v| v.len())).sum();
        c.budget.charge_bytes("triples", bytes)?;
        Ok(rows.into_iter().map(|(id, s)| GqlStatement::new(id, s)).collect())
    }
}

#[derive(Default)]
pub struct KgSubscription;

#[Subscription]
impl KgSubscription {
    /// The changes committed from now on to statements matching the arguments, in commit order.
    async fn triples(
        &self,
        ctx: &Context<'_>,
        subject: Option<ID>,
        predicate: Option<ID>,
        graph: Option<ID>,
    ) -> Result<impl Stream<Item = GqlChange>> {
        let c = ctx.data::<Ctx>()?;
        let filter = TripleFilter {
            subject: subject.map(|i| i.0),
            predicate: predicate.map(|i| i.0),
            graph: graph.map(|i| i.0),
            ..Default::default()
        };
        let on = c.graph.clone();
        let rx = c.session.kg_subscribe();
        Ok(stream::unfold(rx, move |mut rx| {
            let (filter, on) = (filter.clone(), on.clone());
            async move {
                loop {
                    match rx.recv().await {
                        Ok(ch) if ch.graph == on && filter.matches(&ch.event.statement) => {
                            return Some((GqlChange::from(&ch.event), rx))
                        }
                        Ok(_) | Err(RecvError::Lagged(_)) => continue,
                        Err(RecvError::Closed) => return None,
                    }
                }
            }
        })
        .boxed())
    }
}
