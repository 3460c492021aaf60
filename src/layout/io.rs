//! The graph file read by the app (`{"nodes":[...],"edges":[...]}`) and its conversion to the
//! layout input, with node sizes estimated from label length.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::error::LayoutError;
use super::graph::{LayoutEdge, LayoutGraph, LayoutNode};

/// Height of every node built from a graph file, in pixels.
pub const NODE_HEIGHT: f64 = 36.0;
/// Width per label character, in pixels.
pub const CHAR_WIDTH: f64 = 7.0;
/// Horizontal padding added to the label width (both sides together), in pixels.
pub const NODE_PADDING: f64 = 24.0;
/// Narrowest node built from a graph file, in pixels.
pub const MIN_NODE_WIDTH: f64 = 40.0;

/// A provenance graph file. Unknown fields are ignored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GraphFile {
    /// Nodes, in file order.
    pub nodes: Vec<GraphNode>,
    /// Edges, in file order.
    #[serde(default)]
    pub edges: Vec<GraphEdge>,
}

/// A node of the graph file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GraphNode {
    /// Unique id.
    pub id: String,
    /// Text to show; the id when missing or empty.
    #[serde(default)]
    pub label: String,
    /// PROV base type (`entity`, `activity`, `agent`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_type: Option<String>,
    /// Event time: a number, or an ISO 8601 date-time string.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<TimeValue>,
}

/// A time as found in a graph file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum TimeValue {
    /// Any monotone number (seconds since the epoch, a sequence number...).
    Number(f64),
    /// ISO 8601 date-time such as `2024-05-01T12:00:00Z`, or a number in text.
    Text(String),
}

/// An edge of the graph file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GraphEdge {
    /// Source node id.
    pub source: String,
    /// Target node id.
    pub target: String,
    /// PROV relation type.
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
}

/// Estimated box width of a label: 7 px per character plus padding, at least 40 px.
pub fn label_width(label: &str) -> f64 {
    (label.chars().count() as f64 * CHAR_WIDTH + NODE_PADDING).max(MIN_NODE_WIDTH)
}

impl GraphFile {
    /// Parses a graph file.
    pub fn from_json(text: &str) -> Result<GraphFile, LayoutError> {
        Ok(serde_json::from_str(text)?)
    }

    /// Builds the layout input: one node per file node (same order), one edge per file edge.
    pub fn to_layout_graph(&self) -> Result<LayoutGraph, LayoutError> {
        let mut g = LayoutGraph::with_capacity(self.nodes.len(), self.edges.len());
        let mut index = HashMap::with_capacity(self.nodes.len());
        for n in &self.nodes {
            let label = if n.label.is_empty() { n.id.clone() } else { n.label.clone() };
            let time = match &n.time {
                None => None,
                Some(TimeValue::Number(t)) => Some(*t),
                Some(TimeValue::Text(s)) => Some(
                    parse_time(s)
                        .ok_or_else(|| LayoutError::BadTime { node: n.id.clone(), time: s.clone() })?,
                ),
            };
            let node = LayoutNode {
                id: n.id.clone(),
                width: label_width(&label),
                height: NODE_HEIGHT,
                label,
                base_type: n.base_type.clone(),
                time,
                count: 1,
            };
            let ix = g.add_node(node);
            if index.insert(n.id.as_str(), ix).is_some() {
                return Err(LayoutError::DuplicateNode(n.id.clone()));
            }
        }
        for (i, e) in self.edges.iter().enumerate() {
            let find = |id: &str| {
                index.get(id).copied().ok_or_else(|| LayoutError::UnknownNode {
                    edge: i,
                    source_id: e.source.clone(),
                    target_id: e.target.clone(),
                    missing: id.to_string(),
                })
            };
            let (s, t) = (find(&e.source)?, find(&e.target)?);
            g.add_edge(s, t, LayoutEdge { kind: e.kind.clone() });
        }
        Ok(g)
    }
}

