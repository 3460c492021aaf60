//! A2AP end to end through the public API: signatures and their statuses, evidence, duplicate
//! keys, consensus over time, trails, the graph mapping, the report and the council demo.

use provex::sources::statements as a2ap;
use provex::{demo, model};

use a2ap::signature::KeyRef;
use a2ap::{
    ConsensusConfig, EvidenceStatus, KeyFile, KeyRegistry, Ledger, ReputationPolicy, SignatureStatus,
};
use model::{EdgeKind, Label, ProvRelation, RelType};
use serde_json::{json, Value};

const A: &str = "urn:agent:alice";
const B: &str = "urn:agent:bob";
const C: &str = "urn:agent:carol";
const DOC: &str = "urn:doc:minutes";
const TEXT: &str = "Minutes — the board approved the budget. Next meeting in May.";

fn key(agent: &str) -> KeyFile {
    let mut seed = [0u8; 32];
    seed[..agent.len().min(32)].copy_from_slice(&agent.as_bytes()[..agent.len().min(32)]);
    KeyFile::from_seed(&format!("{agent}#k"), agent, seed)
}

fn registry() -> KeyRegistry {
    let mut r = KeyRegistry::new();
    for a in [A, B, C] {
        r.add_entry(&key(a).entry()).unwrap();
    }
    r
}

fn source() -> Value {
    json!({"@type":"a2ap:SourceDocument","@id":DOC,"title":"Minutes","text":TEXT})
}

fn statement(claim: &str) -> Value {
    let quote = "the board approved the budget";
    let start = TEXT.find(quote).unwrap();
    let mut doc = json!({
        "@type": "a2ap:ProvenanceStatement",
        "@id": a2ap::statement_id(A, claim),
        "generatedAtTime": "2025-10-14T10:30:00Z",
        "agent": {"@type": "prov:SoftwareAgent", "@id": A, "name": "Alice"},
        "claim": {"text": claim, "confidence": 0.9, "contentHash": a2ap::sha256_tag(claim.as_bytes())},
        "evidence": [{
            "sourceDocument": DOC,
            "chunkId": a2ap::chunk_id(DOC, start as u64),
            "byteRange": {"start": start, "end": start + quote.len()},
            "timestamp": {"start": "00:01:00", "end": "00:01:10"},
            "quoteText": quote,
            "contentHash": a2ap::sha256_tag(quote.as_bytes())
        }],
        "verificationStatus": {"verified": false, "validators": [], "challenges": [], "consensusScore": 0.0}
    });
    a2ap::sign_value(&mut doc, &key(A), KeyRef::KeyId).unwrap();
    doc
}

fn response(by: &str, target: &str, verdict: &str, confidence: f64, at: &str) -> Value {
    let mut doc = json!({
        "@type": "a2ap:VerificationResponse",
        "@id": format!("urn:uuid:resp-{by}-{at}"),
        "respondedAt": at,
        "respondingAgent": by,
        "targetStatement": target,
        "verdict": verdict,
        "confidence": confidence,
        "findings": [{"criterion": "source-accuracy", "status": if verdict == "VALIDATED" {"PASS"} else {"FAIL"}, "evidence": "checked", "confidence": 0.9}]
    });
    a2ap::sign_value(&mut doc, &key(by), KeyRef::KeyId).unwrap();
    doc
}

fn status_of(doc: &Value, registry: &KeyRegistry) -> SignatureStatus {
    let (value, document) = a2ap::parse_value(doc.clone()).unwrap();
    a2ap::check_signature(&value, document.signer(), registry).status
}

fn jsonl(docs: &[Value]) -> String {
    docs.iter().map(|d| format!("{d}\n")).collect()
}

