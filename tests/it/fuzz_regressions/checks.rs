//! What each fuzz target asserts about one input, in one place: the cargo-fuzz targets in
//! fuzz/ include this file (`#[path]`), and the stable regression test feeds it every saved
//! input, so an input a fuzzer found fails the same way on stable.
#![allow(dead_code)] // each fuzz target uses one of the checks

use provex::ingest::{normalize_line, Format};
use provex::model::GraphDelta;
use provex::sources::statements::canonical::canonical_string;
use provex::sources::statements::parse_documents;
use serde_json::Value;

/// The A2A line parser: no panic; a rejected line has a reason.
pub fn a2a_line(data: &[u8]) {
    let mut delta = GraphDelta::default();
    if let Err(reason) = normalize_line(Format::A2a, data, &mut delta) {
        assert!(!reason.trim().is_empty(), "rejected without a reason");
    }
}

/// The A2AP document parser (the reader rejects invalid UTF-8 before it): no panic; every
/// rejected record has a reason and a line of the input.
pub fn a2ap_document(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let lines = text.split('\n').count();
    for (i, result) in parse_documents(text).into_iter().enumerate() {
        match result {
            Ok(record) => assert_eq!(record.position.index, i),
            Err(e) => {
                assert_eq!(e.position.index, i);
                assert!(!e.reason.trim().is_empty(), "rejected without a reason");
                assert!((1..=lines).contains(&e.position.line), "line {} of {lines}", e.position.line);
            }
        }
    }
}

/// The RFC 8785 canonicaliser, on any JSON text serde_json reads: no panic, the output is
/// JSON that canonicalises to itself, and it is what `serde_json_canonicalizer` writes.
pub fn canonical(data: &[u8]) {
    let Ok(value) = serde_json::from_slice::<Value>(data) else { return };
    let ours = canonical_string(&value);
    let again: Value = serde_json::from_str(&ours).expect("canonical output is JSON");
    assert_eq!(canonical_string(&again), ours, "not a fixed point");
    let theirs = serde_json_canonicalizer::to_string(&value).expect("reference canonicaliser");
    assert_eq!(ours, theirs, "disagrees with serde_json_canonicalizer");
}

/// The RESP reply reader of whole-graph reads: no panic on any bytes, and a reply it reads
/// as compact graph rows reads the same through the generic parser and the compact decoder.
pub fn resp_reply(data: &[u8]) {
    use provex::store::compact::decode;
    use provex::store::resp::{compact_rows, read_value, Value as Resp};
    let generic = read_value(&mut std::io::Cursor::new(data));
    let Ok(Ok(rows)) = compact_rows(&mut std::io::Cursor::new(data)) else { return };
    let Ok(Ok(Resp::Array(mut parts))) = generic else {
        panic!("compact rows read, but not the generic reply: {generic:?}");
    };
    if parts.len() < 3 {
        assert!(rows.is_empty());
        return;
    }
    let Resp::Array(generic_rows) = parts.swap_remove(1) else { panic!("rows are not an array") };
    let decoded: Vec<Vec<Value>> = generic_rows
        .into_iter()
        .map(|r| match r {
            Resp::Array(cols) => cols.into_iter().map(decode).collect(),
            other => panic!("a row is not an array: {other:?}"),
        })
        .collect();
    assert_eq!(decoded, rows);
}

/// What a PROV importer kept of `data` (UTF-8), once it is checked that a refusal of the
/// text, and every record it rejects, names a line of the text and a reason; `None` when the
/// text is not UTF-8 or is refused.
fn prov_kept(
    data: &[u8],
    import: fn(&str) -> Result<provex::sources::prov::import::Imported, (u64, String)>,
) -> Option<provex::sources::prov::import::Imported> {
    let text = std::str::from_utf8(data).ok()?;
    let lines = text.split('\n').count() as u64;
    let imported = match import(text) {
        Ok(i) => i,
        Err((line, reason)) => {
            assert!(!reason.trim().is_empty(), "refused without a reason");
            assert!((1..=lines).contains(&line), "line {line} of {lines}: {reason}");
            return None;
        }
    };
    for (line, reason) in &imported.rejected {
        assert!(!reason.trim().is_empty(), "rejected without a reason");
        assert!((1..=lines).contains(line), "line {line} of {lines}: {reason}");
    }
    Some(imported)
}

