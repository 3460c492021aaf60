//! OTLP trace requests from bytes (docs/FORMATS.md "OpenTelemetry traces"): protobuf with
//! prost, and OTLP's JSON mapping (hex trace and span ids, integer enums, lowerCamelCase
//! keys, 64-bit integers as strings or numbers, unknown fields ignored) through
//! opentelemetry-proto's serde derives. An `ExportTraceServiceRequest` and a `TracesData`
//! document have the same JSON form (`resourceSpans`), so both read here.
//!
//! Bounds: a body is at most [`MAX_BYTES`]; nesting is bounded by serde_json's recursion
//! limit (128) and prost's (100); values are turned into JSON no deeper than [`MAX_DEPTH`].

use std::borrow::Cow;

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{any_value::Value as Any, AnyValue, KeyValue};
use prost::Message as _;
use serde_json::{Map, Value};

/// The largest request decoded (bytes).
pub const MAX_BYTES: usize = 64 << 20;
/// How deep an attribute value (arrays and maps within each other) is turned into JSON;
/// deeper parts are kept as the text `"…"`.
pub const MAX_DEPTH: usize = 32;

/// Why bytes are not an OTLP trace request.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WireError {
    #[error("the request is {0} bytes, more than the {MAX_BYTES} taken")]
    TooLarge(usize),
    #[error("not an OTLP protobuf trace request: {0}")]
    Protobuf(String),
    #[error("not an OTLP JSON trace request: {0}")]
    Json(String),
}

/// Decodes a protobuf `ExportTraceServiceRequest` (or `TracesData`: the same field 1).
pub fn decode_protobuf(bytes: &[u8]) -> Result<ExportTraceServiceRequest, WireError> {
    if bytes.len() > MAX_BYTES {
        return Err(WireError::TooLarge(bytes.len()));
    }
    ExportTraceServiceRequest::decode(bytes).map_err(|e| WireError::Protobuf(e.to_string()))
}

/// Decodes an OTLP JSON `ExportTraceServiceRequest` or `TracesData` document.
pub fn decode_json(bytes: &[u8]) -> Result<ExportTraceServiceRequest, WireError> {
    if bytes.len() > MAX_BYTES {
        return Err(WireError::TooLarge(bytes.len()));
    }
    // OTLP JSON may omit any field, the request's one too (an empty export is `{}`); the
    // generated request type requires it, the types below it default theirs.
    #[derive(serde::Deserialize)]
    struct Document {
        #[serde(default, rename = "resourceSpans")]
        resource_spans: Vec<opentelemetry_proto::tonic::trace::v1::ResourceSpans>,
    }
    if bytes.trim_ascii_start().first() != Some(&b'{') {
        return Err(WireError::Json("an OTLP JSON document is an object (column 1)".into()));
    }
    let doc: Document = serde_json::from_slice(bytes).map_err(|e| {
        let msg = e.to_string();
        WireError::Json(
            msg.split(" at line ").next().unwrap_or(&msg).to_owned() + &format!(" (column {})", e.column()),
        )
    })?;
    Ok(ExportTraceServiceRequest { resource_spans: doc.resource_spans })
}

/// The request in OTLP JSON (one line).
pub fn encode_json(request: &ExportTraceServiceRequest) -> String {
    serde_json::to_string(request).unwrap_or_default()
}

/// The request in protobuf.
pub fn encode_protobuf(request: &ExportTraceServiceRequest) -> Vec<u8> {
    request.encode_to_vec()
}

/// Lower-case hex of an id.
pub fn hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 2);
    push_hex(&mut s, bytes);
    s
}

/// The two lower-case hex digits of each byte.
const HEX_PAIRS: [[u8; 2]; 256] = {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut pairs = [[0u8; 2]; 256];
    let mut i = 0;
    while i < 256 {
        pairs[i] = [DIGITS[i >> 4], DIGITS[i & 15]];
        i += 1;
    }
    pairs
};

/// Appends the lower-case hex of `bytes` to `out`.
pub fn push_hex(out: &mut String, bytes: &[u8]) {
    out.reserve(bytes.len() * 2);
    // Written a block at a time (an id or a digest is one block), not a char at a time, each
    // byte's two digits at once.
    let mut buf = [0u8; 128];
    for chunk in bytes.chunks(64) {
        for (pair, b) in buf.chunks_exact_mut(2).zip(chunk) {
            pair.copy_from_slice(&HEX_PAIRS[*b as usize]);
        }
        // Hex digits are ASCII, so this never fails.
        out.push_str(std::str::from_utf8(&buf[..2 * chunk.len()]).unwrap_or_default());
    }
}

/// An attribute value as JSON: arrays and maps as such (bytes as lower-case hex), no deeper
/// than [`MAX_DEPTH`].
pub fn to_json(value: Option<&AnyValue>) -> Value {
    to_json_at(value, 0)
}

fn to_json_at(value: Option<&AnyValue>, depth: usize) -> Value {
    let Some(v) = value.and_then(|v| v.value.as_ref()) else { return Value::Null };
    if depth >= MAX_DEPTH {
        return Value::String("…".into());
    }
    match v {
        Any::StringValue(s) => Value::String(s.clone()),
        Any::BoolValue(b) => Value::Bool(*b),
        Any::IntValue(i) => Value::from(*i),
        Any::DoubleValue(d) => serde_json::Number::from_f64(*d).map_or(Value::Null, Value::Number),
        Any::BytesValue(b) => Value::String(hex(b)),
        Any::ArrayValue(a) => Value::Array(a.values.iter().map(|x| to_json_at(Some(x), depth + 1)).collect()),
        Any::KvlistValue(kv) => Value::Object(map_at(&kv.values, depth + 1)),
        // An index into a profile's string table: not used by traces.
        Any::StringValueStrindex(i) => Value::from(*i),
    }
}

