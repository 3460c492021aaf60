//! The Cypher a model answered with: taken out of its reply (a fenced block, or the text),
//! and, once `check` has let it through, given a row limit written into the query. The
//! check and the limit read the tokens FalkorDB reads (`lexer`), not substrings;
//! `GRAPH.RO_QUERY` refuses writes again when the query runs.

/// The Cypher in a model's reply: the first fenced block (```cypher, ```sql, ``` …), else the
/// reply; in either, from the first line that starts with a clause, up to a blank line
/// followed by prose (the model's explanation); without a trailing `;`. `None` when no line
/// starts like Cypher ("I cannot answer that").
pub fn extract(reply: &str) -> Option<String> {
    let text = match reply.find("```") {
        Some(start) => {
            let rest = &reply[start + 3..];
            // The info string (`cypher`) ends at the first newline.
            let body = rest.split_once('\n').map_or("", |(_, b)| b);
            body.split("```").next().unwrap_or(body)
        }
        None => reply,
    };
    // Split on `\n` alone: `lines()` would also eat a `\r`, and extracting twice would differ.
    let mut lines = text.split('\n').skip_while(|l| !starts_query(l));
    let mut kept: Vec<&str> = lines.next().into_iter().collect();
    let mut blanks: Vec<&str> = Vec::new();
    for l in lines {
        if l.trim().is_empty() {
            blanks.push(l);
            continue;
        }
        if !blanks.is_empty() && !starts_clause(l) {
            break;
        }
        kept.append(&mut blanks);
        kept.push(l);
    }
    let mut q = kept.join("\n");
    loop {
        let t = q.trim().trim_end_matches(';').trim();
        if t.len() == q.len() {
            break;
        }
        q = t.to_owned();
    }
    (!q.is_empty()).then_some(q)
}

/// Words a line of a query can start with (writes too, so that they are refused by name
/// rather than missed).
const CLAUSES: &[&str] = &[
    "MATCH", "OPTIONAL", "WITH", "UNWIND", "CALL", "RETURN", "WHERE", "ORDER", "SKIP", "LIMIT", "UNION",
    "YIELD", "AND", "OR", "CREATE", "MERGE", "DELETE", "DETACH", "SET", "REMOVE", "DROP", "LOAD", "FOREACH",
];

/// Words a query starts with.
const FIRST: &[&str] = &[
    "MATCH", "OPTIONAL", "WITH", "UNWIND", "CALL", "RETURN", "CREATE", "MERGE", "DELETE", "DETACH", "SET",
    "REMOVE", "DROP", "LOAD", "FOREACH",
];

fn first_word(line: &str) -> String {
    line.trim_start().chars().take_while(|c| c.is_ascii_alphabetic()).collect()
}

fn starts_clause(line: &str) -> bool {
    let word = first_word(line);
    CLAUSES.iter().any(|c| c.eq_ignore_ascii_case(&word))
}

/// The first line of a query: it starts with a clause written in capitals, or has a
/// pattern or call (`match (n) …`), so that "With the schema above, …" is prose.
fn starts_query(line: &str) -> bool {
    let word = first_word(line);
    FIRST.iter().any(|c| c.eq_ignore_ascii_case(&word))
        && (word.chars().all(|c| c.is_ascii_uppercase()) || line.contains('('))
}

use super::MAX_ROWS;