/// The PROV-JSON importer: no panic; a refused text and every rejected record name a line
/// of the input and a reason; and what it keeps is a fixed point: exported as PROV-JSON and
/// imported again, it gives the same graph.
pub fn prov_json(data: &[u8]) {
    use provex::diff::Snapshot;
    use provex::sources::prov::{import::import, Document, ProvFormat};
    let Some(imported) = prov_kept(data, import) else { return };
    let exported = ProvFormat::ProvJson.write(&Document::from_delta("g", &imported.delta));
    let again = import(&exported).unwrap_or_else(|e| panic!("our export is refused: {e:?}\n{exported}"));
    assert_eq!(again.rejected, vec![], "our export has rejected records:\n{exported}");
    assert_eq!(
        Snapshot::from_delta(&again.delta),
        Snapshot::from_delta(&imported.delta),
        "not a fixed point:\n{exported}"
    );
    for f in ProvFormat::ALL {
        let _ = f.write(&Document::from_delta("g", &imported.delta));
    }
}

/// The lineage reader (`lineage::parse_record` then `lineage::apply` against a book, as an
/// ingest does): no panic; a rejected record has the seed's code and a reason; what is kept
/// keeps the graph constraints (one root per lineage, parents earlier than children, no
/// cycle, every edge between prompts the delta holds); and reading the same lines again
/// accepts the same records and adds no evolution.
pub fn lineage(data: &[u8]) {
    use provex::model::GraphDelta;
    use provex::sources::lineage::{apply, parse_record, Applied, Book, Semantic};
    let Ok(text) = std::str::from_utf8(data) else { return };
    let mut book = Book::new();
    let mut delta = GraphDelta::default();
    let outcome = |book: &mut Book, delta: &mut GraphDelta| -> Vec<Option<&'static str>> {
        let mut codes = Vec::new();
        for line in text.lines() {
            let code = match parse_record(line) {
                Err(e) => Some(e.code.as_str()),
                Ok(r) => match apply(book, &r, &mut |_, _| Semantic::Unconfigured) {
                    Ok(Applied::Done(d, _)) => {
                        delta.extend(d);
                        None
                    }
                    Ok(Applied::Waiting(_)) => Some("waiting"),
                    Err(e) => Some(e.code.as_str()),
                },
            };
            if let Some(c) = code {
                assert!(["VALIDATION_ERROR", "INVALID_LINEAGE_RELATIONSHIP", "waiting"].contains(&c), "{c}");
            }
            codes.push(code);
        }
        codes
    };
    // Records that waited for a parent are read again until nothing changes, as an ingest
    // retries them when the parent arrives.
    let mut first = outcome(&mut book, &mut delta);
    for _ in 0..64 {
        let before = delta.edge_count();
        let next = outcome(&mut book, &mut delta);
        for (a, b) in first.iter().zip(&next) {
            if a.is_none() {
                assert_eq!(*b, None, "a record accepted once is refused when read again");
            }
        }
        let settled = delta.edge_count() == before && next == first;
        first = next;
        if settled {
            break;
        }
    }
    let edges = delta.edge_count();
    let mut roots: std::collections::HashMap<String, String> = Default::default();
    for n in delta.nodes() {
        if n.props.get("is_root").and_then(|v| v.to_json().as_bool()) == Some(true) {
            let lineage = n.props.get("lineage_id").and_then(|v| v.as_str()).unwrap_or_default().to_owned();
            if let Some(other) = roots.insert(lineage.clone(), n.name.clone()) {
                assert_eq!(other, n.name, "two roots in lineage {lineage}");
            }
        }
    }
    for e in delta.edges() {
        let (c, p) = (delta.node(&e.source), delta.node(&e.target));
        assert!(c.is_some() && p.is_some(), "an edge to a node the delta lacks: {e:?}");
        let ts = |n: Option<&provex::model::Node>| {
            n.and_then(|n| n.props.get("timestamp")).and_then(|v| v.as_str()).map(str::to_owned)
        };
        if e.target.label == provex::model::Label::Prompt {
            let (tc, tp) = (ts(c), ts(p));
            // RFC 3339 in UTC with four-digit years orders as text.
            let plain = |t: &str| t.len() == 25 && t.as_bytes()[..4].iter().all(u8::is_ascii_digit);
            if let (Some(tc), Some(tp)) = (tc, tp) {
                if plain(&tc) && plain(&tp) {
                    assert!(tc > tp, "child {tc} not after parent {tp}");
                }
            }
        }
    }
    let again = outcome(&mut book, &mut delta);
    for (a, b) in first.iter().zip(&again) {
        if a.is_none() {
            assert_eq!(*b, None, "a record accepted once is refused the second time");
        }
    }
    assert_eq!(delta.edge_count(), edges, "reading the same lines again added evolutions");
    assert_eq!(first, again, "reading the same lines again gives the same outcomes");
}

