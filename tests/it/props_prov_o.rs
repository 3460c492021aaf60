//! Property tests of the PROV-O Turtle importer (`prov::turtle`): any graph of Provex's own
//! whose nodes have distinct names, exported as PROV-O Turtle, imports as the same graph
//! (names, labels, typed properties, edge types, kinds and directions); any text, and
//! Turtle made of PROV-O's own words in any order, is read without panicking, naming a line
//! and a reason for what it refuses (the fuzz target's check, `prov_o`).

use std::collections::HashSet;

use proptest::prelude::*;
use provex::diff::{diff, render_text, Snapshot};
use provex::model::GraphDelta;
use provex::sources::prov::turtle::import;
use provex::sources::prov::{Document, ProvFormat};

use crate::fuzz_regressions::checks;
use crate::props_prov::native_graph;

/// In PROV-O one IRI is one resource: two nodes that share a name (under two labels) would be
/// one record there, so the graphs compared here give each node its own name.
fn distinct_names(d: &GraphDelta) -> bool {
    let mut seen = HashSet::new();
    d.nodes().all(|n| seen.insert(n.name.clone()))
}

/// Turtle-ish text from PROV-O's words, IRIs, literals and punctuation, in any order.
fn turtle_soup() -> impl Strategy<Value = String> {
    let token = prop::sample::select(vec![
        "@prefix prov: <http://www.w3.org/ns/prov#> .",
        "@prefix ex: <http://example.org/> .",
        "<urn:a>",
        "<urn:b>",
        "ex:c",
        "_:b1",
        "a",
        "prov:Entity",
        "prov:Activity",
        "prov:Agent",
        "prov:used",
        "prov:wasGeneratedBy",
        "prov:qualifiedInfluence",
        "prov:influencer",
        "<https://provex.dev/ns#prov-relation>",
        "\"used\"",
        "\"x\"@en",
        "\"1\"^^<http://www.w3.org/2001/XMLSchema#long>",
        "\"2.5\"^^<http://www.w3.org/2001/XMLSchema#double>",
        "true",
        "42",
        "[",
        "]",
        "(",
        ")",
        ";",
        ",",
        ".",
        "\n",
    ]);
    prop::collection::vec(token, 0..60).prop_map(|t| t.join(" "))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn a_graph_of_provex_own_imports_back_from_turtle_as_the_same_graph(
        delta in native_graph().prop_filter("distinct names", distinct_names)
    ) {
        let text = ProvFormat::ProvOTurtle.write(&Document::from_delta("g", &delta));
        let imported = import(&text).unwrap_or_else(|e| panic!("{e:?}\n{text}"));
        prop_assert_eq!(&imported.rejected, &vec![]);
        let d = diff(&Snapshot::from_delta(&delta), &Snapshot::from_delta(&imported.delta));
        prop_assert!(d.is_empty(), "{}\n{}", render_text(&d), text);
    }

    #[test]
    fn turtle_made_of_prov_o_words_is_read_without_panicking(text in turtle_soup()) {
        checks::prov_o(text.as_bytes());
    }

    #[test]
    fn any_text_is_read_as_turtle_without_panicking(text in "\\PC{0,200}") {
        checks::prov_o(text.as_bytes());
    }
}

#[test]
fn a_syntax_error_names_its_line_and_reason() {
    let text =
        "@prefix prov: <http://www.w3.org/ns/prov#> .\n<urn:a> a prov:Entity .\n<urn:b> prov:used <urn:a\n";
    let (line, reason) = import(text).expect_err("refused");
    assert_eq!(line, 3, "{reason}");
    assert!(reason.starts_with("not PROV-O Turtle: "), "{reason}");
}

#[test]
fn a_foreign_document_gives_its_records_and_relations() {
    let text = "@prefix prov: <http://www.w3.org/ns/prov#> .\n@prefix ex: <http://example.org/> .\n\
                ex:report a prov:Entity ; ex:pages 12 ; prov:wasGeneratedBy ex:writing .\n\
                ex:writing a prov:Activity ; prov:wasAssociatedWith ex:ana .\n\
                ex:ana a prov:Person .\n";
    let imported = import(text).unwrap();
    assert_eq!(imported.rejected, vec![]);
    assert_eq!(imported.statements, 5);
    let snap = Snapshot::from_delta(&imported.delta);
    let mut names: Vec<(String, String)> = snap
        .nodes
        .keys()
        .map(|k| (k.label.clone(), k.name.clone()))
        .filter(|(l, _)| l != "Namespaces")
        .collect();
    names.sort();
    assert_eq!(
        names,
        vec![
            ("Activity".into(), "http://example.org/writing".into()),
            ("Agent".into(), "http://example.org/ana".into()),
            ("Entity".into(), "http://example.org/report".into()),
        ]
    );
    assert_eq!(snap.edges.len(), 2);
}
