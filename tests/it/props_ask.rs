//! `ask`'s check against FalkorDB's own parser (`fuzz_regressions::differential`), over
//! Cypher-like text built from the tokens where the two could read differently: backticks,
//! backslashes, quotes, comments, line ends, write words, procedure calls and paths.

use proptest::prelude::*;

use crate::fuzz_regressions::differential;

/// Pieces of text; most inputs start like a read, so that the check lets many through.
const PIECES: &[&str] = &[
    "MATCH (n) ",
    "RETURN ",
    "WITH ",
    "n",
    "n.name",
    "n.`x\\`",
    "`",
    "\\",
    "'",
    "\"",
    "\\'",
    "\\\\",
    "//",
    "/*",
    "*/",
    "\n",
    "\r\n",
    "\r",
    " ",
    "\t",
    "AS ",
    "x",
    "y",
    ",",
    "CREATE (:X) ",
    "CALL ",
    "db.labels()",
    "db.idx.fulltext.drop('Statement')",
    "db.idx.fulltext.queryNodes('Statement', 'a') YIELD node ",
    "db . labels",
    "`db`.`labels`()",
    "{ ",
    "}",
    "LOAD CSV FROM 'https://127.0.0.1:9/' + n.name AS r ",
    "SET n.x = 1 ",
    "DETACH DELETE n ",
    "MERGE (m) ",
    "FOREACH (i IN [1] | CREATE ()) ",
    "-[",
    "]->",
    "<-[",
    "]-",
    "(m)",
    "*",
    "..",
    "2",
    "10",
    "11",
    "0x10",
    ":CITES",
    "|",
    "IN",
    "[",
    "]",
    "(",
    ")",
    ";",
    "$p",
    "UNWIND [1, 2] AS i ",
    "LIMIT 5",
    " WHERE n.name = 'a' ",
    "é",
    "\0",
    "1.5e3",
    ".5",
];

fn text() -> impl Strategy<Value = String> {
    let start =
        prop::sample::select(vec!["MATCH (n) ", "MATCH (n) WITH n ", "RETURN ", "WITH 1 AS z ", "CALL ", ""]);
    let body = prop::collection::vec(prop::sample::select(PIECES.to_vec()), 0..14);
    (start, body).prop_map(|(s, b)| format!("{s}{}", b.concat()))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    /// What the check lets run plans as a bounded read on the server, and the server reads
    /// every string, quoted name and comment as the check's lexer does.
    #[test]
    fn ask_check_agrees_with_falkordb(q in text()) {
        differential::check(q.as_bytes());
    }

    /// The same with a read of the graph before the pieces, so that most inputs get planned.
    #[test]
    fn ask_check_agrees_with_falkordb_after_a_read(q in text()) {
        differential::check(format!("MATCH (n)-[:CITES*1..3]->(m) {q} RETURN n.name AS name").as_bytes());
    }
}

/// The exploits of the findings, each refused by the check (nothing reaches the server);
/// their reads without the exploit plan as reads.
#[test]
fn ask_findings_never_reach_the_server() {
    for q in [
        "MATCH (n) WITH n.`x\\` AS y CREATE (:Planted) RETURN 1 //`",
        "MATCH (n) WITH n.`x\\` AS y CALL db.idx.fulltext.drop('Statement') RETURN 1 //`",
        "MATCH (a)-[IN*]->(b) RETURN b",
        "MATCH (n) WITH n.`x\\` AS y, n LOAD CSV FROM 'https://127.0.0.1:9/' + n.name AS r RETURN r //`",
        "CALL db/* x */.idx.fulltext.drop('Statement')",
    ] {
        assert!(provex::ask::check::prepare(q).is_err(), "{q}");
        differential::check(q.as_bytes());
    }
    let planned = differential::PLANNED.load(std::sync::atomic::Ordering::Relaxed);
    differential::check(b"MATCH (n) WITH n.`x\\` AS y RETURN y //`");
    differential::check(b"// the labels\nCALL db /* the */ . labels() YIELD label RETURN label");
    assert!(differential::PLANNED.load(std::sync::atomic::Ordering::Relaxed) >= planned + 2);
}