/// `q` with a row limit written in: `LIMIT` one more than [`MAX_ROWS`] after each top-level
/// `RETURN` that has none (each `UNION` branch), and larger literal limits lowered to it, so
/// that the server stops early instead of sending every row to be cut here; the one row more
/// tells that rows were left out. A query with no top-level `RETURN` (a lone `CALL`) is
/// unchanged: its rows are cut when read.
pub fn limited(q: &str) -> String {
    use super::lexer::{tokenize, Kind};
    let cap = MAX_ROWS + 1;
    let toks = tokenize(q);
    // A keyword's place: not a property (`n.limit`), label, map key or alias.
    let keyword = |i: usize| {
        toks[i].kind == Kind::Word
            && !i.checked_sub(1).is_some_and(|p| {
                toks[p].is_punct(q, ".") || toks[p].is_punct(q, ":") || toks[p].is_word(q, "AS")
            })
            && !toks.get(i + 1).is_some_and(|n| n.is_punct(q, ":"))
    };
    let mut depth = 0i32;
    let mut words: Vec<usize> = Vec::new();
    let mut branches: Vec<(Vec<usize>, usize)> = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        if t.kind == Kind::Punct {
            match t.text(q) {
                "(" | "[" | "{" => depth += 1,
                ")" | "]" | "}" => depth -= 1,
                _ => {}
            }
        }
        if depth != 0 || !keyword(i) {
            continue;
        }
        if t.is_word(q, "UNION") {
            branches.push((std::mem::take(&mut words), i));
        } else {
            words.push(i);
        }
    }
    branches.push((words, toks.len()));
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    for (words, end) in branches {
        let Some(ret) = words.iter().rposition(|&w| toks[w].is_word(q, "RETURN")) else { continue };
        match words[ret..].iter().find(|&&w| toks[w].is_word(q, "LIMIT")) {
            None if end > 0 => edits.push((toks[end - 1].end, toks[end - 1].end, format!(" LIMIT {cap}"))),
            None => {}
            Some(&w) => {
                if let Some(n) = toks.get(w + 1).filter(|t| {
                    t.kind == Kind::Number && t.text(q).parse::<u64>().is_ok_and(|v| v > cap as u64)
                }) {
                    edits.push((n.start, n.end, cap.to_string()));
                }
            }
        }
    }
    let mut out = q.to_owned();
    edits.sort_by_key(|e| std::cmp::Reverse(e.0));
    for (start, end, text) in edits {
        out.replace_range(start..end, &text);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_and_fences() {
        assert_eq!(extract("```cypher\nMATCH (n) RETURN n;\n```").as_deref(), Some("MATCH (n) RETURN n"));
        assert_eq!(
            extract("Here:\n```\nMATCH (n) RETURN count(n)\n```\nDone.").as_deref(),
            Some("MATCH (n) RETURN count(n)")
        );
        assert_eq!(
            extract("  MATCH (s:Statement) RETURN s.name  ").as_deref(),
            Some("MATCH (s:Statement) RETURN s.name")
        );
        assert_eq!(extract("```\n```"), None);
        assert_eq!(extract(""), None);
        // Prose around a query without a fence is left out; prose alone holds no query.
        assert_eq!(
            extract("With the schema above, the query is:\nMATCH (a:Agent)\n\nRETURN a.name;;\n\nThis lists them.").as_deref(),
            Some("MATCH (a:Agent)\n\nRETURN a.name")
        );
        assert_eq!(extract("match (n) return n").as_deref(), Some("match (n) return n"));
        assert_eq!(extract("I cannot answer that from this graph."), None);
        assert_eq!(extract("```cypher\nSorry, no.\n```"), None);
        assert_eq!(extract("MATCH (n) RETURN n; ;").as_deref(), Some("MATCH (n) RETURN n"));
    }

    #[test]
    fn rows_are_limited_in_the_query() {
        assert_eq!(limited("MATCH (n) RETURN n.name"), "MATCH (n) RETURN n.name LIMIT 1001");
        assert_eq!(
            limited("MATCH (n) RETURN n ORDER BY n.limit"),
            "MATCH (n) RETURN n ORDER BY n.limit LIMIT 1001"
        );
        assert_eq!(limited("MATCH (n) RETURN n LIMIT 5"), "MATCH (n) RETURN n LIMIT 5");
        assert_eq!(limited("MATCH (n) RETURN n SKIP 2 LIMIT 50000"), "MATCH (n) RETURN n SKIP 2 LIMIT 1001");
        assert_eq!(
            limited("MATCH (a:A) RETURN a.name AS x UNION ALL MATCH (b:B) RETURN b.name AS x"),
            "MATCH (a:A) RETURN a.name AS x LIMIT 1001 UNION ALL MATCH (b:B) RETURN b.name AS x LIMIT 1001"
        );
        assert_eq!(
            limited("MATCH (n) WITH n LIMIT 5 RETURN n"),
            "MATCH (n) WITH n LIMIT 5 RETURN n LIMIT 1001"
        );
        assert_eq!(
            limited("MATCH (n) WHERE n.x = 'RETURN y' RETURN [x IN [1] | x] AS l // RETURN"),
            "MATCH (n) WHERE n.x = 'RETURN y' RETURN [x IN [1] | x] AS l LIMIT 1001 // RETURN"
        );
        assert_eq!(limited("CALL db.labels()"), "CALL db.labels()");
        assert_eq!(limited(""), "");
    }
}
