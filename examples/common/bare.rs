//! The baseline of the ingest benchmarks: a bare `UNWIND $rows … MERGE` of the rows an
//! ingest writes (built beforehand from its snapshot), with the same `name` indexes, 5,000
//! rows a query: nodes by label, then edges by type with labelled `MATCH`es.

use std::time::{Duration, Instant};

use provex::diff::Snapshot;
use serde_json::{json, Value};

/// A JSON value as a Cypher literal.
fn cypher(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\"")),
        Value::Array(a) => format!("[{}]", a.iter().map(cypher).collect::<Vec<_>>().join(",")),
        Value::Object(o) => {
            format!(
                "{{{}}}",
                o.iter().map(|(k, v)| format!("`{k}`:{}", cypher(v))).collect::<Vec<_>>().join(",")
            )
        }
    }
}

/// The same rows as the ingest writes, with bare `UNWIND … MERGE` queries.
pub fn bare_merge(url: &str, graph: &str, snap: &Snapshot) -> Duration {
    let client = redis::Client::open(url).unwrap();
    let mut con = client.get_connection().unwrap();
    let _: redis::RedisResult<()> = redis::cmd("GRAPH.DELETE").arg(graph).query(&mut con);
    let mut by_label: std::collections::BTreeMap<&str, Vec<Value>> = Default::default();
    for (k, props) in &snap.nodes {
        by_label.entry(&k.label).or_default().push(json!({"name": k.name, "props": props}));
    }
    let label_of: std::collections::HashMap<&str, &str> =
        snap.nodes.keys().map(|k| (k.name.as_str(), k.label.as_str())).collect();
    let mut by_type: std::collections::BTreeMap<(&str, &str, &str), Vec<Value>> = Default::default();
    for (k, props) in &snap.edges {
        by_type
            .entry((&k.rel, label_of[k.source.as_str()], label_of[k.target.as_str()]))
            .or_default()
            .push(json!({"s": k.source, "t": k.target, "props": props}));
    }
    for label in by_label.keys() {
        let _: redis::RedisResult<redis::Value> = redis::cmd("GRAPH.QUERY")
            .arg(graph)
            .arg(format!("CREATE INDEX FOR (n:`{label}`) ON (n.name)"))
            .query(&mut con);
    }
    let t = Instant::now();
    for (label, rows) in &by_label {
        for chunk in rows.chunks(5_000) {
            let q = format!(
                "CYPHER rows={} UNWIND $rows AS r MERGE (n:`{label}` {{name: r.name}}) SET n += r.props",
                cypher(&Value::Array(chunk.to_vec()))
            );
            let _: redis::Value = redis::cmd("GRAPH.QUERY").arg(graph).arg(q).query(&mut con).unwrap();
        }
    }
    for ((rel, source, target), rows) in &by_type {
        for chunk in rows.chunks(5_000) {
            let q = format!(
                "CYPHER rows={} UNWIND $rows AS r MATCH (a:`{source}` {{name: r.s}}) MATCH (b:`{target}` {{name: r.t}}) \
                 MERGE (a)-[e:`{rel}`]->(b) SET e += r.props",
                cypher(&Value::Array(chunk.to_vec()))
            );
            let _: redis::Value = redis::cmd("GRAPH.QUERY").arg(graph).arg(q).query(&mut con).unwrap();
        }
    }
    t.elapsed()
}
