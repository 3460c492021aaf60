//! The text form of a diff: a summary line, then one `+`, `-` or `~` line per node and
//! edge, each change followed by its properties before and after.

use std::fmt::Write as _;

use serde_json::Value;

use super::{GraphDiff, PropMap};

fn edge_line(source: &str, rel: &str, kind: &Option<String>, target: &str) -> String {
    match kind {
        Some(k) => format!("{source} -[{rel} {k}]-> {target}"),
        None => format!("{source} -[{rel}]-> {target}"),
    }
}

fn value(v: Option<&Value>) -> String {
    match v {
        None => "(absent)".to_owned(),
        Some(v) => {
            let text = v.to_string();
            if text.chars().count() > 120 {
                let cut: String = text.chars().take(117).collect();
                format!("{cut}...")
            } else {
                text
            }
        }
    }
}

fn changes(out: &mut String, before: &PropMap, after: &PropMap) {
    let mut keys: Vec<&String> = before.keys().chain(after.keys()).collect();
    keys.sort();
    keys.dedup();
    for k in keys {
        let _ = writeln!(out, "    {k}: {} -> {}", value(before.get(k)), value(after.get(k)));
    }
}

/// The diff as readable text (deterministic: the diff's lists are sorted).
pub fn render_text(d: &GraphDiff) -> String {
    let (n, e) = (&d.nodes, &d.edges);
    let mut out = format!(
        "nodes: {} added, {} removed, {} changed; edges: {} added, {} removed, {} changed\n",
        n.added.len(),
        n.removed.len(),
        n.changed.len(),
        e.added.len(),
        e.removed.len(),
        e.changed.len()
    );
    for x in &n.added {
        let _ = writeln!(out, "+ node {} {}", x.label, x.name);
    }
    for x in &n.removed {
        let _ = writeln!(out, "- node {} {}", x.label, x.name);
    }
    for x in &n.changed {
        let _ = writeln!(out, "~ node {} {}", x.label, x.name);
        changes(&mut out, &x.before, &x.after);
    }
    for x in &e.added {
        let _ = writeln!(out, "+ edge {}", edge_line(&x.source, &x.rel, &x.kind, &x.target));
    }
    for x in &e.removed {
        let _ = writeln!(out, "- edge {}", edge_line(&x.source, &x.rel, &x.kind, &x.target));
    }
    for x in &e.changed {
        let _ = writeln!(out, "~ edge {}", edge_line(&x.source, &x.rel, &x.kind, &x.target));
        changes(&mut out, &x.before, &x.after);
    }
    out
}
