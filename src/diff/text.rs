//! The text form of a diff: what it means for claims (statements and verifications added
//! and removed, changed verdicts, consensus, statuses and quotes), what it means for the runs
//! the graphs' OpenTelemetry spans record (calls, messages, tools, agents), a count line, then one
//! `+`, `-` or `~` line per node and edge, each change followed by its properties before and
//! after.

use std::fmt::Write as _;

use serde_json::Value;

use super::{DiffSummary, GraphDiff, PropMap, SummaryItem, TraceDiff};

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

fn short(v: &Option<String>) -> String {
    value(v.as_ref().map(|s| Value::String(s.clone())).as_ref())
}

/// The runs part: calls matched by what they are, then what differs.
fn traces(out: &mut String, t: &TraceDiff) {
    let ids =
        |s: &super::TraceSide| if s.traces.is_empty() { "(none)".to_owned() } else { s.traces.join(", ") };
    let _ =
        writeln!(out, "traces: A {} ({} spans); B {} ({} spans)", ids(&t.a), t.a.spans, ids(&t.b), t.b.spans);
    let only = |f: fn(&super::CallDiff) -> bool| t.calls.iter().filter(|c| f(c)).count();
    let _ = writeln!(
        out,
        "calls: {} in both, {} only in A, {} only in B; {} differ",
        t.matched(),
        only(|c| c.b.is_none()),
        only(|c| c.a.is_none()),
        only(|c| c.a.is_some() && c.b.is_some() && !c.changes.is_empty())
    );
    for c in &t.calls {
        match (&c.a, &c.b) {
            (Some(_), None) => {
                let _ = writeln!(out, "- call {}", c.path);
            }
            (None, Some(_)) => {
                let _ = writeln!(out, "+ call {}", c.path);
            }
            _ if !c.changes.is_empty() => {
                let _ = writeln!(out, "~ call {}: {}", c.path, c.changes.join(", "));
                if c.status_a != c.status_b {
                    let _ = writeln!(out, "    status: {} -> {}", short(&c.status_a), short(&c.status_b));
                }
            }
            _ => {}
        }
    }
    let m = &t.messages;
    let _ = writeln!(
        out,
        "messages: {} shared, {} only in A, {} only in B",
        m.shared,
        m.only_a.len(),
        m.only_b.len()
    );
    for (sign, list) in [('-', &m.only_a), ('+', &m.only_b)] {
        for x in list {
            let role = x.role.as_deref().unwrap_or("message");
            let _ = writeln!(out, "{sign} message ({role}) {}", value(Some(&Value::String(x.text.clone()))));
        }
    }
    let _ = writeln!(out, "tools: {} differ", t.tools.len());
    for x in &t.tools {
        let _ = writeln!(out, "~ tool {} ({}): {}", x.tool, x.path, x.changes.join(", "));
        if x.arguments_a != x.arguments_b {
            let _ = writeln!(out, "    arguments: {} -> {}", short(&x.arguments_a), short(&x.arguments_b));
        }
        if x.result_a != x.result_b {
            let _ = writeln!(out, "    result: {} -> {}", short(&x.result_a), short(&x.result_b));
        }
    }
    let g = &t.agents;
    let _ = writeln!(
        out,
        "agents: {} in both, {} only in A, {} only in B",
        g.shared.len(),
        g.only_a.len(),
        g.only_b.len()
    );
    for x in &g.only_a {
        let _ = writeln!(out, "- agent {x}");
    }
    for x in &g.only_b {
        let _ = writeln!(out, "+ agent {x}");
    }
}

/// The diff as readable text (deterministic: the diff's lists are sorted).
pub fn render_text(d: &GraphDiff) -> String {
    let (n, e) = (&d.nodes, &d.edges);
    let mut out = String::new();
    summary(&mut out, &d.summary);
    if let Some(t) = &d.traces {
        traces(&mut out, t);
    }
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
