//! The TypeScript declarations of the contract, generated from the Rust types with `ts-rs`
//! into one file the UI imports (`ui/src/api/contract.ts`). `provex contract` writes it;
//! a test fails when the committed file differs from what the types say.

use ts_rs::{Config, TS};

use super::*;
use crate::a2ap::{
    ByteRange, EvidenceStatus, Finding, Problem, SignatureStatus, TimeSpan, Trail, TrailClaim, TrailDocument,
    TrailEvidence, TrailRequest, TrailVerification,
};
use crate::facade::{DemoReport, IngestReport};
use crate::ingest::FileReport;
use crate::store::{EdgeRecord, NodeRecord, PathResult, Stats, Subgraph, Table, TraceDirection};

/// Where the generated file lives, relative to the repository root.
pub const PATH: &str = "ui/src/api/contract.ts";

fn decl<T: TS>(cfg: &Config, out: &mut String) {
    out.push_str("export ");
    out.push_str(&T::decl(cfg));
    out.push_str("\n\n");
}

/// The whole generated file.
pub fn contract_ts() -> String {
    // JavaScript numbers hold every count and sequence number Provex sends (< 2^53).
    let cfg = Config::new().with_large_int("number");
    let mut out = String::from(
        "// Generated from src/api (the Rust contract) by `provex contract`. Do not edit:\n\
         // change the Rust types and run `cargo run -- contract` (a test checks it is fresh).\n\n\
         export type JsonValue = number | string | boolean | Array<JsonValue> | { [key in string]?: JsonValue } | null;\n\n",
    );
    let o = &mut out;
    decl::<ApiError>(&cfg, o);
    decl::<Health>(&cfg, o);
    decl::<ViewNode>(&cfg, o);
    decl::<ViewEdge>(&cfg, o);
    decl::<ViewMode>(&cfg, o);
    decl::<View>(&cfg, o);
    decl::<NodeMove>(&cfg, o);
    decl::<VerificationKind>(&cfg, o);
    decl::<VerificationUpdate>(&cfg, o);
    decl::<StreamMessage>(&cfg, o);
    decl::<SourceText>(&cfg, o);
    decl::<SearchHit>(&cfg, o);
    decl::<JobKind>(&cfg, o);
    decl::<JobState>(&cfg, o);
    decl::<Job>(&cfg, o);
    decl::<QueryRequest>(&cfg, o);
    decl::<FollowRequest>(&cfg, o);
    decl::<DemoRequest>(&cfg, o);
    decl::<Stats>(&cfg, o);
    decl::<NodeRecord>(&cfg, o);
    decl::<EdgeRecord>(&cfg, o);
    decl::<Subgraph>(&cfg, o);
    decl::<PathResult>(&cfg, o);
    decl::<Table>(&cfg, o);
    decl::<TraceDirection>(&cfg, o);
    decl::<SignatureStatus>(&cfg, o);
    decl::<EvidenceStatus>(&cfg, o);
    decl::<ByteRange>(&cfg, o);
    decl::<TimeSpan>(&cfg, o);
    decl::<Finding>(&cfg, o);
    decl::<Problem>(&cfg, o);
    decl::<TrailClaim>(&cfg, o);
    decl::<TrailDocument>(&cfg, o);
    decl::<TrailEvidence>(&cfg, o);
    decl::<TrailRequest>(&cfg, o);
    decl::<TrailVerification>(&cfg, o);
    decl::<Trail>(&cfg, o);
    decl::<FileReport>(&cfg, o);
    decl::<IngestReport>(&cfg, o);
    decl::<DemoReport>(&cfg, o);
    out.truncate(out.trim_end().len());
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// CI fails here when a contract type changed and the UI's copy was not regenerated.
    #[test]
    fn committed_typescript_is_fresh() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(PATH);
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        let fresh = contract_ts();
        assert!(committed == fresh, "{PATH} is stale: run `cargo run -- contract` and commit the result");
    }

    #[test]
    fn no_bigint_and_every_type_exported_once() {
        let ts = contract_ts();
        assert!(!ts.contains("bigint"), "counts must be plain numbers in TypeScript");
        for name in ["View", "StreamMessage", "Trail", "ApiError", "Job"] {
            assert_eq!(ts.matches(&format!("export type {name} =")).count(), 1, "{name}");
        }
    }
}
