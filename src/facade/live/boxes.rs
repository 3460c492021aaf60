//! Cluster boxes as views draw them (semantic zoom): a cluster's box with its
//! count, title, what it holds and its worst signature status, and the edges between boxes
//! with the number of member edges each stands for. Shared by the cluster views and the feed
//! that keeps them live.

use crate::api::{ClusterInfo, ViewEdge, ViewMode, ViewNode};
use crate::layout::cluster::{self, Cluster, Clusters};
use crate::layout::LayoutNode;

/// Label of the boxes that stand for clusters.
pub const CLUSTER_LABEL: &str = "Cluster";
/// Width and height of a cluster's box, in layout pixels.
const BOX_WIDTH: f64 = 300.0;
const BOX_HEIGHT: f64 = 56.0;

/// "1,234,567"
fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The worst signature status among a cluster's members, for its badge: a forged or broken
/// signature anywhere in it shows.
fn worst(statuses: &[(String, u64)]) -> Option<String> {
    const ORDER: [&str; 6] = ["invalid", "malformed", "unknown_key", "untrusted_key", "unsigned", "valid"];
    ORDER.iter().find(|s| statuses.iter().any(|(k, n)| k == *s && *n > 0)).map(|s| (*s).to_owned())
}

/// The edges between clusters as a view draws them.
pub(super) fn view_edges(c: &Clusters) -> Vec<ViewEdge> {
    c.edges().into_iter().map(|(a, b, count)| view_edge(a, b, count)).collect()
}

/// The edge between two clusters' boxes that stands for `count` member edges.
pub(super) fn view_edge(from: &str, to: &str, count: u64) -> ViewEdge {
    ViewEdge {
        source: from.to_owned(),
        target: to.to_owned(),
        rel: format!("{} edges", thousands(count)),
        prov: None,
        a2a: None,
    }
}

/// A cluster's box for the layout: all boxes have one size.
pub(super) fn box_layout_node(key: &str) -> LayoutNode {
    let mut n = LayoutNode::new(key, BOX_WIDTH, BOX_HEIGHT);
    n.label = CLUSTER_LABEL.to_owned();
    n
}

/// A cluster's box as a view draws it (not placed yet): its count and title, what it holds
/// and its worst signature status. It opens into its members when they are at most `limit`.
pub(super) fn box_node(cl: &Cluster, arrival: u32, limit: u32) -> ViewNode {
    let mut labels: Vec<(String, u64)> = cl.labels.iter().map(|(k, v)| (k.clone(), *v)).collect();
    labels.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let statuses: Vec<(String, u64)> = cl.statuses.iter().map(|(k, v)| (k.clone(), *v)).collect();
    let title = cluster::title(&cl.key);
    let opens = if cl.members <= u64::from(limit) || cl.key.contains(cluster::SEP) {
        ViewMode::Members
    } else {
        ViewMode::Clusters
    };
    ViewNode {
        id: cl.key.clone(),
        label: CLUSTER_LABEL.to_owned(),
        base_type: None,
        x: 0.0,
        y: 0.0,
        w: BOX_WIDTH,
        h: BOX_HEIGHT,
        layer: 0,
        arrival,
        agent: None,
        context: None,
        status: worst(&statuses),
        // The count first: a caption cut to the box's width keeps it.
        text: Some(format!("{} · {title}", thousands(cl.members))),
        standing: None,
        cluster: Some(ClusterInfo { title, members: cl.members, labels, statuses, opens }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_read_with_separators_and_the_worst_status_shows() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
        let s = |v: &[(&str, u64)]| v.iter().map(|(k, n)| ((*k).to_owned(), *n)).collect::<Vec<_>>();
        assert_eq!(worst(&s(&[("valid", 3), ("invalid", 1)])), Some("invalid".into()));
        assert_eq!(worst(&s(&[("valid", 3), ("invalid", 0)])), Some("valid".into()));
        assert_eq!(worst(&s(&[])), None);
    }
}
