//! The compact form of a view (docs/FORMATS.md "Views in columns"): its nodes and edges as
//! columns instead of an object each, every short string through one table, and edges by
//! node index. A whole view of 50,000 nodes is about a quarter of its per-node JSON, and a
//! UI builds its model from it without parsing an object per node and edge.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::{ClusterInfo, View, ViewEdge, ViewNode};

/// The hasher of the ids' and strings' maps (seeded per map): a whole view's 50,000 ids and
/// their edges' ends are looked up once each.
type Fast = foldhash::fast::RandomState;

/// A view's nodes and edges as columns. Every string but a node's id is an index into
/// `strings`; its first entry is a placeholder no value uses, so 0 in an optional column
/// means none.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, TS)]
pub struct ViewColumns {
    /// The labels, base types, agents, contexts, statuses, texts, standings, edge types and
    /// relations of the view, each once (`strings[0]` is `""` and stands for none).
    pub strings: Vec<String>,
    pub nodes: NodeColumns,
    pub edges: EdgeColumns,
}

/// A view's nodes: entry `i` of every column is node `i` (the index edges use). The fields
/// are those of [`ViewNode`]; the ones holding strings are indexes into `strings`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, TS)]
pub struct NodeColumns {
    pub id: Vec<String>,
    pub label: Vec<u32>,
    /// 0: none.
    pub base_type: Vec<u32>,
    pub x: Vec<f64>,
    pub y: Vec<f64>,
    pub w: Vec<f64>,
    pub h: Vec<f64>,
    pub layer: Vec<u32>,
    pub arrival: Vec<u32>,
    /// 0: none (as in every optional column below).
    pub agent: Vec<u32>,
    pub context: Vec<u32>,
    pub status: Vec<u32>,
    pub text: Vec<u32>,
    pub standing: Vec<u32>,
    /// What each cluster box holds, in a view with cluster boxes; none in any other.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub cluster: Option<Vec<Option<ClusterInfo>>>,
}

/// A view's edges: entry `i` of every column is edge `i`. `source` and `target` are node
/// indexes; the others are indexes into `strings`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, TS)]
pub struct EdgeColumns {
    pub source: Vec<u32>,
    pub target: Vec<u32>,
    #[serde(rename = "type")]
    pub rel: Vec<u32>,
    /// 0: none.
    pub prov: Vec<u32>,
    /// 0: none.
    pub a2a: Vec<u32>,
}

/// The string table being built: each string once, after the placeholder.
struct Table<'a> {
    strings: Vec<String>,
    index: HashMap<&'a str, u32, Fast>,
}

impl<'a> Table<'a> {
    fn new() -> Self {
        Table { strings: vec![String::new()], index: HashMap::default() }
    }

    fn of(&mut self, s: &'a str) -> u32 {
        let strings = &mut self.strings;
        *self.index.entry(s).or_insert_with(|| {
            strings.push(s.to_owned());
            (strings.len() - 1) as u32
        })
    }

    fn opt(&mut self, s: Option<&'a String>) -> u32 {
        s.map_or(0, |s| self.of(s))
    }
}