/// The TrustGraph reader (`trustgraph::StreamState::line`, as an ingest calls it, keeping
/// nothing of a refused line): no panic; a refused line has a reason; every edge joins nodes the delta holds;
/// further labels are only vocabulary names; the same lines give the same graph again.
pub fn trustgraph(data: &[u8]) {
    use provex::diff::Snapshot;
    use provex::model::vocab::{TgType, EXTRA_LABELS};
    use provex::model::{GraphDelta, PropValue};
    let Ok(text) = std::str::from_utf8(data) else { return };
    let read = || {
        let mut state = provex::sources::reasoning::StreamState::default();
        let mut delta = GraphDelta::default();
        for line in text.lines() {
            let Ok(v) = serde_json::from_str::<Value>(line) else { continue };
            let mut one = GraphDelta::default();
            match state.line(&v, &mut one) {
                Ok(()) => delta.extend(one),
                Err(reason) => {
                    assert!(!reason.trim().is_empty(), "refused without a reason");
                }
            }
        }
        delta
    };
    let delta = read();
    for e in delta.edges() {
        assert!(
            delta.node(&e.source).is_some() && delta.node(&e.target).is_some(),
            "an edge to a node the delta lacks: {e:?}"
        );
    }
    for n in delta.nodes() {
        if let Some(PropValue::List(items)) = n.props.get(EXTRA_LABELS) {
            for i in items {
                assert!(
                    i.as_str().and_then(TgType::parse).is_some(),
                    "a label outside the vocabulary: {i:?}"
                );
            }
        }
    }
    assert_eq!(Snapshot::from_delta(&read()), Snapshot::from_delta(&delta), "the same lines, another graph");
}

