//! Tests of the upserts' queries: chains, their cuts, the parts of a key set, and the
//! create-or-set form of new nodes.

use super::*;
use crate::model::vocab::ProvRelation;
use crate::model::{NodeRef, PropsExt};

fn rows(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("['n{i}']")).collect()
}

#[test]
fn small_parts_chain_into_one_query_with_their_own_parameters() {
    let mut chain = Chain::default();
    chain.add(&rows(2), None, |r, _| node_query(Label::LlmCall, r, "SET n.`a` = r[1]", None));
    let kind = EdgeKind::Prov(ProvRelation::Used);
    chain.add(&rows(3), Some("USED"), |r, k| {
        edge_query(Label::LlmCall, RelType::WasUsedBy, kind, Label::ToolCall, r, k, "")
    });
    let queries = chain.finish();
    assert_eq!(queries.len(), 1);
    let q = &queries[0];
    assert_eq!(q.rows, 5);
    assert_eq!(q.cypher.matches(" WITH count(*) AS c ").count(), 1);
    assert!(q.cypher.starts_with("UNWIND $r0 AS r MERGE (n:`LlmCall` {name: r[0]})"), "{}", q.cypher);
    assert!(q.cypher.contains("UNWIND $r1 AS r MATCH (a:`LlmCall` {name: r[0]})"), "{}", q.cypher);
    assert!(q.cypher.contains("{`prov:base_type`: $k1}"), "{}", q.cypher);
    let names: Vec<&str> = q.params.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(names, ["r0", "r1", "k1"]);
    assert_eq!(q.params[0].1, "[['n0'], ['n1']]");
    assert_eq!(q.params[2].1, "'USED'");
}

#[test]
fn chains_are_cut_at_the_batch_size() {
    let mut chain = Chain::default();
    for _ in 0..3 {
        chain.add(&rows(BATCH_ROWS / 2), None, |r, _| node_query(Label::Artifact, r, "", None));
    }
    chain.add(&rows(BATCH_ROWS), None, |r, _| node_query(Label::Artifact, r, "", None));
    let sizes: Vec<usize> = chain.finish().iter().map(|q| q.rows).collect();
    assert_eq!(sizes, [BATCH_ROWS, BATCH_ROWS / 2, BATCH_ROWS]);
}

#[test]
fn rows_of_one_key_set_share_a_query_that_names_their_keys() {
    let mut d = GraphDelta::new();
    for i in 0..3 {
        let mut n = Node::new(Label::Artifact, format!("a{i}"));
        n.props.set_str("x:b", "1");
        n.props.set("x:a", i as i64);
        // Set by the label, never from the row.
        n.props.set_str(PROV_TYPE, "ignored");
        d.add_node(n);
    }
    let mut odd = Node::new(Label::Artifact, "odd");
    odd.props.set_str("x:c", "it's");
    d.add_node(odd);
    let mut e = Edge::new(
        RelType::WasUsedBy,
        EdgeKind::Prov(ProvRelation::Used),
        NodeRef::new(Label::Artifact, "a0"),
        NodeRef::new(Label::Artifact, "a1"),
    );
    e.props.set_str("prov:role", "input");
    d.add_edge(e);
    let (queries, stats) = upserts(&d, false).unwrap();
    assert_eq!((stats.nodes, stats.edges, stats.queries), (4, 1, 2));
    let nodes = &queries[0];
    assert!(nodes.cypher.contains("SET n.`x:a` = r[1], n.`x:b` = r[2]"), "{}", nodes.cypher);
    assert!(nodes.cypher.contains("SET n.`x:c` = r[1]"), "{}", nodes.cypher);
    assert!(!nodes.cypher.contains("+="), "{}", nodes.cypher);
    assert_eq!(nodes.params[0].1, "[['a0', 0, '1'], ['a1', 1, '1'], ['a2', 2, '1']]");
    assert_eq!(nodes.params[1].1, "[['odd', 'it\\'s']]");
    let edges = &queries[1];
    assert!(
        edges
            .cypher
            .ends_with("MERGE (a)-[e:`WAS_USED_BY` {`prov:base_type`: $k0}]->(b) SET e.`prov:role` = r[2]"),
        "{}",
        edges.cypher
    );
    assert_eq!(edges.params[0].1, "[['a0', 'a1', 'input']]");
}

/// A node not there yet is created with its kinds and properties in one `CREATE`; only
/// one already there is `SET`. An `Explain` node's default kinds are left out when its
/// record gives them, and are never set again.
#[test]
fn new_nodes_are_created_with_their_properties_and_only_old_ones_are_set() {
    let q = node_query(Label::Artifact, "r0", "SET n.`x:a` = r[1]", Some("`x:a`: r[1]"));
    assert_eq!(
        q,
        "UNWIND $r0 AS r OPTIONAL MATCH (n:`Artifact` {name: r[0]}) \
         FOREACH (_ IN CASE WHEN n IS NULL THEN [1] ELSE [] END | CREATE (:`Artifact` {name: r[0], \
         `prov:type`: 'a2a:Artifact', `prov:base_type`: 'ProvEntity', `x:a`: r[1]})) \
         FOREACH (_ IN CASE WHEN n IS NULL THEN [] ELSE [1] END | SET n.`prov:type` = 'a2a:Artifact', \
         n.`prov:base_type` = 'ProvEntity' SET n.`x:a` = r[1])"
    );
    let explain = node_query(Label::Explain, "r0", "SET n.`prov:type` = r[1]", Some("`prov:type`: r[1]"));
    assert!(
        explain
            .contains("CREATE (:`Explain` {name: r[0], `prov:base_type`: 'ProvEntity', `prov:type`: r[1]})"),
        "{explain}"
    );
    assert!(explain.ends_with("ELSE [1] END | SET n.`prov:type` = r[1])"), "{explain}");
    let named = node_query(Label::Explain, "r0", "", Some(""));
    assert!(
        named.ends_with("{name: r[0], `prov:type`: 'tg:Explain', `prov:base_type`: 'ProvEntity'}))"),
        "{named}"
    );
    assert!(!named.contains("SET"), "{named}");
}

/// Nodes alone: a query per part, whose text (all but its rows) is the same whatever
/// else the batch holds, so FalkorDB plans it once.
#[test]
fn nodes_alone_keep_their_text_from_batch_to_batch() {
    let texts = |names: &[&str], more: bool| {
        let mut d = GraphDelta::new();
        for name in names {
            let mut n = Node::new(Label::Artifact, *name);
            n.props.set_str("x:a", name);
            d.add_node(n);
        }
        if more {
            d.add_node(Node::new(Label::Agent, "ag"));
        }
        let (queries, _) = upserts(&d, true).unwrap();
        queries.iter().map(|q| q.cypher.clone()).collect::<Vec<_>>()
    };
    let (one, two) = (texts(&["a", "b"], true), texts(&["c"], false));
    assert_eq!(one.len(), 2, "{one:?}");
    assert!(one.iter().all(|q| q.starts_with("UNWIND $r0 AS r") && !q.contains("WITH")), "{one:?}");
    assert!(one.contains(&two[0]), "{one:?} {two:?}");
    assert_eq!(upserts(&GraphDelta::new(), true).unwrap().0.len(), 0);
}
