//! How deep a GraphQL request may nest, checked before anything recursive reads it.
//! async-graphql's parser, its validation rules and this crate's own walks of a document
//! recurse once per level: per bracket of an argument (`[[[…]]]`), per selection set, and per
//! fragment spread (a chain `fragment a { ...b } fragment b { ...c } …` is read as deep as it
//! is long). A few kilobytes nested a few thousand levels would overflow a worker thread's
//! stack and abort the process, so every entry point (`/graphql`, `knowledge/query`,
//! `knowledge/subscribe`, the query page's checks) parses through [`parse`]: the text is
//! scanned without recursion first, then parsed, then the document's depth through its
//! fragments is measured without recursion. Variables are bounded the same way.

use std::collections::HashMap;

use async_graphql::parser::types::{ExecutableDocument, Selection, SelectionSet};
use serde_json::Value;

/// The deepest a document may nest brackets, braces and parentheses (outside strings and
/// comments), the deepest its selections may go through fragments, and the deepest
/// variables may nest. Real queries stay far below it (GraphiQL's schema query: about 20).
pub const MAX_NESTING: usize = 64;

/// Why a request is refused before it is parsed or run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GuardError {
    #[error(
        "the GraphQL document nests more than {MAX_NESTING} levels of brackets, braces or \
         parentheses (at line {line}, column {column}): flatten the query"
    )]
    TextTooDeep { line: usize, column: usize },
    #[error(
        "the GraphQL document's selections nest more than {MAX_NESTING} levels deep through \
         its fragments (in {place}): flatten the query"
    )]
    SelectionsTooDeep { place: String },
    #[error("fragment `{0}` spreads itself (directly or through other fragments)")]
    FragmentCycle(String),
    #[error("the variables nest more than {MAX_NESTING} levels deep: flatten them")]
    VariablesTooDeep,
    #[error("the GraphQL document does not parse: {0}")]
    Parse(String),
}

/// Checks the bracket nesting of a GraphQL text (strings, block strings and comments
/// skipped), without recursion.
pub fn check_text(text: &str) -> Result<(), GuardError> {
    let bytes = text.as_bytes();
    let (mut depth, mut line, mut line_start) = (0usize, 1usize, 0usize);
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\n' => {
                line += 1;
                line_start = i + 1;
            }
            b'#' => {
                while i < bytes.len() && bytes[i] != b'\n' && bytes[i] != b'\r' {
                    i += 1;
                }
                continue;
            }
            b'"' if bytes[i..].starts_with(b"\"\"\"") => {
                // A block string: ends at the next `"""` not escaped as `\"""`.
                i += 3;
                while i < bytes.len() && !bytes[i..].starts_with(b"\"\"\"") {
                    if bytes[i..].starts_with(b"\\\"\"\"") {
                        i += 4;
                        continue;
                    }
                    if bytes[i] == b'\n' {
                        line += 1;
                        line_start = i + 1;
                    }
                    i += 1;
                }
                i += 3;
                continue;
            }
            b'"' => {
                // A string: ends at the next unescaped `"` or at the end of the line.
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' && bytes[i] != b'\n' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                if i < bytes.len() && bytes[i] == b'"' {
                    i += 1;
                }
                continue;
            }
            b'{' | b'[' | b'(' => {
                depth += 1;
                if depth > MAX_NESTING {
                    let column = text[line_start..i].chars().count() + 1;
                    return Err(GuardError::TextTooDeep { line, column });
                }
            }
            b'}' | b']' | b')' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    Ok(())
}

/// Checks how deep a JSON value nests (variables), without recursion.
pub fn check_variables(value: &Value) -> Result<(), GuardError> {
    let mut stack: Vec<(&Value, usize)> = vec![(value, 0)];
    while let Some((v, depth)) = stack.pop() {
        let children: Box<dyn Iterator<Item = &Value>> = match v {
            Value::Array(items) => Box::new(items.iter()),
            Value::Object(map) => Box::new(map.values()),
            _ => continue,
        };
        if depth + 1 > MAX_NESTING {
            return Err(GuardError::VariablesTooDeep);
        }
        stack.extend(children.map(|c| (c, depth + 1)));
    }
    Ok(())
}

