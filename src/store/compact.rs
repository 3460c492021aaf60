//! Whole-graph reads in FalkorDB's compact reply format, decoded here straight into JSON.
//! The typed client spent seconds decoding the 100,000-row replies of `provex diff` that
//! the server made in a tenth of that (docs/BENCHMARKS.md, "Issue 15: diff"); each read here
//! also gets a connection of its own, so that the reads of one diff run side by side
//! instead of queueing on one connection.

use redis::Value as Resp;
use serde_json::{Map, Number, Value};

use super::{Store, QUERY_TIMEOUT_MS};
use crate::error::{Error, Result};

/// The value types of the compact format (FalkorDB's `ValueType`).
mod kind {
    pub const NULL: i64 = 1;
    pub const STRING: i64 = 2;
    pub const INTEGER: i64 = 3;
    pub const BOOLEAN: i64 = 4;
    pub const DOUBLE: i64 = 5;
    pub const ARRAY: i64 = 6;
    pub const MAP: i64 = 10;
}

fn text(v: &Resp) -> Option<&str> {
    match v {
        Resp::BulkString(b) => std::str::from_utf8(b).ok(),
        Resp::SimpleString(s) => Some(s),
        Resp::VerbatimString { text, .. } => Some(text),
        _ => None,
    }
}

fn float(f: f64) -> Value {
    Number::from_f64(f).map(Value::Number).unwrap_or(Value::Null)
}

/// One compact value (`[type, value]`) as JSON: the same JSON the typed client's values give
/// through [`super::value::to_json`] for the scalars, lists and maps that properties hold.
/// Graph entities (nodes, edges, paths) are not read this way; they come back as text.
pub fn decode(v: &Resp) -> Value {
    let Resp::Array(pair) = v else { return Value::Null };
    let (Some(Resp::Int(t)), Some(x)) = (pair.first(), pair.get(1)) else {
        return Value::Null;
    };
    match *t {
        kind::NULL => Value::Null,
        kind::STRING => text(x).map(|s| Value::String(s.to_owned())).unwrap_or(Value::Null),
        kind::INTEGER => match x {
            Resp::Int(i) => Value::from(*i),
            other => text(other).and_then(|s| s.parse::<i64>().ok()).map(Value::from).unwrap_or(Value::Null),
        },
        kind::BOOLEAN => match x {
            Resp::Int(i) => Value::Bool(*i != 0),
            other => Value::Bool(text(other) == Some("true")),
        },
        kind::DOUBLE => match x {
            Resp::Double(f) => float(*f),
            other => text(other).and_then(|s| s.parse::<f64>().ok()).map(float).unwrap_or(Value::Null),
        },
        kind::ARRAY => match x {
            Resp::Array(items) => Value::Array(items.iter().map(decode).collect()),
            _ => Value::Array(Vec::new()),
        },
        kind::MAP => match x {
            Resp::Array(flat) => {
                let mut m = Map::new();
                for kv in flat.chunks(2) {
                    if let [k, v] = kv {
                        if let Some(k) = text(k) {
                            m.insert(k.to_owned(), decode(v));
                        }
                    }
                }
                Value::Object(m)
            }
            _ => Value::Object(Map::new()),
        },
        _ => text(x).map(|s| Value::String(s.to_owned())).unwrap_or_else(|| Value::String(format!("{x:?}"))),
    }
}

/// The integer of a compact value, if it is one.
pub fn int(v: &Resp) -> Option<i64> {
    match decode(v) {
        Value::Number(n) => n.as_i64(),
        _ => None,
    }
}

impl Store {
    /// Runs a read-only query on a connection of its own and returns its rows in the compact
    /// format, each column a `[type, value]` pair for [`decode`].
    pub(crate) async fn compact_ro(&self, graph: &str, cypher: &str) -> Result<Vec<Vec<Resp>>> {
        super::validate_graph_name(graph)?;
        let client = redis::Client::open(self.info_url.as_str())
            .map_err(|e| Error::Connection { url: self.url.clone(), reason: e.to_string() })?;
        let config = redis::AsyncConnectionConfig::new()
            .set_response_timeout(Some(std::time::Duration::from_millis(QUERY_TIMEOUT_MS as u64 + 5_000)));
        let mut con = client
            .get_multiplexed_async_connection_with_config(&config)
            .await
            .map_err(|e| Error::Connection { url: self.url.clone(), reason: e.to_string() })?;
        let reply: Resp = redis::cmd("GRAPH.RO_QUERY")
            .arg(graph)
            .arg(cypher)
            .arg("--compact")
            .arg("timeout")
            .arg(QUERY_TIMEOUT_MS)
            .query_async(&mut con)
            .await
            .map_err(|e| super::missing_graph(Error::Query(e.to_string()), graph))?;
        // [header, rows, statistics]
        let Resp::Array(mut parts) = reply else {
            return Err(Error::Query(format!("unexpected reply to a graph query: {reply:?}")));
        };
        if parts.len() < 3 {
            return Ok(Vec::new());
        }
        let Resp::Array(rows) = parts.swap_remove(1) else { return Ok(Vec::new()) };
        Ok(rows
            .into_iter()
            .map(|r| match r {
                Resp::Array(values) => values,
                other => vec![other],
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pair(t: i64, v: Resp) -> Resp {
        Resp::Array(vec![Resp::Int(t), v])
    }
    fn s(x: &str) -> Resp {
        Resp::BulkString(x.as_bytes().to_vec())
    }

    #[test]
    fn scalars_lists_and_maps_decode_as_the_typed_client_gives_them() {
        assert_eq!(decode(&pair(kind::NULL, Resp::Nil)), Value::Null);
        assert_eq!(decode(&pair(kind::STRING, s("a\"b"))), json!("a\"b"));
        assert_eq!(decode(&pair(kind::INTEGER, Resp::Int(-7))), json!(-7));
        assert_eq!(decode(&pair(kind::BOOLEAN, s("true"))), json!(true));
        assert_eq!(decode(&pair(kind::BOOLEAN, s("false"))), json!(false));
        assert_eq!(decode(&pair(kind::DOUBLE, s("0.5"))), json!(0.5));
        assert_eq!(decode(&pair(kind::DOUBLE, s("2"))), json!(2.0));
        assert_ne!(decode(&pair(kind::DOUBLE, s("2"))), json!(2), "a double stays a double");
        let list = pair(kind::ARRAY, Resp::Array(vec![pair(kind::INTEGER, Resp::Int(1)), pair(kind::STRING, s("x"))]));
        assert_eq!(decode(&list), json!([1, "x"]));
        let map = pair(
            kind::MAP,
            Resp::Array(vec![s("k"), pair(kind::INTEGER, Resp::Int(3)), s("l"), list.clone()]),
        );
        assert_eq!(decode(&map), json!({"k": 3, "l": [1, "x"]}));
        assert_eq!(int(&pair(kind::INTEGER, Resp::Int(42))), Some(42));
        assert_eq!(int(&pair(kind::STRING, s("42"))), None);
        assert_eq!(decode(&Resp::Nil), Value::Null);
    }
}
