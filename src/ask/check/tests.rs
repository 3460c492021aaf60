//! The check on the spellings that got past it before, and on reads it must let through.

use super::*;

fn refused(q: &str) -> String {
    refusal(q).unwrap_or_else(|| panic!("accepted: {q}"))
}

#[test]
fn a_backslash_before_a_backtick_hides_nothing() {
    // FalkorDB ends a quoted name at the next backtick, backslash or not: the clause after
    // it is a clause, and the last backtick sits in a comment.
    for (q, word) in [
        ("MATCH (n) WITH n.`x\\` AS y CREATE (:Planted) RETURN 1 //`", "CREATE"),
        (
            "MATCH (n) WITH n.`x\\` AS y CALL db.idx.fulltext.drop('Statement') RETURN 1 //`",
            "db.idx.fulltext.drop",
        ),
        ("MATCH (n) WITH n.`x\\` AS y MATCH (n)-[*]->(m) RETURN m //`", "no upper bound"),
        ("MATCH (n) WITH n.`x\\` AS y, n LOAD CSV FROM 'https://x' + n.name AS r RETURN r //`", "LOAD CSV"),
    ] {
        assert!(refused(q).contains(word), "{q}: {}", refused(q));
    }
}

#[test]
fn the_findings_in_their_plain_spellings() {
    assert!(refused("CALL db.idx.fulltext.drop('Statement')").contains("db.idx.fulltext.drop"));
    assert!(refused("MATCH (a)-[*]->(b) RETURN b").contains("no upper bound"));
    assert!(refused("MATCH (n) LOAD CSV FROM 'https://x' + n.name AS r RETURN r").contains("LOAD CSV"));
    assert!(refused("match (n) load csv with headers from 'file:///etc/passwd' as r return r")
        .contains("LOAD CSV"));
}

#[test]
fn writes_in_every_spelling_are_refused() {
    for q in [
        "CREATE (n:X)",
        "MATCH (n) DETACH DELETE n",
        "MATCH (n) SET n.a = 1",
        "MATCH (n) SET n += {a: 1}",
        "match (n) merge (m:X)",
        "MATCH (n) REMOVE n.a",
        "MATCH (n) FOREACH (x IN [1] | CREATE (:Y))",
        "CALL db.idx.fulltext.createNodeIndex('L', 'p')",
        "CALL { CREATE (:X) }",
        "CALL { MATCH (n) RETURN n } RETURN 1",
        "MATCH (n) CALL { WITH n DELETE n } RETURN 1",
        "MATCH (n) WITH n CREATE INDEX FOR (m:L) ON (m.p)",
        "MATCH (n) RETURN n UNION MATCH (m) DETACH DELETE m",
        "MATCH (n)\nCrEaTe (m)",
        "MATCH (n) WITH n /* x */ DELETE n",
    ] {
        refused(q);
    }
}

#[test]
fn only_read_only_procedures_on_the_list_run() {
    for q in [
        "CALL db.labels()",
        "CALL db.labels",
        "CALL DB.LABELS() YIELD label RETURN label",
        "CALL db . relationshipTypes()",
        "CALL `db`.`propertyKeys`()",
        "CALL `db.labels`()",
        "CALL db.idx.fulltext.queryNodes('Statement', 'park') YIELD node RETURN node.name",
        "MATCH (n) WITH count(n) AS c CALL db.indexes() YIELD label RETURN c, label",
    ] {
        assert_eq!(refusal(q), None, "{q}");
    }
    for q in [
        "CALL db.idx.fulltext.drop('L')",
        "CALL `db.idx.fulltext.drop`('L')",
        "CALL `db`.idx.`fulltext`.drop('L')",
        "CALL db . idx . fulltext . drop('L')",
        "CALL db.idx.fulltext.createNodeIndex('L', 'p')",
        "MATCH (a), (b) CALL algo.SPpaths({sourceNode: a, targetNode: b, relTypes: ['T']}) YIELD path RETURN path",
        "MATCH (a) CALL algo.BFS(a, 0, 'T') YIELD nodes RETURN nodes",
        "CALL dbms.procedures()",
        "CALL db.labels.x()",
        "CALL 'db.labels'()",
        "CALL",
    ] {
        refused(q);
    }
}

