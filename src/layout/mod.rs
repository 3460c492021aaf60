//! Layered layout of provenance DAGs (issue 4): positions for the window to draw.
//!
//! The core computes positions; the UI only draws them. Every part is deterministic: the same
//! input (same node and edge order) gives the same output, bit for bit.
//!
//! # Public API
//!
//! * [`full`]`(&LayoutGraph, &LayoutOptions) -> Layout` — Sugiyama layout: cycle breaking
//!   (`cycles.rs`: Eades, Lin & Smyth 1993 greedy feedback arc set, reversed edges reported in
//!   [`Layout::reversed`]), layering (`layering.rs`: longest path, then a bounded number of
//!   sweeps of node moves that lower the network-simplex objective of Gansner et al. 1993 — full
//!   network simplex is not used; optional time buckets), dummy nodes (`proper.rs`), crossing
//!   reduction (`ordering.rs`: DFS start, barycentre sweeps + transposition), coordinates
//!   (`coords.rs`: Brandes & Köpf 2001, node sizes respected), components packed side by side and
//!   polyline edge routes through the dummy points (`pipeline.rs`).
//!
//! Coordinates: `x`, `y` are node centres; with [`Direction::Down`] layers are rows (y grows
//! with the layer), with [`Direction::Right`] they are columns.
//! * [`Incremental`] — layout that grows with streamed events: [`Incremental::new`],
//!   [`Incremental::from_graph`], [`Incremental::append`]`(nodes, edges) -> Result<Vec<Placed>>`,
//!   [`Incremental::layout`], [`Incremental::drift`]`() -> Drift`, [`Incremental::tidy_up`]`() ->
//!   Vec<Move>`. Placed nodes never move until `tidy_up`, which changes the left/right order of at
//!   most 5% of same-layer pairs.
//! * Views: [`neighbourhood`]`(&LayoutGraph, id, ancestors, descendants) -> Result<LayoutGraph>`,
//!   [`collapse`]`(&LayoutGraph) -> Collapsed` (chains and repeated sibling groups become one node
//!   with a count).
//! * I/O: [`GraphFile`] (the JSON graph file), [`GraphFile::from_json`], [`GraphFile::to_layout_graph`],
//!   [`Layout::to_json`], [`to_svg`]`(&Layout, &LayoutGraph) -> String`.
//! * Measures: [`crossings`], [`width`], [`order_changes`].
//! * Errors: [`LayoutError`].

mod adjacency;
mod coords;
mod cycles;
mod error;
mod graph;
mod incremental;
mod io;
mod layering;
mod metrics;
mod ordering;
mod output;
mod pipeline;
mod proper;
mod svg;
mod views;

pub use error::LayoutError;
pub use graph::{Direction, LayoutEdge, LayoutGraph, LayoutNode, LayoutOptions};
pub use incremental::{Drift, EdgeSpec, Incremental, Move, Placed};
pub use io::{label_width, GraphEdge, GraphFile, GraphNode, NODE_HEIGHT};
pub use metrics::{crossings, order_changes, width};
pub use output::{EdgeRef, EdgeRoute, Layout, NodePos};
pub use pipeline::full;
pub use svg::to_svg;
pub use views::{collapse, neighbourhood, Collapsed};

#[cfg(test)]
mod tests {
    /// The modules each `.rs` file of `dir` names with `prefix` (`super::` or `crate::`),
    /// comments left out: `use super::a::f`, `super::{a, b::g}`, `super::a::f()`.
    fn module_uses(dir: &std::path::Path, prefix: &str) -> std::collections::BTreeMap<String, Vec<String>> {
        let files: Vec<(String, String)> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "rs"))
            .map(|p| {
                (p.file_stem().unwrap().to_string_lossy().into_owned(), std::fs::read_to_string(&p).unwrap())
            })
            .collect();
        let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
        let mut uses = std::collections::BTreeMap::new();
        for (name, text) in &files {
            let code: String =
                text.lines().map(|l| l.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n");
            let mut found = Vec::new();
            for (at, _) in code.match_indices(prefix) {
                let rest = &code[at + prefix.len()..];
                let items: Vec<&str> = match rest.strip_prefix('{') {
                    Some(group) => group[..group.find('}').unwrap_or(group.len())].split(',').collect(),
                    None => vec![rest],
                };
                for item in items {
                    let id: String =
                        item.trim_start().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                    if id != *name && names.contains(&id.as_str()) && !found.contains(&id) {
                        found.push(id);
                    }
                }
            }
            found.sort();
            uses.insert(name.clone(), found);
        }
        uses
    }

    /// A cycle among the modules, as a path that ends where it starts, if there is one.
    fn module_cycle(uses: &std::collections::BTreeMap<String, Vec<String>>) -> Option<Vec<String>> {
        fn visit(
            m: &str,
            uses: &std::collections::BTreeMap<String, Vec<String>>,
            path: &mut Vec<String>,
            done: &mut std::collections::BTreeSet<String>,
        ) -> Option<Vec<String>> {
            if let Some(i) = path.iter().position(|p| p == m) {
                let mut cycle = path[i..].to_vec();
                cycle.push(m.to_owned());
                return Some(cycle);
            }
            if done.contains(m) {
                return None;
            }
            path.push(m.to_owned());
            for next in uses.get(m).into_iter().flatten() {
                if let Some(c) = visit(next, uses, path, done) {
                    return Some(c);
                }
            }
            path.pop();
            done.insert(m.to_owned());
            None
        }
        let mut done = std::collections::BTreeSet::new();
        uses.keys().find_map(|m| visit(m, uses, &mut Vec::new(), &mut done))
    }

    /// Issue 11 §3.7: `cycles` and `layering` used each other (the compressed adjacency
    /// lived in one, the topological order in the other).
    #[test]
    fn layout_modules_form_no_cycle() {
        let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/src/layout"));
        let uses = module_uses(dir, "super::");
        assert_eq!(module_cycle(&uses), None, "{uses:?}");
        assert_eq!(uses["cycles"], ["adjacency"]);
        assert_eq!(uses["layering"], ["adjacency"]);
        assert_eq!(uses["adjacency"], Vec::<String>::new());
    }
}
