//! Layered layout of provenance DAGs : positions for the window to draw.
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
//!   polyline edge routes through the dummy points (`pipeline.rs`), and with
//!   [`LayoutOptions::aspect`] the row folded into strips stacked like lines of text (`fold.rs`).
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
mod batch;
pub mod cluster;
mod coords;
mod cycles;
mod error;
mod fold;
mod graph;
mod incremental;
mod io;
mod layering;
mod metrics;
mod ordering;
mod output;
mod pipeline;
mod proper;
mod reduce;
mod slots;
mod svg;

pub use error::LayoutError;
pub use graph::{Direction, LayoutEdge, LayoutGraph, LayoutNode, LayoutOptions};
pub use incremental::{Drift, EdgeSpec, Incremental, Move, Placed};
pub use io::{label_width, GraphEdge, GraphFile, GraphNode, NODE_HEIGHT};
pub use metrics::{crossings, order_changes, width};
pub use output::{EdgeRef, EdgeRoute, Layout, NodePos};
pub use pipeline::full;
pub use reduce::{collapse, neighbourhood, Collapsed};
pub use svg::to_svg;
