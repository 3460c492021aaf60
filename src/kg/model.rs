//! The wire types of the knowledge-graph extension (camelCase exactly as its pydantic models write them), their
//! checks, and the statement id: `kg:` + SHA-256 of the RFC 8785 form of the triple.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::a2ap::canonical::canonicalize;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KgSubject {
    pub id: String,
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub ty: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KgPredicate {
    pub id: String,
}

/// A resource (`id`) or a literal (`value`), with an optional type or datatype.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KgObject {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<Value>,
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub ty: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KgStatement {
    pub subject: KgSubject,
    pub predicate: KgPredicate,
    pub object: KgObject,
    #[serde(default)]
    pub graph: Option<String>,
    #[serde(default)]
    pub certainty: Option<f64>,
    #[serde(default)]
    pub provenance: Option<Value>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PatchOp {
    Add,
    Remove,
    Replace,
}

impl PatchOp {
    pub fn as_str(self) -> &'static str {
        match self {
            PatchOp::Add => "add",
            PatchOp::Remove => "remove",
            PatchOp::Replace => "replace",
        }
    }
}

/// `KnowledgeGraphPatch`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Patch {
    pub op: PatchOp,
    pub statement: KgStatement,
}

/// `KnowledgeUpdateParams`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UpdateParams {
    pub mutations: Vec<Patch>,
    #[serde(default)]
    pub task_id: Option<String>,
    #[serde(default)]
    pub session_id: Option<String>,
    #[serde(default)]
    pub source_agent_id: Option<String>,
    #[serde(default)]
    pub justification: Option<String>,
    #[serde(default)]
    pub metadata: Option<Value>,
}

/// `KnowledgeUpdateResponseResult`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UpdateResult {
    pub success: bool,
    pub statements_affected: Option<u64>,
    pub affected_ids: Option<Vec<String>>,
    pub verification_status: Option<String>,
    pub verification_details: Option<String>,
}

/// `KnowledgeGraphChangeEvent`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChangeEvent {
    pub op: PatchOp,
    pub statement: KgStatement,
    pub change_id: String,
    pub timestamp: String,
    pub change_metadata: Option<Value>,
}

/// What `triples` (query or subscription) selects; `None` matches anything.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TripleFilter {
    pub subject: Option<String>,
    pub predicate: Option<String>,
    pub object: Option<String>,
    pub graph: Option<String>,
    pub min_certainty: Option<f64>,
    /// Only statements (re)generated at or after this time, in milliseconds since the epoch
    /// (`knowledge/query`'s `maxAgeSeconds`).
    pub since_ms: Option<i64>,
}

impl TripleFilter {
    /// Whether a change to `s` concerns this filter (subscriptions: subject, predicate, graph).
    pub fn matches(&self, s: &KgStatement) -> bool {
        self.subject.as_ref().is_none_or(|x| *x == s.subject.id)
            && self.predicate.as_ref().is_none_or(|x| *x == s.predicate.id)
            && self.object.as_ref().is_none_or(|x| s.object.id.as_ref() == Some(x))
            && self.graph.as_ref().is_none_or(|x| s.graph.as_ref() == Some(x))
            && self.min_certainty.is_none_or(|m| s.certainty.is_some_and(|c| c >= m))
    }
}

impl KgStatement {
    /// Checks what the knowledge-graph extension requires of a statement; the reason when it fails.
    pub fn check(&self) -> Result<(), String> {
        if self.subject.id.trim().is_empty() {
            return Err("subject.id is empty".into());
        }
        if self.predicate.id.trim().is_empty() {
            return Err("predicate.id is empty".into());
        }
        match (&self.object.id, &self.object.value) {
            (Some(_), Some(_)) => return Err("object has both id and value (exactly one is allowed)".into()),
            (None, None) | (None, Some(Value::Null)) => {
                return Err("object has neither id nor value (exactly one is required)".into())
            }
            (Some(id), None) if id.trim().is_empty() => return Err("object.id is empty".into()),
            (None, Some(Value::Array(_) | Value::Object(_))) => {
                return Err("object.value must be a string, number or boolean".into())
            }
            _ => {}
        }
        if let Some(c) = self.certainty {
            if !(0.0..=1.0).contains(&c) || c.is_nan() {
                return Err(format!("certainty {c} is outside [0.0, 1.0]"));
            }
        }
        if let Some(p) = &self.provenance {
            if !p.is_object() {
                return Err("provenance must be an object".into());
            }
        }
        Ok(())
    }

    /// The statement's node name (see [`statement_id`]).
    pub fn id(&self) -> String {
        statement_id(self)
    }
}

/// `kg:` + the lowercase hex SHA-256 of the RFC 8785 form of
/// `{"subject":subject.id,"predicate":predicate.id,"object":object,"graph":graph}`, where
/// `object` holds the members the statement gives (`id` or `value`, and `type`) and `graph`
/// is null when absent. Certainty and provenance are not part of the triple.
pub fn statement_id(s: &KgStatement) -> String {
    let object = serde_json::to_value(&s.object).unwrap_or(Value::Null);
    let key =
        json!({"subject": s.subject.id, "predicate": s.predicate.id, "object": object, "graph": s.graph});
    let digest = Sha256::digest(canonicalize(&key));
    let mut out = String::with_capacity(3 + 64);
    out.push_str("kg:");
    for b in digest {
        out.push_str(&format!("{b:02x}"));
    }
    out
}
