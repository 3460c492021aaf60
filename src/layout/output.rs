//! Output of the layout as plain data for the UI, serialising to the documented JSON shape.

use serde::{Deserialize, Serialize};

use super::graph::Direction;

/// Positions of all nodes and routes of all edges.
///
/// Serialises exactly as
/// `{"nodes":[{"id","x","y","width","height","layer"}],"edges":[{"source","target","points":[[x,y],...]}],"reversed":[{"source","target"}]}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Layout {
    /// One entry per input node, in node index order.
    pub nodes: Vec<NodePos>,
    /// One entry per input edge, in edge index order.
    pub edges: Vec<EdgeRoute>,
    /// Edges drawn against the flow to break cycles.
    pub reversed: Vec<EdgeRef>,
    /// Direction the layout was made for (not serialised).
    #[serde(skip)]
    pub direction: Direction,
}

/// Where one node sits; `x`, `y` is its centre.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NodePos {
    /// Node id.
    pub id: String,
    /// Centre x.
    pub x: f64,
    /// Centre y.
    pub y: f64,
    /// Box width.
    pub width: f64,
    /// Box height.
    pub height: f64,
    /// Layer index (0 = earliest).
    pub layer: u32,
}

/// The route of one edge: a polyline from the source box to the target box.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EdgeRoute {
    /// Source node id.
    pub source: String,
    /// Target node id.
    pub target: String,
    /// Bend points from source to target, first and last on the node boxes.
    pub points: Vec<[f64; 2]>,
}

/// An edge named by its endpoints.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EdgeRef {
    /// Source node id.
    pub source: String,
    /// Target node id.
    pub target: String,
}

impl Layout {
    /// The layout as JSON text.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("layout serialises")
    }
}
