//! The ledger kept incrementally gives what rebuilding it gives: deltas taken as documents
//! arrive merge into the whole graph, a new key verifies only its own entries again, and
//! reading verifies nothing.

use std::collections::BTreeMap;

use super::{parse_documents, ConsensusConfig, KeyRegistry, Ledger, Record, SignatureStatus};
use crate::demo::council;
use crate::model::GraphDelta;

fn records() -> Vec<Record> {
    parse_documents(&council::generate().a2ap_jsonl()).into_iter().map(Result::unwrap).collect()
}

/// Deltas applied in turn as the store applies them (`SET n += props`; an edge is drawn
/// only between nodes that exist by then), as sorted text.
fn merged(
    deltas: impl IntoIterator<Item = GraphDelta>,
) -> (BTreeMap<String, String>, BTreeMap<String, String>) {
    let mut all = GraphDelta::new();
    for d in deltas {
        let (nodes, edges) = d.into_parts();
        for n in nodes {
            all.add_node(n);
        }
        for e in edges {
            if all.node(&e.source).is_some() && all.node(&e.target).is_some() {
                all.add_edge(e);
            }
        }
    }
    let nodes = all
        .nodes()
        .map(|n| {
            let props: BTreeMap<_, _> =
                n.props.iter().map(|(k, v)| (k.to_string(), format!("{v:?}"))).collect();
            (format!("{:?} {}", n.label, n.name), format!("{props:?}"))
        })
        .collect();
    let edges = all
        .edges()
        .map(|e| {
            let props: BTreeMap<_, _> =
                e.props.iter().map(|(k, v)| (k.to_string(), format!("{v:?}"))).collect();
            (
                format!(
                    "{:?} {:?} {:?} {} -> {:?} {}",
                    e.rel, e.kind, e.source.label, e.source.name, e.target.label, e.target.name
                ),
                format!("{props:?}"),
            )
        })
        .collect();
    (nodes, edges)
}

#[test]
fn deltas_taken_one_document_at_a_time_merge_into_the_whole_graph() {
    let mut ledger = Ledger::new(council::demo_registry(), ConsensusConfig::default());
    let mut deltas = Vec::new();
    for r in records() {
        assert!(ledger.push(r));
        deltas.push(ledger.take_delta());
    }
    assert!(ledger.take_delta().is_empty(), "nothing changed since");
    let whole = merged([ledger.graph_delta()]);
    assert_eq!(merged(deltas), whole);
    assert_eq!((whole.0.len(), whole.1.len()), (41, 93));
}

#[test]
fn documents_out_of_order_still_give_the_whole_graph() {
    // Verifications and requests before their statements, statements before their source.
    let mut records = records();
    records.sort_by_key(|r| match r.doc_type() {
        super::DocType::VerificationResponse => 0,
        super::DocType::VerificationRequest => 1,
        super::DocType::Statement => 2,
        _ => 3,
    });
    let mut ledger = Ledger::new(council::demo_registry(), ConsensusConfig::default());
    let mut deltas = Vec::new();
    for r in records {
        ledger.push(r);
        deltas.push(ledger.take_delta());
    }
    assert_eq!(merged(deltas), merged([ledger.graph_delta()]));
}

#[test]
fn a_new_key_verifies_again_only_the_entries_it_signed() {
    // Without the agents' records, which bring their keys.
    let records: Vec<Record> =
        records().into_iter().filter(|r| r.doc_type() != super::DocType::SoftwareAgent).collect();
    let signed_by = |agent: &str| {
        records
            .iter()
            .filter(|r| r.document.signer() == Some(agent) && r.value.get("signature").is_some())
            .count() as u64
    };
    let signed: u64 = records.iter().filter(|r| r.doc_type().is_signed_type()).count() as u64;
    let mut ledger = Ledger::new(KeyRegistry::new(), ConsensusConfig::default());
    let mut deltas = Vec::new();
    for r in records.clone() {
        ledger.push(r);
    }
    deltas.push(ledger.take_delta());
    assert_eq!(ledger.signature_checks(), signed);
    assert!(ledger
        .entries()
        .iter()
        .filter_map(|e| e.signature.as_ref())
        .all(|s| s.status != SignatureStatus::Valid));

    let registry = council::demo_registry();
    let mut before = ledger.signature_checks();
    for key in registry.entries() {
        assert!(ledger.add_key(&key).unwrap());
        // Every entry naming this key id, and no other, is checked again (the forged
        // verification names the fact checker's key id, so it counts there).
        let naming = ledger
            .entries()
            .iter()
            .filter(|e| {
                e.record.value.pointer("/signature/publicKey").and_then(|v| v.as_str())
                    == Some(key.key_id.as_str())
            })
            .count() as u64;
        assert_eq!(ledger.signature_checks() - before, naming, "{}", key.key_id);
        assert!(naming >= signed_by(&key.agent) - 1);
        before = ledger.signature_checks();
        deltas.push(ledger.take_delta());
    }
    assert!(!ledger.add_key(&registry.entries()[0]).unwrap(), "a known key changes nothing");
    assert_eq!(ledger.signature_checks(), before);

    // The same statuses and graph as a ledger that knew the keys from the start.
    let mut known = Ledger::new(registry, ConsensusConfig::default());
    for r in records {
        known.push(r);
    }
    let status =
        |l: &Ledger| l.entries().iter().map(|e| e.signature.as_ref().map(|s| s.status)).collect::<Vec<_>>();
    assert_eq!(status(&ledger), status(&known));
    assert_eq!(merged(deltas), merged([known.graph_delta()]));
}

#[test]
fn reading_a_ledger_verifies_nothing_again() {
    let demo = council::generate();
    let mut ledger = Ledger::new(council::demo_registry(), ConsensusConfig::default());
    ledger.ingest_text(&demo.a2ap_jsonl());
    let checks = ledger.signature_checks();
    // Every signed document once: 8 statements, 8 requests, 17 responses (the source
    // document and the 3 agent records are not signed types).
    assert_eq!(checks, 33);
    let s = &demo.statements;
    for id in [&s.bike_pilot_march, &s.parks_approved, &s.rezoning_approved] {
        ledger.trail(id).unwrap();
        ledger.consensus(id).unwrap();
    }
    ledger.report();
    ledger.graph_delta();
    assert_eq!(ledger.signature_checks(), checks);
}

#[test]
fn batches_give_every_document_the_status_one_by_one_gives() {
    for registry in [council::demo_registry(), KeyRegistry::new()] {
        let mut one_by_one = Ledger::new(registry.clone(), ConsensusConfig::default());
        for r in records() {
            one_by_one.push(r);
        }
        let mut batched = Ledger::new(registry, ConsensusConfig::default());
        assert_eq!(batched.push_all(records()), one_by_one.entries().len());
        let statuses = |l: &Ledger| -> Vec<(String, Option<SignatureStatus>)> {
            l.entries().iter().map(|e| (e.id().to_owned(), e.signature.as_ref().map(|s| s.status))).collect()
        };
        assert_eq!(statuses(&batched), statuses(&one_by_one));
        let invalid = statuses(&batched).iter().filter(|(_, s)| *s == Some(SignatureStatus::Invalid)).count();
        assert!(invalid >= 1, "the demo's forged verification is in the mix");
        assert_eq!(
            serde_json::to_string(&batched.report()).unwrap(),
            serde_json::to_string(&one_by_one.report()).unwrap()
        );
    }
}
