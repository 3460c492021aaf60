//! The clusters partition the graph, whatever order its nodes and edges arrive in, and the
//! edges between clusters count exactly the member edges.

use std::collections::BTreeMap;

use proptest::prelude::*;

use super::*;

#[derive(Debug, Clone)]
struct N {
    label: &'static str,
    agent: Option<&'static str>,
    context: Option<&'static str>,
    status: Option<&'static str>,
}

fn node() -> impl Strategy<Value = N> {
    (
        prop::sample::select(vec![
            "LlmCall",
            "ToolCall",
            "Statement",
            "Verification",
            "Chunk",
            "Source",
            "Artifact",
        ]),
        prop::option::of(prop::sample::select(vec!["urn:agent:gpt-5", "urn:agent:claude", "a:b/c"])),
        prop::option::of(prop::sample::select(vec!["ctx-1", "ctx-2", "c/3"])),
        prop::option::of(prop::sample::select(vec!["valid", "invalid"])),
    )
        .prop_map(|(label, agent, context, status)| N { label, agent, context, status })
}

fn graph() -> impl Strategy<Value = (Vec<N>, Vec<(usize, usize)>)> {
    prop::collection::vec(node(), 1..40).prop_flat_map(|nodes| {
        let n = nodes.len();
        (Just(nodes), prop::collection::vec((0..n, 0..n), 0..80))
    })
}

type Key = fn(&N) -> String;

fn top(n: &N) -> String {
    top_key(n.label, n.agent, n.context.is_some())
}

fn sub(n: &N) -> String {
    sub_key(n.label, n.agent, n.context)
}

fn build(nodes: &[N], edges: &[(usize, usize)], key: Key, order: &[usize]) -> Clusters {
    // Nodes arrive in `order`; each edge as soon as both its ends have.
    let mut c = Clusters::new();
    let mut arrived = vec![false; nodes.len()];
    let mut sent = vec![false; edges.len()];
    for &i in order {
        let n = &nodes[i];
        c.add_nodes(&key(n), n.label, n.status, 1);
        arrived[i] = true;
        for (e, &(a, b)) in edges.iter().enumerate() {
            if !sent[e] && arrived[a] && arrived[b] {
                sent[e] = true;
                c.add_edges(&key(&nodes[a]), &key(&nodes[b]), 1);
            }
        }
    }
    c
}

fn summary(c: &Clusters) -> (BTreeMap<String, Cluster>, BTreeMap<(String, String), u64>) {
    (
        c.clusters().iter().map(|x| (x.key.clone(), x.clone())).collect(),
        c.edges().into_iter().map(|(a, b, w)| ((a.to_owned(), b.to_owned()), w)).collect(),
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn clusters_partition_the_graph_and_count_its_edges((nodes, edges) in graph(), seed in any::<u64>()) {
        for key in [top as Key, sub as Key] {
            let order: Vec<usize> = (0..nodes.len()).collect();
            let c = build(&nodes, &edges, key, &order);
            // Every node is in exactly one cluster: the members add up, per cluster and per label.
            prop_assert_eq!(c.total_members(), nodes.len() as u64);
            for cl in c.clusters() {
                let members: Vec<&N> = nodes.iter().filter(|n| key(n) == cl.key).collect();
                prop_assert_eq!(cl.members, members.len() as u64);
                prop_assert_eq!(cl.labels.values().sum::<u64>(), cl.members);
                prop_assert_eq!(cl.statuses.values().sum::<u64>(), members.iter().filter(|n| n.status.is_some()).count() as u64);
            }
            // Edges between clusters count exactly the member edges between them.
            prop_assert_eq!(c.total_edges(), edges.len() as u64);
            let mut want: BTreeMap<(String, String), u64> = BTreeMap::new();
            for &(a, b) in &edges {
                let (ka, kb) = (key(&nodes[a]), key(&nodes[b]));
                if ka != kb {
                    *want.entry((ka, kb)).or_default() += 1;
                }
            }
            prop_assert_eq!(&summary(&c).1, &want);
            // Any arrival order gives the same clusters.
            let mut shuffled = order.clone();
            let mut s = seed | 1;
            for i in (1..shuffled.len()).rev() {
                s ^= s << 13; s ^= s >> 7; s ^= s << 17;
                shuffled.swap(i, (s % (i as u64 + 1)) as usize);
            }
            let incremental = build(&nodes, &edges, key, &shuffled);
            let (mut a, b) = (summary(&c), summary(&incremental));
            prop_assert_eq!(&a.1, &b.1);
            prop_assert_eq!(a.0.len(), b.0.len());
            for (k, cl) in a.0.iter_mut() {
                prop_assert_eq!(Some(&*cl), b.0.get(k));
            }
        }
    }

    #[test]
    fn a_nodes_sub_cluster_lies_inside_its_top_cluster(n in node()) {
        let (sub, top) = (sub(&n), top(&n));
        prop_assert_eq!(parent(&sub), Some(top.as_str()));
        prop_assert_eq!(parent(&top), None);
    }
}

#[test]
fn keys_and_titles() {
    assert_eq!(top_key("LlmCall", Some("urn:agent:gpt-5"), true), "agent:urn:agent:gpt-5");
    assert_eq!(top_key("Chunk", Some("urn:agent:gpt-5"), false), "sources");
    assert_eq!(top_key("Artifact", None, false), "kind:Artifact");
    assert_eq!(top_key("Artifact", Some(""), false), "kind:Artifact");
    assert_eq!(top_key("LlmCall", None, true), "tasks");
    assert_eq!(sub_key("LlmCall", None, Some("ctx-1")), "tasks › task:ctx-1");
    assert_eq!(sub_key("LlmCall", None, Some("")), "kind:LlmCall › kind:LlmCall");
    assert_eq!(
        sub_key("LlmCall", Some("urn:agent:gpt-5"), Some("ctx-1")),
        "agent:urn:agent:gpt-5 › task:ctx-1"
    );
    assert_eq!(sub_key("Chunk", None, Some("ctx-1")), "sources › kind:Chunk");
    assert_eq!(sub_key("Statement", Some("a"), None), "agent:a › kind:Statement");
    assert_eq!(title("agent:urn:agent:gpt-5"), "agent gpt-5");
    assert_eq!(title("agent:a › task:ctx-1"), "task ctx-1");
    assert_eq!(title("sources"), "source documents");
    assert_eq!(title("tasks"), "tasks");
    assert_eq!(title("kind:Artifact"), "Artifact nodes");
    assert_eq!(parent("agent:a › task:ctx-1"), Some("agent:a"));
}
