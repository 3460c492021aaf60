//! The Cypher a model answered with: taken out of its reply (a fenced block, or the text),
//! then checked before it runs: anything that would write, call a procedure outside a short
//! read-only list, or follow an unbounded variable-length path is refused, naming the clause.
//! The check reads tokens (string literals, quoted names and comments are skipped), not
//! substrings; `GRAPH.RO_QUERY` refuses writes again when the query runs.

/// The Cypher in a model's reply: the first fenced block (```cypher, ```sql, ``` …), else the
/// whole reply; without a trailing `;`. `None` when nothing is left.
pub fn extract(reply: &str) -> Option<String> {
    let text = match reply.find("```") {
        Some(start) => {
            let rest = &reply[start + 3..];
            // The info string (`cypher`) ends at the first newline.
            let body = rest.split_once('\n').map_or(rest, |(_, b)| b);
            body.split("```").next().unwrap_or(body)
        }
        None => reply,
    };
    let q = text.trim().trim_end_matches(';').trim();
    (!q.is_empty()).then(|| q.to_owned())
}

/// Clauses that write.
const WRITES: &[&str] = &["CREATE", "MERGE", "SET", "DELETE", "DETACH", "REMOVE", "DROP", "FOREACH", "LOAD"];

/// Procedures a question may call (they only read).
const READ_PROCEDURES: &[&str] = &[
    "db.labels",
    "db.relationshiptypes",
    "db.propertykeys",
    "db.indexes",
    "db.idx.fulltext.querynodes",
    "algo.bfs",
];

/// Why `q` may not run, or `None` when it is a read.
pub fn refusal(q: &str) -> Option<String> {
    let tokens = tokens(q);
    for (i, t) in tokens.iter().enumerate() {
        let upper = t.to_ascii_uppercase();
        if WRITES.contains(&upper.as_str()) {
            return Some(format!("the generated Cypher would write ({upper}); only reads run"));
        }
        if upper == "CALL" {
            let name = tokens[i + 1..]
                .iter()
                .take_while(|t| *t != "(" && *t != "{")
                .map(String::as_str)
                .collect::<String>();
            if name.is_empty() {
                return Some("the generated Cypher has a CALL subquery; only reads of the graph run".into());
            }
            if !READ_PROCEDURES.contains(&name.to_ascii_lowercase().as_str()) {
                return Some(format!(
                    "the generated Cypher calls {name}, which is not a read-only procedure"
                ));
            }
        }
        if t == "*" && in_relationship(&tokens[..i]) {
            // `[*]`, `[:T*]`, `[*2..]`: a variable-length path needs an upper bound.
            let rest: Vec<&str> =
                tokens[i + 1..].iter().take_while(|t| *t != "]").map(String::as_str).collect();
            let bounded = match rest.as_slice() {
                [n] if n.chars().all(|c| c.is_ascii_digit()) => true,
                [.., "..", n] if n.chars().all(|c| c.is_ascii_digit()) => true,
                _ => false,
            };
            if !bounded {
                return Some(
                    "the generated Cypher follows a variable-length path with no upper bound (write *1..5)"
                        .into(),
                );
            }
        }
    }
    None
}

/// Whether the tokens before a `*` end inside a relationship pattern: `[`, then only a
/// variable, `:` and type names (`[r:T|U*`), not an expression (`[x IN xs | x*2]`).
fn in_relationship(before: &[String]) -> bool {
    let Some(open) = before.iter().rposition(|t| t == "[") else { return false };
    before[open + 1..].iter().all(|t| {
        t == ":" || t == "|" || t.starts_with('`') || t.chars().all(|c| c.is_alphanumeric() || c == '_')
    }) && !before[open + 1..].iter().any(|t| t.eq_ignore_ascii_case("IN"))
}

/// Words, numbers and punctuation of `q`, with string literals, `quoted names` and comments
/// left out; `..` is one token.
fn tokens(q: &str) -> Vec<String> {
    let chars: Vec<char> = q.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c == '/' && chars.get(i + 1) == Some(&'/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && chars.get(i + 1) == Some(&'*') {
            i += 2;
            while i < chars.len() && !(chars[i] == '*' && chars.get(i + 1) == Some(&'/')) {
                i += 1;
            }
            i += 2;
        } else if c == '\'' || c == '"' || c == '`' {
            i += 1;
            while i < chars.len() && chars[i] != c {
                if chars[i] == '\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            out.push(if c == '`' { "`name`".to_owned() } else { "'text'".to_owned() });
        } else if c.is_alphanumeric() || c == '_' || c == '$' {
            let start = i;
            while i < chars.len()
                && (chars[i].is_alphanumeric() || chars[i] == '_' || chars[i] == '$' || chars[i] == '.')
            {
                // `a.b` stays one token (procedure names); `1..3` splits at `..`.
                if chars[i] == '.' && chars.get(i + 1) == Some(&'.') {
                    break;
                }
                i += 1;
            }
            out.push(chars[start..i].iter().collect());
        } else if c == '.' && chars.get(i + 1) == Some(&'.') {
            out.push("..".to_owned());
            i += 2;
        } else {
            out.push(c.to_string());
            i += 1;
        }
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
    }

    #[test]
    fn writes_are_refused_and_text_is_not_a_write() {
        for q in [
            "CREATE (n:X)",
            "MATCH (n) DETACH DELETE n",
            "MATCH (n) SET n.a = 1",
            "match (n) merge (m:X)",
            "MATCH (n) REMOVE n.a",
            "LOAD CSV FROM 'x' AS r RETURN r",
            "MATCH (n) FOREACH (x IN [1] | CREATE (:Y))",
            "CALL db.idx.fulltext.createNodeIndex('L', 'p')",
            "CALL { CREATE (:X) }",
            "MATCH (a)-[*]->(b) RETURN b",
            "MATCH (a)-[:T*2..]->(b) RETURN b",
        ] {
            assert!(refusal(q).is_some(), "{q}");
        }
        for q in [
            "MATCH (s:Statement) WHERE s.claim_text CONTAINS 'CREATE a park' RETURN s",
            "MATCH (n) WHERE n.`SET` = 1 RETURN n // DELETE later",
            "MATCH (n) /* MERGE */ RETURN n.created_at, n.settings",
            "MATCH p = (a)-[:T*1..5]->(b) RETURN p",
            "MATCH (a)-[*3]->(b) RETURN b",
            "CALL db.labels()",
            "RETURN [x IN [1, 2] | x * 2]",
        ] {
            assert_eq!(refusal(q), None, "{q}");
        }
    }
}