/// Seconds since 1970-01-01T00:00:00Z of an ISO 8601 date-time (`YYYY-MM-DD`, optional
/// `THH:MM[:SS[.fff]]`, optional `Z` or `±HH:MM`), or of a plain number.
pub fn parse_time(s: &str) -> Option<f64> {
    let s = s.trim();
    if let Ok(v) = s.parse::<f64>() {
        return Some(v);
    }
    let num = |t: &str| -> Option<i64> {
        (!t.is_empty() && t.bytes().all(|b| b.is_ascii_digit())).then(|| t.parse().ok())?
    };
    let (date, rest) = s.split_at(s.find(['T', ' ']).unwrap_or(s.len()));
    let mut d = date.splitn(3, '-');
    let (y, m, day) = (num(d.next()?)?, num(d.next()?)?, num(d.next()?)?);
    if !(1..=12).contains(&m) || !(1..=31).contains(&day) {
        return None;
    }
    let mut secs = days_from_civil(y, m, day) as f64 * 86_400.0;
    let rest = rest.get(1..).unwrap_or("");
    if rest.is_empty() {
        return Some(secs);
    }
    let (clock, zone) = match rest.find(['Z', 'z', '+', '-']) {
        Some(k) => rest.split_at(k),
        None => (rest, ""),
    };
    let mut parts = clock.split(':');
    let h = num(parts.next()?)?;
    let mi = num(parts.next()?)?;
    let sec: f64 = match parts.next() {
        Some(p) => p.parse().ok().filter(|v: &f64| (0.0..61.0).contains(v))?,
        None => 0.0,
    };
    if parts.next().is_some() || h > 23 || mi > 59 {
        return None;
    }
    secs += (h * 3600 + mi * 60) as f64 + sec;
    match zone {
        "" | "Z" | "z" => {}
        z => {
            let sign = if z.starts_with('-') { 1.0 } else { -1.0 };
            let body = &z[1..];
            let (zh, zm) = match body.split_once(':') {
                Some((a, b)) => (num(a)?, num(b)?),
                None if body.len() == 4 => (num(&body[..2])?, num(&body[2..])?),
                None => (num(body)?, 0),
            };
            secs += sign * (zh * 3600 + zm * 60) as f64;
        }
    }
    Some(secs)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's `days_from_civil`).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_file_ignoring_unknown_fields() {
        let text = r#"{"nodes":[{"id":"a","label":"Alpha","base_type":"entity","time":5,"x":1},
            {"id":"b","label":"","extra":{}}],"edges":[{"source":"a","target":"b","type":"used","w":2}],"meta":1}"#;
        let g = GraphFile::from_json(text).unwrap().to_layout_graph().unwrap();
        assert_eq!(g.node_count(), 2);
        let a = &g[petgraph::graph::NodeIndex::new(0)];
        assert_eq!(a.width, 5.0 * 7.0 + 24.0);
        assert_eq!(a.time, Some(5.0));
        assert_eq!(g[petgraph::graph::NodeIndex::new(1)].label, "b");
        assert_eq!(g.edge_weights().next().unwrap().kind.as_deref(), Some("used"));
    }

    #[test]
    fn unknown_edge_end_is_a_typed_error() {
        let text = r#"{"nodes":[{"id":"a","label":"A"}],"edges":[{"source":"a","target":"zz"}]}"#;
        match GraphFile::from_json(text).unwrap().to_layout_graph() {
            Err(LayoutError::UnknownNode { edge: 0, missing, .. }) => assert_eq!(missing, "zz"),
            other => panic!("unexpected {other:?}"),
        }
        let dup = r#"{"nodes":[{"id":"a"},{"id":"a"}]}"#;
        assert!(matches!(
            GraphFile::from_json(dup).unwrap().to_layout_graph(),
            Err(LayoutError::DuplicateNode(_))
        ));
        assert!(matches!(GraphFile::from_json("{"), Err(LayoutError::Json(_))));
    }

    #[test]
    fn iso_times_parse_and_order() {
        assert_eq!(parse_time("1970-01-02"), Some(86_400.0));
        assert_eq!(parse_time("1970-01-01T01:00:00Z"), Some(3600.0));
        assert_eq!(parse_time("1970-01-01T01:00:00+01:00"), Some(0.0));
        assert_eq!(parse_time("2000-03-01T00:00:00.5Z"), Some(951_868_800.5));
        assert_eq!(parse_time("12.5"), Some(12.5));
        assert_eq!(parse_time("yesterday"), None);
        assert!(parse_time("2024-05-01T10:00:00Z") < parse_time("2024-05-01T10:00:01Z"));
    }
}
