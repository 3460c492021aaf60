//! SVG rendering of a layout in the PROV drawing convention: entities as yellow ellipses
//! (#FFFC87), activities as blue rectangles (#9FB1FC), agents as orange houses (#FED37F),
//! edges as polylines with arrowheads.

use std::collections::HashMap;
use std::fmt::Write as _;

use super::graph::LayoutGraph;
use super::output::Layout;

const ENTITY_FILL: &str = "#FFFC87";
const ACTIVITY_FILL: &str = "#9FB1FC";
const AGENT_FILL: &str = "#FED37F";
const OTHER_FILL: &str = "#E8E8E8";
const MARGIN: f64 = 20.0;

/// PROV base type of a node, from its `base_type` text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Entity,
    Activity,
    Agent,
    Other,
}

fn kind_of(base_type: Option<&str>) -> Kind {
    let t = base_type.unwrap_or("").to_ascii_lowercase();
    match t.trim_start_matches("prov:").trim_start_matches("prov") {
        "entity" => Kind::Entity,
        "activity" => Kind::Activity,
        "agent" => Kind::Agent,
        _ => Kind::Other,
    }
}

fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

/// Draws `layout` as a standalone SVG document; labels, base types and counts come from `g`
/// (matched by node id; nodes unknown to `g` are drawn as grey boxes labelled with their id).
pub fn to_svg(layout: &Layout, g: &LayoutGraph) -> String {
    let info: HashMap<&str, (&str, Kind, u32)> = g
        .node_weights()
        .map(|w| (w.id.as_str(), (w.label.as_str(), kind_of(w.base_type.as_deref()), w.count)))
        .collect();
    let (mut lo_x, mut lo_y, mut hi_x, mut hi_y) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    for n in &layout.nodes {
        lo_x = lo_x.min(n.x - n.width / 2.0);
        lo_y = lo_y.min(n.y - n.height / 2.0);
        hi_x = hi_x.max(n.x + n.width / 2.0);
        hi_y = hi_y.max(n.y + n.height / 2.0);
    }
    for p in layout.edges.iter().flat_map(|e| &e.points) {
        lo_x = lo_x.min(p[0]);
        lo_y = lo_y.min(p[1]);
        hi_x = hi_x.max(p[0]);
        hi_y = hi_y.max(p[1]);
    }
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="{} {} {} {}" width="{}" height="{}" font-family="sans-serif" font-size="12">"#,
        lo_x - MARGIN,
        lo_y - MARGIN,
        hi_x - lo_x + 2.0 * MARGIN,
        hi_y - lo_y + 2.0 * MARGIN,
        hi_x - lo_x + 2.0 * MARGIN,
        hi_y - lo_y + 2.0 * MARGIN
    );
    s.push_str(
        r##"<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="8" markerHeight="8" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#555"/></marker></defs>
"##,
    );
    s.push_str("<g class=\"edges\" fill=\"none\" stroke=\"#555\" stroke-width=\"1.2\">\n");
    for e in &layout.edges {
        let pts: Vec<String> = e.points.iter().map(|p| format!("{},{}", p[0], p[1])).collect();
        let _ = writeln!(
            s,
            r#"<polyline points="{}" marker-end="url(#arrow)"><title>{} → {}</title></polyline>"#,
            pts.join(" "),
            escape(&e.source),
            escape(&e.target)
        );
    }
    s.push_str("</g>\n<g class=\"nodes\" stroke=\"#333\" stroke-width=\"1\">\n");
    for n in &layout.nodes {
        let (label, kind, count) =
            info.get(n.id.as_str()).copied().unwrap_or((n.id.as_str(), Kind::Other, 1));
        let (x, y, w, h) = (n.x, n.y, n.width, n.height);
        let (l, t) = (x - w / 2.0, y - h / 2.0);
        let shape = match kind {
            Kind::Entity => format!(
                r#"<ellipse cx="{x}" cy="{y}" rx="{}" ry="{}" fill="{ENTITY_FILL}"/>"#,
                w / 2.0,
                h / 2.0
            ),
            Kind::Activity => {
                format!(r#"<rect x="{l}" y="{t}" width="{w}" height="{h}" fill="{ACTIVITY_FILL}"/>"#)
            }
            Kind::Agent => {
                // a house: roof peak on top, walls below
                let roof = t + h * 0.35;
                format!(
                    r#"<polygon points="{x},{t} {},{roof} {},{} {l},{} {l},{roof}" fill="{AGENT_FILL}"/>"#,
                    l + w,
                    l + w,
                    t + h,
                    t + h
                )
            }
            Kind::Other => {
                format!(r#"<rect x="{l}" y="{t}" width="{w}" height="{h}" rx="6" fill="{OTHER_FILL}"/>"#)
            }
        };
        let _ = writeln!(s, r#"<g class="node" data-id="{}">{shape}"#, escape(&n.id));
        let _ = writeln!(
            s,
            r##"<text x="{x}" y="{y}" text-anchor="middle" dominant-baseline="central" stroke="none" fill="#000">{}</text>"##,
            escape(label)
        );
        if count > 1 {
            let _ = writeln!(
                s,
                r##"<text x="{}" y="{}" text-anchor="end" stroke="none" fill="#800" font-size="10">×{count}</text>"##,
                l + w,
                t - 2.0
            );
        }
        s.push_str("</g>\n");
    }
    s.push_str("</g>\n</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::{full, LayoutEdge, LayoutNode, LayoutOptions};

    #[test]
    fn draws_prov_shapes_colours_and_arrows() {
        let mut g = LayoutGraph::new();
        let mut kinds = Vec::new();
        for (id, t) in [("e", "entity"), ("a", "prov:Activity"), ("g", "Agent"), ("x<&>", "")] {
            let mut n = LayoutNode::new(id, 60.0, 30.0);
            n.base_type = Some(t.to_string());
            kinds.push(g.add_node(n));
        }
        g.add_edge(kinds[1], kinds[0], LayoutEdge::default());
        g.add_edge(kinds[1], kinds[2], LayoutEdge::default());
        let svg = to_svg(&full(&g, &LayoutOptions::default()), &g);
        assert!(svg.starts_with("<svg"));
        assert!(svg.contains("<ellipse") && svg.contains(ENTITY_FILL));
        assert!(svg.contains(&format!(r#"fill="{ACTIVITY_FILL}""#)));
        assert!(svg.contains("<polygon") && svg.contains(AGENT_FILL));
        assert_eq!(svg.matches("marker-end=\"url(#arrow)\"").count(), 2);
        assert!(svg.contains("x&lt;&amp;&gt;"));
        assert!(svg.trim_end().ends_with("</svg>"));
    }
}
