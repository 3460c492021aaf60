//! The normaliser's whole output, kept: every OTLP request of the repository's OpenTelemetry
//! data (the test traces, the council demo, the fuzz regression inputs in both encodings and
//! the benchmark's agent spans) normalised, its nodes and edges sorted and written out, and
//! the SHA-256 of that text compared with `tests/data/otel/normalised.digests`. A change to
//! the normaliser that changes any node, edge or property of any of them fails here, so a
//! speed-up cannot change what is stored. `PROVEX_BLESS_OTEL=1` writes the file anew (only
//! for an intended change of the stored graph); `PROVEX_OTEL_DUMP=DIR` also writes each
//! input's sorted output to `DIR`, to compare two builds line by line.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::normalise::normalise;
use super::wire::{decode_json, decode_protobuf, hex};
use crate::model::GraphDelta;

#[path = "../../../examples/support/otel_spans.rs"]
#[allow(dead_code)]
mod otel_spans;

const DIGESTS: &str = "tests/data/otel/normalised.digests";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The delta as sorted lines of JSON: nodes, then edges.
fn dump(delta: &GraphDelta, accepted: u64, rejected: &[super::RejectedSpan]) -> String {
    let mut nodes: Vec<String> = delta.nodes().map(|n| serde_json::to_string(n).unwrap()).collect();
    let mut edges: Vec<String> = delta.edges().map(|e| serde_json::to_string(e).unwrap()).collect();
    nodes.sort();
    edges.sort();
    let mut out = format!("accepted {accepted}\n");
    for r in rejected {
        writeln!(out, "rejected {r}").unwrap();
    }
    for l in nodes.iter().chain(&edges) {
        out.push_str(l);
        out.push('\n');
    }
    out
}

/// One input: its name, and its requests (each normalised into the same delta, as the
/// lines of a file are).
fn inputs() -> Vec<(String, Vec<super::ExportTraceServiceRequest>)> {
    let mut out = Vec::new();
    let files = |dir: &str, ext: Option<&str>| -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(root().join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| ext.is_none_or(|x| p.to_string_lossy().ends_with(x)))
            .collect();
        v.sort();
        v
    };
    let name = |p: &Path| p.strip_prefix(root()).unwrap().to_string_lossy().into_owned();
    let mut lines = files("tests/data/otel", Some(".jsonl"));
    lines.push(root().join("examples/council/council-otel.jsonl"));
    for p in lines {
        let text = std::fs::read_to_string(&p).unwrap();
        let reqs =
            text.lines().filter(|l| !l.trim().is_empty()).filter_map(|l| decode_json(l.as_bytes()).ok());
        out.push((name(&p), reqs.collect()));
    }
    for p in files("tests/fuzz-regressions/otlp_json", None) {
        let bytes = std::fs::read(&p).unwrap();
        out.push((name(&p), decode_json(&bytes).into_iter().collect()));
    }
    for p in files("tests/fuzz-regressions/otlp_protobuf", None) {
        let bytes = std::fs::read(&p).unwrap();
        out.push((name(&p), decode_protobuf(&bytes).into_iter().collect()));
    }
    out.push(("benchmark spans".into(), (0..4).map(|n| otel_spans::request(n, 99)).collect()));
    out
}

#[test]
fn the_normalised_graph_of_every_kept_request_is_unchanged() {
    let mut got = String::new();
    let dump_dir = std::env::var_os("PROVEX_OTEL_DUMP").map(PathBuf::from);
    for (name, requests) in inputs() {
        let mut delta = GraphDelta::new();
        let (mut accepted, mut rejected) = (0, Vec::new());
        for r in &requests {
            let c = normalise(r, &mut delta);
            accepted += c.accepted;
            rejected.extend(c.rejected);
        }
        let text = dump(&delta, accepted, &rejected);
        if let Some(dir) = &dump_dir {
            std::fs::create_dir_all(dir).unwrap();
            std::fs::write(dir.join(name.replace('/', "_")), &text).unwrap();
        }
        let digest = hex(&Sha256::digest(text.as_bytes()));
        writeln!(got, "{name}\t{} nodes\t{} edges\t{digest}", delta.node_count(), delta.edge_count())
            .unwrap();
    }
    let path = root().join(DIGESTS);
    if std::env::var_os("PROVEX_BLESS_OTEL").is_some() {
        std::fs::write(&path, &got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap();
    let differ: Vec<&str> = got.lines().zip(want.lines()).filter(|(g, w)| g != w).map(|(g, _)| g).collect();
    assert!(differ.is_empty() && got == want, "normalised output changed for:\n{}", differ.join("\n"));
}
