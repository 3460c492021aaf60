//! The check a model's Cypher passes before anything reaches FalkorDB: only a bounded read of
//! the graph runs. It reads the tokens FalkorDB's parser reads (`lexer`), so a string, a
//! quoted name or a comment can never hide a clause from it, and refuses:
//!
//! - text FalkorDB cannot read as we do (an unterminated string, name or comment, a NUL, a
//!   lone `\r`, a character no token starts with), more than one statement (`;`) and
//!   parameters (`$`: none are sent);
//! - a query that does not start with `MATCH`, `OPTIONAL MATCH`, `WITH`, `UNWIND`, `CALL` or
//!   `RETURN` (no `CYPHER`, `EXPLAIN` or `PROFILE` prefix);
//! - a write word anywhere but as a property name (`n.set`): `CREATE`, `MERGE`, `SET`,
//!   `DELETE`, `DETACH`, `REMOVE`, `DROP`, `FOREACH`, and `LOAD` (`LOAD CSV` makes the server
//!   fetch a URL of the query's choosing, which can carry graph data out);
//! - `CALL { … }` subqueries, and `CALL` of any procedure not in [`READ_PROCEDURES`], its name
//!   read as FalkorDB reads it (quoted parts, spaces around dots, any case);
//! - a variable-length relationship without an upper bound (`[*]`, `[*2..]`, `[*..]`), with
//!   one over [`MAX_HOPS`], or with a bound not written as a plain decimal number.
//!
//! [`prepare`] also takes comments out before the query runs: FalkorDB's parser aborts the
//! whole server on some of them (one between the parts of a procedure name).

use super::cypher::limited;
use super::lexer::{lex, tokenize, Kind, Token};

/// Longest variable-length path a question may follow: a long one costs like an unbounded
/// one, and that is the query that can freeze FalkorDB past its timeout (docs/falkordb.md).
pub const MAX_HOPS: u32 = 10;

/// Procedures a question may call, in lower case: the schema (what the prompt already gives),
/// the list of indexes, and a full-text index query, whose cost its index bounds. Not the
/// `algo.*` procedures (whole-graph work no hop limit bounds: `algo.BFS` with level 0 and
/// `algo.SPpaths` are unbounded traversals), not `db.idx.*` index creation and deletion, not
/// `dbms.*`.
pub const READ_PROCEDURES: &[&str] =
    &["db.labels", "db.relationshiptypes", "db.propertykeys", "db.indexes", "db.idx.fulltext.querynodes"];

/// Words that start a query.
const FIRST: &[&str] = &["MATCH", "OPTIONAL", "WITH", "UNWIND", "CALL", "RETURN"];

/// Words of clauses that write.
const WRITES: &[&str] = &["CREATE", "MERGE", "SET", "DELETE", "DETACH", "REMOVE", "DROP", "FOREACH"];

/// The text that runs for `q`: comments taken out (each becomes a space, or nothing before
/// a line end), checked, and the row limit written in (`cypher::limited`); or why it may not
/// run.
pub fn prepare(q: &str) -> Result<String, String> {
    let bare = strip_comments(q);
    if let Some(why) = refusal(&bare) {
        return Err(why);
    }
    Ok(limited(&bare))
}

/// `q` without its comments, and without whitespace before its first token and after its last.
pub fn strip_comments(q: &str) -> String {
    let mut out = String::with_capacity(q.len());
    let mut last = 0;
    for t in lex(q).into_iter().filter(|t| t.kind == Kind::Comment) {
        out.push_str(&q[last..t.start]);
        if t.text(q).starts_with("/*") {
            out.push(' ');
        }
        last = t.end;
    }
    out.push_str(&q[last..]);
    // From the first token to the last: what is trimmed is whitespace as FalkorDB reads it.
    let toks = tokenize(&out);
    match (toks.first(), toks.last()) {
        (Some(a), Some(z)) => out[a.start..z.end].to_owned(),
        _ => String::new(),
    }
}