impl ViewColumns {
    /// The columns of these nodes (in this order) and of the edges between them; an edge
    /// with an end that is not among the nodes is left out (a view draws none such).
    pub fn encode<'a>(
        nodes: impl IntoIterator<Item = &'a ViewNode>,
        edges: impl IntoIterator<Item = &'a ViewEdge>,
    ) -> ViewColumns {
        let nodes = nodes.into_iter();
        let mut t = Table::new();
        let mut n = NodeColumns::with_capacity(nodes.size_hint().0);
        let mut at: HashMap<&str, u32, Fast> =
            HashMap::with_capacity_and_hasher(nodes.size_hint().0, Fast::default());
        for v in nodes {
            at.insert(v.id.as_str(), n.id.len() as u32);
            n.id.push(v.id.clone());
            n.label.push(t.of(&v.label));
            n.base_type.push(t.opt(v.base_type.as_ref()));
            n.x.push(v.x);
            n.y.push(v.y);
            n.w.push(v.w);
            n.h.push(v.h);
            n.layer.push(v.layer);
            n.arrival.push(v.arrival);
            n.agent.push(t.opt(v.agent.as_ref()));
            n.context.push(t.opt(v.context.as_ref()));
            n.status.push(t.opt(v.status.as_ref()));
            n.text.push(t.opt(v.text.as_ref()));
            n.standing.push(t.opt(v.standing.as_ref()));
            if v.cluster.is_some() && n.cluster.is_none() {
                n.cluster = Some(vec![None; n.id.len() - 1]);
            }
            if let Some(c) = &mut n.cluster {
                c.push(v.cluster.clone());
            }
        }
        let edges = edges.into_iter();
        let mut e = EdgeColumns::with_capacity(edges.size_hint().0);
        for v in edges {
            let (Some(&s), Some(&d)) = (at.get(v.source.as_str()), at.get(v.target.as_str())) else {
                continue;
            };
            e.source.push(s);
            e.target.push(d);
            e.rel.push(t.of(&v.rel));
            e.prov.push(t.opt(v.prov.as_ref()));
            e.a2a.push(t.opt(v.a2a.as_ref()));
        }
        ViewColumns { strings: t.strings, nodes: n, edges: e }
    }

    /// The nodes and edges back, each as a record; an error names the first column that is
    /// short or the first index out of range.
    pub fn decode(&self) -> Result<(Vec<ViewNode>, Vec<ViewEdge>), String> {
        let n = &self.nodes;
        let count = n.id.len();
        let node_columns: [(&str, usize); 14] = [
            ("label", n.label.len()),
            ("base_type", n.base_type.len()),
            ("x", n.x.len()),
            ("y", n.y.len()),
            ("w", n.w.len()),
            ("h", n.h.len()),
            ("layer", n.layer.len()),
            ("arrival", n.arrival.len()),
            ("agent", n.agent.len()),
            ("context", n.context.len()),
            ("status", n.status.len()),
            ("text", n.text.len()),
            ("standing", n.standing.len()),
            ("cluster", n.cluster.as_ref().map_or(count, Vec::len)),
        ];
        same_lengths("nodes", count, &node_columns)?;
        let e = &self.edges;
        let edge_columns =
            [("target", e.target.len()), ("type", e.rel.len()), ("prov", e.prov.len()), ("a2a", e.a2a.len())];
        same_lengths("edges", e.source.len(), &edge_columns)?;
        let string = |column: &str, i: u32| {
            self.strings.get(i as usize).filter(|_| i > 0).cloned().ok_or_else(|| {
                format!("{column}: {i} is not an entry of the string table ({} entries)", self.strings.len())
            })
        };
        let opt = |column: &str, i: u32| if i == 0 { Ok(None) } else { string(column, i).map(Some) };
        let mut nodes = Vec::with_capacity(count);
        for (i, id) in n.id.iter().enumerate() {
            nodes.push(ViewNode {
                id: id.clone(),
                label: string("label", n.label[i])?,
                base_type: opt("base_type", n.base_type[i])?,
                x: n.x[i],
                y: n.y[i],
                w: n.w[i],
                h: n.h[i],
                layer: n.layer[i],
                arrival: n.arrival[i],
                agent: opt("agent", n.agent[i])?,
                context: opt("context", n.context[i])?,
                status: opt("status", n.status[i])?,
                text: opt("text", n.text[i])?,
                standing: opt("standing", n.standing[i])?,
                cluster: n.cluster.as_ref().and_then(|c| c[i].clone()),
            });
        }
        let end = |column: &str, i: u32| {
            n.id.get(i as usize)
                .cloned()
                .ok_or_else(|| format!("{column}: {i} is not a node ({count} nodes)"))
        };
        let mut edges = Vec::with_capacity(e.source.len());
        for (i, &source) in e.source.iter().enumerate() {
            edges.push(ViewEdge {
                source: end("source", source)?,
                target: end("target", e.target[i])?,
                rel: string("type", e.rel[i])?,
                prov: opt("prov", e.prov[i])?,
                a2a: opt("a2a", e.a2a[i])?,
            });
        }
        Ok((nodes, edges))
    }
}

fn same_lengths(what: &str, count: usize, columns: &[(&str, usize)]) -> Result<(), String> {
    match columns.iter().find(|(_, len)| *len != count) {
        Some((name, len)) => Err(format!("{what}.{name} has {len} entries, not {count}")),
        None => Ok(()),
    }
}

impl NodeColumns {
    fn with_capacity(n: usize) -> NodeColumns {
        let ints = || Vec::with_capacity(n);
        let floats = || Vec::with_capacity(n);
        NodeColumns {
            id: Vec::with_capacity(n),
            label: ints(),
            base_type: ints(),
            x: floats(),
            y: floats(),
            w: floats(),
            h: floats(),
            layer: ints(),
            arrival: ints(),
            agent: ints(),
            context: ints(),
            status: ints(),
            text: ints(),
            standing: ints(),
            cluster: None,
        }
    }
}

impl EdgeColumns {
    fn with_capacity(n: usize) -> EdgeColumns {
        let ints = || Vec::with_capacity(n);
        EdgeColumns { source: ints(), target: ints(), rel: ints(), prov: ints(), a2a: ints() }
    }
}

impl View {
    /// The same view with its nodes and edges as columns (`columns`), the lists left empty.
    pub fn into_columns(mut self) -> View {
        if self.columns.is_none() {
            let (nodes, edges) = (std::mem::take(&mut self.nodes), std::mem::take(&mut self.edges));
            self.columns = Some(ViewColumns::encode(&nodes, &edges).into());
        }
        self
    }

    /// The view's nodes and edges as records, from its columns when it has them.
    pub fn records(&self) -> Result<(Vec<ViewNode>, Vec<ViewEdge>), String> {
        match &self.columns {
            Some(c) => c.built()?.decode(),
            None => Ok((self.nodes.clone(), self.edges.clone())),
        }
    }
}

#[cfg(test)]
#[path = "columns_tests.rs"]
mod tests;
