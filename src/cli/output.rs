//! Renders read results as text, JSON, YAML or a table for the terminal.

use std::fmt::Write as _;

use clap::ValueEnum;
use comfy_table::{presets::UTF8_FULL_CONDENSED, Table as Grid};
use provex::facade::IngestReport;
use provex::store::{PathResult, Stats, Subgraph, Table};
use serde::Serialize;
use serde_json::Value;

/// Output formats of the read commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum OutputFormat {
    #[default]
    Text,
    Json,
    Yaml,
    Table,
}

/// Something the CLI can print in every format.
pub trait Render: Serialize {
    fn text(&self) -> String;
    fn table(&self) -> Grid;
}

pub fn render(value: &impl Render, format: OutputFormat) -> anyhow::Result<String> {
    Ok(match format {
        OutputFormat::Text => value.text(),
        OutputFormat::Json => serde_json::to_string_pretty(value)? + "\n",
        OutputFormat::Yaml => serde_norway::to_string(value)?,
        OutputFormat::Table => value.table().to_string() + "\n",
    })
}

fn grid(header: &[&str]) -> Grid {
    let mut g = Grid::new();
    g.load_preset(UTF8_FULL_CONDENSED);
    g.set_header(header.iter().copied());
    g
}

fn cell(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// The list of graphs.
#[derive(Serialize)]
pub struct Graphs {
    pub graphs: Vec<String>,
}

impl Render for Graphs {
    fn text(&self) -> String {
        self.graphs.iter().map(|g| format!("{g}\n")).collect()
    }
    fn table(&self) -> Grid {
        let mut g = grid(&["graph"]);
        for name in &self.graphs {
            g.add_row([name]);
        }
        g
    }
}

impl Render for Stats {
    fn text(&self) -> String {
        let mut s = format!("graph {}: {} nodes, {} edges\n", self.graph, self.nodes, self.edges);
        for (label, c) in &self.labels {
            let _ = writeln!(s, "  node {label:<28} {c:>10}");
        }
        for (rel, c) in &self.relationships {
            let _ = writeln!(s, "  edge {rel:<28} {c:>10}");
        }
        if let Some(lag) = &self.replica {
            let _ = writeln!(s, "{}", provex::store::replicas::lag_text(lag));
        }
        s
    }
    fn table(&self) -> Grid {
        let mut g = grid(&["kind", "name", "count"]);
        for (label, c) in &self.labels {
            g.add_row(["node".to_string(), label.clone(), c.to_string()]);
        }
        for (rel, c) in &self.relationships {
            g.add_row(["edge".to_string(), rel.clone(), c.to_string()]);
        }
        g
    }
}

fn edge_line(e: &provex::store::EdgeRecord) -> String {
    let kind = e.prov.as_deref().or(e.a2a.as_deref()).unwrap_or("");
    format!("{} -[{} {}]-> {}", e.source, e.rel, kind, e.target)
}

impl Render for Subgraph {
    fn text(&self) -> String {
        let mut s = String::new();
        for n in &self.nodes {
            let depth = n.depth.map(|d| format!("{d:>3}  ")).unwrap_or_default();
            let base = n.base_type.as_deref().unwrap_or("");
            let _ = writeln!(s, "{depth}{}  ({} {base})", n.id, n.label);
        }
        if !self.edges.is_empty() {
            let _ = writeln!(s, "edges:");
            for e in &self.edges {
                let _ = writeln!(s, "  {}", edge_line(e));
            }
        }
        s
    }
    fn table(&self) -> Grid {
        let mut g = grid(&["depth", "id", "label", "base_type"]);
        for n in &self.nodes {
            g.add_row([
                n.depth.map(|d| d.to_string()).unwrap_or_default(),
                n.id.clone(),
                n.label.clone(),
                n.base_type.clone().unwrap_or_default(),
            ]);
        }
        g
    }
}

/// A shortest path, or its absence.
#[derive(Serialize)]
pub struct PathOutput {
    pub from: String,
    pub to: String,
    pub path: Option<PathResult>,
}

impl Render for PathOutput {
    fn text(&self) -> String {
        let Some(p) = &self.path else {
            return format!("no path between {} and {}\n", self.from, self.to);
        };
        let mut s = format!("{} edges\n", p.edges.len());
        for e in &p.edges {
            let _ = writeln!(s, "  {}", edge_line(e));
        }
        s
    }
    fn table(&self) -> Grid {
        let mut g = grid(&["step", "source", "type", "target"]);
        if let Some(p) = &self.path {
            for (i, e) in p.edges.iter().enumerate() {
                g.add_row([(i + 1).to_string(), e.source.clone(), e.rel.clone(), e.target.clone()]);
            }
        }
        g
    }
}

impl Render for Table {
    fn text(&self) -> String {
        let mut s = self.columns.join("\t") + "\n";
        for row in &self.rows {
            s += &row.iter().map(cell).collect::<Vec<_>>().join("\t");
            s += "\n";
        }
        s
    }
    fn table(&self) -> Grid {
        let cols: Vec<&str> = self.columns.iter().map(String::as_str).collect();
        let mut g = grid(&cols);
        for row in &self.rows {
            g.add_row(row.iter().map(cell));
        }
        g
    }
}

/// A question's answer: the Cypher first, then what it returned.
impl Render for provex::ask::Answer {
    fn text(&self) -> String {
        let mut s = format!("Cypher ({}):\n  {}\n\n", self.model, self.cypher.replace('\n', "\n  "));
        s += &self.columns.join("\t");
        s += "\n";
        for row in &self.rows {
            s += &row.iter().map(cell).collect::<Vec<_>>().join("\t");
            s += "\n";
        }
        let _ = writeln!(
            s,
            "\n{} row{}{}",
            self.rows.len(),
            if self.rows.len() == 1 { "" } else { "s" },
            if self.truncated {
                format!(" (the first {}; more were found)", provex::ask::MAX_ROWS)
            } else {
                String::new()
            }
        );
        s
    }
    fn table(&self) -> Grid {
        let cols: Vec<&str> = self.columns.iter().map(String::as_str).collect();
        let mut g = grid(&cols);
        for row in &self.rows {
            g.add_row(row.iter().map(cell));
        }
        g
    }
}

impl Render for provex::store::NodeRecord {
    fn text(&self) -> String {
        let mut s = format!("{}  ({} {})\n", self.id, self.label, self.base_type.as_deref().unwrap_or(""));
        for (k, v) in &self.properties {
            let _ = writeln!(s, "  {k}: {}", cell(v));
        }
        s
    }
    fn table(&self) -> Grid {
        let mut g = grid(&["property", "value"]);
        for (k, v) in &self.properties {
            g.add_row([k.clone(), cell(v)]);
        }
        g
    }
}

impl Render for IngestReport {
    fn text(&self) -> String {
        let mut s = String::new();
        for f in &self.files {
            let _ = write!(
                s,
                "{}: {} events ingested ({}), {} rejected",
                f.path.display(),
                f.events,
                f.format,
                f.rejected
            );
            if let Some(r) = &f.rejects_file {
                let _ = write!(s, " (see {})", r.display());
            }
            if f.rejects_unwritten > 0 {
                let _ = write!(
                    s,
                    "; {} of them not written there, past the rejects file's quota",
                    f.rejects_unwritten
                );
            }
            s.push('\n');
        }
        let _ = writeln!(
            s,
            "graph {}: {} nodes and {} edges written ({}) in {} ms",
            self.graph, self.nodes_written, self.edges_written, self.method, self.elapsed_ms
        );
        for note in &self.notes {
            let _ = writeln!(s, "note: {note}");
        }
        s
    }
    fn table(&self) -> Grid {
        let mut g = grid(&["file", "format", "events", "rejected", "rejects file"]);
        for f in &self.files {
            g.add_row([
                f.path.display().to_string(),
                f.format.clone(),
                f.events.to_string(),
                f.rejected.to_string(),
                f.rejects_file.as_ref().map(|p| p.display().to_string()).unwrap_or_default(),
            ]);
        }
        g
    }
}

fn opt_status(v: &Option<provex::sources::statements::SignatureStatus>) -> String {
    v.map(|s| s.as_str().to_owned()).unwrap_or_else(|| "-".into())
}

impl Render for provex::sources::statements::VerifyReport {
    fn text(&self) -> String {
        let mut s = String::new();
        for d in &self.documents {
            let verdict = if d.failed { "FAIL" } else { "ok  " };
            let _ = write!(s, "{verdict} {} {} signature={}", d.id, d.doc_type, opt_status(&d.signature));
            for e in &d.evidence {
                let _ = write!(s, " evidence[{}]={}", e.chunk_id, e.status.as_str());
            }
            if let (Some(c), Some(v)) = (d.consensus, d.verified) {
                let _ = write!(s, " consensus={c:.2}{}", if v { " verified" } else { " not-verified" });
            }
            s.push('\n');
            for p in &d.problems {
                let _ = writeln!(s, "       {}: {}", p.code, p.message);
            }
        }
        for r in &self.rejected {
            let _ = writeln!(s, "REJECTED {r}");
        }
        let sum = &self.summary;
        let _ = writeln!(
            s,
            "{} documents, {} failed, {} rejected; {} of {} statements verified (threshold {}): {}",
            sum.documents,
            sum.failed_documents,
            sum.rejected,
            sum.verified_statements,
            sum.statements,
            sum.threshold,
            if sum.passed { "PASS" } else { "FAIL" }
        );
        s
    }
    fn table(&self) -> Grid {
        let mut g =
            grid(&["id", "type", "signature", "evidence", "consensus", "verified", "problems", "result"]);
        for d in &self.documents {
            let evidence: Vec<&str> = d.evidence.iter().map(|e| e.status.as_str()).collect();
            g.add_row([
                d.id.clone(),
                d.doc_type.to_string(),
                opt_status(&d.signature),
                evidence.join(" "),
                d.consensus.map(|c| format!("{c:.2}")).unwrap_or_default(),
                d.verified.map(|v| v.to_string()).unwrap_or_default(),
                d.problems.iter().map(|p| p.code.as_str()).collect::<Vec<_>>().join(" "),
                if d.failed { "FAIL".into() } else { "ok".into() },
            ]);
        }
        g
    }
}

impl Render for provex::sources::statements::bundle::BundleCheck {
    fn text(&self) -> String {
        use provex::sources::statements::trust::TrustStatus;
        let mut s = String::new();
        // The verdict first, in the words the explorer uses too.
        let _ = writeln!(s, "{}", self.headline);
        if let Some(signer) = &self.signer {
            let _ = writeln!(s, "  signer       {}{}", signer.describe(), pin_note(signer.pinned));
        }
        for k in &self.keys {
            let _ =
                writeln!(s, "  documents    {}: {} signed{}", k.describe(), k.documents, pin_note(k.pinned));
        }
        if self.findings.first().is_some_and(|f| f.place == "file") {
            // Not a bundle at all: the headline said why.
            return s;
        }
        if let Some(log) = &self.log {
            s.push_str(&log.text());
        }
        for f in &self.findings {
            let _ = writeln!(s, "TAMPERED {}: {}", f.place, f.reason);
        }
        // What the bundle's documents say, recomputed.
        s.push_str(&self.report.text());
        let _ = writeln!(
            s,
            "bundle of {} statements, {} documents: {}",
            self.statements,
            self.documents,
            if self.intact {
                "INTACT (every signature, quote, hash and consensus figure recomputed)"
            } else {
                "TAMPERED"
            }
        );
        let _ = match self.trust {
            TrustStatus::Pinned => writeln!(s, "PINNED: every key it rests on is in the trust file"),
            TrustStatus::NotPinned => writeln!(
                s,
                "NOT PINNED: it carries its own keys, so it shows only that whoever holds them made it; \
                 compare the fingerprints with ones you hold, or give --trust FILE"
            ),
            TrustStatus::Failed => {
                writeln!(s, "FAILED: {}", self.reason.as_deref().unwrap_or("not verified"))
            }
        };
        s
    }
    fn table(&self) -> Grid {
        let mut g = grid(&["place", "reason"]);
        g.add_row(["verdict".to_owned(), self.headline.clone()]);
        for k in self.signer.iter() {
            g.add_row(["signer".to_owned(), format!("{}{}", k.describe(), pin_note(k.pinned))]);
        }
        for k in &self.keys {
            g.add_row(["documents".to_owned(), format!("{}{}", k.describe(), pin_note(k.pinned))]);
        }
        for f in &self.findings {
            g.add_row([f.place.clone(), f.reason.clone()]);
        }
        g
    }
}

/// How a key's pin reads after its name.
fn pin_note(pinned: Option<bool>) -> &'static str {
    match pinned {
        Some(true) => ", pinned",
        Some(false) => ", NOT in the trust file",
        None => ", not pinned",
    }
}

