//! Group writes property by property. FalkorDB's `SET n += r.props` (a map per row) is most
//! of an upsert's cost (docs/BENCHMARKS.md, "Group writes property by property"), so the
//! rows of a group are split by their set of property names: each set's names are written
//! into its query (``SET n.`k` = r[1], …``) and its rows sent as lists. The number of query
//! texts stays bounded: at most [`MAX_SHAPES`] sets of at most [`MAX_COLUMNS`] names get a
//! query of their own; the other rows share one, their common names as columns and the rest
//! as a map.
//!
//! Names come from outside input (span attributes, PROV attributes…) and go into the query
//! text, so a name FalkorDB cannot read there (empty, or holding a backtick or a NUL) is
//! stored escaped ([`stored_key`]), and a NUL in a string value is stored as U+FFFD: no
//! property fails a write (docs/FORMATS.md "Property names and values FalkorDB cannot hold").

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt::Write as _;

use crate::model::PropValue;

/// Property-name sets of a group that get a query of their own; the rest share one.
pub(super) const MAX_SHAPES: usize = 8;

/// The most properties one query sets one by one (longer sets go through the shared query,
/// whose further names travel in a map).
pub(super) const MAX_COLUMNS: usize = 64;

/// A property name as it is stored: itself when FalkorDB can hold it in a query (not empty,
/// no backtick, no NUL) and it does not end with `%`; otherwise `%`, `` ` `` and NUL
/// percent-escaped (`%25`, `%60`, `%00`) and a `%` appended. Only escaped names end with a
/// lone `%`, so two names never share a stored one.
pub fn stored_key(key: &str) -> Cow<'_, str> {
    if !key.is_empty() && !key.ends_with('%') && !key.contains(['`', '\0']) {
        return Cow::Borrowed(key);
    }
    let mut out = String::with_capacity(key.len() + 8);
    for ch in key.chars() {
        match ch {
            '%' => out.push_str("%25"),
            '`' => out.push_str("%60"),
            '\0' => out.push_str("%00"),
            c => out.push(c),
        }
    }
    out.push('%');
    Cow::Owned(out)
}

/// A value as it is stored: a NUL in a string (which no query can carry) as U+FFFD, as
/// [`push_str`] writes it.
pub fn stored_value(v: &PropValue) -> Cow<'_, PropValue> {
    fn has_nul(v: &PropValue) -> bool {
        match v {
            PropValue::Str(s) => s.contains('\0'),
            PropValue::List(items) => items.iter().any(has_nul),
            _ => false,
        }
    }
    fn replaced(v: &PropValue) -> PropValue {
        match v {
            PropValue::Str(s) => PropValue::Str(s.replace('\0', "\u{FFFD}")),
            PropValue::List(items) => PropValue::List(items.iter().map(replaced).collect()),
            other => other.clone(),
        }
    }
    if has_nul(v) {
        Cow::Owned(replaced(v))
    } else {
        Cow::Borrowed(v)
    }
}

/// Appends `s` as a single-quoted Cypher string (the escapes FalkorDB reads, as the
/// `falkordb` crate writes them); a NUL, which no query can carry, becomes U+FFFD.
pub fn push_str(out: &mut String, s: &str) {
    out.push('\'');
    if !s.contains(['\\', '\'', '\n', '\r', '\t', '\u{08}', '\u{0C}', '\0']) {
        out.push_str(s);
    } else {
        for ch in s.chars() {
            match ch {
                '\\' => out.push_str("\\\\"),
                '\'' => out.push_str("\\'"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                '\u{08}' => out.push_str("\\b"),
                '\u{0C}' => out.push_str("\\f"),
                '\0' => out.push('\u{FFFD}'),
                c => out.push(c),
            }
        }
    }
    out.push('\'');
}

/// Appends a property value as a Cypher literal (a float that is not finite as its text, as
/// [`super::value::prop_param`] does).
pub fn push_value(out: &mut String, v: &PropValue) {
    match v {
        PropValue::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        PropValue::Int(i) => {
            let _ = write!(out, "{i}");
        }
        PropValue::Float(f) if f.is_finite() => {
            let _ = write!(out, "{f:?}");
        }
        PropValue::Float(f) => push_str(out, &f.to_string()),
        PropValue::Str(s) => push_str(out, s),
        PropValue::List(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                push_value(out, item);
            }
            out.push(']');
        }
    }
}

/// Appends `` `name` `` for a stored name (see [`stored_key`]).
fn push_name(out: &mut String, key: &str) {
    out.push('`');
    out.push_str(&stored_key(key));
    out.push('`');
}

