//! GraphQL over a graph (formats.md §5): seed 001 §5.1's queries over the A2AP statements
//! (`a2ap`) and seed 004's `triples` query and subscription over knowledge-graph statements
//! (`kg`), served at `/graphql?graph=G` and by `knowledge/query` at `/a2a/G`. One schema,
//! built once; each request carries the facade and the graph it reads. Resolvers compile to
//! bounded, parameterised Cypher; depth and complexity limits answer a GraphQL error.

pub mod a2ap;
pub mod kg;

use std::sync::{Arc, OnceLock};

use async_graphql::{EmptyMutation, MergedObject, MergedSubscription, Schema};

use crate::facade::Provex;

/// The deepest selection a query may nest.
pub const MAX_DEPTH: usize = 10;
/// The most fields (weighted) a query may select.
pub const MAX_COMPLEXITY: usize = 1000;

#[derive(MergedObject, Default)]
pub struct Query(a2ap::A2apQuery, kg::KgQuery);

#[derive(MergedSubscription, Default)]
pub struct Subscription(kg::KgSubscription);

pub type ProvexSchema = Schema<Query, EmptyMutation, Subscription>;

/// What every resolver reads: the facade and the graph the request is about.
#[derive(Clone)]
pub struct Ctx {
    pub provex: Arc<Provex>,
    pub graph: String,
    /// `knowledge/query`'s `requiredCertainty`: `triples` answers no statement below it.
    pub required_certainty: Option<f64>,
}

/// The schema (built on first use).
pub fn schema() -> &'static ProvexSchema {
    static SCHEMA: OnceLock<ProvexSchema> = OnceLock::new();
    SCHEMA.get_or_init(|| {
        Schema::build(Query::default(), EmptyMutation, Subscription::default())
            .limit_depth(MAX_DEPTH)
            .limit_complexity(MAX_COMPLEXITY)
            .finish()
    })
}

/// The schema in SDL (for the docs and the query page).
pub fn sdl() -> String {
    schema().sdl()
}

/// Runs one GraphQL request against `graph`; the usual `{data, errors}` response as JSON.
pub async fn execute(
    provex: Arc<Provex>,
    graph: &str,
    query: &str,
    variables: Option<serde_json::Value>,
) -> serde_json::Value {
    execute_with(provex, graph, query, variables, None).await
}

/// [`execute`], with a minimum certainty for `triples` (`knowledge/query`'s `requiredCertainty`).
pub async fn execute_with(
    provex: Arc<Provex>,
    graph: &str,
    query: &str,
    variables: Option<serde_json::Value>,
    required_certainty: Option<f64>,
) -> serde_json::Value {
    let mut req =
        async_graphql::Request::new(query).data(Ctx { provex, graph: graph.to_owned(), required_certainty });
    if let Some(v) = variables {
        req = req.variables(async_graphql::Variables::from_json(v));
    }
    let resp = schema().execute(req).await;
    serde_json::to_value(&resp)
        .unwrap_or_else(|e| serde_json::json!({"errors": [{"message": e.to_string()}]}))
}