/// Seed 004's JSON-RPC bodies (`knowledge::rpc`), their update params, statement ids,
/// subscription documents and alignment rules: any bytes are answered without a panic, a
/// refusal always has a JSON-RPC code and a reason, and a statement's id is the same when its
/// JSON is read again.
pub fn knowledge(data: &[u8]) {
    use provex::sources::knowledge::{rpc, subscription};
    use provex::sources::knowledge::{Alignment, UpdateParams};

    let check_err = |e: &rpc::RpcError| {
        assert!(e.code <= -32000 && e.code >= -32768, "not a JSON-RPC code: {}", e.code);
        assert!(!e.message.trim().is_empty(), "a refusal without a reason");
        assert_eq!(e.to_json()["error"]["code"], e.code);
    };
    let requests = match rpc::parse(data) {
        rpc::Body::Invalid(e) => {
            check_err(&e);
            Vec::new()
        }
        rpc::Body::One(r) => vec![r],
        rpc::Body::Batch(rs) => {
            assert!(!rs.is_empty() && rs.len() <= rpc::MAX_BATCH);
            rs
        }
    };
    let rules =
        Alignment::parse("forbiddenPredicates: [ex:p]\nminCertainty: 0.5\njustificationRequired: true\n")
            .unwrap();
    for r in requests {
        let r = match r {
            Ok(r) => r,
            Err(e) => {
                check_err(&e);
                continue;
            }
        };
        let id = r.id.clone().unwrap_or(Value::Null);
        if let Ok(p) = rpc::params::<UpdateParams>(&id, &r.params) {
            for m in &p.mutations {
                if m.statement.check().is_ok() {
                    let again: provex::sources::knowledge::KgStatement =
                        serde_json::from_value(serde_json::to_value(&m.statement).unwrap()).unwrap();
                    assert_eq!(again.id(), m.statement.id(), "the id changed when read again");
                }
            }
            if let Some(v) = rules.check(&p) {
                assert!(!v.details.is_empty());
            }
        }
        if let Some(q) = r.params.get("subscriptionQuery").and_then(Value::as_str) {
            if let Err(reason) = subscription::filter(q, r.params.get("variables")) {
                assert!(!reason.is_empty());
            }
        }
    }
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = Alignment::parse(text);
        let _ = subscription::filter(text, None);
        // The query page's introspection check reads any GraphQL text.
        let _ = provex::graphql::introspection::is_bounded_introspection(text, None);
        let request = provex::graphql::GraphqlRequest { query: text.to_owned(), ..Default::default() };
        if provex::graphql::is_subscription(&request) {
            assert!(text.contains("subscription"), "a subscription without the word");
        }
    }
}

