//! The spill's record encoding round-trips every node and edge, its partitions give back
//! what was added merged as a delta merges it, the id map finds every node sent, and the
//! file is never visible by name and goes with the spill.

use proptest::prelude::*;

use super::*;
use crate::model::vocab::{A2aRelation, EdgeKind, ProvRelation, RelType};
use crate::model::{PropValue, Props};

fn value() -> impl Strategy<Value = PropValue> {
    let leaf = prop_oneof![
        any::<bool>().prop_map(PropValue::Bool),
        any::<i64>().prop_map(PropValue::Int),
        any::<f64>().prop_map(PropValue::Float),
        ".{0,12}".prop_map(PropValue::Str),
    ];
    leaf.prop_recursive(3, 12, 4, |inner| proptest::collection::vec(inner, 0..4).prop_map(PropValue::List))
}

fn props() -> impl Strategy<Value = Props> {
    proptest::collection::btree_map("[a-z:_\0é]{0,8}".prop_map(std::borrow::Cow::Owned), value(), 0..4)
}

fn label() -> impl Strategy<Value = Label> {
    proptest::sample::select(Label::ALL)
}

fn node() -> impl Strategy<Value = Node> {
    (label(), "[a-c]{0,2}|.{0,20}", props()).prop_map(|(label, name, props)| Node { label, name, props })
}

fn kind() -> impl Strategy<Value = EdgeKind> {
    prop_oneof![
        proptest::sample::select(ProvRelation::ALL).prop_map(EdgeKind::Prov),
        proptest::sample::select(A2aRelation::ALL).prop_map(EdgeKind::A2a),
        Just(EdgeKind::Plain),
    ]
}

fn edge() -> impl Strategy<Value = Edge> {
    (proptest::sample::select(RelType::ALL), kind(), label(), "[a-c]{0,2}", label(), "[a-c]{0,2}", props())
        .prop_map(|(rel, kind, sl, s, tl, t, props)| Edge {
            rel,
            kind,
            source: NodeRef::new(sl, s),
            target: NodeRef::new(tl, t),
            props,
        })
}

/// Values compared by their bits (NaN equals itself).
fn same(a: &PropValue, b: &PropValue) -> bool {
    match (a, b) {
        (PropValue::Float(x), PropValue::Float(y)) => x.to_bits() == y.to_bits(),
        (PropValue::List(x), PropValue::List(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        _ => a == b,
    }
}

fn same_props(a: &Props, b: &Props) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|((ka, va), (kb, vb))| ka == kb && same(va, vb))
}

/// A delta's nodes and edges as sorted lines (floats by their bits).
fn lines(d: &GraphDelta) -> Vec<String> {
    let mut out: Vec<String> = d.nodes().map(|n| format!("{n:?}")).collect();
    out.extend(d.edges().map(|e| format!("{e:?}")));
    out.sort();
    out
}

