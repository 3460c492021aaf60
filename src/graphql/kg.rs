//! Seed 004's `triples` query and subscription over the knowledge-graph statements
//! (formats.md §5).

use async_graphql::{Context, Object, Result, Subscription};
use futures_util::stream::{self, Stream};

use super::Ctx;

#[derive(Default)]
pub struct KgQuery;

#[Object]
impl KgQuery {
    /// Current statements (TO BE WRITTEN).
    async fn triples(&self, ctx: &Context<'_>, subject: Option<String>) -> Result<Vec<String>> {
        let _ = (ctx.data::<Ctx>()?, subject);
        Err("not yet".into())
    }
}

#[derive(Default)]
pub struct KgSubscription;

#[Subscription]
impl KgSubscription {
    /// Changes (TO BE WRITTEN).
    async fn triples(&self, subject: Option<String>) -> impl Stream<Item = String> {
        let _ = subject;
        stream::empty()
    }
}
