//! Conversions between FalkorDB values and the model's properties and JSON output.

use std::collections::{BTreeMap, HashMap};

use falkordb::FalkorValue;
use serde_json::{json, Value};

use crate::model::{PropValue, Props};

/// A property value as a query parameter.
pub fn prop_param(v: &PropValue) -> FalkorValue {
    match v {
        PropValue::Bool(b) => FalkorValue::Bool(*b),
        PropValue::Int(i) => FalkorValue::I64(*i),
        PropValue::Float(f) if f.is_finite() => FalkorValue::F64(*f),
        PropValue::Float(f) => FalkorValue::String(f.to_string()),
        PropValue::Str(s) => FalkorValue::String(s.clone()),
        PropValue::List(items) => FalkorValue::Array(items.iter().map(prop_param).collect()),
    }
}

/// Properties as a map parameter.
pub fn props_param(props: &Props) -> FalkorValue {
    FalkorValue::Map(props.iter().map(|(k, v)| (k.to_string(), prop_param(v))).collect())
}

pub fn str_param(s: &str) -> FalkorValue {
    FalkorValue::String(s.to_owned())
}

/// Any value FalkorDB returns, as JSON for output.
pub fn to_json(v: &FalkorValue) -> Value {
    match v {
        FalkorValue::Node(n) => json!({
            "id": n.entity_id,
            "labels": n.labels,
            "properties": map_to_json(&n.properties),
        }),
        FalkorValue::Edge(e) => json!({
            "id": e.entity_id,
            "type": e.relationship_type,
            "source": e.src_node_id,
            "target": e.dst_node_id,
            "properties": map_to_json(&e.properties),
        }),
        FalkorValue::Array(items) => Value::Array(items.iter().map(to_json).collect()),
        FalkorValue::Map(m) => map_to_json(m),
        FalkorValue::String(s) => Value::String(s.clone()),
        FalkorValue::Bool(b) => Value::Bool(*b),
        FalkorValue::I64(i) => json!(i),
        FalkorValue::F64(f) => json!(f),
        FalkorValue::None => Value::Null,
        FalkorValue::Path(p) => json!({
            "nodes": p.nodes.iter().map(|n| to_json(&FalkorValue::Node(n.clone()))).collect::<Vec<_>>(),
            "relationships": p.relationships.iter().map(|e| to_json(&FalkorValue::Edge(e.clone()))).collect::<Vec<_>>(),
        }),
        other => Value::String(format!("{other:?}")),
    }
}

pub fn map_to_json(m: &HashMap<String, FalkorValue>) -> Value {
    let sorted: BTreeMap<&String, Value> = m.iter().map(|(k, v)| (k, to_json(v))).collect();
    serde_json::to_value(sorted).unwrap_or(Value::Null)
}

pub fn as_i64(v: &FalkorValue) -> Option<i64> {
    match v {
        FalkorValue::I64(i) => Some(*i),
        _ => None,
    }
}

pub fn as_string(v: &FalkorValue) -> Option<String> {
    match v {
        FalkorValue::String(s) => Some(s.clone()),
        _ => None,
    }
}
