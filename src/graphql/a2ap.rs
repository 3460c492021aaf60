//! Seed 001 §5.1 over the A2AP graph (formats.md §2): `statementsAbout`, `evidenceChain`,
//! `agentReputation`, `consensusOn`, and the `Agent`, `Statement` and `Chunk` types.

use async_graphql::{Context, Object, Result, ID};

use super::Ctx;

#[derive(Default)]
pub struct A2apQuery;

#[Object]
impl A2apQuery {
    /// An agent's reputation (TO BE WRITTEN: seed 001 §6.3).
    async fn agent_reputation(&self, ctx: &Context<'_>, agent_id: ID) -> Result<f64> {
        let _ = (ctx.data::<Ctx>()?, agent_id);
        Err("not yet".into())
    }
}