/// `ask`'s reading of a model's reply (`ask::parse_completion`, `cypher::extract`,
/// `check::{prepare, refusal}`, `cypher::limited`): no panic; what is extracted is trimmed and
/// non-empty; a refusal has a reason; taking comments out changes no verdict; what `prepare`
/// lets run passes the check again and preparing it again changes nothing (the row limit is
/// written in once); the lexer's spans are ordered, on character boundaries, and leave only
/// whitespace between them; extracting again from what was extracted changes nothing when it
/// had no fence.
pub fn ask(data: &[u8]) {
    use provex::ask::{check, cypher, parse_completion};
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Err(reason) = parse_completion(text) {
        assert!(!reason.is_empty());
    }
    if let Some(q) = cypher::extract(text) {
        assert!(!q.is_empty() && q.trim() == q, "{q:?}");
        let verdict = check::refusal(&q);
        if let Some(why) = &verdict {
            assert!(!why.is_empty());
        }
        assert_eq!(check::refusal(&check::strip_comments(&q)).is_some(), verdict.is_some(), "{q:?}");
        match check::prepare(&q) {
            Ok(run) => {
                assert_eq!(check::refusal(&run), None, "{q:?} -> {run:?}");
                assert_eq!(check::prepare(&run).as_deref(), Ok(run.as_str()), "{q:?}");
                assert_eq!(cypher::limited(&run), run, "{q:?}");
            }
            Err(why) => assert!(!why.is_empty() && verdict.is_some(), "{q:?}"),
        }
        let mut last = 0;
        for t in provex::ask::lexer::lex(&q) {
            assert!(t.start >= last && t.end > t.start && t.end <= q.len(), "{t:?}");
            assert!(q.is_char_boundary(t.start) && q.is_char_boundary(t.end));
            assert!(q[last..t.start].bytes().all(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r')), "{q:?}");
            last = t.end;
        }
        if !q.contains("```") {
            assert_eq!(cypher::extract(&q).as_deref(), Some(q.as_str()));
        }
    }
}

/// An audit bundle and a trust file (`provex verify BUNDLE --trust FILE`), on any UTF-8 text:
/// no panic; a text that is not a bundle is refused with a reason naming a line of it (when
/// it names one); a bundle read is `failed` exactly when it has a reason, never `pinned`
/// without a trust file, and its headline says its verdict; a refused trust file has a reason.
pub fn audit_bundle(data: &[u8]) {
    use provex::sources::statements::bundle::verify_with;
    use provex::sources::statements::trust::{TrustStatus, TrustedKeys};
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Err(reason) = TrustedKeys::from_text(text) {
        assert!(!reason.trim().is_empty(), "trust file refused without a reason");
    }
    let lines = text.split('\n').count();
    match verify_with(text, None) {
        Err(reason) => {
            assert!(!reason.trim().is_empty(), "refused without a reason");
            if let Some(rest) = reason.strip_prefix("line ") {
                let line: usize = rest.split(',').next().and_then(|n| n.parse().ok()).expect("a line number");
                assert!((1..=lines).contains(&line), "line {line} of {lines}: {reason}");
            }
        }
        Ok(check) => {
            assert_ne!(check.trust, TrustStatus::Pinned, "pinned without a trust file");
            assert_eq!(check.trust == TrustStatus::Failed, check.reason.is_some(), "{check:?}");
            assert_eq!(check.intact, check.findings.is_empty());
            let prefix = match check.trust {
                TrustStatus::Failed => "verification failed: ",
                _ => "signature valid, signer not pinned: ",
            };
            assert!(check.headline.starts_with(prefix), "{}", check.headline);
            for k in check.signer.iter().chain(&check.keys) {
                assert!(k.fingerprint.starts_with("SHA256:") && k.fingerprint.len() == 50, "{k:?}");
                assert_eq!(k.pinned, None);
            }
        }
    }
}

/// The verifier key of the saved `tlog_proof` inputs' signer (seed of 32 bytes of 7).
pub const TLOG_FUZZ_KEY: &str = "provex/fuzz+e004b49c+AepKbGPinFIKvvVQexMuxfmVR3auvr57kkIe6mkURtIs";

/// `tlog_proof`: any bytes as a signed checkpoint and as a proof file of the tamper-evident
/// log (`provex log verify FILE`); no panic; a refusal has a reason; a proof that holds
/// still holds after being written out and read again, and one that holds with the key
/// holds without it.
pub fn tlog_proof(data: &[u8]) {
    use provex::tlog::checkpoint;
    use provex::tlog::proof::{self, ProofFile};
    for key in [None, Some(TLOG_FUZZ_KEY)] {
        match checkpoint::open(data, key) {
            Err(e) => assert!(!e.to_string().trim().is_empty(), "checkpoint refused without a reason"),
            Ok(cp) => assert!(!cp.origin.is_empty(), "a checkpoint without an origin"),
        }
    }
    let parsed = match proof::parse(data) {
        Err(e) => {
            assert!(!e.to_string().trim().is_empty(), "proof refused without a reason");
            return;
        }
        Ok(p) => p,
    };
    match parsed {
        ProofFile::Inclusion(p) => {
            let signed = proof::verify_inclusion(&p, Some(TLOG_FUZZ_KEY));
            let unsigned = proof::verify_inclusion(&p, None);
            if let Err(e) = &unsigned {
                assert!(!e.to_string().trim().is_empty());
            }
            if signed.is_ok() {
                assert!(unsigned.is_ok(), "holds with the key but not without");
                let again = serde_json::to_vec(&p).unwrap();
                let Ok(ProofFile::Inclusion(back)) = proof::parse(&again) else { panic!("not read back") };
                assert!(proof::verify_inclusion(&back, Some(TLOG_FUZZ_KEY)).is_ok());
            }
        }
        ProofFile::Consistency(p) => {
            let signed = proof::verify_consistency(&p, Some(TLOG_FUZZ_KEY));
            let unsigned = proof::verify_consistency(&p, None);
            if let Err(e) = &unsigned {
                assert!(!e.to_string().trim().is_empty());
            }
            if let Ok((old, new)) = signed {
                assert!(unsigned.is_ok(), "holds with the key but not without");
                assert!(old.size <= new.size && old.origin == new.origin);
                let again = serde_json::to_vec(&p).unwrap();
                let Ok(ProofFile::Consistency(back)) = proof::parse(&again) else { panic!("not read back") };
                assert!(proof::verify_consistency(&back, Some(TLOG_FUZZ_KEY)).is_ok());
            }
        }
    }
}

/// Every span of a decoded OTLP request is either taken or refused with a reason.
fn otlp_request(r: &provex::sources::otel::ExportTraceServiceRequest) {
    let total: usize = r.resource_spans.iter().flat_map(|rs| &rs.scope_spans).map(|s| s.spans.len()).sum();
    let mut delta = GraphDelta::default();
    let counts = provex::sources::otel::normalise(r, &mut delta);
    assert_eq!(counts.accepted as usize + counts.rejected.len(), total, "a span neither taken nor refused");
    for rej in &counts.rejected {
        assert!(!rej.reason.trim().is_empty(), "span refused without a reason");
    }
}

/// The OTLP JSON decoder and the span normaliser: no panic; every span taken or refused
/// with a reason; a decoded request reads the same after encoding it again.
pub fn otlp_json(data: &[u8]) {
    use provex::sources::otel::wire::{decode_json, encode_json};
    if let Ok(r) = decode_json(data) {
        otlp_request(&r);
        assert_eq!(decode_json(encode_json(&r).as_bytes()).as_ref(), Ok(&r), "JSON round trip");
    }
}

/// The OTLP protobuf decoder and the span normaliser: no panic; every span taken or
/// refused with a reason; a decoded request reads the same after encoding it again.
pub fn otlp_protobuf(data: &[u8]) {
    use provex::sources::otel::wire::{decode_protobuf, encode_protobuf};
    if let Ok(r) = decode_protobuf(data) {
        otlp_request(&r);
        assert_eq!(decode_protobuf(&encode_protobuf(&r)).as_ref(), Ok(&r), "protobuf round trip");
    }
}

/// The PROV-O Turtle importer (`prov::turtle`): any text is read without panicking, what it
/// refuses or rejects names a line and a reason, and a Turtle export of what it kept
/// imports without rejections.
pub fn prov_o(data: &[u8]) {
    use provex::sources::prov::{turtle::import, Document, ProvFormat};
    let Some(imported) = prov_kept(data, import) else { return };
    let exported = ProvFormat::ProvOTurtle.write(&Document::from_delta("g", &imported.delta));
    let again = import(&exported).unwrap_or_else(|e| panic!("our export is refused: {e:?}\n{exported}"));
    assert_eq!(again.rejected, vec![], "our export has rejected records:\n{exported}");
}

/// The search-across-graphs query reader, on any UTF-8 text: no panic; a refusal names a
/// limit; what it gives the full-text index is only words (letters, digits, `_`), spaces and
/// the last word's `(w|w*)`, never the index's query syntax; the limits hold.
pub fn search_query(data: &[u8]) {
    use provex::search::query::{parse, MAX_QUERY_CHARS, MAX_WORDS, MAX_WORD_CHARS};
    let Ok(text) = std::str::from_utf8(data) else { return };
    match parse(text) {
        Err(e) => {
            let m = e.to_string();
            assert!(m.contains("characters") || m.contains("words"), "refused without a limit: {m}");
            assert!(text.chars().count() > MAX_QUERY_CHARS || m.contains("words"), "{m}");
        }
        Ok(q) => {
            assert!(text.chars().count() <= MAX_QUERY_CHARS);
            assert!(q.words.len() <= MAX_WORDS);
            for w in &q.words {
                assert!(!w.is_empty() && w.chars().count() <= MAX_WORD_CHARS * 4, "{w:?}");
                assert!(w.chars().all(|c| c.is_alphanumeric() || c == '_'), "{w:?}");
            }
            if let Some(ft) = q.fulltext() {
                let last = q.words.last().unwrap();
                let prefix = format!("({last}|{last}*)");
                let body = ft.strip_suffix(prefix.as_str()).unwrap_or(&ft);
                assert!(body.chars().all(|c| c.is_alphanumeric() || c == '_' || c == ' '), "{ft:?}");
            }
            if let Some(exact) = &q.exact {
                assert!(!exact.is_empty() && !exact.contains(char::is_whitespace));
            }
        }
    }
}
