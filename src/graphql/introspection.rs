//! Introspection requests (GraphiQL's schema query) run on a schema with a deeper depth
//! limit, since the standard query nests `ofType` about ten levels below `__schema`; in
//! exchange their list fields may nest at most [`MAX_LIST_NESTING`] deep (graphql-js's
//! `MaxIntrospectionDepthRule`), so `fields { type { fields { type { ... } } } }` cannot fan
//! out without bound.

use std::collections::HashSet;

use async_graphql::parser::types::{ExecutableDocument, OperationDefinition, Selection, SelectionSet};

/// The depth an introspection-only request may reach.
pub const MAX_DEPTH: usize = 32;
/// How deeply an introspection request may nest the fields that list types' members.
pub const MAX_LIST_NESTING: usize = 3;

const LISTS: [&str; 4] = ["fields", "interfaces", "possibleTypes", "inputFields"];

/// The operation a request would run (by name, or the only one).
fn operation<'a>(doc: &'a ExecutableDocument, name: Option<&str>) -> Option<&'a OperationDefinition> {
    use async_graphql::parser::types::DocumentOperations as D;
    match (&doc.operations, name) {
        (D::Single(op), None) => Some(&op.node),
        (D::Multiple(ops), Some(n)) => ops.get(n).map(|o| &o.node),
        (D::Multiple(ops), None) if ops.len() == 1 => ops.values().next().map(|o| &o.node),
        _ => None,
    }
}

/// The root fields' names, through fragments (each fragment once).
fn root_names<'a>(
    doc: &'a ExecutableDocument,
    set: &'a SelectionSet,
    seen: &mut HashSet<&'a str>,
    out: &mut Vec<&'a str>,
) {
    for item in &set.items {
        match &item.node {
            Selection::Field(f) => out.push(f.node.name.node.as_str()),
            Selection::InlineFragment(i) => root_names(doc, &i.node.selection_set.node, seen, out),
            Selection::FragmentSpread(s) => {
                let name = s.node.fragment_name.node.as_str();
                if seen.insert(name) {
                    if let Some(frag) = doc.fragments.get(&s.node.fragment_name.node) {
                        root_names(doc, &frag.node.selection_set.node, seen, out);
                    }
                }
            }
        }
    }
}

/// The deepest nesting of the list fields above, through fragments (a fragment already on
/// the path counts as too deep: a cycle is invalid GraphQL anyway).
fn list_nesting<'a>(
    doc: &'a ExecutableDocument,
    set: &'a SelectionSet,
    path: &mut Vec<&'a str>,
    depth: usize,
) -> usize {
    let mut max = depth;
    for item in &set.items {
        let d = match &item.node {
            Selection::Field(f) => {
                let here = depth + usize::from(LISTS.contains(&f.node.name.node.as_str()));
                if here > MAX_LIST_NESTING {
                    return here;
                }
                list_nesting(doc, &f.node.selection_set.node, path, here)
            }
            Selection::InlineFragment(i) => list_nesting(doc, &i.node.selection_set.node, path, depth),
            Selection::FragmentSpread(s) => {
                let name = s.node.fragment_name.node.as_str();
                if path.contains(&name) {
                    return usize::MAX;
                }
                match doc.fragments.get(&s.node.fragment_name.node) {
                    Some(frag) => {
                        path.push(name);
                        let d = list_nesting(doc, &frag.node.selection_set.node, path, depth);
                        path.pop();
                        d
                    }
                    None => depth,
                }
            }
        };
        max = max.max(d);
        if max > MAX_LIST_NESTING {
            return max;
        }
    }
    max
}

/// Whether a request only introspects (every root field is `__schema`, `__type` or
/// `__typename`) and nests its list fields within the bound: such a request may go deeper.
pub fn is_bounded_introspection(query: &str, operation_name: Option<&str>) -> bool {
    super::guard::parse(query).is_ok_and(|doc| is_bounded_introspection_doc(&doc, operation_name))
}

/// [`is_bounded_introspection`] of a document parsed through [`super::guard::parse`] (whose
/// depth bound also bounds the walks below, which follow fragments).
pub fn is_bounded_introspection_doc(doc: &ExecutableDocument, operation_name: Option<&str>) -> bool {
    let Some(op) = operation(doc, operation_name) else {
        return false;
    };
    let mut names = Vec::new();
    root_names(doc, &op.selection_set.node, &mut HashSet::new(), &mut names);
    !names.is_empty()
        && names.iter().all(|n| n.starts_with("__"))
        && list_nesting(doc, &op.selection_set.node, &mut Vec::new(), 0) <= MAX_LIST_NESTING
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_standard_query_is_bounded_and_fan_outs_are_not() {
        let standard = "query IntrospectionQuery { __schema { queryType { name } types { ...FullType } } }
            fragment FullType on __Type { kind name fields(includeDeprecated: true) { name args { ...InputValue } type { ...TypeRef } }
              inputFields { ...InputValue } interfaces { ...TypeRef } possibleTypes { ...TypeRef } }
            fragment InputValue on __InputValue { name type { ...TypeRef } }
            fragment TypeRef on __Type { kind name ofType { kind name ofType { kind name ofType { kind name } } } }";
        assert!(is_bounded_introspection(standard, None));
        assert!(is_bounded_introspection(standard, Some("IntrospectionQuery")));
        let fan = "{ __type(name: \"Statement\") { fields { type { fields { type { fields { type { fields { name } } } } } } } } }";
        assert!(!is_bounded_introspection(fan, None));
        assert!(!is_bounded_introspection("{ __typename statementsAbout(topic: \"\") { id } }", None));
        assert!(!is_bounded_introspection("query A { __typename } query B { __typename }", None));
        let cyclic = "{ __schema { types { ...A } } } fragment A on __Type { fields { type { ...A } } }";
        assert!(!is_bounded_introspection(cyclic, None));
        assert!(!is_bounded_introspection("{", None));
    }
}
