//! The `provex` command line: argument parsing and one facade call per command.

pub mod output;

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use clap::{Args, Parser, Subcommand};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use provex::facade::{ConnectOptions, IngestObserver, Provex};
use provex::ingest::{Format, IngestOptions, Rejected};
use provex::store::server::ServerOptions;
use provex::store::TraceDirection;

use output::{render, Graphs, OutputFormat, PathOutput};

/// Explore and check where an AI system's output came from.
#[derive(Debug, Parser)]
#[command(name = "provex", version, about)]
pub struct Cli {
    #[command(flatten)]
    pub conn: ConnArgs,
    #[command(subcommand)]
    pub command: Command,
}

/// Where the graph database is.
#[derive(Debug, Args)]
pub struct ConnArgs {
    /// A shared FalkorDB server (redis:// or rediss://, with user and password); without it
    /// Provex starts its private server.
    #[arg(long, global = true, env = "PROVEX_FALKORDB_URL")]
    pub falkordb: Option<String>,
    /// Data folder of the private server (default: the user's data folder).
    #[arg(long, global = true, env = "PROVEX_DATA_DIR")]
    pub data_dir: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct GraphArg {
    /// The graph to use.
    #[arg(long, short)]
    pub graph: String,
}

#[derive(Debug, Args)]
pub struct FormatArg {
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub format: OutputFormat,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Ingest provenance files into a graph.
    Ingest {
        /// Input files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[command(flatten)]
        graph: GraphArg,
        /// Input format.
        #[arg(long, value_enum, default_value_t = InputFormat::Auto)]
        format: InputFormat,
        /// Keep reading the files as they grow, like `tail -f` (Ctrl-C stops).
        #[arg(long)]
        follow: bool,
        /// Write rejected records here (default: <file>.rejected.jsonl beside each input).
        #[arg(long)]
        rejects: Option<PathBuf>,
    },
    /// List the graphs.
    Graphs {
        #[command(flatten)]
        format: FormatArg,
    },
    /// Count nodes by label and edges by type.
    Stats {
        #[command(flatten)]
        graph: GraphArg,
        #[command(flatten)]
        format: FormatArg,
    },
    /// Show a node with its properties.
    Node {
        /// The node's name.
        name: String,
        #[command(flatten)]
        graph: GraphArg,
        #[command(flatten)]
        format: FormatArg,
    },
    /// Trace a node's ancestors (--up, the default) or descendants (--down).
    Trace {
        /// The node's name.
        node: String,
        #[command(flatten)]
        graph: GraphArg,
        /// Follow the PROV arrows: what the node came from (default).
        #[arg(long, conflicts_with = "down")]
        up: bool,
        /// Against the arrows: what came from the node.
        #[arg(long)]
        down: bool,
        /// How many steps to follow.
        #[arg(long, default_value_t = 10)]
        depth: u32,
        #[command(flatten)]
        format: FormatArg,
    },
    /// The shortest path between two nodes (in either direction of the edges).
    Path {
        from: String,
        to: String,
        #[command(flatten)]
        graph: GraphArg,
        #[command(flatten)]
        format: FormatArg,
    },
    /// Run read-only Cypher.
    Query {
        cypher: String,
        #[command(flatten)]
        graph: GraphArg,
        #[command(flatten)]
        format: FormatArg,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum InputFormat {
    Auto,
    A2a,
}

impl From<InputFormat> for Format {
    fn from(f: InputFormat) -> Self {
        match f {
            InputFormat::Auto => Format::Auto,
            InputFormat::A2a => Format::A2a,
        }
    }
}

/// Exit status: some records were rejected.
pub const EXIT_REJECTED: u8 = 1;

/// Runs one command; returns the exit status.
pub async fn run(cli: Cli) -> anyhow::Result<u8> {
    let provex = open(&cli.conn).await?;
    let mut out = std::io::stdout().lock();
    use std::io::Write as _;
    match cli.command {
        Command::Ingest { files, graph, format, follow, rejects } => {
            let opts = IngestOptions { format: format.into(), follow, rejects, ..Default::default() };
            let cancel = Arc::new(AtomicBool::new(false));
            if follow {
                let c = cancel.clone();
                tokio::spawn(async move {
                    let _ = tokio::signal::ctrl_c().await;
                    c.store(true, Ordering::Relaxed);
                });
            }
            let progress = Arc::new(Progress::new());
            let report = provex.ingest(&graph.graph, &files, opts, cancel, progress.clone()).await;
            progress.finish();
            let report = report?;
            write!(out, "{}", render(&report, OutputFormat::Text)?)?;
            return Ok(if report.rejected > 0 { EXIT_REJECTED } else { 0 });
        }
        Command::Graphs { format } => {
            let graphs = Graphs { graphs: provex.graphs().await? };
            write!(out, "{}", render(&graphs, format.format)?)?;
        }
        Command::Stats { graph, format } => {
            write!(out, "{}", render(&provex.stats(&graph.graph).await?, format.format)?)?;
        }
        Command::Node { name, graph, format } => {
            write!(out, "{}", render(&provex.node(&graph.graph, &name).await?, format.format)?)?;
        }
        Command::Trace { node, graph, up: _, down, depth, format } => {
            let dir = if down { TraceDirection::Down } else { TraceDirection::Up };
            let sub = provex.trace(&graph.graph, &node, dir, depth).await?;
            write!(out, "{}", render(&sub, format.format)?)?;
        }
        Command::Path { from, to, graph, format } => {
            let path = provex.path(&graph.graph, &from, &to).await?;
            write!(out, "{}", render(&PathOutput { from, to, path }, format.format)?)?;
        }
        Command::Query { cypher, graph, format } => {
            write!(out, "{}", render(&provex.query(&graph.graph, &cypher).await?, format.format)?)?;
        }
    }
    Ok(0)
}

async fn open(conn: &ConnArgs) -> provex::Result<Provex> {
    let server = conn.data_dir.as_ref().map(|dir| ServerOptions {
        data_dir: dir.join("falkordb"),
        persist: true,
        port: None,
    });
    Provex::open(ConnectOptions { url: conn.falkordb.clone(), server }).await
}

/// The ingest progress bar: drawn on a terminal only, once an ingest has taken longer than
/// a moment; rejected records are reported on stderr as they come.
struct Progress {
    started: Instant,
    bar: Mutex<Option<ProgressBar>>,
    total: Mutex<u64>,
}

impl Progress {
    fn new() -> Self {
        Progress { started: Instant::now(), bar: Mutex::new(None), total: Mutex::new(0) }
    }

    fn finish(&self) {
        if let Some(bar) = self.bar.lock().expect("bar").take() {
            bar.finish_and_clear();
        }
    }
}

impl IngestObserver for Progress {
    fn file_started(&self, _path: &Path, bytes: u64) {
        *self.total.lock().expect("total") = bytes;
        if let Some(bar) = self.bar.lock().expect("bar").as_ref() {
            bar.set_length(bytes);
            bar.set_position(0);
        }
    }

    fn progress(&self, path: &Path, offset: u64, events: u64) {
        let mut bar = self.bar.lock().expect("bar");
        if bar.is_none()
            && self.started.elapsed() > Duration::from_millis(300)
            && std::io::stderr().is_terminal()
        {
            let b = ProgressBar::with_draw_target(
                Some(*self.total.lock().expect("total")),
                ProgressDrawTarget::stderr(),
            );
            b.set_style(
                ProgressStyle::with_template("{spinner} {msg} [{bar:30}] {bytes}/{total_bytes} {per_sec}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar())
                    .progress_chars("=> "),
            );
            *bar = Some(b);
        }
        if let Some(b) = bar.as_ref() {
            b.set_position(offset);
            b.set_message(format!("{} {events} events", path.display()));
        }
    }

    fn rejected(&self, record: &Rejected) {
        let line = format!("rejected {record}");
        match self.bar.lock().expect("bar").as_ref() {
            Some(b) => b.println(line),
            None => eprintln!("{line}"),
        }
    }
}
