//! The OTLP receiver's benchmark (docs/BENCHMARKS.md, "OpenTelemetry traces"): `provex serve`
//! on a private FalkorDB, EXPORTERS concurrent OTLP/HTTP exporters (protobuf, as the SDKs'
//! batch processors send) each posting batches of BATCH spans at a pace that totals RATE
//! spans/s, for SECONDS. Prints spans/s achieved, the time to each 200 (p50, p99, max),
//! the 429s, and checks that every acknowledged span is stored; then where the receiver's
//! time went, phase by phase (`sources::otel::timings`).
//!
//! `cargo run --release --example bench_otlp -- [RATE] [EXPORTERS] [BATCH] [SECONDS]`
//! (default 20000 8 100 20).
//!
//! `bench_otlp group [GROUPS] [EXPORTS] [BATCH] [ROUNDS]` (default 4 8 100 3) times the
//! receiver's group write alone: GROUPS groups of EXPORTS batches, normalised, each written
//! into a fresh graph by the store (rows by property-name set, property by property), and
//! the same rows as maps (`SET n += r.props`, the form before), alternated round by round.

use std::sync::Arc;
use std::time::{Duration, Instant};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use opentelemetry_proto::tonic::common::v1::{any_value, AnyValue, KeyValue};
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans, Span};
use prost::Message as _;
use provex::facade::{ConnectOptions, Provex};
use provex::serve::{ServeLimits, ServeOptions};
use provex::store::server::{PrivateServer, ServerOptions};

const TOKEN: &str = "bench-otlp-token-0123456789abcdef";

fn attr(key: &str, value: &str) -> KeyValue {
    KeyValue {
        key: key.into(),
        value: Some(AnyValue { value: Some(any_value::Value::StringValue(value.into())) }),
        ..Default::default()
    }
}

/// Batch `b` of exporter `e`: one trace, an agent invocation and its calls.
fn batch(e: usize, b: usize, n: usize) -> ExportTraceServiceRequest {
    // Never all zero (an invalid trace id, which would be rejected).
    let mut trace = [0u8; 16];
    trace[..8].copy_from_slice(&(e as u64 | 0xbe << 56).to_be_bytes());
    trace[8..].copy_from_slice(&(b as u64).to_be_bytes());
    let spans = (0..n)
        .map(|i| {
            let op = match i {
                0 => "invoke_agent",
                i if i % 3 == 0 => "execute_tool",
                _ => "chat",
            };
            Span {
                trace_id: trace.to_vec(),
                span_id: (i as u64 + 1).to_be_bytes().to_vec(),
                parent_span_id: if i == 0 { Vec::new() } else { 1u64.to_be_bytes().to_vec() },
                name: format!("{op} {i}"),
                kind: 1,
                start_time_unix_nano: 1_700_000_000_000_000_000 + i as u64 * 1_000_000,
                end_time_unix_nano: 1_700_000_000_000_000_000 + i as u64 * 1_000_000 + 500_000,
                attributes: vec![
                    attr("gen_ai.operation.name", op),
                    attr("gen_ai.agent.name", &format!("agent-{e}")),
                    attr("gen_ai.request.model", "gpt-4o"),
                    attr("gen_ai.provider.name", "openai"),
                ],
                ..Default::default()
            }
        })
        .collect();
    ExportTraceServiceRequest {
        resource_spans: vec![ResourceSpans {
            resource: Some(Resource {
                attributes: vec![attr("service.name", &format!("bench-{e}"))],
                ..Default::default()
            }),
            scope_spans: vec![ScopeSpans { spans, ..Default::default() }],
            ..Default::default()
        }],
    }
}

fn pct(v: &[f64], p: f64) -> f64 {
    v[((v.len() as f64 - 1.0) * p).round() as usize]
}