#[test]
fn every_signature_status() {
    let reg = registry();
    let good = statement("The board approved the budget.");
    assert_eq!(status_of(&good, &reg), SignatureStatus::Valid);

    let mut changed = good.clone();
    changed["claim"]["text"] = json!("The board rejected the budget.");
    assert_eq!(status_of(&changed, &reg), SignatureStatus::Invalid);

    let mut unknown = good.clone();
    unknown["signature"]["publicKey"] = json!("urn:agent:alice#other");
    assert_eq!(status_of(&unknown, &reg), SignatureStatus::UnknownKey);

    // Embedded key: integrity holds, but the registry does not list it for Alice.
    let stranger = KeyFile::from_seed("s", A, [9; 32]);
    let mut embedded = statement("The board approved the budget.");
    a2ap::sign_value(&mut embedded, &stranger, KeyRef::Embedded).unwrap();
    assert!(embedded["signature"]["publicKey"].as_str().unwrap().starts_with("ed25519:"));
    assert_eq!(status_of(&embedded, &reg), SignatureStatus::UntrustedKey);
    // ... and the same embedded form of Alice's registered key is trusted.
    let mut own = statement("The board approved the budget.");
    a2ap::sign_value(&mut own, &key(A), KeyRef::Embedded).unwrap();
    assert_eq!(status_of(&own, &reg), SignatureStatus::Valid);

    // A registered key of another agent.
    let mut bobs = good.clone();
    let bob_as_alice = KeyFile { agent: A.into(), ..key(B) };
    a2ap::sign_value(&mut bobs, &bob_as_alice, KeyRef::KeyId).unwrap();
    assert_eq!(status_of(&bobs, &reg), SignatureStatus::UntrustedKey);

    for (member, bad) in [
        ("value", json!("not base64!")),
        ("value", json!("AAAA")),
        ("algorithm", json!("rsa")),
        ("value", json!(5)),
    ] {
        let mut m = good.clone();
        m["signature"][member] = bad;
        assert_eq!(status_of(&m, &reg), SignatureStatus::Malformed, "{member}");
    }
    let mut bad_embedded = good.clone();
    bad_embedded["signature"]["publicKey"] = json!("ed25519:AAAA");
    assert_eq!(status_of(&bad_embedded, &reg), SignatureStatus::Malformed);

    let mut unsigned = good.clone();
    unsigned.as_object_mut().unwrap().shift_remove("signature");
    assert_eq!(status_of(&unsigned, &reg), SignatureStatus::Unsigned);
    unsigned["signature"] = json!({"algorithm": "ed25519", "publicKey": "urn:agent:alice#k"});
    assert_eq!(status_of(&unsigned, &reg), SignatureStatus::Unsigned);
}

