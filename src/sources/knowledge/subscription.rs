//! Which statements a `knowledge/subscribe` wants: its GraphQL subscription document is
//! parsed (async-graphql's parser) and must select `triples`, whose `subject`, `predicate`
//! and `graph` arguments (literals or variables) filter the change events. It is parsed
//! through `graphql::guard`, as every GraphQL document is.

use async_graphql::parser::types::{DocumentOperations, OperationType, Selection};
use async_graphql::Name;
use async_graphql_value::Value as GqlValue;
use serde_json::Value;

use crate::sources::knowledge::TripleFilter;

/// The filter a subscription document asks for, or why it cannot be served.
pub fn filter(query: &str, variables: Option<&Value>) -> Result<TripleFilter, String> {
    use crate::query_guard::{self as guard, GuardError};
    if let Some(v) = variables {
        guard::check_variables(v).map_err(|e| e.to_string())?;
    }
    let doc = guard::parse(query).map_err(|e| match e {
        GuardError::Parse(e) => format!("the subscription does not parse: {e}"),
        other => other.to_string(),
    })?;
    let op = match &doc.operations {
        DocumentOperations::Single(op) => &op.node,
        DocumentOperations::Multiple(ops) if ops.len() == 1 => &ops.values().next().expect("one").node,
        DocumentOperations::Multiple(_) => {
            return Err("the document holds several operations; send one".into())
        }
    };
    if op.ty != OperationType::Subscription {
        return Err("the query is not a subscription (write `subscription { triples(...) { ... } }`)".into());
    }
    let fields: Vec<_> = op
        .selection_set
        .node
        .items
        .iter()
        .filter_map(|s| match &s.node {
            Selection::Field(f) => Some(&f.node),
            _ => None,
        })
        .collect();
    let [field] = fields.as_slice() else {
        return Err("the subscription must select exactly one field, `triples`".into());
    };
    if field.name.node.as_str() != "triples" {
        return Err(format!("unknown subscription field `{}` (this server has `triples`)", field.name.node));
    }
    let var = |name: &Name| -> Option<Value> {
        variables.and_then(|v| v.get(name.as_str())).cloned().or_else(|| {
            op.variable_definitions
                .iter()
                .find(|d| d.node.name.node == *name)
                .and_then(|d| d.node.default_value.as_ref())
                .and_then(|d| d.node.clone().into_json().ok())
        })
    };
    let mut out = TripleFilter::default();
    for (name, value) in &field.arguments {
        let v = match &value.node {
            GqlValue::Variable(n) => var(n).unwrap_or(Value::Null),
            other => other.clone().into_json().map_err(|e| e.to_string())?,
        };
        let text = match v {
            Value::Null => None,
            Value::String(s) => Some(s),
            other => return Err(format!("argument `{}` must be a string ID, not {other}", name.node)),
        };
        match name.node.as_str() {
            "subject" => out.subject = text,
            "predicate" => out.predicate = text,
            "graph" => out.graph = text,
            other => {
                return Err(format!("unknown argument `{other}` of `triples` (subject, predicate, graph)"))
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn literals_variables_and_defaults() {
        let f = filter(r#"subscription { triples(subject: "ex:a", graph: null) { op } }"#, None).unwrap();
        assert_eq!((f.subject.as_deref(), f.predicate, f.graph), (Some("ex:a"), None, None));
        let q = r#"subscription S($p: ID = "ex:default", $g: ID) { triples(predicate: $p, graph: $g) { op changeId } }"#;
        let f = filter(q, Some(&json!({"g": "ex:g"}))).unwrap();
        assert_eq!((f.predicate.as_deref(), f.graph.as_deref()), (Some("ex:default"), Some("ex:g")));
        let f = filter(q, Some(&json!({"p": "ex:given"}))).unwrap();
        assert_eq!(f.predicate.as_deref(), Some("ex:given"));
    }

    #[test]
    fn what_is_refused() {
        assert!(filter("query { triples { op } }", None).unwrap_err().contains("not a subscription"));
        assert!(filter("subscription { other { op } }", None)
            .unwrap_err()
            .contains("unknown subscription field"));
        assert!(filter("subscription { triples(colour: \"red\") { op } }", None)
            .unwrap_err()
            .contains("unknown argument"));
        assert!(filter("subscription { triples(subject: 3) { op } }", None)
            .unwrap_err()
            .contains("string ID"));
        assert!(filter("subscription {", None).unwrap_err().contains("does not parse"));
    }
}
