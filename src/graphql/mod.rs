//! GraphQL over a graph (docs/FORMATS.md, "Knowledge-graph statements"), served at
//! `/graphql?graph=G` and by `knowledge/query` at `/a2a/G`: the schema's root, which merges
//! the sources' schemas (each in its source's folder: the signed statements' A2AP queries in
//! `sources/statements/graphql.rs`, the knowledge-graph extension's `triples` query and
//! subscription in `sources/knowledge/graphql.rs`), and the engine around it. One schema,
//! built once; each request carries the session and the graph it reads
//! (`sources::graphql::Ctx`). Resolvers compile to bounded, parameterised Cypher; depth and
//! complexity limits answer a GraphQL error. Every request is parsed through `guard`, which
//! refuses a document nested too deep for the recursive parser before it runs.

pub use crate::query_guard as guard;
pub use crate::sources::graphql::{budget, Bounds, Ctx};
pub mod introspection;

use std::sync::{Arc, OnceLock};

use async_graphql::{EmptyMutation, MergedObject, MergedSubscription, Schema};

use crate::facade::Provex;
use crate::sources::{knowledge, statements};

/// The deepest selection a query may nest.
pub const MAX_DEPTH: usize = 10;
/// The most fields (weighted) a query may select.
pub const MAX_COMPLEXITY: usize = 1000;

// The queries of every source that has a schema: adding one is one field here (not a doc
// comment: it would become the schema's description of `Query`).
#[derive(MergedObject, Default)]
pub struct Query(statements::graphql::A2apQuery, knowledge::graphql::KgQuery);

// The subscriptions of every source that has them.
#[derive(MergedSubscription, Default)]
pub struct Subscription(knowledge::graphql::KgSubscription);

pub type ProvexSchema = Schema<Query, EmptyMutation, Subscription>;

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

/// The schema for introspection-only requests (see `introspection`): deeper, same fields.
fn introspection_schema() -> &'static ProvexSchema {
    static SCHEMA: OnceLock<ProvexSchema> = OnceLock::new();
    SCHEMA.get_or_init(|| {
        Schema::build(Query::default(), EmptyMutation, Subscription::default())
            .limit_depth(introspection::MAX_DEPTH)
            .limit_complexity(MAX_COMPLEXITY)
            .finish()
    })
}

/// One GraphQL-over-HTTP request: `{"query", "variables", "operationName"}`.
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GraphqlRequest {
    pub query: String,
    #[serde(default)]
    pub variables: Option<serde_json::Value>,
    #[serde(default)]
    pub operation_name: Option<String>,
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
    let req = GraphqlRequest { query: query.to_owned(), variables, operation_name: None };
    execute_with(provex, graph, req, Bounds::default()).await
}

/// [`execute`], within `knowledge/query`'s bounds.
pub async fn execute_with(
    provex: Arc<Provex>,
    graph: &str,
    request: GraphqlRequest,
    bounds: Bounds,
) -> serde_json::Value {
    let doc = match checked(&request) {
        Ok(doc) => doc,
        Err(e) => return refusal(&e),
    };
    // GraphiQL's schema query nests deeper than any data query needs; it alone may.
    let op = request.operation_name.as_deref();
    let schema = if doc.as_ref().is_some_and(|d| introspection::is_bounded_introspection_doc(d, op)) {
        introspection_schema()
    } else {
        schema()
    };
    let resp = schema.execute(engine_request(provex, graph, request, doc, bounds)).await;
    to_json(&resp)
}

/// The request's document when it parses; none when it does not (the engine then parses it
/// again and answers its own error, with the position); an error when it is refused.
fn checked(
    request: &GraphqlRequest,
) -> Result<Option<async_graphql::parser::types::ExecutableDocument>, guard::GuardError> {
    match request.parse() {
        Ok(doc) => Ok(Some(doc)),
        Err(guard::GuardError::Parse(_)) => Ok(None),
        Err(e) => Err(e),
    }
}

/// The `{errors}` answer of a request refused before it ran.
fn refusal(e: &guard::GuardError) -> serde_json::Value {
    serde_json::json!({"errors": [{"message": e.to_string()}]})
}

impl GraphqlRequest {
    /// The request's document, parsed through [`guard::parse`], its variables checked too.
    pub fn parse(&self) -> Result<async_graphql::parser::types::ExecutableDocument, guard::GuardError> {
        if let Some(v) = &self.variables {
            guard::check_variables(v)?;
        }
        guard::parse(&self.query)
    }
}

fn engine_request(
    provex: Arc<Provex>,
    graph: &str,
    request: GraphqlRequest,
    doc: Option<async_graphql::parser::types::ExecutableDocument>,
    bounds: Bounds,
) -> async_graphql::Request {
    let mut req = async_graphql::Request::new(request.query).data(Ctx {
        session: provex,
        graph: graph.to_owned(),
        bounds,
        budget: Arc::new(budget::Budget::default()),
    });
    // Parsed once, through the guard: the engine does not parse the text again.
    if let Some(doc) = doc {
        req.set_parsed_query(doc);
    }
    if let Some(v) = request.variables {
        req = req.variables(async_graphql::Variables::from_json(v));
    }
    if let Some(op) = request.operation_name {
        req = req.operation_name(op);
    }
    req
}

fn to_json(resp: &async_graphql::Response) -> serde_json::Value {
    serde_json::to_value(resp).unwrap_or_else(|e| serde_json::json!({"errors": [{"message": e.to_string()}]}))
}

/// Whether the operation a request would run is a subscription (a document that does not
/// parse, or names no single operation, is not: running it answers why).
pub fn is_subscription(request: &GraphqlRequest) -> bool {
    use async_graphql::parser::types::{DocumentOperations, OperationType};
    let Ok(doc) = request.parse() else { return false };
    let op = match (&doc.operations, request.operation_name.as_deref()) {
        (DocumentOperations::Single(op), _) => Some(&op.node),
        (DocumentOperations::Multiple(ops), Some(name)) => ops.get(name).map(|o| &o.node),
        (DocumentOperations::Multiple(ops), None) if ops.len() == 1 => ops.values().next().map(|o| &o.node),
        _ => None,
    };
    op.is_some_and(|o| o.ty == OperationType::Subscription)
}

/// Runs a subscription against `graph`: one `{data, errors}` result per event, for as long as
/// the caller reads (a request that fails validation or the limits: one result with its errors).
pub fn execute_stream(
    provex: Arc<Provex>,
    graph: &str,
    request: GraphqlRequest,
) -> impl futures_util::Stream<Item = serde_json::Value> + Send + 'static {
    use futures_util::StreamExt;
    match checked(&request) {
        Ok(doc) => schema()
            .execute_stream(engine_request(provex, graph, request, doc, Bounds::default()))
            .map(|r| to_json(&r))
            .boxed(),
        Err(e) => futures_util::stream::once(std::future::ready(refusal(&e))).boxed(),
    }
}