#[test]
fn what_the_signature_covers() {
    let reg = registry();
    let good = statement("The board approved the budget.");

    let mut status_changed = good.clone();
    status_changed["verificationStatus"] =
        json!({"verified": true, "validators": [B], "consensusScore": 0.93});
    assert_eq!(status_of(&status_changed, &reg), SignatureStatus::Valid);

    // Reordered members and other whitespace: parse the re-serialised text.
    let mut members: Vec<(String, Value)> = good.as_object().unwrap().clone().into_iter().collect();
    members.reverse();
    let reordered: serde_json::Map<String, Value> = members.into_iter().collect();
    let pretty = serde_json::to_string_pretty(&Value::Object(reordered)).unwrap();
    let arr = format!("[\n{pretty}\n]");
    let results = a2ap::parse_documents(&arr);
    let record = results[0].as_ref().unwrap();
    assert_eq!(a2ap::signature::check_record(record, &reg).status, SignatureStatus::Valid);

    type Edit = (&'static str, fn(&mut Value));
    let edits: [Edit; 6] = [
        ("claim", |d| d["claim"]["confidence"] = json!(0.91)),
        ("quote", |d| d["evidence"][0]["quoteText"] = json!("the board approved the budgets")),
        ("agent", |d| d["agent"]["name"] = json!("Mallory")),
        ("time", |d| d["generatedAtTime"] = json!("2025-10-14T10:30:01Z")),
        ("public key", |d| d["signature"]["publicKey"] = json!(format!("ed25519:{}", key(A).public_key))),
        ("algorithm @type", |d| d["signature"]["@type"] = json!("x")),
    ];
    for (what, edit) in edits {
        let mut d = good.clone();
        edit(&mut d);
        // Changing publicKey to the embedded form of the same key changes the signed bytes.
        assert_eq!(status_of(&d, &reg), SignatureStatus::Invalid, "{what}");
    }
}

#[test]
fn duplicate_keys_are_rejected_and_neighbours_survive() {
    let good = statement("The board approved the budget.");
    let text = format!(
        "{}\n{}\n{}\n",
        source(),
        r#"{"@type":"a2ap:SourceDocument","@id":"urn:doc:x","text":"a","title":"t","title":"u"}"#,
        good
    );
    let mut ledger = Ledger::new(registry(), ConsensusConfig::default());
    let (added, rejected) = ledger.ingest_text(&text);
    assert_eq!(added, 2);
    assert_eq!(rejected.len(), 1);
    assert_eq!(rejected[0].position.line, 2);
    assert!(rejected[0].reason.contains("duplicate key /title"));
    let report = ledger.report();
    assert_eq!(report.exit_code(), 1, "a rejected record fails the check");
    assert_eq!(report.summary.rejected, 1);
}

#[test]
fn evidence_statuses_and_id_problems() {
    let mut ok = statement("The board approved the budget.");
    let mut missing_doc = ok.clone();
    missing_doc["@id"] = json!(a2ap::statement_id(A, "x"));
    missing_doc["claim"]["text"] = json!("x");
    missing_doc["claim"]["contentHash"] = json!(a2ap::sha256_tag(b"x"));
    missing_doc["evidence"][0]["sourceDocument"] = json!("urn:doc:absent");
    a2ap::sign_value(&mut missing_doc, &key(A), KeyRef::KeyId).unwrap();
    let mut wrong_quote = statement("Budget approved.");
    wrong_quote["evidence"][0]["quoteText"] = json!("the board rejected the budget");
    wrong_quote["evidence"][0]["contentHash"] = json!(a2ap::sha256_tag(b"the board rejected the budget"));
    a2ap::sign_value(&mut wrong_quote, &key(A), KeyRef::KeyId).unwrap();
    ok["@id"] = json!("urn:uuid:not-deterministic");
    a2ap::sign_value(&mut ok, &key(A), KeyRef::KeyId).unwrap();

    let mut ledger = Ledger::new(registry(), ConsensusConfig::default());
    ledger.ingest_text(&jsonl(&[source(), ok.clone(), missing_doc.clone(), wrong_quote.clone()]));
    let report = ledger.report();
    let ev = |id: &Value| report.document(id["@id"].as_str().unwrap()).unwrap().evidence[0].status;
    assert_eq!(ev(&ok), EvidenceStatus::Match);
    assert_eq!(ev(&missing_doc), EvidenceStatus::Unchecked);
    assert_eq!(ev(&wrong_quote), EvidenceStatus::Mismatch);
    let ok_report = report.document("urn:uuid:not-deterministic").unwrap();
    assert!(ok_report.problems.iter().any(|p| p.code == "statement_id_mismatch"));
    assert!(!ok_report.failed, "an id mismatch is reported, not a failure");
    assert!(!report.document(missing_doc["@id"].as_str().unwrap()).unwrap().failed);
    assert!(report.document(wrong_quote["@id"].as_str().unwrap()).unwrap().failed);
    assert_eq!(report.exit_code(), 1);
    assert_eq!(report.summary.evidence["match"], 1);
}

#[test]
fn consensus_over_time_with_challenged_forged_and_unsigned() {
    let st = statement("The board approved the budget.");
    let id = st["@id"].as_str().unwrap().to_owned();
    let v_b = response(B, &id, "VALIDATED", 0.9, "2025-10-14T11:00:00Z");
    let v_c = response(C, &id, "CHALLENGED", 0.8, "2025-10-14T11:05:00Z");
    // Forged: claims to be Bob, signed by Carol's key under Bob's key id.
    let mut forged = response(B, &id, "VALIDATED", 1.0, "2025-10-14T11:10:00Z");
    let carol_as_bob = KeyFile { key_id: format!("{B}#k"), agent: B.into(), ..key(C) };
    a2ap::sign_value(&mut forged, &carol_as_bob, KeyRef::KeyId).unwrap();
    let mut unsigned = response(A, &id, "VALIDATED", 1.0, "2025-10-14T11:15:00Z");
    unsigned.as_object_mut().unwrap().shift_remove("signature");

    let mut ledger = Ledger::new(registry(), ConsensusConfig::default());
    // Arrival order differs from time order: the challenge arrives first.
    ledger.ingest_text(&jsonl(&[source(), st.clone(), v_c, unsigned, forged, v_b]));
    let outcome = ledger.consensus(&id).unwrap();
    assert!((outcome.consensus - 0.45).abs() < 1e-12);
    assert!(!outcome.verified);
    assert_eq!(outcome.excluded.len(), 2);

    let steps = ledger.timeline(&id);
    let after: Vec<f64> = steps.iter().map(|s| s.consensus_after).collect();
    assert_eq!(after, vec![0.9, 0.45, 0.45, 0.45]);
    assert_eq!(steps[2].signature, SignatureStatus::Invalid);
    assert_eq!(steps[3].signature, SignatureStatus::Unsigned);
    assert!(!steps[2].counted && !steps[3].counted);
    assert!(steps[0].verified_after && !steps[1].verified_after);

    let trail = ledger.trail(&id).unwrap();
    assert_eq!(trail.verifications.len(), 4);
    assert_eq!(trail.evidence[0].status, EvidenceStatus::Match);
    assert_eq!(trail.evidence[0].timestamp.as_ref().unwrap().start, "00:01:00");
    assert_eq!(trail.evidence[0].document.title.as_deref(), Some("Minutes"));
    assert!(trail.to_text().contains("not counted: signature invalid"));
    assert!(trail.to_json()["verifications"][1]["verdict"] == "CHALLENGED");

    let report = ledger.report();
    let doc = report.document(&id).unwrap();
    assert_eq!(doc.consensus, Some(0.45));
    assert_eq!(doc.verified, Some(false));
    assert!(!doc.failed, "below threshold is reported, not a failure");
    assert_eq!(report.exit_code(), 1, "the forged and the unsigned responses fail");

    // Lower threshold; Bob's reputation weighs more.
    let mut ledger2 = Ledger::new(registry(), ConsensusConfig { threshold: 0.4, ..Default::default() });
    ledger2.set_reputation(B, 3.0);
    ledger2.ingest_text(&jsonl(&[
        st.clone(),
        response(B, &id, "VALIDATED", 0.9, "2025-10-14T11:00:00Z"),
        response(C, &id, "CHALLENGED", 0.8, "2025-10-14T11:05:00Z"),
    ]));
    let o = ledger2.consensus(&id).unwrap();
    assert!((o.consensus - 2.7 / 4.0).abs() < 1e-12 && o.verified);

    // Seed 001 §6.3 reputations: Bob's validation of a statement at consensus 0.45 < 0.8 is
    // not accurate, so Bob's reputation is 0 and Carol's 0 too: consensus falls to 0.
    let mut ledger3 =
        Ledger::new(registry(), ConsensusConfig { threshold: 0.7, reputation: ReputationPolicy::SEED });
    ledger3.ingest_text(&jsonl(&[
        st,
        response(B, &id, "VALIDATED", 0.9, "2025-10-14T11:00:00Z"),
        response(C, &id, "CHALLENGED", 0.8, "2025-10-14T11:05:00Z"),
    ]));
    assert_eq!(ledger3.reputation(B), 0.0);
    assert_eq!(
        ledger3.timeline(&id)[0].consensus_after,
        0.9,
        "after Bob alone, consensus 0.9 >= 0.8: accurate"
    );
    assert_eq!(ledger3.consensus(&id).unwrap().consensus, 0.0);
}

#[test]
fn keys_learnt_from_agent_records_recompute_signatures() {
    let st = statement("The board approved the budget.");
    let id = st["@id"].as_str().unwrap().to_owned();
    let mut ledger = Ledger::new(KeyRegistry::new(), ConsensusConfig::default());
    ledger.ingest_text(&jsonl(&[st]));
    assert_eq!(ledger.report().document(&id).unwrap().signature, Some(SignatureStatus::UnknownKey));
    let k = key(A);
    let agent = json!({"@type":"prov:SoftwareAgent","@id":A,"name":"Alice","keyId":k.key_id,"publicKey":format!("ed25519:{}", k.public_key)});
    ledger.ingest_text(&jsonl(&[agent]));
    assert_eq!(ledger.report().document(&id).unwrap().signature, Some(SignatureStatus::Valid));
    // Replaying the same documents changes nothing.
    let before = ledger.entries().len();
    let (added, _) = ledger.ingest_text(&jsonl(&[source()]));
    let (again, _) = ledger.ingest_text(&jsonl(&[source()]));
    assert_eq!((added, again, ledger.entries().len()), (1, 0, before + 1));
}

#[test]
fn sign_text_keeps_the_file_shape() {
    let mut st = statement("The board approved the budget.");
    st.as_object_mut().unwrap().shift_remove("signature");
    let lines = jsonl(&[source(), st.clone()]);
    let signed = a2ap::sign_text(&lines, &key(A), KeyRef::KeyId).unwrap();
    assert_eq!(signed.lines().count(), 2);
    let mut ledger = Ledger::new(registry(), ConsensusConfig::default());
    ledger.ingest_text(&signed);
    assert_eq!(ledger.report().exit_code(), 0);
    let array = format!("[{}, {}]", source(), st);
    let signed = a2ap::sign_text(&array, &key(A), KeyRef::KeyId).unwrap();
    assert!(signed.starts_with('['));
    assert_eq!(a2ap::parse_documents(&signed).len(), 2);
    assert!(a2ap::sign_text(&lines, &key(B), KeyRef::KeyId).unwrap_err().contains("belongs to"));
}

#[test]
fn graph_mapping_follows_seed_001() {
    let st = statement("The board approved the budget.");
    let id = st["@id"].as_str().unwrap().to_owned();
    let mut other = json!({"@type":"a2ap:ProvenanceStatement","@id":a2ap::statement_id(B, "The budget was rejected."),"agent":B,
        "claim":{"text":"The budget was rejected."},"contradicts":[id]});
    a2ap::sign_value(&mut other, &key(B), KeyRef::KeyId).unwrap();
    let mut ledger = Ledger::new(registry(), ConsensusConfig::default());
    ledger.ingest_text(&jsonl(&[
        json!({"@type":"a2ap:SourceDocument","@id":DOC,"title":"Minutes","text":TEXT,"source":{"@id":"urn:source:board","name":"Board archive"}}),
        st,
        other,
        response(C, &id, "CHALLENGED", 0.8, "2025-10-14T11:05:00Z"),
    ]));
    let delta = ledger.graph_delta();
    let labels: std::collections::BTreeSet<Label> = delta.nodes().map(|n| n.label).collect();
    for l in
        [Label::Agent, Label::Statement, Label::Chunk, Label::Document, Label::Source, Label::Verification]
    {
        assert!(labels.contains(&l), "{l}");
    }
    let rels: Vec<(RelType, EdgeKind)> = delta.edges().map(|e| (e.rel, e.kind)).collect();
    for (rel, kind) in [
        (RelType::Generated, EdgeKind::Prov(ProvRelation::WasAttributedTo)),
        (RelType::Cites, EdgeKind::Prov(ProvRelation::WasDerivedFrom)),
        (RelType::PartOf, EdgeKind::Prov(ProvRelation::WasDerivedFrom)),
        (RelType::SourcedFrom, EdgeKind::Prov(ProvRelation::WasDerivedFrom)),
        (RelType::Validates, EdgeKind::Prov(ProvRelation::Used)),
        (RelType::PerformedBy, EdgeKind::Prov(ProvRelation::WasAssociatedWith)),
        (RelType::Verified, EdgeKind::Plain),
        (RelType::Challenged, EdgeKind::Plain),
        (RelType::Contradicts, EdgeKind::Plain),
    ] {
        assert!(rels.contains(&(rel, kind)), "{rel} {kind:?}");
    }
    let node = delta.node(&model::NodeRef::new(Label::Statement, id.clone())).unwrap();
    assert_eq!(node.props["claim_text"].as_str(), Some("The board approved the budget."));
    assert_eq!(node.props["signature_status"].as_str(), Some("valid"));
    assert_eq!(node.props["evidence_status"].as_str(), Some("match"));
    assert_eq!(node.props["consensus_score"], model::PropValue::Float(0.0));
    assert_eq!(Label::Statement.prov_type(), "a2ap:Statement");
    assert_eq!(Label::Verification.base_type(), model::BaseType::Activity);
    let challenged = delta.edges().find(|e| e.rel == RelType::Challenged).unwrap();
    assert_eq!(challenged.props["reason"].as_str(), Some("source-accuracy: checked"));
}

#[test]
fn council_demo_verifies_exactly_as_designed() {
    let demo = demo::council::generate();
    let registry = KeyRegistry::from_json(&demo.registry_json).unwrap();
    let mut ledger = Ledger::new(registry, ConsensusConfig::default());
    let (added, rejected) = ledger.ingest_text(&demo.a2ap_jsonl());
    assert!(rejected.is_empty());
    assert_eq!(added, 37);
    let report = ledger.report();
    let s = &demo.statements;

    let failed: Vec<&str> = report.documents.iter().filter(|d| d.failed).map(|d| d.id.as_str()).collect();
    assert_eq!(failed, vec![s.parking_study_altered.as_str(), demo.forged_verification.as_str()]);
    let altered = report.document(&s.parking_study_altered).unwrap();
    assert_eq!(altered.signature, Some(SignatureStatus::Invalid));
    assert_eq!(altered.evidence[0].status, EvidenceStatus::Mismatch);
    assert_eq!(report.document(&demo.forged_verification).unwrap().signature, Some(SignatureStatus::Invalid));
    assert_eq!(
        report.summary.signatures.get("valid").copied(),
        Some(report.summary.signatures.values().sum::<usize>() - 2)
    );
    assert_eq!(report.summary.evidence.get("mismatch"), Some(&1));
    assert_eq!(report.summary.evidence.get("unchecked"), None);
    for d in &report.documents {
        assert!(
            d.problems.iter().all(|p| p.code == "verification_not_counted"),
            "{}: {:?}",
            d.id,
            d.problems
        );
    }
    assert_eq!(report.exit_code(), 1);

    let c = |id: &str| ledger.consensus(id).unwrap();
    assert!((c(&s.rezoning_approved).consensus - 0.92).abs() < 1e-9);
    assert!(c(&s.rezoning_approved).verified);
    assert!((c(&s.bike_pilot_march).consensus - 0.31).abs() < 1e-9, "challenged by one verifier");
    assert!(!c(&s.bike_pilot_march).verified);
    let parks = c(&s.parks_approved);
    assert_eq!(parks.consensus, 0.0, "the forged validation is left out");
    assert_eq!(parks.excluded.len(), 1);
    assert_eq!(parks.excluded[0].verification_id, demo.forged_verification);
    assert!((c(&s.parks_tabled).consensus - 0.915).abs() < 1e-9);
    let tabled = ledger.trail(&s.parks_tabled).unwrap();
    assert_eq!(tabled.contradicts, vec![s.parks_approved.clone()]);
    assert_eq!(ledger.trail(&s.parks_approved).unwrap().contradicted_by, vec![s.parks_tabled.clone()]);
    let verified = report.summary.verified_statements;
    assert_eq!((report.summary.statements, verified), (8, 6));

    // The graph has the challenge and the contradiction.
    let delta = ledger.graph_delta();
    assert!(delta.edges().any(|e| e.rel == RelType::Challenged && e.target.name == s.bike_pilot_march));
    assert!(delta.edges().any(|e| e.rel == RelType::Contradicts && e.source.name == s.parks_tabled));
    assert!(!delta.edges().any(|e| e.rel == RelType::Verified
        && e.props.get("verification_id").and_then(|v| v.as_str())
            == Some(demo.forged_verification.as_str())));

    // Events are formats.md §1 envelopes, time-ordered with the documents.
    let mut last = 0;
    for r in demo.paced() {
        assert!(r.offset_ms >= last);
        last = r.offset_ms;
    }
    let events: Vec<Value> = demo.events_jsonl().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let kinds: std::collections::BTreeSet<String> = events
        .iter()
        .map(|e| {
            let env = e.get("Task").or_else(|| e.get("Global")).unwrap();
            env["data"].as_object().unwrap().keys().next().unwrap().clone()
        })
        .collect();
    for k in [
        "AgentBooted",
        "TaskCreated",
        "MessageReceived",
        "MessageSent",
        "LlmCallStarted",
        "LlmCallCompleted",
        "ToolCallStarted",
        "ToolCallCompleted",
        "TaskStatusChanged",
        "TaskArtifactGenerated",
    ] {
        assert!(kinds.contains(k), "{k}");
    }
    assert!(events.iter().all(|e| {
        let env = e.get("Task").or_else(|| e.get("Global")).unwrap();
        let data = env["data"].as_object().unwrap();
        match data.get("MessageSent").or_else(|| data.get("MessageReceived")) {
            Some(m) => m["metadata"]["agent_id"].is_string(),
            None => true,
        }
    }));
}

#[test]
fn council_demo_files_are_reproducible() {
    let dir = tempfile::tempdir().unwrap();
    let paths = demo::council::generate().write_to(dir.path()).unwrap();
    let first: Vec<Vec<u8>> = paths.iter().map(|p| std::fs::read(p).unwrap()).collect();
    let paths2 = demo::council::generate().write_to(&dir.path().join("again")).unwrap();
    let second: Vec<Vec<u8>> = paths2.iter().map(|p| std::fs::read(p).unwrap()).collect();
    assert_eq!(first, second);
    assert_eq!(
        paths.len(),
        6,
        "events, documents, keys, transcript, the research question's explain stream, the summariser's spans"
    );
    let transcript = String::from_utf8(first[3].clone()).unwrap();
    assert!(transcript.contains("[00:04:06] CITY CLERK MARIA SANTOS: On the motion to table"));
}

/// `n` statements by A, each cited evidence and two signed verifications (B, C): 1 + 3n
/// documents, as JSON Lines.
fn stream(n: usize) -> String {
    let mut docs = vec![source()];
    for i in 0..n {
        let st = statement(&format!("Claim {i}: the board approved the budget."));
        let id = st["@id"].as_str().unwrap().to_owned();
        docs.push(st);
        let (m, s) = (i / 60, i % 60);
        docs.push(response(B, &id, "VALIDATED", 0.9, &format!("2025-10-14T11:{m:02}:{s:02}Z")));
        docs.push(response(C, &id, "CHALLENGED", 0.7, &format!("2025-10-14T12:{m:02}:{s:02}Z")));
    }
    jsonl(&docs)
}

/// Ingests `text` into `graph` in chunks of 30 documents (as `--follow` of a growing file
/// delivers them); returns the node and edge rows written.
async fn follow_rows(
    provex: &provex::facade::Provex,
    graph: &str,
    text: &str,
    keys: Option<&KeyRegistry>,
) -> u64 {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("docs.jsonl");
    std::fs::write(&file, text).unwrap();
    let keys_file = keys.map(|k| {
        let p = dir.path().join("keys.json");
        std::fs::write(&p, k.to_json()).unwrap();
        p
    });
    let opts = provex::ingest::IngestOptions {
        batch_events: 30,
        keys: keys_file,
        rejects: Some(dir.path().join("rejects.jsonl")),
        ..Default::default()
    };
    let cancel = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let report = provex
        .ingest(graph, &[file], opts, cancel, std::sync::Arc::new(provex::facade::Quiet))
        .await
        .unwrap();
    assert_eq!(report.rejected, 0);
    report.nodes_written + report.edges_written
}

#[tokio::test(flavor = "multi_thread")]
async fn following_writes_rows_in_proportion_to_the_documents() {
    let (provex, small) = crate::common::open("a2ap_rows_small").await;
    let (_, large) = crate::common::open("a2ap_rows_large").await;
    // 301 and 901 documents: rewriting the whole graph after each chunk wrote about 9x as
    // many rows for 3x the documents; writing what changed, 3x, and barely more than the
    // graph holds.
    let rows_small = follow_rows(&provex, &small, &stream(100), Some(&registry())).await;
    let rows_large = follow_rows(&provex, &large, &stream(300), Some(&registry())).await;
    assert_eq!((rows_small, rows_large), (1243, 3723));
    assert!(rows_large <= 3 * rows_small);
    let stats = provex.stats(&large).await.unwrap();
    // 1 document, 300 statements, 1 chunk (they all quote the same words), 600
    // verifications, 3 agents; per statement GENERATED and CITES, one PART_OF, per
    // verification VALIDATES, PERFORMED_BY, VERIFIED, and CHALLENGED for C's.
    assert_eq!((stats.nodes, stats.edges), (905, 2701));
    provex.delete_graph(&small).await.unwrap();
    provex.delete_graph(&large).await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn reading_a_graph_verifies_nothing_and_a_new_key_only_its_documents() {
    let (provex, graph) = crate::common::open("a2ap_checks").await;
    // Signed by A, B and C, but only A's and B's keys are known at first.
    let mut ab = KeyRegistry::new();
    for a in [A, B] {
        ab.add_entry(&key(a).entry()).unwrap();
    }
    follow_rows(&provex, &graph, &stream(20), Some(&ab)).await;
    let signed = 20 * 3;
    assert_eq!(provex.ledger_signature_checks(&graph).await.unwrap(), signed);
    let id = a2ap::statement_id(A, "Claim 7: the board approved the budget.");
    let trail = provex.trail(&graph, &id).await.unwrap();
    let statuses: Vec<SignatureStatus> = trail.verifications.iter().map(|v| v.signature).collect();
    assert_eq!(statuses, vec![SignatureStatus::Valid, SignatureStatus::UnknownKey]);
    for _ in 0..3 {
        provex.trail(&graph, &id).await.unwrap();
        provex.source_text(&graph, DOC).await.unwrap();
        provex.verify_graph(&graph, None).await.unwrap();
    }
    assert_eq!(provex.ledger_signature_checks(&graph).await.unwrap(), signed, "reads verify nothing");

    // C's key arrives with a later ingest: only C's 20 verifications are checked again.
    let rows = follow_rows(&provex, &graph, &stream(20), Some(&registry())).await;
    assert_eq!(provex.ledger_signature_checks(&graph).await.unwrap(), signed + 20);
    let trail = provex.trail(&graph, &id).await.unwrap();
    let statuses: Vec<SignatureStatus> = trail.verifications.iter().map(|v| v.signature).collect();
    assert_eq!(statuses, vec![SignatureStatus::Valid, SignatureStatus::Valid]);
    // C's 20 verifications (node and 4 edges each), their statements' consensus, C's node.
    assert_eq!(rows, 20 * 5 + 20 + 1);
    // What a fresh session reads from the graph says the same.
    let (fresh, _) = crate::common::open("a2ap_checks_fresh").await;
    let again = fresh.trail(&graph, &id).await.unwrap();
    assert_eq!(serde_json::to_value(&again).unwrap(), serde_json::to_value(&trail).unwrap());
    assert_eq!(fresh.ledger_signature_checks(&graph).await.unwrap(), signed);
    provex.delete_graph(&graph).await.unwrap();
}
