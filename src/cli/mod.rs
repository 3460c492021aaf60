//! The `provex` command line: argument parsing (`args`) and one facade call per command, the
//! commands that need no database in `offline`, ingest and serve in their own modules.

mod args;
mod choices;
mod graph_arg;
mod ingest;
pub mod lineage;
pub mod log;
mod offline;
pub mod output;
mod search;
mod serve;

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use anyhow::Context as _;
use provex::facade::{self, ConnectOptions, Provex};
use provex::store::replicas::replica_reads;
use provex::store::server::ServerOptions;
use provex::store::TraceDirection;

pub use args::*;
use offline::{emit_layout, layout_options, Offline};
use output::{render, Graphs, OutputFormat, PathOutput};

/// Exit status: some records were rejected.
pub const EXIT_REJECTED: u8 = 1;

/// Exit status: a check failed.
pub const EXIT_FAILED: u8 = 1;

/// Runs one command; returns the exit status.
pub async fn run(cli: Cli) -> anyhow::Result<u8> {
    let command = match offline::run(cli.command, &cli.conn).await? {
        Offline::Done(code) => return Ok(code),
        Offline::Needs(command) => *command,
    };
    let provex = open(&cli.conn).await?;
    let mut out = std::io::stdout().lock();
    match command {
        Command::Verify { graph: Some(graph), keys, format, .. } => {
            return verify_graph(&provex, &graph, keys.as_deref(), format, &mut out).await;
        }
        Command::Log { command } => {
            let (text, ok) = log::run(&provex, command).await?;
            write!(out, "{text}")?;
            return Ok(if ok { 0 } else { EXIT_FAILED });
        }
        Command::Bundle { graph, statements, all: _, out: path, sign, since } => {
            let since =
                since.map(|p| std::fs::read(&p).with_context(|| p.display().to_string())).transpose()?;
            let text =
                provex.bundle_since(&graph.graph, &statements, sign.as_deref(), since.as_deref()).await?;
            std::fs::write(&path, text).with_context(|| path.display().to_string())?;
            eprintln!("wrote {}", path.display());
            if sign.is_none() {
                eprintln!(
                    "warning: the bundle is not signed: `provex verify` fails it (give --sign KEYFILE)"
                );
            }
        }
        Command::Lineage { command } => {
            let as_json = command.json();
            match lineage::run(&provex, command).await {
                Ok(text) => write!(out, "{text}")?,
                Err(e) if as_json => {
                    writeln!(out, "{}", lineage::json_error(&e))?;
                    return Ok(2);
                }
                Err(e) => return Err(e),
            }
        }
        Command::Trail { statement, graph, format } => {
            write!(out, "{}", render(&provex.trail(&graph.graph, &statement).await?, format.format)?)?;
        }
        Command::Demo { command: DemoCommand::Council { graph, pace, out: dir } } => {
            let mut files = Vec::new();
            if let Some(dir) = dir {
                files = facade::write_council_files(&dir)?;
            }
            let cancel = Arc::new(AtomicBool::new(false));
            let c = cancel.clone();
            tokio::spawn(async move {
                let _ = tokio::signal::ctrl_c().await;
                c.store(true, Ordering::Relaxed);
            });
            let graph = graph.unwrap_or_else(|| "council".into());
            let mut report = provex.demo_council(&graph, pace, cancel).await?;
            // The demo's writes are found by `provex search` once this process ends.
            provex.search_flush().await;
            report.files = files;
            write!(out, "{}", render(&report, OutputFormat::Text)?)?;
        }
        Command::Layout { graph: Some(graph), root, depth, direction, format, out: path, .. } => {
            let root = root.as_deref().map(|r| (r, depth));
            let laid = provex.layout(&graph, root, &layout_options(direction)).await?;
            emit_layout(&laid, format, path.as_deref())?;
        }
        Command::Export { graph, format, out: path } => {
            let text = provex.export_prov(&graph.graph, format.into()).await?;
            match path {
                Some(p) => std::fs::write(&p, text).with_context(|| format!("writing {}", p.display()))?,
                None => print!("{text}"),
            }
        }
        c @ Command::Serve { .. } => {
            drop(out);
            serve::run(provex, &cli.conn, c).await?;
        }
        Command::Verify { .. }
        | Command::Diff { .. }
        | Command::Keys { .. }
        | Command::Sign { .. }
        | Command::Layout { .. }
        | Command::Contract { .. } => {
            unreachable!("handled above")
        }
        c @ Command::Ingest { .. } => return ingest::run(&provex, c, &mut out).await,
        Command::Graphs { format } => {
            let graphs = Graphs { graphs: provex.graphs().await? };
            write!(out, "{}", render(&graphs, format.format)?)?;
        }
        Command::Stats { graph, format } => {
            write!(out, "{}", render(&provex.stats(&graph.graph).await?, format.format)?)?;
        }
        Command::Ask { question, graph, format } => {
            write!(out, "{}", render(&provex.ask(&graph.graph, &question).await?, format.format)?)?;
        }
        Command::Node { name, graph, format } => {
            write!(out, "{}", render(&provex.node(&graph.graph, &name).await?, format.format)?)?;
        }
        Command::Trace { node, graph, up: _, down, depth, format } => {
            let dir = if down { TraceDirection::Down } else { TraceDirection::Up };
            let sub = replica_reads(provex.trace(&graph.graph, &node, dir, depth)).await?;
            write!(out, "{}", render(&sub, format.format)?)?;
        }
        Command::Path { from, to, graph, format } => {
            let path = replica_reads(provex.path(&graph.graph, &from, &to)).await?;
            write!(out, "{}", render(&PathOutput { from, to, path }, format.format)?)?;
        }
        Command::Search(args) => write!(out, "{}", search::run(&provex, args).await?)?,
        Command::Query { cypher, graph, format } => {
            write!(out, "{}", render(&provex.query(&graph.graph, &cypher).await?, format.format)?)?;
        }
    }
    Ok(0)
}

/// `verify --graph`: the graph's A2AP documents, then what it holds against its log.
async fn verify_graph(
    provex: &Provex,
    graph: &str,
    keys: Option<&std::path::Path>,
    format: VerifyFormat,
    out: &mut impl Write,
) -> anyhow::Result<u8> {
    // A graph of other sources has no A2AP documents: only its log is checked.
    let a2ap_ok = match provex.verify_graph(graph, keys).await {
        Ok(report) => {
            write!(out, "{}", render(&report, format.into())?)?;
            report.exit_code() == 0
        }
        Err(provex::Error::NotFound { what: "A2AP documents in graph", .. }) => true,
        Err(e) => return Err(e.into()),
    };
    // What the graph holds, re-hashed against its tamper-evident log.
    let check = provex.verify_graph_log(graph).await?;
    let log_ok = check.mismatches.is_empty() && check.checkpoint_matches;
    if matches!(format, VerifyFormat::Text) {
        write!(out, "{}", log::render_check(&check))?;
    } else {
        eprint!("{}", log::render_check(&check));
    }
    Ok(if a2ap_ok && log_ok { 0 } else { EXIT_FAILED })
}

pub(super) async fn open(conn: &ConnArgs) -> provex::Result<Provex> {
    let server = conn.data_dir.as_ref().map(|dir| ServerOptions {
        data_dir: dir.join("falkordb"),
        persist: true,
        port: None,
    });
    Provex::open(ConnectOptions { url: conn.falkordb.clone(), server }).await
}
