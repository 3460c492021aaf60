//! `provex lineage …`: prompt lineage's CLI contract (inspect, retrieve, replay, stats, compare,
//! similar) over a graph's prompt lineages. Errors in `--format json` carry the prompt-lineage format's codes.

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::Context as _;
use clap::{Subcommand, ValueEnum};
use provex::facade::Provex;
use provex::sources::lineage::views::{
    Comparison, EvolutionView, Inspection, LineageStats, PromptView, ReplayStep, SimilarHit,
};
use serde::Serialize;

use super::graph_arg::GraphArg;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum InspectFormat {
    Text,
    Json,
    Yaml,
    Table,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DataFormat {
    Json,
    Yaml,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TextFormat {
    Text,
    Json,
}

#[derive(Debug, Subcommand)]
pub enum LineageCommand {
    /// A prompt's evolution history (root first) with each step's confidence.
    Inspect {
        /// A prompt id: a UUID or prompt:<uuid>.
        id: String,
        #[command(flatten)]
        graph: GraphArg,
        #[arg(long, value_enum, default_value_t = InspectFormat::Text)]
        format: InspectFormat,
    },
    /// The lineage subgraph around a prompt.
    Retrieve {
        id: String,
        #[command(flatten)]
        graph: GraphArg,
        /// Evolutions to follow towards the root.
        #[arg(long, value_name = "N", default_value_t = 5)]
        ancestor_depth: u32,
        /// Evolutions to follow towards the heads.
        #[arg(long, value_name = "N", default_value_t = 5)]
        descendant_depth: u32,
        /// Include each prompt's text.
        #[arg(long)]
        include_content: bool,
        /// Write to this file instead of standard output.
        #[arg(long)]
        output: Option<PathBuf>,
        #[arg(long, value_enum, default_value_t = DataFormat::Json)]
        format: DataFormat,
    },
    /// The lineage's creation step by step, in time order.
    Replay {
        id: String,
        #[command(flatten)]
        graph: GraphArg,
        /// Show each prompt's text.
        #[arg(long)]
        verbose: bool,
        /// Show each confidence broken into Jaccard, semantic and edit ratio.
        #[arg(long)]
        show_confidence_computation: bool,
        #[arg(long, value_enum, default_value_t = TextFormat::Text)]
        format: TextFormat,
    },
    /// Counts by evolution type, depths, heads and branches, mean confidence, rejections.
    Stats {
        /// Only this prompt's lineage.
        id: Option<String>,
        #[command(flatten)]
        graph: GraphArg,
        #[arg(long, value_enum, default_value_t = TextFormat::Text)]
        format: TextFormat,
    },
    /// Compares two prompts: Jaccard, edit ratio, semantic similarity, confidence.
    Compare {
        a: String,
        b: String,
        #[command(flatten)]
        graph: GraphArg,
        /// Propose an evolution type (the rule is printed with it).
        #[arg(long)]
        suggest_type: bool,
        /// Add a word-level diff.
        #[arg(long)]
        detailed: bool,
        #[arg(long, value_enum, default_value_t = TextFormat::Text)]
        format: TextFormat,
    },
    /// The prompts most like one.
    Similar {
        id: String,
        #[command(flatten)]
        graph: GraphArg,
        /// The lowest confidence shown.
        #[arg(long, default_value_t = 0.7)]
        threshold: f64,
        #[arg(long, default_value_t = 10)]
        limit: usize,
        #[arg(long, value_enum, default_value_t = TextFormat::Text)]
        format: TextFormat,
    },
}

impl LineageCommand {
    /// Whether the command prints JSON (its errors are JSON too).
    pub fn json(&self) -> bool {
        match self {
            LineageCommand::Inspect { format, .. } => *format == InspectFormat::Json,
            LineageCommand::Retrieve { format, .. } => *format == DataFormat::Json,
            LineageCommand::Replay { format, .. }
            | LineageCommand::Stats { format, .. }
            | LineageCommand::Compare { format, .. }
            | LineageCommand::Similar { format, .. } => *format == TextFormat::Json,
        }
    }
}

/// The prompt-lineage format's error code of an error.
pub fn seed_code(e: &provex::Error) -> &'static str {
    use provex::Error::*;
    match e {
        Usage(_) | BadRequest(_) | Input { .. } | NotFound { .. } => "VALIDATION_ERROR",
        _ => "INTERNAL_ERROR",
    }
}

/// Prints an error as the prompt-lineage format's JSON error.
pub fn json_error(e: &anyhow::Error) -> String {
    let (code, provex_code) = match e.downcast_ref::<provex::Error>() {
        Some(err) => (seed_code(err), Some(err.code())),
        None => ("INTERNAL_ERROR", None),
    };
    let message = e.to_string();
    let message = message.strip_prefix(&format!("{code}: ")).unwrap_or(&message).to_owned();
    serde_json::json!({"error": {"code": code, "provex_code": provex_code, "message": message}}).to_string()
}

fn json<T: Serialize>(v: &T) -> anyhow::Result<String> {
    Ok(serde_json::to_string_pretty(v)? + "\n")
}

fn yaml<T: Serialize>(v: &T) -> anyhow::Result<String> {
    Ok(serde_norway::to_string(v)?)
}

fn short(id: &str) -> &str {
    id.get(..8).unwrap_or(id)
}

fn pct(x: Option<f64>) -> String {
    x.map_or("–".to_owned(), |c| format!("{c:.3}"))
}

/// What a step below 0.5 says first ("⚠ unlikely related: "): its headline is the worst thing
/// true of it.
fn doubt(confidence: Option<f64>) -> String {
    confidence
        .and_then(provex::sources::lineage::confidence::doubt)
        .map(|d| format!("⚠ {d}: "))
        .unwrap_or_default()
}

fn prompt_line(p: &PromptView) -> String {
    let mut flags = Vec::new();
    if p.is_root {
        flags.push("root");
    }
    if p.is_head {
        flags.push("head");
    }
    let branch = p.branch.as_deref().map(|b| format!(" [{b}]")).unwrap_or_default();
    format!("v{} {} {}{branch} {}", p.version, p.id, p.timestamp, flags.join(" "))
}

fn edge_line(e: &EvolutionView) -> String {
    let reason = e.reason.as_deref().map(|r| format!(" — {r}")).unwrap_or_default();
    format!(
        "{}{} from {} (confidence {}){reason}",
        doubt(e.confidence),
        e.evolution_type,
        short(&e.parent),
        pct(e.confidence)
    )
}

/// Runs one lineage command and returns what to print.
pub async fn run(provex: &Provex, cmd: LineageCommand) -> anyhow::Result<String> {
    Ok(match cmd {
        LineageCommand::Inspect { id, graph, format } => {
            let i = provex.lineage_inspect(&graph.graph, &id).await?;
            match format {
                InspectFormat::Json => json(&i)?,
                InspectFormat::Yaml => yaml(&i)?,
                InspectFormat::Table => inspect_table(&i),
                InspectFormat::Text => inspect_text(&i),
            }
        }
        LineageCommand::Retrieve {
            id,
            graph,
            ancestor_depth,
            descendant_depth,
            include_content,
            output,
            format,
        } => {
            let g = provex
                .lineage_retrieve(&graph.graph, &id, ancestor_depth, descendant_depth, include_content)
                .await?;
            let text = match format {
                DataFormat::Json => json(&g)?,
                DataFormat::Yaml => yaml(&g)?,
            };
            match output {
                Some(path) => {
                    std::fs::write(&path, text).with_context(|| path.display().to_string())?;
                    eprintln!(
                        "wrote {} ({} prompts, {} evolutions)",
                        path.display(),
                        g.prompts.len(),
                        g.evolutions.len()
                    );
                    String::new()
                }
                None => text,
            }
        }
        LineageCommand::Replay { id, graph, verbose, show_confidence_computation, format } => {
            let steps = provex.lineage_replay(&graph.graph, &id).await?;
            if format == TextFormat::Json {
                return json(&steps);
            }
            replay_text(&steps, verbose, show_confidence_computation)
        }
        LineageCommand::Stats { id, graph, format } => {
            let st = provex.lineage_stats(&graph.graph, id.as_deref()).await?;
            if format == TextFormat::Json {
                return json(&st);
            }
            stats_text(&st)
        }
        LineageCommand::Compare { a, b, graph, suggest_type, detailed, format } => {
            let c = provex.lineage_compare(&graph.graph, &a, &b, suggest_type, detailed).await?;
            if format == TextFormat::Json {
                return json(&c);
            }
            compare_text(&c)
        }
        LineageCommand::Similar { id, graph, threshold, limit, format } => {
            let hits = provex.lineage_similar(&graph.graph, &id, threshold, limit).await?;
            if format == TextFormat::Json {
                return json(&hits);
            }
            similar_text(&hits, threshold)
        }
    })
}

/// `inspect --format table`: one row per step of the history, root first.
fn inspect_table(i: &Inspection) -> String {
    let mut t = comfy_table::Table::new();
    t.set_header(["step", "version", "prompt", "timestamp", "evolution", "confidence", "head"]);
    for (n, step) in i.history.iter().enumerate() {
        let (edge, p) = (&step.evolution, &step.prompt);
        t.add_row([
            (n + 1).to_string(),
            p.version.clone(),
            p.id.clone(),
            p.timestamp.clone(),
            edge.as_ref().map_or("(root)".into(), |e| e.evolution_type.clone()),
            pct(edge.as_ref().and_then(|e| e.confidence)),
            if p.is_head { "yes".into() } else { String::new() },
        ]);
    }
    format!("{t}\n")
}

/// `inspect --format text`: the history root first, then the children and the heads.
fn inspect_text(i: &Inspection) -> String {
    let mut s = format!("prompt {}\nlineage {}\n\nhistory (root first):\n", i.prompt.id, i.prompt.lineage_id);
    for step in &i.history {
        let (edge, p) = (&step.evolution, &step.prompt);
        let _ = writeln!(s, "  {}", prompt_line(p));
        if let Some(e) = edge {
            let _ = writeln!(s, "      ↑ {}", edge_line(e));
        }
    }
    let _ = writeln!(s, "\nchildren: {}", i.children.len());
    for e in &i.children {
        let _ = writeln!(
            s,
            "  {}{} {} (confidence {})",
            doubt(e.confidence),
            e.evolution_type,
            e.child,
            pct(e.confidence)
        );
    }
    let _ = writeln!(s, "heads of the lineage: {}", i.heads.join(", "));
    s
}

/// `replay` as text: each step, the edges it came from, and (asked for) the confidence
/// recomputed and the prompt's text.
fn replay_text(steps: &[ReplayStep], verbose: bool, show_confidence_computation: bool) -> String {
    let mut s = String::new();
    for st in steps {
        let _ = writeln!(s, "step {}: {}", st.step, prompt_line(&st.prompt));
        if st.from.is_empty() {
            let _ = writeln!(s, "  the lineage's root");
        }
        for e in &st.from {
            let _ = writeln!(s, "  {}", edge_line(&e.edge));
            if show_confidence_computation {
                let c = &e.computed;
                let _ = writeln!(
                    s,
                    "    recomputed: jaccard {:.3} × 0.40 + semantic {} × 0.35 + edit ratio {:.3} × 0.25 = {:.3}",
                    c.jaccard,
                    pct(c.semantic),
                    c.edit_ratio,
                    c.confidence
                );
                if let Some(n) = &e.note {
                    let _ = writeln!(s, "    {n}");
                }
            }
        }
        if verbose {
            if let Some(text) = &st.prompt.content {
                for line in text.lines() {
                    let _ = writeln!(s, "    │ {line}");
                }
            }
        }
    }
    s
}

/// `stats` as text.
fn stats_text(st: &LineageStats) -> String {
    let mut s = String::new();
    let scope = st.lineage_id.as_deref().map_or("all lineages".to_owned(), |l| format!("lineage {l}"));
    let _ = writeln!(s, "{scope}: {} prompts in {} lineage(s)", st.prompts, st.lineages);
    let _ = writeln!(s, "by evolution type:");
    for (t, n) in &st.by_evolution_type {
        let _ = writeln!(s, "  {t:<8} {n}");
    }
    let _ = writeln!(s, "depth distribution (chain position: prompts):");
    for (d, n) in &st.depth_distribution {
        let _ = writeln!(s, "  {d:>3}: {n}");
    }
    let _ = writeln!(
        s,
        "heads: {}   branch points: {}   max depth: {}",
        st.heads, st.branch_points, st.max_depth
    );
    if !st.branches.is_empty() {
        let _ = writeln!(s, "branches: {}", st.branches.join(", "));
    }
    let _ = writeln!(s, "mean confidence: {}", pct(st.mean_confidence));
    let _ = writeln!(s, "rejected records:");
    if st.rejected_by_code.is_empty() {
        let _ = writeln!(s, "  none");
    }
    for (c, n) in &st.rejected_by_code {
        let _ = writeln!(s, "  {c}: {n}");
    }
    s
}

/// `similar` as text: one line per prompt found.
fn similar_text(hits: &[SimilarHit], threshold: f64) -> String {
    let mut s = format!("{} prompt(s) with confidence ≥ {threshold} (semantic part not used):\n", hits.len());
    for h in hits {
        let _ = writeln!(
            s,
            "  {:.3}  {}  (jaccard {:.3}, edit ratio {:.3})",
            h.confidence, h.id, h.jaccard, h.edit_ratio
        );
    }
    s
}

fn compare_text(c: &Comparison) -> String {
    let mut s = format!("A {}\nB {}\n", c.a, c.b);
    let _ = writeln!(s, "jaccard     {:.3}  × 0.40", c.jaccard);
    let _ = writeln!(s, "semantic    {}  × 0.35", pct(c.semantic));
    let _ = writeln!(s, "edit ratio  {:.3}  × 0.25", c.edit_ratio);
    let _ = writeln!(s, "confidence  {:.3}", c.confidence);
    if let Some(n) = &c.note {
        let _ = writeln!(s, "note: {n}");
    }
    if let (Some(t), Some(rule)) = (&c.suggested_type, &c.suggestion_rule) {
        let _ = writeln!(s, "suggested type: {t}  ({rule})");
    }
    if let Some(diff) = &c.diff {
        let _ = writeln!(s, "\nword diff (A → B; [-removed-] {{+added+}}):");
        for op in diff {
            match op.op.as_str() {
                "delete" => {
                    let _ = write!(s, "[-{}-]", op.text);
                }
                "insert" => {
                    let _ = write!(s, "{{+{}+}}", op.text);
                }
                _ => s.push_str(&op.text),
            }
        }
        s.push('\n');
    }
    s
}