#[test]
fn variable_length_paths_need_a_plain_bound_of_at_most_ten() {
    for q in [
        "MATCH (a)-[*]->(b) RETURN b",
        "MATCH (a)-[* ]->(b) RETURN b",
        "MATCH (a)-[*..]->(b) RETURN b",
        "MATCH (a)-[:T*2..]->(b) RETURN b",
        "MATCH (a)<-[r:T|:U*]-(b) RETURN b",
        "MATCH (a)<-[r:T|U *3 ..]-(b) RETURN b",
        "MATCH (a)- [IN*]->(b) RETURN b",
        "MATCH (a)-[`r`:`T` *]-(b) RETURN b",
        "MATCH (a)-[*1..100000]->(b) RETURN b",
        "MATCH (a)-[*11]->(b) RETURN b",
        "MATCH (a)-[*..0x10]->(b) RETURN b",
        "MATCH (a)-[*..010]->(b) RETURN b",
        "MATCH (a)-[*..1e1]->(b) RETURN b",
        "MATCH (a)-[*..4294967297]->(b) RETURN b",
        "MATCH (a)-[*..99999999999999999999999]->(b) RETURN b",
        "MATCH (a)-[*2*3]->(b) RETURN b",
        "MATCH (a) RETURN [(a)-[*]->(b) | b.name]",
        "MATCH (a) WHERE (a)-[*]->() RETURN a",
        "MATCH (a), (b) RETURN shortestPath((a)-[*]->(b))",
        "MATCH (a)-/* c */[*]->(b) RETURN b",
    ] {
        refused(q);
    }
    assert!(refused("MATCH (a)-[:T*1..100000]->(b) RETURN b").contains("100000 hops"));
    for q in [
        "MATCH p = (a)-[:T*1..5]->(b) RETURN p",
        "MATCH (a)-[*3]->(b) RETURN b",
        "MATCH (a)-[*0..10]->(b) RETURN b",
        "MATCH (a)-[r:T|:U*..10 {w: 2 * 3}]->(b) RETURN b",
        "MATCH (a)-[ * 2 .. 5 ]->(b) RETURN b",
        "RETURN [x IN [1, 2] | x * 200]",
        "MATCH (a) RETURN a.n * 100",
        "MATCH (a), (b) RETURN shortestPath((a)-[*..4]->(b))",
    ] {
        assert_eq!(refusal(q), None, "{q}");
    }
}

#[test]
fn what_falkordb_reads_differently_is_refused() {
    for q in [
        "MATCH (n) RETURN n; MATCH (m) DELETE m",
        "MATCH (n) RETURN n;",
        "MATCH (n) WHERE n.name = $name RETURN n",
        "CYPHER x=1 MATCH (n) RETURN n",
        "EXPLAIN MATCH (n) RETURN n",
        "PROFILE MATCH (n) RETURN n",
        "MATCH (n) RETURN n.`open",
        "MATCH (n) RETURN 'open",
        "MATCH (n) RETURN n /* open",
        "MATCH (n) RETURN n\0 CREATE (:X)",
        "MATCH (n) RETURN n\r",
        "MATCH (n) RETURN n.é",
        "MATCH (n) WHERE 1 != 2 RETURN n",
        ":help",
        "",
        "// only a comment",
    ] {
        refused(q);
    }
}

#[test]
fn text_is_not_a_write() {
    for q in [
        "MATCH (s:Statement) WHERE s.claim_text CONTAINS 'CREATE a park' RETURN s",
        "MATCH (n) WHERE n.`SET` = 1 RETURN n // DELETE later",
        "MATCH (n) /* MERGE */ RETURN n.created_at, n.settings, n.set, n.load",
        "MATCH (n) WHERE n.name = 'it\\'s `CREATE`' RETURN n",
        "MATCH (n) WHERE n.name = \"a\\\\\" RETURN n.`x\\`",
        "MATCH (n:Statement) RETURN n.`prov:type` AS t",
        "OPTIONAL MATCH (n) RETURN n",
        "UNWIND [1, 2] AS x RETURN x",
        "WITH 1 AS one RETURN one",
        "RETURN 1",
    ] {
        assert_eq!(refusal(q), None, "{q}");
    }
}

#[test]
fn comments_are_taken_out_before_the_query_runs() {
    assert_eq!(strip_comments("MATCH (n) // all\nRETURN n /* x */"), "MATCH (n) \nRETURN n");
    assert_eq!(strip_comments("RETURN a/**/AS b"), "RETURN a AS b");
    assert_eq!(strip_comments("RETURN '//' AS `/*`"), "RETURN '//' AS `/*`");
    assert_eq!(
        prepare("// count\nCALL db/* x */.labels() YIELD label RETURN label").as_deref(),
        Ok("CALL db .labels() YIELD label RETURN label LIMIT 1001")
    );
    assert_eq!(prepare("MATCH (n) RETURN n // done").as_deref(), Ok("MATCH (n) RETURN n LIMIT 1001"));
    assert!(prepare("MATCH (n) /* x */ CREATE (m)").is_err());
}