/// Attributes as a JSON object (a later duplicate key wins).
pub fn attributes_json(attributes: &[KeyValue]) -> Map<String, Value> {
    map_at(attributes, 0)
}

fn map_at(attributes: &[KeyValue], depth: usize) -> Map<String, Value> {
    attributes.iter().map(|kv| (kv.key.clone(), to_json_at(kv.value.as_ref(), depth))).collect()
}

/// The string value of attribute `key`, if it is a string.
pub fn attr_str<'a>(attributes: &'a [KeyValue], key: &str) -> Option<&'a str> {
    attributes.iter().rev().find(|kv| kv.key == key).and_then(|kv| {
        match kv.value.as_ref()?.value.as_ref()? {
            Any::StringValue(s) => Some(s.as_str()),
            _ => None,
        }
    })
}

/// The value of attribute `key` as text: strings as they are (borrowed), numbers and
/// booleans printed.
pub fn attr_text<'a>(attributes: &'a [KeyValue], key: &str) -> Option<Cow<'a, str>> {
    let kv = attributes.iter().rev().find(|kv| kv.key == key)?;
    match kv.value.as_ref()?.value.as_ref()? {
        Any::StringValue(s) => Some(Cow::Borrowed(s)),
        Any::IntValue(i) => Some(Cow::Owned(i.to_string())),
        Any::DoubleValue(d) => Some(Cow::Owned(d.to_string())),
        Any::BoolValue(b) => Some(Cow::Owned(b.to_string())),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const REQUEST: &str = r#"{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"svc"}}]},
      "scopeSpans":[{"scope":{"name":"s"},"spans":[{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b174",
      "parentSpanId":"","name":"chat","kind":3,"startTimeUnixNano":"1544712660000000000","endTimeUnixNano":1544712661000000000,
      "attributes":[{"key":"n","value":{"intValue":"42"}},{"key":"m","value":{"intValue":7}},
      {"key":"a","value":{"arrayValue":{"values":[{"stringValue":"x"}]}}},
      {"key":"k","value":{"kvlistValue":{"values":[{"key":"x","value":{"boolValue":true}}]}}}],
      "status":{"code":2,"message":"boom"},"futureField":{"ignored":true}}]}]}]}"#;

    #[test]
    fn otlp_json_may_omit_every_field_the_request_s_too() {
        assert!(decode_json(b"{}").unwrap().resource_spans.is_empty());
        let r = decode_json(br#"{"resourceSpans":[{"scopeSpans":[{}]}]}"#).unwrap();
        assert!(r.resource_spans[0].scope_spans[0].spans.is_empty());
        assert!(decode_json(b"[]").is_err());
    }

    #[test]
    fn otlp_json_reads_hex_ids_string_and_number_integers_and_ignores_unknown_fields() {
        let r = decode_json(REQUEST.as_bytes()).unwrap();
        let span = &r.resource_spans[0].scope_spans[0].spans[0];
        assert_eq!(hex(&span.trace_id), "5b8efff798038103d269b633813fc60c");
        assert_eq!(hex(&span.span_id), "eee19b7ec3c1b174");
        assert!(span.parent_span_id.is_empty());
        assert_eq!(span.kind, 3);
        assert_eq!(span.start_time_unix_nano, 1_544_712_660_000_000_000);
        assert_eq!(span.end_time_unix_nano, 1_544_712_661_000_000_000);
        let attrs = attributes_json(&span.attributes);
        assert_eq!(attrs["n"], 42);
        assert_eq!(attrs["m"], 7);
        assert_eq!(attrs["a"], serde_json::json!(["x"]));
        assert_eq!(attrs["k"], serde_json::json!({"x": true}));
        assert_eq!(span.status.as_ref().unwrap().code, 2);
    }

    #[test]
    fn protobuf_and_json_round_trip() {
        let r = decode_json(REQUEST.as_bytes()).unwrap();
        assert_eq!(decode_protobuf(&encode_protobuf(&r)).unwrap(), r);
        assert_eq!(decode_json(encode_json(&r).as_bytes()).unwrap(), r);
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let mut s =
            String::from(r#"{"resourceSpans":[{"scopeSpans":[{"spans":[{"attributes":[{"key":"d","value":"#);
        for _ in 0..5000 {
            s.push_str(r#"{"arrayValue":{"values":["#);
        }
        assert!(decode_json(s.as_bytes()).is_err());
        let mut p = Vec::new();
        for _ in 0..5000 {
            p.splice(0..0, [0x0a, 0x00]);
        }
        assert!(decode_protobuf(&[0x0a, 0x80, 0x80, 0x80, 0x80, 0x0f]).is_err());
    }

    #[test]
    fn hex_is_lower_case_and_two_digits_a_byte_at_any_length() {
        let bytes: Vec<u8> = (0..=255u8).chain(0..=255u8).collect();
        let want: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hex(&bytes), want);
        assert_eq!(hex(&[]), "");
        let mut s = String::from("otel:");
        push_hex(&mut s, &[0xab, 0x01]);
        assert_eq!(s, "otel:ab01");
    }

    #[test]
    fn bad_hex_ids_are_refused() {
        let bad = REQUEST.replace("eee19b7ec3c1b174", "zz");
        assert!(matches!(decode_json(bad.as_bytes()), Err(WireError::Json(_))));
    }
}
