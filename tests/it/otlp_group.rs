//! OTLP exports written together (group commit) into a real `provex serve` and FalkorDB:
//! many concurrent exports are all stored and all acknowledged, each with its own log leaf
//! of the body as it was sent; a write that fails fails every export waiting on it with a
//! 5xx, and none is acknowledged.

use std::collections::BTreeSet;
use std::sync::Arc;

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceResponse;
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message as _;
use provex::serve::ServeLimits;
use reqwest::StatusCode;

use crate::common;
use crate::otlp_http::{names, request, span, stored, trace};
use crate::serve::{client, serve_with};

/// The exports of this test: `n` requests of 20 spans, each of its own trace.
fn exports(first_trace: u8, n: u8) -> Vec<Vec<Span>> {
    (0..n)
        .map(|e| {
            let t = trace(first_trace.wrapping_add(e));
            (1..=20u8)
                .map(|i| span(t, i, if i == 1 { None } else { Some(1) }, &format!("s{i}"), "chat"))
                .collect()
        })
        .collect()
}

/// Posts every body at once; the statuses and answers, in order.
async fn post_all(url: &str, bodies: &[Vec<u8>], content_type: &'static str) -> Vec<(StatusCode, Vec<u8>)> {
    let tasks: Vec<_> = bodies
        .iter()
        .cloned()
        .map(|body| {
            let url = url.to_owned();
            tokio::spawn(async move {
                let r =
                    client().post(&url).header("content-type", content_type).body(body).send().await.unwrap();
                (r.status(), r.bytes().await.unwrap().to_vec())
            })
        })
        .collect();
    let mut out = Vec::new();
    for t in tasks {
        out.push(t.await.unwrap());
    }
    out
}

/// Finding: each export was written and made durable on its own (and re-encoded as a JSON
/// line first), so the receiver saturated at a few thousand spans/s. Concurrent exports now
/// share one write; each must still be stored, acknowledged, and logged as sent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn otlp_concurrent_exports_are_all_stored_acknowledged_and_logged_as_sent() {
    let (provex, graph) = common::open("otlp_group").await;
    let provex = Arc::new(provex);
    let limits = ServeLimits { otlp_max_exports: 32, ..Default::default() };
    let (_running, base) = serve_with(provex.clone(), None, limits).await;
    let url = format!("{base}/otlp/{graph}/v1/traces");
    let runs = exports(40, 24);
    // Half protobuf, half JSON: the leaf is of the body in the encoding it came in.
    let proto: Vec<Vec<u8>> = runs[..12].iter().map(|s| request(s.clone()).encode_to_vec()).collect();
    let json: Vec<Vec<u8>> = runs[12..]
        .iter()
        .map(|s| provex::sources::otel::wire::encode_json(&request(s.clone())).into_bytes())
        .collect();
    let before =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as u64;
    let (a, b) = tokio::join!(
        post_all(&url, &proto, "application/x-protobuf"),
        post_all(&url, &json, "application/json")
    );
    let after =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as u64;
    for (status, answer) in &a {
        assert_eq!(*status, StatusCode::OK);
        assert_eq!(ExportTraceServiceResponse::decode(&answer[..]).unwrap().partial_success, None);
    }
    for (status, answer) in &b {
        assert_eq!(*status, StatusCode::OK);
        assert_eq!(answer, b"{}");
    }
    let acked: BTreeSet<String> = runs.iter().flat_map(|s| names(s)).collect();
    assert_eq!(acked.len(), 24 * 20);
    assert_eq!(stored(&provex, &graph).await, acked, "every acknowledged span is stored");

    // One leaf per export, each the leaf of a body exactly as it was sent.
    let (size, _) = provex.log_head(&graph).await.unwrap();
    assert_eq!(size, 24, "one leaf per export");
    let source = format!("OTLP export to {graph}");
    let mut expected: BTreeSet<String> = BTreeSet::new();
    for body in proto.iter().chain(&json) {
        for ms in before..=after {
            expected.insert(provex::tlog::proof::encode_hash(&provex::tlog::leaf_hash(&source, ms, body)));
        }
    }
    let mut leaves = BTreeSet::new();
    for i in 0..size {
        let leaf = provex.log_prove(&graph, i).await.unwrap().leaf_hash;
        assert!(expected.contains(&leaf), "leaf {i} is not the hash of a body as sent");
        leaves.insert(leaf);
    }
    assert_eq!(leaves.len(), 24, "every export has a leaf of its own");
    // The spans name their export's leaf.
    let rows = provex
        .query(&graph, "MATCH (n) WHERE n.`otel:name` IS NOT NULL AND n.log_leaves IS NULL RETURN count(n)")
        .await
        .unwrap();
    assert_eq!(rows.rows[0][0].as_u64(), Some(0), "every span names its leaf");
    let _ = provex.delete_graph(&graph).await;
}

