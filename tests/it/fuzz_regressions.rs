//! Every input the fuzzers kept (crashes, timeouts, and a small sample of their corpora)
//! replayed on stable through the same checks as the cargo-fuzz targets. The inputs live in
//! `tests/fuzz-regressions/<target>/`; docs/FUZZING.md says how to add one.

pub mod checks;
pub mod differential;
pub mod tlog_checks;
pub mod url_checks;

use std::path::PathBuf;

/// The saved inputs of one target, with their names. Fails when there are none, so that a
/// renamed folder cannot turn the test into a no-op.
fn inputs(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz-regressions").join(target);
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| {
            let path = entry.unwrap().path();
            (path.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&path).unwrap())
        })
        .collect();
    out.sort();
    assert!(!out.is_empty(), "no saved inputs in {}", dir.display());
    out
}

fn replay(target: &str, check: fn(&[u8])) {
    for (name, data) in inputs(target) {
        let outcome = std::panic::catch_unwind(|| check(&data));
        assert!(outcome.is_ok(), "{target}/{name} fails its check (see the panic above)");
    }
}

#[test]
fn a2a_line_inputs() {
    replay("a2a_line", checks::a2a_line);
}

#[test]
fn a2ap_document_inputs() {
    replay("a2ap_document", checks::a2ap_document);
}

#[test]
fn canonical_inputs() {
    replay("canonical", checks::canonical);
}

#[test]
fn resp_reply_inputs() {
    replay("resp_reply", checks::resp_reply);
}

#[test]
fn prov_json_inputs() {
    replay("prov_json", checks::prov_json);
}

#[test]
fn prov_o_inputs() {
    replay("prov_o", checks::prov_o);
}

#[test]
fn lineage_inputs() {
    replay("lineage", checks::lineage);
}

#[test]
fn trustgraph_inputs() {
    replay("trustgraph", checks::trustgraph);
}

#[test]
fn knowledge_inputs() {
    replay("knowledge", checks::knowledge);
}

#[test]
fn ask_inputs() {
    replay("ask", checks::ask);
}

#[test]
fn ask_differential_inputs() {
    replay("ask_differential", differential::check);
}

#[test]
fn audit_bundle_inputs() {
    replay("audit_bundle", checks::audit_bundle);
}

#[test]
fn tlog_witness_inputs() {
    replay("tlog_witness", tlog_checks::tlog_witness);
    // The saved request and cosigned checkpoint are valid: the check reaches the decision
    // and the cosignature arithmetic, not only the parsers.
    let saved = |name: &str| inputs("tlog_witness").into_iter().find(|(n, _)| n == name).expect(name).1;
    let req = provex::tlog::witness::AddCheckpoint::parse(&saved("request")).unwrap();
    assert!(provex::tlog::witness::decide(&req, &[tlog_checks::log_key()], None).is_ok());
    assert!(provex::tlog::witness::cosigned_by(&saved("cosigned"), &tlog_checks::witness_key()).is_ok());
}

#[test]
fn tlog_proof_inputs() {
    replay("tlog_proof", checks::tlog_proof);
    // The saved valid proofs hold with their signer's key: the check above reaches the
    // proof arithmetic, not only the parser.
    for name in ["inclusion", "consistency"] {
        let data = inputs("tlog_proof").into_iter().find(|(n, _)| n == name).expect(name).1;
        let held = match provex::tlog::proof::parse(&data).unwrap() {
            provex::tlog::proof::ProofFile::Inclusion(p) => {
                provex::tlog::proof::verify_inclusion(&p, Some(checks::TLOG_FUZZ_KEY)).is_ok()
            }
            provex::tlog::proof::ProofFile::Consistency(p) => {
                provex::tlog::proof::verify_consistency(&p, Some(checks::TLOG_FUZZ_KEY)).is_ok()
            }
        };
        assert!(held, "{name} does not hold");
    }
}

#[test]
fn otlp_json_inputs() {
    replay("otlp_json", checks::otlp_json);
}

#[test]
fn otlp_protobuf_inputs() {
    replay("otlp_protobuf", checks::otlp_protobuf);
}

#[test]
fn cluster_url_inputs() {
    replay("cluster_url", url_checks::cluster_url);
    // The saved cluster URL reads: the check reaches the nodes, not only a refusal.
    let data = inputs("cluster_url").into_iter().find(|(n, _)| n == "cluster-read-from-replicas").unwrap().1;
    let read = provex::store::cluster_url::parse(std::str::from_utf8(&data).unwrap()).unwrap();
    assert_eq!(read.nodes.len(), 3);
    assert_eq!(read.read_from, provex::store::cluster_url::ReadFrom::Replicas);
}

#[test]
fn search_query_inputs() {
    replay("search_query", checks::search_query);
}