/// Why `q` may not run, or `None` when it is a bounded read.
pub fn refusal(q: &str) -> Option<String> {
    let toks = tokenize(q);
    let invalid = toks.iter().find_map(|t| match t.kind {
        Kind::Invalid(what) => Some((t, what)),
        _ => None,
    });
    if let Some((t, what)) = invalid {
        return Some(format!(
            "the generated Cypher holds {what} at byte {}, which FalkorDB cannot read",
            t.start
        ));
    }
    let Some(first) = toks.first() else { return Some("the generated Cypher holds no query".into()) };
    if !FIRST.iter().any(|w| first.is_word(q, w)) {
        return Some(format!(
            "the generated Cypher starts with {:?}; only a query that starts with MATCH, OPTIONAL MATCH, WITH, UNWIND, CALL or RETURN runs",
            first.text(q)
        ));
    }
    for (i, t) in toks.iter().enumerate() {
        let after_dot = i > 0 && toks[i - 1].is_punct(q, ".");
        match t.kind {
            Kind::Punct if t.is_punct(q, ";") => {
                return Some("the generated Cypher holds more than one statement (`;`)".into())
            }
            Kind::Punct if t.is_punct(q, "$") => {
                return Some("the generated Cypher uses a parameter ($…), and none are given".into())
            }
            Kind::Punct
                if t.is_punct(q, "[")
                    && i > 0
                    && (toks[i - 1].is_punct(q, "-") || toks[i - 1].is_punct(q, "<-")) =>
            {
                if let Some(why) = path_length(q, &toks[i + 1..]) {
                    return Some(why);
                }
            }
            Kind::Word if !after_dot => {
                let word = t.text(q).to_ascii_uppercase();
                if WRITES.contains(&word.as_str()) {
                    return Some(format!("the generated Cypher would write ({word}); only reads run"));
                }
                if word == "LOAD" {
                    return Some(
                        "the generated Cypher has LOAD CSV, which makes FalkorDB fetch a file or URL; only reads of the graph run"
                            .into(),
                    );
                }
                if word == "CALL" {
                    if let Some(why) = call(q, &toks[i + 1..]) {
                        return Some(why);
                    }
                }
            }
            _ => {}
        }
    }
    None
}

/// The procedure a `CALL` names, as FalkorDB reads it: names (plain or quoted) joined by dots.
/// `None` when `after` does not start with one.
pub fn procedure_name(q: &str, after: &[Token]) -> Option<String> {
    let mut name = String::new();
    let mut i = 0;
    loop {
        let t = after.get(i)?;
        match t.kind {
            Kind::Word => name.push_str(t.text(q)),
            Kind::Quoted => name.push_str(&t.text(q)[1..t.text(q).len() - 1]),
            _ => return None,
        }
        if !after.get(i + 1).is_some_and(|d| d.is_punct(q, ".")) {
            return Some(name);
        }
        name.push('.');
        i += 2;
    }
}

/// Why the `CALL` before `after` may not run.
fn call(q: &str, after: &[Token]) -> Option<String> {
    if after.first().is_some_and(|t| t.is_punct(q, "{")) {
        return Some("the generated Cypher has a CALL { … } subquery; only reads of the graph run".into());
    }
    match procedure_name(q, after) {
        None => Some("the generated Cypher has a CALL without a procedure name".into()),
        Some(name) if READ_PROCEDURES.contains(&name.to_ascii_lowercase().as_str()) => None,
        Some(name) => Some(format!(
            "the generated Cypher calls {name}, which is not one of the read-only procedures a question may call ({})",
            "db.labels, db.relationshipTypes, db.propertyKeys, db.indexes, db.idx.fulltext.queryNodes"
        )),
    }
}

/// Why a relationship pattern (the tokens after its `[`) may not run: its variable length,
/// `*` then `[min]`, `..`, `[max]`, must have an upper bound of at most [`MAX_HOPS`], written
/// as a plain decimal number.
fn path_length(q: &str, body: &[Token]) -> Option<String> {
    let stop = |t: &Token| t.kind == Kind::Punct && matches!(t.text(q), "]" | "{" | "}" | "(" | ")" | "[");
    let body: Vec<&Token> = body.iter().take_while(|t| !stop(t)).collect();
    let star = body.iter().position(|t| t.is_punct(q, "*"))?;
    let rest: Vec<&str> = body[star + 1..].iter().map(|t| t.text(q)).collect();
    let plain =
        |s: &str| s == "0" || (!s.starts_with('0') && !s.is_empty() && s.bytes().all(|c| c.is_ascii_digit()));
    let upper = match rest.as_slice() {
        [] | [".."] => None,
        [n] if plain(n) => Some(*n),
        ["..", n] if plain(n) => Some(*n),
        [m, ".."] if plain(m) => None,
        [m, "..", n] if plain(m) && plain(n) => Some(*n),
        _ => {
            return Some(format!(
                "the generated Cypher has a variable-length path whose length cannot be read ({}); write it as *1..5",
                body[star..].iter().map(|t| t.text(q)).collect::<Vec<_>>().join(" ")
            ))
        }
    };
    let Some(n) = upper else {
        return Some(
            "the generated Cypher follows a variable-length path with no upper bound (write *1..5)".into(),
        );
    };
    if n.parse::<u64>().map_or(true, |v| v > u64::from(MAX_HOPS)) {
        return Some(format!(
            "the generated Cypher follows variable-length paths of up to {n} hops (at most {MAX_HOPS})"
        ));
    }
    None
}

#[cfg(test)]
mod tests;