/// A write that fails fails every export waiting on it: each gets a 5xx, none a 200, and
/// none of their spans is stored.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn otlp_a_failed_group_write_fails_every_waiting_export() {
    let (provex, graph) = common::open("otlp_group_fail").await;
    let provex = Arc::new(provex);
    let (_running, base) = serve_with(provex.clone(), None, ServeLimits::default()).await;
    let url = format!("{base}/otlp/{graph}/v1/traces");
    // The graph's log is not a log: appending to it fails, before any node is written.
    let admin = redis::Client::open(common::admin_url()).unwrap();
    let mut con = admin.get_multiplexed_async_connection().await.unwrap();
    let key = format!("provex:log:{graph}");
    let _: () = redis::cmd("DEL").arg(&key).query_async(&mut con).await.unwrap();
    let _: () = redis::cmd("HSET").arg(&key).arg("not").arg("a log").query_async(&mut con).await.unwrap();
    let runs = exports(80, 16);
    let bodies: Vec<Vec<u8>> = runs.iter().map(|s| request(s.clone()).encode_to_vec()).collect();
    for (status, _) in post_all(&url, &bodies, "application/x-protobuf").await {
        assert!(status.is_server_error(), "{status}: no export is acknowledged");
    }
    assert!(stored(&provex, &graph).await.is_empty(), "nothing stored");
    // Once the log is whole again, the exporters' retries go through.
    let _: () = redis::cmd("DEL").arg(&key).query_async(&mut con).await.unwrap();
    for (status, _) in post_all(&url, &bodies, "application/x-protobuf").await {
        assert_eq!(status, StatusCode::OK);
    }
    let acked: BTreeSet<String> = runs.iter().flat_map(|s| names(s)).collect();
    assert_eq!(stored(&provex, &graph).await, acked);
    let _ = provex.delete_graph(&graph).await;
    let _: () = redis::cmd("DEL").arg(&key).query_async(&mut con).await.unwrap();
}

/// Finding: a trace's spans were found by scanning every node of the graph. Each span label
/// now has an index on `otel:trace_id`, and the trace view's subquery goes through them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn otlp_a_trace_s_spans_are_found_through_the_trace_id_index() {
    let (provex, graph) = common::open("otlp_trace_index").await;
    let spans = exports(120, 1).remove(0);
    assert_eq!(provex.export_spans(&graph, request(spans)).await.unwrap().accepted, 20);
    let rows = provex
        .query(&graph, "CALL db.indexes() YIELD label, properties RETURN label, properties")
        .await
        .unwrap();
    for label in provex::sources::otel::conventions::TRACE_LABELS {
        let indexed = rows.rows.iter().any(|r| {
            r[0].as_str() == Some(label.as_str())
                && r[1].as_array().is_some_and(|p| p.iter().any(|x| x.as_str() == Some("otel:trace_id")))
        });
        assert!(indexed, "{label} has no otel:trace_id index: {rows:?}");
    }
    let admin = redis::Client::open(common::admin_url()).unwrap();
    let mut con = admin.get_multiplexed_async_connection().await.unwrap();
    let q = format!(
        "CYPHER t='{}' {} WITH s RETURN s.name",
        crate::otlp_http::hex(&trace(120)),
        provex::sources::otel::conventions::trace_nodes("t")
    );
    let plan: Vec<String> =
        redis::cmd("GRAPH.EXPLAIN").arg(&graph).arg(&q).query_async(&mut con).await.unwrap();
    let plan = plan.join("\n");
    assert!(!plan.contains("All Node Scan") && !plan.contains("Label Scan"), "{plan}");
    assert_eq!(
        plan.matches("Node By Index Scan").count(),
        provex::sources::otel::conventions::TRACE_LABELS.len(),
        "{plan}"
    );
    let (_, found, _): (Vec<String>, Vec<Vec<String>>, Vec<String>) =
        redis::cmd("GRAPH.RO_QUERY").arg(&graph).arg(&q).query_async(&mut con).await.unwrap();
    assert_eq!(found.len(), 20, "{found:?}");
    let _ = provex.delete_graph(&graph).await;
}