impl Render for provex::sources::statements::Trail {
    fn text(&self) -> String {
        self.to_text()
    }
    fn table(&self) -> Grid {
        let mut g = grid(&[
            "time",
            "verification",
            "agent",
            "verdict",
            "confidence",
            "signature",
            "counted",
            "consensus after",
        ]);
        for v in &self.verifications {
            g.add_row([
                v.time.clone().unwrap_or_default(),
                v.verification_id.clone(),
                v.agent.clone(),
                v.verdict.clone(),
                format!("{:.2}", v.confidence),
                v.signature.as_str().to_owned(),
                v.counted.to_string(),
                format!("{:.2}", v.consensus_after),
            ]);
        }
        g
    }
}

/// A key registry's entries.
#[derive(Serialize)]
pub struct KeyList {
    pub keys: Vec<provex::sources::statements::KeyEntry>,
}

impl Render for KeyList {
    fn text(&self) -> String {
        self.keys.iter().map(|k| format!("{}  {}  {}\n", k.key_id, k.agent, k.public_key)).collect()
    }
    fn table(&self) -> Grid {
        let mut g = grid(&["key_id", "agent", "public_key"]);
        for k in &self.keys {
            g.add_row([k.key_id.clone(), k.agent.clone(), k.public_key.clone()]);
        }
        g
    }
}

impl Render for provex::facade::DemoReport {
    fn text(&self) -> String {
        let mut s = String::new();
        for f in &self.files {
            let _ = writeln!(s, "wrote {}", f.display());
        }
        if let Some(g) = &self.graph {
            let _ = writeln!(
                s,
                "graph {g}: {} events and {} A2AP documents ingested",
                self.events, self.documents
            );
        }
        s
    }
    fn table(&self) -> Grid {
        let mut g = grid(&["graph", "events", "documents"]);
        g.add_row([
            self.graph.clone().unwrap_or_default(),
            self.events.to_string(),
            self.documents.to_string(),
        ]);
        g
    }
}