/// One row of an upsert: its leading values (a node's name; an edge's source and target
/// names) and the properties it sets, sorted by name.
pub(super) struct Row<'a> {
    pub lead: &'a [&'a str],
    pub props: Vec<(&'a str, &'a PropValue)>,
}

/// Rows of one query: what it sets (the `SET …` clauses for variable `var`, empty when it
/// sets nothing) and its rows as Cypher list literals.
pub(super) struct Part {
    pub set: String,
    /// The same properties as a map's entries (`` `k`: r[1], … ``) for a `CREATE`; `None`
    /// when a map of other properties ends each row (the shared part).
    pub props: Option<String>,
    pub rows: Vec<String>,
}

/// The rows of one group split into parts (see the module's comment), the parts with most
/// rows first. A row is `[lead…, column values…]`, then the map of its other properties in
/// the shared part.
pub(super) fn parts(rows: &[Row<'_>], var: &str) -> Vec<Part> {
    let mut by_shape: HashMap<Vec<&str>, Vec<usize>> = HashMap::new();
    for (i, r) in rows.iter().enumerate() {
        by_shape.entry(r.props.iter().map(|(k, _)| *k).collect()).or_default().push(i);
    }
    let mut shapes: Vec<(Vec<&str>, Vec<usize>)> = by_shape.into_iter().collect();
    shapes.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then_with(|| a.0.cmp(&b.0)));
    let mut out = Vec::new();
    let mut shared: Vec<usize> = Vec::new();
    for (shape, members) in shapes {
        if out.len() < MAX_SHAPES && shape.len() <= MAX_COLUMNS {
            out.push(part(rows, &members, &shape, false, var));
        } else {
            shared.extend(members);
        }
    }
    if !shared.is_empty() {
        shared.sort_unstable();
        // The names every shared row has, as columns; the rest in a map.
        let mut count: HashMap<&str, usize> = HashMap::new();
        for &i in &shared {
            for (k, _) in &rows[i].props {
                *count.entry(k).or_default() += 1;
            }
        }
        let mut common: Vec<&str> =
            count.into_iter().filter(|(_, c)| *c == shared.len()).map(|(k, _)| k).collect();
        common.sort_unstable();
        common.truncate(MAX_COLUMNS);
        out.push(part(rows, &shared, &common, true, var));
    }
    out
}

/// The part of rows `members`, `columns` set one by one and (with `rest`) the others from a
/// map at the row's end.
fn part(rows: &[Row<'_>], members: &[usize], columns: &[&str], rest: bool, var: &str) -> Part {
    let lead = members.first().map_or(0, |&i| rows[i].lead.len());
    let mut set = String::new();
    let mut props = String::new();
    for (c, key) in columns.iter().enumerate() {
        set.push_str(if c == 0 { "SET " } else { ", " });
        set.push_str(var);
        set.push('.');
        push_name(&mut set, key);
        let _ = write!(set, " = r[{}]", lead + c);
        if c > 0 {
            props.push_str(", ");
        }
        push_name(&mut props, key);
        let _ = write!(props, ": r[{}]", lead + c);
    }
    if rest {
        if !set.is_empty() {
            set.push(' ');
        }
        let _ = write!(set, "SET {var} += r[{}]", lead + columns.len());
    }
    let rows = members.iter().map(|&i| row(&rows[i], columns, rest)).collect();
    Part { set, props: (!rest).then_some(props), rows }
}

/// One row as a list literal: its lead, its values of `columns` (every row of its part has
/// them), and (with `rest`) a map of its other properties.
fn row(r: &Row<'_>, columns: &[&str], rest: bool) -> String {
    let mut out = String::with_capacity(64 + r.props.len() * 24);
    out.push('[');
    for (i, l) in r.lead.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        push_str(&mut out, l);
    }
    // Both sorted by name: a merge walk.
    let mut props = r.props.iter().peekable();
    let mut others: Vec<(&str, &PropValue)> = Vec::new();
    for col in columns {
        while let Some((k, v)) = props.next_if(|(k, _)| k != col) {
            others.push((k, v));
        }
        if let Some((_, v)) = props.next() {
            out.push_str(", ");
            push_value(&mut out, v);
        }
    }
    others.extend(props.map(|(k, v)| (*k, *v)));
    if rest {
        out.push_str(", {");
        for (i, (k, v)) in others.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            push_name(&mut out, k);
            out.push_str(": ");
            push_value(&mut out, v);
        }
        out.push('}');
    }
    out.push(']');
    out
}

#[cfg(test)]
#[path = "shapes_tests.rs"]
mod tests;