#[tokio::main]
async fn main() {
    if std::env::args().nth(1).as_deref() == Some("group") {
        let args: Vec<usize> = std::env::args().skip(2).map(|a| a.parse().expect("a number")).collect();
        let arg = |i: usize, d: usize| args.get(i).copied().unwrap_or(d);
        return group::bench(arg(0, 4), arg(1, 8), arg(2, 100), arg(3, 3)).await;
    }
    let args: Vec<usize> = std::env::args().skip(1).map(|a| a.parse().expect("a number")).collect();
    let rate = args.first().copied().unwrap_or(20_000);
    let exporters = args.get(1).copied().unwrap_or(8);
    let size = args.get(2).copied().unwrap_or(100);
    let seconds = args.get(3).copied().unwrap_or(20);
    provex::sources::otel::timings::enable();
    let dir = tempfile::tempdir().unwrap();
    let server =
        PrivateServer::start(&ServerOptions { data_dir: dir.path().to_owned(), persist: false, port: None })
            .unwrap();
    let provex =
        Arc::new(Provex::open(ConnectOptions { url: Some(server.url()), server: None }).await.unwrap());
    let opts = ServeOptions {
        bind: "127.0.0.1:0".parse().unwrap(),
        token: Some(TOKEN.into()),
        token_dir: None,
        ui: Some(dir.path().join("no-ui")),
        open: false,
        allow_dirs: Vec::new(),
        limits: ServeLimits::default(),
    };
    let running = provex::serve::start(provex.clone(), opts).await.unwrap();
    let url = format!("http://{}/otlp/bench/v1/traces", running.addr);
    let per_exporter = rate as f64 / exporters as f64 / size as f64; // batches/s each
    let batches = (per_exporter * seconds as f64).ceil() as usize;
    eprintln!(
        "{exporters} exporters × {batches} batches of {size} spans, {rate} spans/s in all, {seconds} s"
    );
    let start = Instant::now();
    let mut tasks = Vec::new();
    for e in 0..exporters {
        let url = url.clone();
        tasks.push(tokio::spawn(async move {
            let client = reqwest::Client::new();
            let mut times = Vec::new();
            let (mut acked, mut throttled) = (0u64, 0u64);
            let interval = Duration::from_secs_f64(1.0 / per_exporter);
            let offset = interval.mul_f64(e as f64 / exporters as f64);
            for b in 0..batches {
                let due = start + offset + interval.mul_f64(b as f64);
                tokio::time::sleep_until(due.into()).await;
                let body = batch(e, b, size).encode_to_vec();
                loop {
                    let t = Instant::now();
                    let r = client
                        .post(&url)
                        .header("authorization", format!("Bearer {TOKEN}"))
                        .header("content-type", "application/x-protobuf")
                        .body(body.clone())
                        .send()
                        .await
                        .unwrap();
                    let status = r.status().as_u16();
                    let answer = r.bytes().await.unwrap();
                    if status == 200 {
                        let res = ExportTraceServiceResponse::decode(answer).unwrap();
                        assert_eq!(res.partial_success, None, "no span rejected");
                        times.push(t.elapsed().as_secs_f64() * 1000.0);
                        acked += size as u64;
                        break;
                    }
                    assert!(status == 429 || status == 503, "status {status}");
                    throttled += 1;
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            }
            (times, acked, throttled)
        }));
    }
    let (mut times, mut acked, mut throttled) = (Vec::new(), 0u64, 0u64);
    for t in tasks {
        let (ts, a, th) = t.await.unwrap();
        times.extend(ts);
        acked += a;
        throttled += th;
    }
    let took = start.elapsed().as_secs_f64();
    times.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let rows =
        provex.query("bench", "MATCH (n) WHERE n.`otel:name` IS NOT NULL RETURN count(n)").await.unwrap();
    let stored = rows.rows[0][0].as_u64().unwrap_or(0);
    println!(
        "spans acknowledged {acked} in {took:.1} s: {:.0} spans/s; time to 200 p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms; \
         429/503 {throttled}; spans stored {stored}",
        acked as f64 / took,
        pct(&times, 0.5),
        pct(&times, 0.99),
        times.last().copied().unwrap_or(0.0)
    );
    println!(
        "{:22} {:>7} {:>9} {:>9} {:>9} {:>9}",
        "phase", "count", "p50 ms", "p99 ms", "max ms", "mean ms"
    );
    for t in provex::sources::otel::timings::summary() {
        println!(
            "{:22} {:>7} {:>9.2} {:>9.2} {:>9.2} {:>9.2}",
            t.phase.name(),
            t.count,
            t.p50_ms,
            t.p99_ms,
            t.max_ms,
            t.mean_ms
        );
    }
    assert_eq!(stored, acked, "every acknowledged span stored");
    running.stop().await;
}

/// The group write alone, in both forms.
mod group {
    use std::time::Instant;

    use falkordb::FalkorValue;
    use provex::model::vocab::{Label, PROV_BASE_TYPE, PROV_TYPE};
    use provex::model::GraphDelta;
    use provex::store::server::{PrivateServer, ServerOptions};
    use provex::store::value::{props_param, str_param};
    use provex::store::Store;

    fn map(entries: Vec<(&str, FalkorValue)>) -> FalkorValue {
        FalkorValue::Map(entries.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
    }

    fn query(rows: Vec<FalkorValue>, cypher: &str) -> String {
        format!("CYPHER rows={} {cypher}", falkordb::to_cypher_param(&FalkorValue::Array(rows)).unwrap())
    }

    /// The delta's upserts with a map of properties per row: one query per label and per
    /// edge group.
    fn as_maps(d: &GraphDelta) -> Vec<String> {
        let mut nodes: std::collections::BTreeMap<Label, Vec<FalkorValue>> = Default::default();
        for n in d.nodes() {
            let mut props = n.props.clone();
            if n.label != Label::Explain {
                props.insert(PROV_TYPE.into(), n.label.prov_type().into());
                props.insert(PROV_BASE_TYPE.into(), n.label.base_type().as_str().into());
            }
            props.insert("name".into(), n.name.as_str().into());
            let row = map(vec![("name", str_param(&n.name)), ("props", props_param(&props))]);
            nodes.entry(n.label).or_default().push(row);
        }
        let mut out: Vec<String> = nodes
            .into_iter()
            .map(|(l, rows)| {
                query(rows, &format!("UNWIND $rows AS r MERGE (n:`{l}` {{name: r.name}}) SET n += r.props"))
            })
            .collect();
        let mut edges: std::collections::BTreeMap<String, Vec<FalkorValue>> = Default::default();
        for e in d.edges() {
            let mut props = e.props.clone();
            let key = match e.kind.key() {
                Some((k, v)) => {
                    props.insert(k.into(), v.into());
                    format!(" {{`{k}`: '{v}'}}")
                }
                None => String::new(),
            };
            let q = format!(
                "UNWIND $rows AS r MATCH (a:`{}` {{name: r.s}}) MATCH (b:`{}` {{name: r.t}}) \
                 MERGE (a)-[e:`{}`{key}]->(b) SET e += r.props",
                e.source.label, e.target.label, e.rel
            );
            let row = map(vec![
                ("s", str_param(&e.source.name)),
                ("t", str_param(&e.target.name)),
                ("props", props_param(&props)),
            ]);
            edges.entry(q).or_default().push(row);
        }
        out.extend(edges.into_iter().map(|(q, rows)| query(rows, &q)));
        out
    }

    fn median(v: &mut [f64]) -> f64 {
        v.sort_by(|a, b| a.partial_cmp(b).unwrap());
        v[v.len() / 2]
    }

    pub async fn bench(groups: usize, exports: usize, size: usize, rounds: usize) {
        let dir = tempfile::tempdir().unwrap();
        let opts = ServerOptions { data_dir: dir.path().to_owned(), persist: false, port: None };
        let server = PrivateServer::start(&opts).unwrap();
        let store = Store::connect(&server.url()).await.unwrap();
        let mut con =
            redis::Client::open(server.url()).unwrap().get_multiplexed_async_connection().await.unwrap();
        let deltas: Vec<GraphDelta> = (0..groups)
            .map(|g| {
                let mut d = GraphDelta::new();
                for e in 0..exports {
                    provex::sources::otel::normalise(&super::batch(e, g, size), &mut d);
                }
                d
            })
            .collect();
        let (nodes, edges) = (deltas[0].nodes().count(), deltas[0].edges().count());
        println!(
            "{groups} groups of {exports} × {size} spans: {nodes} node rows and {edges} edge rows a group"
        );
        let (mut columns, mut maps) = (Vec::new(), Vec::new());
        for round in 0..rounds {
            for form in ["maps", "columns"] {
                let graph = format!("group_{form}_{round}");
                store.ensure_indexes(&graph).await.unwrap();
                for d in &deltas {
                    let t = Instant::now();
                    if form == "columns" {
                        store.write_unsynced(&graph, d).await.unwrap();
                        columns.push(t.elapsed().as_secs_f64() * 1000.0);
                    } else {
                        let mut pipe = redis::pipe();
                        for q in as_maps(d) {
                            pipe.cmd("GRAPH.QUERY").arg(&graph).arg(q).arg("timeout").arg(10_000);
                        }
                        let _: Vec<redis::Value> = pipe.query_async(&mut con).await.unwrap();
                        maps.push(t.elapsed().as_secs_f64() * 1000.0);
                    }
                }
                let mut stored = Vec::new();
                for q in ["MATCH (n) RETURN count(n)", "MATCH ()-[e]->() RETURN count(e)"] {
                    stored.push(store.query(&graph, q).await.unwrap().rows[0][0].as_u64().unwrap());
                }
                println!("round {round} {form:8} nodes {} edges {}", stored[0], stored[1]);
            }
        }
        println!(
            "group write, ms per group (median of {}): maps {:.1}, property by property {:.1}",
            maps.len(),
            median(&mut maps),
            median(&mut columns)
        );
    }
}
