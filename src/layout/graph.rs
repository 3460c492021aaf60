//! Input of the layout: the petgraph graph of sized nodes, and the options that steer the drawing.

use petgraph::graph::DiGraph;
use serde::{Deserialize, Serialize};

/// The graph to lay out: a petgraph directed graph whose nodes carry their size.
///
/// Node and edge indices are positions in the output ([`super::Layout::nodes`] follows
/// node index order, [`super::Layout::edges`] follows edge index order).
pub type LayoutGraph = DiGraph<LayoutNode, LayoutEdge>;

/// One node to place: its id, label, PROV base type, box size and optional event time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LayoutNode {
    /// Unique id (the graph file's `id`).
    pub id: String,
    /// Text drawn in the node.
    pub label: String,
    /// PROV base type: `entity`, `activity`, `agent` (any case, `prov:` prefix allowed) or none.
    pub base_type: Option<String>,
    /// Box width in pixels.
    pub width: f64,
    /// Box height in pixels.
    pub height: f64,
    /// Event time (any monotone number, e.g. seconds since the epoch), used by
    /// [`LayoutOptions::align_by_time`].
    pub time: Option<f64>,
    /// How many original nodes this node stands for (1 unless made by [`super::collapse`]).
    pub count: u32,
}

impl LayoutNode {
    /// A node with the given id and size, labelled with its id, no base type and no time.
    pub fn new(id: impl Into<String>, width: f64, height: f64) -> Self {
        let id = id.into();
        LayoutNode { label: id.clone(), id, base_type: None, width, height, time: None, count: 1 }
    }
}

/// One edge: its optional PROV relation type (`wasGeneratedBy`, `used`, ...).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LayoutEdge {
    /// Relation type, drawn nowhere but kept for the caller.
    pub kind: Option<String>,
}

/// Which way time flows in the drawing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Direction {
    /// Layers are rows, edges point down.
    #[default]
    Down,
    /// Layers are columns, edges point right.
    Right,
}

/// Options of every layout in this module.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LayoutOptions {
    /// Time flows down or right.
    pub direction: Direction,
    /// Minimum gap between two nodes of the same layer, in pixels.
    pub node_spacing: f64,
    /// Gap between two consecutive layers, in pixels.
    pub layer_spacing: f64,
    /// Gap between two connected components packed side by side, in pixels.
    pub component_spacing: f64,
    /// Put nodes of a later time bucket (distinct `time` value) in later layers,
    /// as far as the edges allow.
    pub align_by_time: bool,
    /// Fold the drawing into strips stacked along the flow, so that its width over its height
    /// (in drawing units, time flowing down) comes near this ratio (a viewport's width over its
    /// height); `None` keeps one strip.
    #[serde(default)]
    pub aspect: Option<f64>,
}

impl Default for LayoutOptions {
    fn default() -> Self {
        LayoutOptions {
            direction: Direction::Down,
            node_spacing: 20.0,
            layer_spacing: 50.0,
            component_spacing: 40.0,
            align_by_time: false,
            aspect: None,
        }
    }
}

impl LayoutOptions {
    /// Node extent across the layers (width when time flows down).
    pub(crate) fn cross_extent(&self, n: &LayoutNode) -> f64 {
        match self.direction {
            Direction::Down => n.width,
            Direction::Right => n.height,
        }
    }

    /// Node extent along the time axis (height when time flows down).
    pub(crate) fn along_extent(&self, n: &LayoutNode) -> f64 {
        match self.direction {
            Direction::Down => n.height,
            Direction::Right => n.width,
        }
    }

    /// Maps (cross-axis, along-axis) coordinates to (x, y).
    pub(crate) fn to_xy(&self, cross: f64, along: f64) -> [f64; 2] {
        match self.direction {
            Direction::Down => [cross, along],
            Direction::Right => [along, cross],
        }
    }
}
