//! A Provex graph exported as PROV-JSON and imported again is the same graph (docs/FORMATS.md,
//! "PROV export"): the council demo (runtime events, signed statements, verifications and
//! TrustGraph sessions) exported, imported into another graph, and compared with `diff`,
//! the trails, and the reasoning chains; the W3C `prov` library still reads the export.

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use provex::facade::{Provex, Quiet};
use provex::ingest::IngestOptions;
use provex::sources::prov::ProvFormat;
use serde_json::Value;

use crate::common;

/// The council demo made in `graph`, exported as `format` to `file` and ingested into
/// `{graph}_again` (its format detected as `detected`, no record refused); the two graphs
/// then have no difference at all (`diff`), the same counts, and every claim's trail reads the
/// same as `kept` keeps it. Returns the second graph's name.
pub(crate) async fn council_round_trip(
    provex: &Provex,
    graph: &str,
    format: ProvFormat,
    file: &Path,
    detected: &str,
    kept: fn(Value) -> Value,
) -> String {
    let again = format!("{graph}_again");
    let _ = provex.delete_graph(&again).await;
    provex.demo_council(graph, None, Arc::new(AtomicBool::new(false))).await.unwrap();
    std::fs::write(file, provex.export_prov(graph, format).await.unwrap()).unwrap();
    let report = provex
        .ingest(
            &again,
            &[file.to_path_buf()],
            IngestOptions::default(),
            Arc::new(AtomicBool::new(false)),
            Arc::new(Quiet),
        )
        .await
        .unwrap();
    assert_eq!((report.files[0].format.as_str(), report.files[0].rejected), (detected, 0));

    // No difference at all: names, labels, properties, edge types and kinds.
    let d = provex.diff_graphs(graph, &again).await.unwrap();
    assert!(
        d.is_empty(),
        "{}",
        provex::diff::render_text(&d).lines().take(20).collect::<Vec<_>>().join("\n")
    );
    let (sa, sb) = (provex.stats(graph).await.unwrap(), provex.stats(&again).await.unwrap());
    assert_eq!(
        (sa.nodes, sa.edges, &sa.labels, &sa.relationships),
        (sb.nodes, sb.edges, &sb.labels, &sb.relationships)
    );

    // Every claim's trail reads the same.
    let claims = provex.query(graph, "MATCH (s:Statement) RETURN s.name ORDER BY s.name").await.unwrap();
    assert_eq!(claims.rows.len(), 8);
    for row in &claims.rows {
        let id = row[0].as_str().unwrap();
        let (a, b) = (provex.trail(graph, id).await.unwrap(), provex.trail(&again, id).await.unwrap());
        assert_eq!(kept(serde_json::to_value(a).unwrap()), kept(serde_json::to_value(b).unwrap()), "{id}");
    }
    again
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_council_export_imports_as_the_same_graph() {
    let (provex, graph) = common::open("prov_same").await;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("council.json");
    // The log's bookkeeping is of each graph's own log: the re-import's nodes name the leaf
    // of the file they came from.
    let again =
        council_round_trip(&provex, &graph, ProvFormat::ProvJson, &file, "prov-json", common::without_log)
            .await;

    // What reads the graph reads the same: every session's reasoning too.
    let sessions = provex.sessions(&graph).await.unwrap();
    assert!(!sessions.is_empty());
    assert_eq!(
        serde_json::to_value(&sessions).unwrap(),
        serde_json::to_value(provex.sessions(&again).await.unwrap()).unwrap()
    );
    for s in &sessions {
        let id = s.answer.clone().unwrap_or_else(|| s.id.clone());
        let (a, b) =
            (provex.reasoning(&graph, &id).await.unwrap(), provex.reasoning(&again, &id).await.unwrap());
        assert_eq!(
            common::without_log(serde_json::to_value(a).unwrap()),
            common::without_log(serde_json::to_value(b).unwrap()),
            "{id}"
        );
    }

    // The re-import exports the same records and relations (in the store's order, with
    // the graph's own namespace).
    let text = provex.export_prov(&again, ProvFormat::ProvJson).await.unwrap();
    let first = std::fs::read_to_string(&file).unwrap();
    let text = text.replace(&format!("graph/{again}/"), &format!("graph/{graph}/"));
    assert_eq!(sections(&text), sections(&first));

    // The W3C `prov` library reads the export, and finds it equal after its own round trip.
    let py = Path::new(env!("CARGO_MANIFEST_DIR")).join(".venv/bin/python");
    let run = std::process::Command::new(py)
        .args(["-c", "import sys; from prov.model import ProvDocument as D; d = D.deserialize(sys.argv[1], format='json'); \
                      e = D.deserialize(content=d.serialize(format='json'), format='json'); \
                      print(len(d.get_records()), e.unified() == d.unified())"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let out = String::from_utf8(run.stdout).unwrap();
    let stats = provex.stats(&graph).await.unwrap();
    assert_eq!(out.trim(), format!("{} True", stats.nodes + stats.edges), "{out}");
    let _ = provex.delete_graph(&graph).await;
    let _ = provex.delete_graph(&again).await;
}

/// A PROV-JSON document's records by id, and its relations' bodies sorted (their keys are
/// numbered in the order the graph is read).
fn sections(text: &str) -> Vec<(String, Vec<String>)> {
    let doc: serde_json::Value = serde_json::from_str(text).unwrap();
    let mut out: Vec<(String, Vec<String>)> = doc
        .as_object()
        .unwrap()
        .iter()
        .map(|(section, v)| {
            let mut items: Vec<String> = match section.as_str() {
                "entity" | "activity" | "agent" | "prefix" => v
                    .as_object()
                    .unwrap()
                    .iter()
                    .map(|(k, b)| {
                        // Without the log's bookkeeping: each graph names leaves of its own log.
                        let mut b = b.clone();
                        if let Some(o) = b.as_object_mut() {
                            o.retain(|a, _| !provex::tlog::BOOKKEEPING_PROPS.iter().any(|p| a.ends_with(p)));
                        }
                        format!("{k} {b}")
                    })
                    .collect(),
                _ => v.as_object().unwrap().values().map(|b| b.to_string()).collect(),
            };
            items.sort();
            (section.clone(), items)
        })
        .collect();
    out.sort();
    out
}