/// What one selection set holds, flattened: its deepest level counting fields and inline
/// fragments, and each fragment it spreads with the level the spread sits at.
#[derive(Default)]
struct Shape<'a> {
    depth: usize,
    spreads: Vec<(&'a str, usize)>,
}

/// Walks a selection set with an explicit stack (its nesting is bounded by [`check_text`]
/// anyway, but a walk that cannot overflow needs no such argument).
fn shape(set: &SelectionSet) -> Shape<'_> {
    let mut out = Shape::default();
    let mut stack: Vec<(&SelectionSet, usize)> = vec![(set, 0)];
    while let Some((set, level)) = stack.pop() {
        for item in &set.items {
            let here = level + 1;
            out.depth = out.depth.max(here);
            match &item.node {
                Selection::Field(f) => stack.push((&f.node.selection_set.node, here)),
                Selection::InlineFragment(i) => stack.push((&i.node.selection_set.node, here)),
                Selection::FragmentSpread(s) => out.spreads.push((s.node.fragment_name.node.as_str(), here)),
            }
        }
    }
    out
}

/// The depth of every fragment through the fragments it spreads, computed bottom-up with an
/// explicit stack; a cycle is refused (validation would refuse it too, but its cycle check
/// recurses along the chain).
fn fragment_depths<'a>(shapes: &HashMap<&'a str, Shape<'a>>) -> Result<HashMap<&'a str, usize>, GuardError> {
    #[derive(PartialEq)]
    enum Mark {
        Open,
        Done(usize),
    }
    let mut marks: HashMap<&str, Mark> = HashMap::with_capacity(shapes.len());
    for &start in shapes.keys() {
        if marks.contains_key(start) {
            continue;
        }
        marks.insert(start, Mark::Open);
        // (fragment, index of the next spread to look at)
        let mut path: Vec<(&str, usize)> = vec![(start, 0)];
        while let Some(&mut (name, ref mut next)) = path.last_mut() {
            let shape = &shapes[name];
            if let Some(&(target, _)) = shape.spreads.get(*next) {
                *next += 1;
                if !shapes.contains_key(target) {
                    continue; // unknown: validation names it
                }
                match marks.get(target) {
                    Some(Mark::Open) => return Err(GuardError::FragmentCycle(target.to_owned())),
                    Some(Mark::Done(_)) => {}
                    None => {
                        marks.insert(target, Mark::Open);
                        path.push((target, 0));
                    }
                }
                continue;
            }
            let depth = shape
                .spreads
                .iter()
                .map(|(t, level)| match marks.get(t) {
                    Some(Mark::Done(d)) => level + d,
                    _ => *level,
                })
                .fold(shape.depth, usize::max);
            marks.insert(name, Mark::Done(depth));
            path.pop();
        }
    }
    Ok(marks.into_iter().map(|(k, m)| (k, if let Mark::Done(d) = m { d } else { 0 })).collect())
}

/// Checks a parsed document: every operation's selections, through the fragments they
/// spread (each spread a level of its own), nest at most [`MAX_NESTING`] deep, and no
/// fragment spreads itself.
pub fn check_document(doc: &ExecutableDocument) -> Result<(), GuardError> {
    let shapes: HashMap<&str, Shape<'_>> =
        doc.fragments.iter().map(|(name, f)| (name.as_str(), shape(&f.node.selection_set.node))).collect();
    let depths = fragment_depths(&shapes)?;
    let deepest = |s: &Shape<'_>| {
        s.spreads
            .iter()
            .map(|(t, level)| level + depths.get(t).copied().unwrap_or(0))
            .fold(s.depth, usize::max)
    };
    for (name, s) in &shapes {
        if deepest(s) > MAX_NESTING {
            return Err(GuardError::SelectionsTooDeep { place: format!("fragment `{name}`") });
        }
    }
    for (name, op) in doc.operations.iter() {
        if deepest(&shape(&op.node.selection_set.node)) > MAX_NESTING {
            let place = name.map_or_else(|| "the operation".to_owned(), |n| format!("operation `{n}`"));
            return Err(GuardError::SelectionsTooDeep { place });
        }
    }
    Ok(())
}