proptest! {
    #[test]
    fn records_round_trip(nodes in proptest::collection::vec(node(), 0..8), edges in proptest::collection::vec(edge(), 0..8)) {
        let mut buf = Vec::new();
        for n in &nodes {
            encode_node(&mut buf, n);
        }
        for e in &edges {
            encode_edge(&mut buf, e);
        }
        let mut r = Reader(&buf);
        for n in &nodes {
            let back = decode_node(&mut r).unwrap();
            prop_assert_eq!((&back.label, &back.name), (&n.label, &n.name));
            prop_assert!(same_props(&back.props, &n.props));
        }
        for e in &edges {
            let back = decode_edge(&mut r).unwrap();
            prop_assert_eq!((back.rel, back.kind, &back.source, &back.target), (e.rel, e.kind, &e.source, &e.target));
            prop_assert!(same_props(&back.props, &e.props));
        }
        prop_assert!(r.0.is_empty());
    }

    #[test]
    fn a_cut_or_garbled_record_is_an_error_not_a_panic(n in node(), cut in 0usize..64, flip in any::<(usize, u8)>()) {
        let mut buf = Vec::new();
        encode_node(&mut buf, &n);
        let cut = cut.min(buf.len().saturating_sub(1));
        prop_assert!(decode_node(&mut Reader(&buf[..cut])).is_err());
        let i = flip.0 % buf.len();
        buf[i] ^= flip.1;
        let _ = decode_node(&mut Reader(&buf));
    }

    #[test]
    fn a_spill_gives_back_the_delta_its_batches_make(
        batches in proptest::collection::vec(
            (proptest::collection::vec(node(), 0..12), proptest::collection::vec(edge(), 0..12)), 1..6),
        rows in 1u64..20,
    ) {
        let dir = tempfile::tempdir().unwrap();
        let mut spill = Spill::in_dir(dir.path()).unwrap();
        let mut whole = GraphDelta::new();
        for (nodes, edges) in batches {
            let mut d = GraphDelta::new();
            nodes.into_iter().for_each(|n| d.add_node(n));
            edges.into_iter().for_each(|e| d.add_edge(e));
            whole.extend(d.clone());
            spill.add(d).unwrap();
        }
        let spilled = spill.finish().unwrap();
        let part = Part { bytes: 200, rows };
        let mut back = GraphDelta::new();
        for nodes in [true, false] {
            let groups = spilled.groups(nodes, part);
            // The groups are consecutive, cover every partition with records, and keep to
            // the bound unless one partition is over it alone.
            for w in groups.windows(2) {
                prop_assert_eq!(w[0].end, w[1].start);
            }
            for g in groups {
                let d = if nodes { spilled.read_nodes(g.clone()) } else { spilled.read_edges(g.clone()) }.unwrap();
                let n = if nodes { d.node_count() } else { d.edge_count() };
                let offset = if nodes { 0 } else { PARTITIONS };
                let filled = g.clone().filter(|p| spilled.counts[offset + p] > 0).count();
                prop_assert!(n as u64 <= rows || filled == 1, "{} rows in {:?}", n, g);
                back.extend(d);
            }
        }
        prop_assert_eq!(lines(&back), lines(&whole));
    }

    #[test]
    fn the_id_map_finds_every_node_by_name(names in proptest::collection::btree_set((label(), ".{0,10}"), 0..200)) {
        let mut entries = Vec::new();
        let mut want = Vec::new();
        for (i, (label, name)) in names.iter().enumerate() {
            entries.push(Entry { hash: node_hash(*label, name), id: i as u32 });
            want.push((NodeRef::new(*label, name.clone()), i as u64));
        }
        let ids = IdMap::new(entries).unwrap();
        prop_assert_eq!(ids.len(), names.len());
        for (r, id) in want {
            prop_assert_eq!(ids.get(&r), Some(id));
        }
        prop_assert_eq!(ids.get(&NodeRef::new(Label::Artifact, "\u{0}not sent")), None);
    }
}

proptest! {
    #[test]
    fn a_hash_is_found_where_it_is_however_the_hashes_bunch(
        spread in proptest::collection::btree_set(any::<u64>(), 0..300),
        bunched in proptest::collection::btree_set(0u64..2_000, 0..300),
        top in any::<bool>(),
        probes in proptest::collection::vec(any::<u64>(), 0..50),
    ) {
        // Evenly spread hashes, and hashes crowded at one end (as names made to collide
        // near each other would give).
        let crowd: Vec<u64> = bunched.iter().map(|b| if top { u64::MAX - b } else { *b }).collect();
        let hashes: std::collections::BTreeSet<u64> = spread.into_iter().chain(crowd).collect();
        let entries: Vec<Entry> = hashes.iter().enumerate().map(|(i, h)| Entry { hash: *h, id: i as u32 }).collect();
        let ids = IdMap::new(entries).unwrap();
        for (i, h) in hashes.iter().enumerate() {
            prop_assert_eq!(ids.position(*h), Some(i));
        }
        for p in probes.into_iter().chain([0, u64::MAX, 1_000]) {
            prop_assert_eq!(ids.position(p), hashes.iter().position(|h| *h == p));
        }
    }
}

#[test]
fn two_nodes_with_one_hash_are_refused() {
    let e = |hash, id| Entry { hash, id };
    assert!(IdMap::new(vec![e(7, 0), e(9, 1), e(7, 2)]).is_none());
    assert_eq!(std::mem::size_of::<Entry>(), 12);
}

#[test]
fn the_spill_file_has_no_name_and_goes_with_the_spill() {
    let dir = tempfile::tempdir().unwrap();
    let open_here = || -> usize {
        std::fs::read_dir("/proc/self/fd")
            .map(|fds| {
                fds.filter_map(|f| std::fs::read_link(f.ok()?.path()).ok())
                    .filter(|target| target.starts_with(dir.path()))
                    .count()
            })
            .unwrap_or(0)
    };
    let mut spill = Spill::in_dir(dir.path()).unwrap();
    let mut d = GraphDelta::new();
    for i in 0..5_000 {
        d.add_node(Node::new(Label::Artifact, format!("n{i}")).with("text", "x".repeat(40)));
    }
    spill.add(d).unwrap();
    let spilled = spill.finish().unwrap();
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "the spill has no name in its folder");
    if cfg!(target_os = "linux") {
        assert_eq!(open_here(), 1, "the spill is open while it is read");
    }
    let read: usize = spilled
        .groups(true, Part::default())
        .into_iter()
        .map(|g| spilled.read_nodes(g).unwrap().node_count())
        .sum();
    assert_eq!(read, 5_000);
    drop(spilled);
    assert_eq!(open_here(), 0, "nothing of the spill is left");
}
