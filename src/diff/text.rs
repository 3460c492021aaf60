//! The text form of a diff: what it means for claims (statements and verifications added
//! and removed, changed verdicts, consensus, statuses and quotes), a count line, then one
//! `+`, `-` or `~` line per node and edge, each change followed by its properties before and
//! after.

use std::fmt::Write as _;

use serde_json::Value;

use super::{DiffSummary, GraphDiff, PropMap, SummaryItem};

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

fn item(out: &mut String, sign: char, what: &str, x: &SummaryItem) {
    let _ = write!(out, "{sign} {what} {}", x.name);
    if let Some(t) = &x.text {
        let _ = write!(out, ": {}", value(Some(&Value::String(t.clone()))));
    }
    if let Some(a) = &x.agent {
        let _ = write!(out, " by {a}");
    }
    if let Some(c) = &x.claim {
        let _ = write!(out, " of claim {c}");
    }
    out.push('\n');
}

/// The claims part: nothing when the diff touches no claim.
fn summary(out: &mut String, s: &DiffSummary) {
    if s.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "claims: {} added, {} removed; verifications: {} added, {} removed; {} status changes",
        s.claims_added.len(),
        s.claims_removed.len(),
        s.verifications_added.len(),
        s.verifications_removed.len(),
        s.changes.len()
    );
    for x in &s.claims_added {
        item(out, '+', "claim", x);
    }
    for x in &s.claims_removed {
        item(out, '-', "claim", x);
    }
    for x in &s.verifications_added {
        item(out, '+', "verification", x);
    }
    for x in &s.verifications_removed {
        item(out, '-', "verification", x);
    }
    for c in &s.changes {
        let of = match (&c.claim, &c.target) {
            (Some(claim), _) if c.label == "Statement" => format!("claim {claim}"),
            (Some(claim), Some(t)) => format!("claim {claim} ({} {t})", c.label),
            (Some(claim), None) => format!("claim {claim} ({} {})", c.label, c.name),
            (None, _) => format!("{} {}", c.label, c.name),
        };
        let _ = writeln!(
            out,
            "~ {} of {of}: {} -> {}",
            c.what,
            value(c.before.as_ref()),
            value(c.after.as_ref())
        );
    }
}

/// The diff as readable text (deterministic: the diff's lists are sorted).
pub fn render_text(d: &GraphDiff) -> String {
    let (n, e) = (&d.nodes, &d.edges);
    let mut out = String::new();
    summary(&mut out, &d.summary);
    let _ = writeln!(
        out,
        "nodes: {} added, {} removed, {} changed; edges: {} added, {} removed, {} changed",
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
