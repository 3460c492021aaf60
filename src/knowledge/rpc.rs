//! JSON-RPC 2.0 framing (https://www.jsonrpc.org/specification): a body is one request or a
//! batch; each request is checked for `jsonrpc: "2.0"`, a string `method`, structured
//! `params` and a valid `id` (absent: a notification, which gets no response). Errors carry
//! JSON-RPC's own codes and the knowledge-graph extension's -32010 to -32013.

use serde_json::{json, Value};

pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;
pub const METHOD_NOT_FOUND: i64 = -32601;
pub const INVALID_PARAMS: i64 = -32602;
pub const INTERNAL_ERROR: i64 = -32603;
/// `KnowledgeQueryError`.
pub const QUERY_ERROR: i64 = -32010;
/// `KnowledgeUpdateError`.
pub const UPDATE_ERROR: i64 = -32011;
/// `KnowledgeSubscriptionError`.
pub const SUBSCRIPTION_ERROR: i64 = -32012;
/// `AlignmentViolationError`.
pub const ALIGNMENT_ERROR: i64 = -32013;

/// The most requests one batch may hold.
pub const MAX_BATCH: usize = 100;

/// A well-formed request.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// `None` for a notification.
    pub id: Option<Value>,
    pub method: String,
    /// An object, an array, or null when absent.
    pub params: Value,
}

/// A JSON-RPC error, with the id of the request it answers (null when unknown).
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    pub id: Value,
    pub code: i64,
    pub message: String,
    pub data: Option<Box<Value>>,
}

impl RpcError {
    pub fn new(id: Value, code: i64, message: impl Into<String>) -> Self {
        RpcError { id, code, message: message.into(), data: None }
    }

    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(Box::new(data));
        self
    }

    pub fn to_json(&self) -> Value {
        let mut error = json!({"code": self.code, "message": self.message});
        if let Some(d) = &self.data {
            error["data"] = (**d).clone();
        }
        json!({"jsonrpc": "2.0", "id": self.id, "error": error})
    }
}

/// A successful response.
pub fn result(id: &Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// What a body holds.
#[derive(Debug, Clone, PartialEq)]
pub enum Body {
    One(Result<Request, RpcError>),
    Batch(Vec<Result<Request, RpcError>>),
    /// Not JSON, or an empty batch, or a batch too long: one error answers it.
    Invalid(RpcError),
}

/// Parses a request body.
pub fn parse(body: &[u8]) -> Body {
    let value: Value = match serde_json::from_slice(body) {
        Ok(v) => v,
        Err(e) => return Body::Invalid(RpcError::new(Value::Null, PARSE_ERROR, format!("parse error: {e}"))),
    };
    match value {
        Value::Array(items) if items.is_empty() => {
            Body::Invalid(RpcError::new(Value::Null, INVALID_REQUEST, "invalid request: an empty batch"))
        }
        Value::Array(items) if items.len() > MAX_BATCH => Body::Invalid(RpcError::new(
            Value::Null,
            INVALID_REQUEST,
            format!("invalid request: a batch of {} requests (at most {MAX_BATCH})", items.len()),
        )),
        Value::Array(items) => Body::Batch(items.into_iter().map(request).collect()),
        other => Body::One(request(other)),
    }
}

/// Checks one request object.
pub fn request(value: Value) -> Result<Request, RpcError> {
    let Value::Object(mut map) = value else {
        return Err(RpcError::new(Value::Null, INVALID_REQUEST, "invalid request: not an object"));
    };
    // The id, when it is one a response may echo; else null.
    let id = match map.remove("id") {
        None => None,
        Some(v @ (Value::String(_) | Value::Number(_) | Value::Null)) => Some(v),
        Some(_) => {
            return Err(RpcError::new(
                Value::Null,
                INVALID_REQUEST,
                "invalid request: id must be a string, number or null",
            ))
        }
    };
    let echo = id.clone().unwrap_or(Value::Null);
    if map.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err(RpcError::new(echo, INVALID_REQUEST, "invalid request: jsonrpc must be \"2.0\""));
    }
    let method = match map.remove("method") {
        Some(Value::String(m)) => m,
        Some(_) => {
            return Err(RpcError::new(echo, INVALID_REQUEST, "invalid request: method must be a string"))
        }
        None => return Err(RpcError::new(echo, INVALID_REQUEST, "invalid request: no method")),
    };
    let params = match map.remove("params") {
        None => Value::Null,
        Some(p @ (Value::Object(_) | Value::Array(_))) => p,
        Some(_) => {
            return Err(RpcError::new(
                echo,
                INVALID_REQUEST,
                "invalid request: params must be an object or an array",
            ))
        }
    };
    Ok(Request { id, method, params })
}

/// The methods this service answers.
pub const METHODS: &[&str] = &["knowledge/query", "knowledge/update", "knowledge/subscribe"];

/// -32601 for a method not in [`METHODS`].
pub fn unknown_method(id: Value, method: &str) -> RpcError {
    RpcError::new(
        id,
        METHOD_NOT_FOUND,
        format!("method not found: {method} (this server answers {})", METHODS.join(", ")),
    )
}

/// The params as an object of type `T`, or -32602 saying what is wrong.
pub fn params<T: serde::de::DeserializeOwned>(id: &Value, params: &Value) -> Result<T, RpcError> {
    if !params.is_object() {
        return Err(RpcError::new(id.clone(), INVALID_PARAMS, "invalid params: params must be an object"));
    }
    serde_json::from_value(params.clone())
        .map_err(|e| RpcError::new(id.clone(), INVALID_PARAMS, format!("invalid params: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(b: &[u8]) -> i64 {
        match parse(b) {
            Body::Invalid(e) | Body::One(Err(e)) => e.code,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_specs_invalid_bodies() {
        assert_eq!(code(br#"{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]"#), PARSE_ERROR);
        assert_eq!(code(br#"{"jsonrpc": "2.0", "method": 1, "params": "bar"}"#), INVALID_REQUEST);
        assert_eq!(code(b"[]"), INVALID_REQUEST);
        assert_eq!(code(br#"{"method": "knowledge/query", "id": 1}"#), INVALID_REQUEST);
        assert_eq!(code(br#"{"jsonrpc": "2.0", "method": "m", "params": 3, "id": 1}"#), INVALID_REQUEST);
        assert_eq!(code(br#"{"jsonrpc": "2.0", "method": "m", "id": {"a": 1}}"#), INVALID_REQUEST);
        match parse(br#"[1, 2, 3]"#) {
            Body::Batch(items) => {
                assert!(items.iter().all(|r| r.as_ref().is_err_and(|e| e.code == INVALID_REQUEST)))
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn notifications_and_ids() {
        let Body::One(Ok(r)) = parse(br#"{"jsonrpc": "2.0", "method": "knowledge/query", "params": {}}"#)
        else {
            panic!()
        };
        assert_eq!(r.id, None);
        let Body::One(Ok(r)) = parse(br#"{"jsonrpc": "2.0", "method": "m", "id": "abc"}"#) else { panic!() };
        assert_eq!(r.id, Some(json!("abc")));
        let Body::One(Err(e)) = parse(br#"{"jsonrpc": "1.0", "method": "m", "id": 7}"#) else { panic!() };
        assert_eq!(e.id, json!(7), "the id is echoed when it can be read");
    }
}