/// Parses a GraphQL document once its text is known to be shallow enough, and checks the
/// document's depth through its fragments: what every entry point parses with.
pub fn parse(text: &str) -> Result<ExecutableDocument, GuardError> {
    check_text(text)?;
    let doc = async_graphql::parser::parse_query(text).map_err(|e| GuardError::Parse(e.to_string()))?;
    check_document(&doc)?;
    Ok(doc)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nested(n: usize) -> String {
        format!("{{ statementsAbout(topic: {}\"x\"{}) {{ id }} }}", "[".repeat(n), "]".repeat(n))
    }

    #[test]
    fn brackets_are_counted_outside_strings_and_comments() {
        assert!(check_text(&nested(MAX_NESTING - 3)).is_ok());
        let e = check_text(&nested(MAX_NESTING)).unwrap_err();
        assert!(matches!(e, GuardError::TextTooDeep { line: 1, .. }), "{e:?}");
        let noise = "[".repeat(10_000);
        assert!(check_text(&format!("{{ a(s: \"{noise}\") }}")).is_ok(), "in a string");
        assert!(check_text(&format!("{{ a(s: \"\"\"{noise} \\\"\"\" {noise}\"\"\") }}")).is_ok(), "block");
        assert!(check_text(&format!("# {noise}\n{{ a }}")).is_ok(), "in a comment");
        assert!(check_text(&format!("{{ a(s: \"\\\"{noise}\") }}")).is_ok(), "escaped quote");
        let e = check_text(&format!("\n\n  {noise}")).unwrap_err();
        assert_eq!(e, GuardError::TextTooDeep { line: 3, column: 3 + MAX_NESTING });
    }

    #[test]
    fn fragment_chains_count_each_spread() {
        let chain = |n: usize| {
            let mut q = String::from("{ ...f0 }\n");
            for i in 0..n {
                q.push_str(&format!("fragment f{i} on Query {{ ...f{} }}\n", i + 1));
            }
            q.push_str(&format!("fragment f{n} on Query {{ __typename }}\n"));
            q
        };
        assert!(parse(&chain(10)).is_ok());
        let e = parse(&chain(5_000)).unwrap_err();
        assert!(matches!(e, GuardError::SelectionsTooDeep { .. }), "{e:?}");
        let cyclic = "{ ...a } fragment a on Query { ...b } fragment b on Query { x { ...a } }";
        assert!(matches!(parse(cyclic).unwrap_err(), GuardError::FragmentCycle(_)));
        // Shared fragments are measured once, not once per path.
        let mut wide = String::from("{ ...g0 }\n");
        for i in 0..40 {
            wide.push_str(&format!(
                "fragment g{i} on Query {{ a: x {{ ...g{0} }} b: y {{ ...g{0} }} }}\n",
                i + 1
            ));
        }
        wide.push_str("fragment g40 on Query { __typename }\n");
        assert!(parse(&wide).is_err(), "81 levels of fields and spreads, through 2^40 paths");
    }

    #[test]
    fn variables_are_bounded() {
        let mut v = serde_json::json!("x");
        for _ in 0..MAX_NESTING {
            v = serde_json::json!([v]);
        }
        assert!(check_variables(&v).is_ok());
        assert_eq!(check_variables(&serde_json::json!({ "a": v })), Err(GuardError::VariablesTooDeep));
    }

    #[test]
    fn the_parser_error_is_kept() {
        assert!(matches!(parse("{").unwrap_err(), GuardError::Parse(_)));
    }
}
