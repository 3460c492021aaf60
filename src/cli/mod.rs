//! The `provex` command line: argument parsing and one facade call per command.

pub mod lineage;
pub mod log;
pub mod output;

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use clap::{Args, Parser, Subcommand};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use provex::facade::{self, ConnectOptions, IngestObserver, Provex};
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
    /// Prompt lineage (seed 002): inspect, retrieve, replay, stats, compare, similar.
    Lineage {
        #[command(subcommand)]
        command: lineage::LineageCommand,
    },
    /// Ingest provenance files into a graph.
    Ingest {
        /// Input files; `-` reads standard input as it arrives (a pipe from a live stream).
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
        /// A key registry for A2AP signatures (kept with the graph).
        #[arg(long)]
        keys: Option<PathBuf>,
        /// Reject lines longer than this many bytes (without reading them into memory).
        #[arg(long, value_name = "N", default_value_t = provex::ingest::DEFAULT_MAX_LINE_BYTES)]
        max_line_bytes: usize,
        /// Upsert even into a new graph (by default a new graph is built with GRAPH.BULK).
        #[arg(long)]
        no_bulk: bool,
        /// The most node and edge rows held in memory to build a new graph with GRAPH.BULK;
        /// the rest of a larger input is upserted.
        #[arg(long, value_name = "N", default_value_t = provex::ingest::DEFAULT_BULK_MAX_ROWS)]
        bulk_max_rows: usize,
    },
    /// Check A2AP signatures, evidence and consensus, in files or in what a graph holds; or
    /// check an audit bundle (`provex bundle`), and whether you trust whoever made it.
    ///
    /// An audit bundle carries its own keys, so on its own it proves only that whoever holds
    /// those keys made it. Without --trust the result names the signer's key by fingerprint
    /// (SHA256:…) and says it is not pinned (exit 0 when the bundle is intact and signed);
    /// with --trust it is pinned (exit 0) or fails (exit 1) naming each key the trust file
    /// lacks. An unsigned, tampered, empty, cut short or unparsable bundle fails (exit 1) with
    /// the reason. Exit 2: a usage error, or a file that cannot be read.
    Verify {
        /// A2AP files (JSON lines or a JSON array), or one audit bundle (`provex bundle`).
        #[arg(required_unless_present = "graph", conflicts_with = "graph")]
        files: Vec<PathBuf>,
        /// Verify again what this graph holds instead.
        #[arg(long, short)]
        graph: Option<String>,
        /// A key registry; with --graph, only these keys (and agent records) are trusted.
        #[arg(long)]
        keys: Option<PathBuf>,
        /// The keys you trust to have made an audit bundle: a key registry (the format --keys
        /// reads), one registry entry, or public keys one a line (`ed25519:BASE64`, pinned
        /// for any agent). The bundle's signer and every key its documents are signed with
        /// must be there, else the check fails (exit 1) naming the key (agent, key id,
        /// fingerprint).
        #[arg(long, value_name = "FILE", conflicts_with = "graph")]
        trust: Option<PathBuf>,
        /// A checkpoint of the graph's log you kept (`provex log checkpoint`), or an earlier
        /// audit bundle: the bundle's log must extend it (nothing removed or rewritten
        /// since), and still show what an earlier bundle showed of its statements.
        #[arg(long, value_name = "CHECKPOINT", conflicts_with = "graph")]
        since: Option<PathBuf>,
        #[arg(long, value_enum, default_value_t = VerifyFormat::Text)]
        format: VerifyFormat,
    },
    /// Write a self-verifying audit bundle (JSON-LD) of statements: their documents,
    /// verifications, cited sources with hashes, the keys used and the report.
    Bundle {
        #[command(flatten)]
        graph: GraphArg,
        /// A statement to include (repeatable).
        #[arg(long = "statement", value_name = "ID", required_unless_present = "all")]
        statements: Vec<String>,
        /// Every statement of the graph.
        #[arg(long, conflicts_with = "statements")]
        all: bool,
        #[arg(long)]
        out: PathBuf,
        /// Sign the bundle as a whole with this key file (`provex keys generate`). An unsigned
        /// bundle never verifies.
        #[arg(long, value_name = "KEYFILE")]
        sign: Option<PathBuf>,
        /// A checkpoint of the graph's log an auditor kept, or an earlier audit bundle: the
        /// bundle carries the proof that the log now extends it.
        #[arg(long, value_name = "CHECKPOINT")]
        since: Option<PathBuf>,
    },
    /// A statement's verification trail: claim, evidence, verifications and consensus.
    Trail {
        statement: String,
        #[command(flatten)]
        graph: GraphArg,
        #[command(flatten)]
        format: FormatArg,
    },
    /// The graph's tamper-evident log: checkpoints, inclusion and consistency proofs.
    Log {
        #[command(subcommand)]
        command: log::LogCommand,
    },
    /// Signing keys and key registries.
    Keys {
        #[command(subcommand)]
        command: KeysCommand,
    },
    /// Sign the A2AP documents of a file with an agent's key.
    Sign {
        file: PathBuf,
        /// The key file (from `provex keys generate`).
        #[arg(long)]
        key: PathBuf,
        /// Embed the public key (`ed25519:…`) instead of naming it by key id.
        #[arg(long)]
        embed: bool,
        /// Write here instead of standard output.
        #[arg(long, short)]
        out: Option<PathBuf>,
    },
    /// Lay a graph out (layered, for drawing): a stored graph, a node's neighbourhood, or
    /// a graph file.
    Layout {
        /// A stored graph.
        #[arg(long, short, required_unless_present = "input", conflicts_with = "input")]
        graph: Option<String>,
        /// Only this node's ancestors and descendants (with --graph).
        #[arg(long, requires = "graph")]
        root: Option<String>,
        /// How far from --root.
        #[arg(long, default_value_t = 3)]
        depth: u32,
        /// A graph file {"nodes":[{"id","label"}],"edges":[{"source","target"}]}, such as
        /// `provex trace --format json` writes.
        #[arg(long)]
        input: Option<PathBuf>,
        /// Which way edges point.
        #[arg(long, value_enum, default_value_t = LayoutDirection::Down)]
        direction: LayoutDirection,
        /// Output format.
        #[arg(long, value_enum, default_value_t = LayoutFormat::Json)]
        format: LayoutFormat,
        /// Write here instead of standard output.
        #[arg(long, short)]
        out: Option<PathBuf>,
    },
    /// Demonstrations.
    Demo {
        #[command(subcommand)]
        command: DemoCommand,
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
    /// Ask a question in plain language: a chat endpoint (PROVEX_LLM_URL, PROVEX_LLM_MODEL,
    /// PROVEX_LLM_KEY; OpenAI-compatible) writes Cypher from the graph's real labels,
    /// relationship types and properties; it runs read-only and is printed with the answer.
    Ask {
        /// The question.
        question: String,
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
    /// What B adds, removes and changes with respect to A, by node and edge identity. A and
    /// B are graphs, or files (anything `ingest` reads, normalised in memory). Exit code 0
    /// when they are the same, 1 when they differ.
    Diff {
        /// The graph or file to compare from.
        a: String,
        /// The graph or file to compare to.
        b: String,
        #[arg(long, value_enum, default_value_t = DiffFormat::Text)]
        format: DiffFormat,
    },
    /// Write a graph as W3C PROV (PROV-JSON, PROV-N, or PROV-O as Turtle or JSON-LD).
    Export {
        #[command(flatten)]
        graph: GraphArg,
        #[arg(long, value_enum, default_value_t = ExportFormat::ProvJson)]
        format: ExportFormat,
        /// Write to this file (default: standard output).
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Serve the explorer UI, its JSON API and live streams over HTTP.
    ///
    /// Every request that reads or writes a graph (/api, /graphql, /a2a/GRAPH) must carry the
    /// server's token: `Authorization: Bearer TOKEN`, or `?token=TOKEN`. On loopback without
    /// --token, a new token is made at each start: the address printed (and opened by --open)
    /// carries it, and it is written to DATA/serve-PORT.token, readable by you only (DATA is the
    /// data folder: --data-dir, or the user's data folder), for your scripts:
    /// `curl -H "Authorization: Bearer $(cat ~/.local/share/provex/serve-7878.token)" …`.
    /// Requests from web pages other than Provex's own (another site or port) are refused.
    Serve {
        /// Address to listen on. Anything but loopback needs --token.
        #[arg(long, default_value = "127.0.0.1:7878")]
        bind: std::net::SocketAddr,
        /// Token every request must carry (`Authorization: Bearer …` or `?token=`), at least
        /// 16 characters. Without it (on loopback), one is made for this start.
        #[arg(long, env = "PROVEX_TOKEN", hide_env_values = true)]
        token: Option<String>,
        /// The built UI (default: ui/dist beside the executable or the current folder).
        #[arg(long)]
        ui: Option<PathBuf>,
        /// Open the UI in the default browser.
        #[arg(long)]
        open: bool,
        /// On a non-loopback address, a folder `follow` may read and uploads may be written
        /// in, besides the data folder (repeat for more). Loopback allows any folder.
        #[arg(long = "allow-dir", value_name = "DIR")]
        allow_dir: Vec<PathBuf>,
        /// Alignment rules (JSON or YAML) every `knowledge/update` at /a2a/GRAPH must
        /// respect: allowed/forbidden predicates and subject prefixes, minimum certainty,
        /// justification required, allowed source agents (see examples/knowledge/).
        #[arg(long, value_name = "FILE")]
        alignment: Option<PathBuf>,
        /// Request bodies (`/events`, `/upload`) read at once; more are answered 503 with
        /// `Retry-After`.
        #[arg(long, env = "PROVEX_MAX_BODIES", default_value_t = 64, value_name = "N")]
        max_bodies: usize,
        /// Seconds a request body may send nothing before it is cut (the whole lines before
        /// it are kept). A live pusher keeps its body open by sending an empty line.
        #[arg(long, env = "PROVEX_BODY_TIMEOUT", default_value_t = 30.0, value_name = "SECONDS")]
        body_timeout: f64,
        /// MiB that the unfinished lines of all `/events` bodies may hold together; a line
        /// that does not fit ends its body with 503.
        #[arg(long, env = "PROVEX_LINE_BUDGET", default_value_t = 128, value_name = "MIB")]
        line_budget: usize,
        /// Seconds open requests get to finish on SIGTERM or Ctrl-C.
        #[arg(long, env = "PROVEX_SHUTDOWN_GRACE", default_value_t = 2.0, value_name = "SECONDS")]
        shutdown_grace: f64,
    },
    /// Write what is generated from the API declarations: the UI's TypeScript types and
    /// client, the desktop shell's command list and capability file.
    Contract {
        /// The repository root they are written under.
        #[arg(long, default_value = ".")]
        root: PathBuf,
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

#[derive(Debug, Subcommand)]
pub enum KeysCommand {
    /// Make a new Ed25519 signing key for an agent.
    Generate {
        /// The key's id, as documents name it in `signature.publicKey`.
        #[arg(long)]
        id: String,
        /// The agent the key signs for (for example urn:agent:summariser).
        #[arg(long)]
        agent: String,
        /// Where to write the key file (it holds the secret key).
        #[arg(long, short)]
        out: PathBuf,
        /// Also add the public key to this registry.
        #[arg(long)]
        registry: Option<PathBuf>,
    },
    /// Add a key file's public key to a registry (created if missing).
    Add {
        key_file: PathBuf,
        #[arg(long)]
        registry: PathBuf,
    },
    /// List a registry's keys.
    List {
        #[arg(long)]
        registry: PathBuf,
        #[command(flatten)]
        format: FormatArg,
    },
}

#[derive(Debug, Subcommand)]
pub enum DemoCommand {
    /// A city-council meeting summarised by one agent and checked by two others, all signed.
    Council {
        /// The graph to stream it into (default `council`; with --out alone, none).
        #[arg(long, short)]
        graph: Option<String>,
        /// Emit one record every MS milliseconds, as a live run would.
        #[arg(long)]
        pace: Option<u64>,
        /// Write the demo's files into this folder.
        #[arg(long)]
        out: Option<PathBuf>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LayoutDirection {
    Down,
    Right,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LayoutFormat {
    Json,
    Svg,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    ProvJson,
    ProvN,
    ProvOTurtle,
    ProvOJsonld,
}

impl From<ExportFormat> for provex::prov::ProvFormat {
    fn from(f: ExportFormat) -> Self {
        use provex::prov::ProvFormat;
        match f {
            ExportFormat::ProvJson => ProvFormat::ProvJson,
            ExportFormat::ProvN => ProvFormat::ProvN,
            ExportFormat::ProvOTurtle => ProvFormat::ProvOTurtle,
            ExportFormat::ProvOJsonld => ProvFormat::ProvOJsonld,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DiffFormat {
    Text,
    Json,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum VerifyFormat {
    Json,
    Text,
    Table,
}

impl From<VerifyFormat> for OutputFormat {
    fn from(f: VerifyFormat) -> Self {
        match f {
            VerifyFormat::Json => OutputFormat::Json,
            VerifyFormat::Text => OutputFormat::Text,
            VerifyFormat::Table => OutputFormat::Table,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum InputFormat {
    Auto,
    A2a,
    A2ap,
    ProvJson,
    Lineage,
    #[value(name = "trustgraph")]
    TrustGraph,
}

impl From<InputFormat> for Format {
    fn from(f: InputFormat) -> Self {
        match f {
            InputFormat::Auto => Format::Auto,
            InputFormat::A2a => Format::A2a,
            InputFormat::A2ap => Format::A2ap,
            InputFormat::ProvJson => Format::ProvJson,
            InputFormat::Lineage => Format::Lineage,
            InputFormat::TrustGraph => Format::TrustGraph,
        }
    }
}

/// Exit status: some records were rejected.
pub const EXIT_REJECTED: u8 = 1;

/// Exit status: a check failed.
pub const EXIT_FAILED: u8 = 1;

/// Runs one command; returns the exit status.
pub async fn run(cli: Cli) -> anyhow::Result<u8> {
    use std::io::Write as _;
    // Commands that need no database.
    let command = match cli.command {
        Command::Verify { files, graph: None, keys, trust, since, format }
            if trust.is_some()
                || since.is_some()
                || (files.len() == 1 && (facade::is_bundle_file(&files[0]) || is_blank(&files[0]))) =>
        {
            if keys.is_some() {
                anyhow::bail!(
                    "a bundle carries its own keys: --keys does not apply (pin whom you trust with --trust)"
                );
            }
            let [file] = files.as_slice() else {
                anyhow::bail!("--trust checks one audit bundle at a time");
            };
            let check = facade::verify_bundle_file(file, trust.as_deref(), since.as_deref())?;
            print!("{}", render(&check, format.into())?);
            return Ok(match check.trust {
                provex::a2ap::trust::TrustStatus::Failed => EXIT_FAILED,
                _ => 0,
            });
        }
        Command::Verify { files, graph: None, keys, trust: _, since: _, format } => {
            let report = facade::verify_files(&files, keys.as_deref())?;
            print!("{}", render(&report, format.into())?);
            return Ok(if report.exit_code() == 0 { 0 } else { EXIT_FAILED });
        }
        Command::Keys { command } => return keys(command),
        Command::Log { command: log::LogCommand::Verify { file: Some(file), key, graph: None, .. } } => {
            let (text, ok) = log::verify_file(&file, key.as_deref())?;
            print!("{text}");
            return Ok(if ok { 0 } else { EXIT_FAILED });
        }
        Command::Contract { root } => {
            for (path, text) in provex::api::typescript::generated() {
                let out = root.join(path);
                std::fs::write(&out, text).with_context(|| out.display().to_string())?;
                eprintln!("wrote {}", out.display());
            }
            return Ok(0);
        }
        Command::Sign { file, key, embed, out } => {
            let signed = facade::sign_file(&file, &key, embed)?;
            match out {
                Some(path) => std::fs::write(&path, signed).with_context(|| path.display().to_string())?,
                None => print!("{signed}"),
            }
            return Ok(0);
        }
        Command::Diff { a, b, format } => {
            let (a, b) = (facade::DiffSide::parse(&a), facade::DiffSide::parse(&b));
            let d = match (&a, &b) {
                (facade::DiffSide::File(fa), facade::DiffSide::File(fb)) => facade::diff_files(fa, fb)?,
                _ => open(&cli.conn).await?.diff(&a, &b).await?,
            };
            match format {
                DiffFormat::Text => print!("{}", provex::diff::render_text(&d)),
                DiffFormat::Json => println!("{}", serde_json::to_string_pretty(&d)?),
            }
            return Ok(if d.is_empty() { 0 } else { EXIT_FAILED });
        }
        Command::Layout { graph: None, input: Some(input), direction, format, out, .. } => {
            let laid = facade::layout_file(&input, &layout_options(direction))?;
            emit_layout(&laid, format, out.as_deref())?;
            return Ok(0);
        }
        Command::Demo { command: DemoCommand::Council { graph: None, pace: _, out: Some(dir) } } => {
            let files = facade::write_council_files(&dir)?;
            let report = facade::DemoReport { files, ..Default::default() };
            print!("{}", render(&report, OutputFormat::Text)?);
            return Ok(0);
        }
        other => other,
    };
    let provex = open(&cli.conn).await?;
    let mut out = std::io::stdout().lock();
    match command {
        Command::Verify { graph: Some(graph), keys, format, .. } => {
            // A graph of other sources has no A2AP documents: only its log is checked.
            let a2ap_ok = match provex.verify_graph(&graph, keys.as_deref()).await {
                Ok(report) => {
                    write!(out, "{}", render(&report, format.into())?)?;
                    report.exit_code() == 0
                }
                Err(provex::Error::NotFound { what: "A2AP documents in graph", .. }) => true,
                Err(e) => return Err(e.into()),
            };
            // What the graph holds, re-hashed against its tamper-evident log.
            let check = provex.verify_graph_log(&graph).await?;
            let log_ok = check.mismatches.is_empty() && check.checkpoint_matches;
            if matches!(format, VerifyFormat::Text) {
                write!(out, "{}", log::render_check(&check))?;
            } else {
                eprint!("{}", log::render_check(&check));
            }
            return Ok(if a2ap_ok && log_ok { 0 } else { EXIT_FAILED });
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
        Command::Serve {
            bind,
            token,
            ui,
            open,
            allow_dir,
            alignment,
            max_bodies,
            body_timeout,
            line_budget,
            shutdown_grace,
        } => {
            drop(out);
            if let Some(file) = alignment {
                provex.set_alignment(Some(provex::kg::Alignment::load(&file)?));
            }
            let seconds = |s: f64, what: &str| {
                std::time::Duration::try_from_secs_f64(s)
                    .map_err(|_| provex::Error::Usage(format!("{what} must be a number of seconds ≥ 0")))
            };
            let limits = provex::serve::ServeLimits {
                max_bodies: max_bodies.max(1),
                body_idle: seconds(body_timeout, "--body-timeout")?,
                line_budget_bytes: line_budget.saturating_mul(1 << 20),
                shutdown_grace: seconds(shutdown_grace, "--shutdown-grace")?,
                ..Default::default()
            };
            // A made token is kept in the data folder for the same user's tools.
            let token_dir = match &cli.conn.data_dir {
                Some(d) => Some(d.clone()),
                None => {
                    ServerOptions::app_default().ok().and_then(|o| o.data_dir.parent().map(Path::to_path_buf))
                }
            };
            let opts = provex::serve::ServeOptions {
                bind,
                token,
                token_dir,
                ui,
                open,
                allow_dirs: allow_dir,
                limits,
            };
            provex::serve::run(Arc::new(provex), opts).await?;
        }
        Command::Verify { .. }
        | Command::Diff { .. }
        | Command::Keys { .. }
        | Command::Sign { .. }
        | Command::Layout { .. }
        | Command::Contract { .. } => {
            unreachable!("handled above")
        }
        Command::Ingest {
            files,
            graph,
            format,
            follow,
            rejects,
            keys,
            max_line_bytes,
            no_bulk,
            bulk_max_rows,
        } => {
            let opts = IngestOptions {
                format: format.into(),
                follow,
                rejects,
                keys,
                max_line_bytes,
                bulk: !no_bulk,
                bulk_max_rows,
                ..Default::default()
            };
            let cancel = Arc::new(AtomicBool::new(false));
            if follow {
                let c = cancel.clone();
                tokio::spawn(async move {
                    let _ = tokio::signal::ctrl_c().await;
                    c.store(true, Ordering::Relaxed);
                });
            }
            let progress = Arc::new(Progress::new());
            let report = if files.len() == 1 && files[0] == Path::new("-") {
                // Standard input, read as it grows (a pipe from a live stream); the rejects go
                // to `stdin.rejected.jsonl` unless --rejects names a file.
                let opts = IngestOptions {
                    rejects: opts.rejects.clone().or_else(|| Some("stdin.rejected.jsonl".into())),
                    ..opts
                };
                let (tx, rx) = tokio::sync::mpsc::channel::<Vec<u8>>(16);
                std::thread::spawn(move || {
                    use std::io::Read as _;
                    let mut stdin = std::io::stdin().lock();
                    let mut buf = vec![0u8; 1 << 16];
                    loop {
                        match stdin.read(&mut buf) {
                            Ok(0) | Err(_) => break,
                            Ok(n) => {
                                if tx.blocking_send(buf[..n].to_vec()).is_err() {
                                    break;
                                }
                            }
                        }
                    }
                });
                let source = futures_util::stream::unfold(rx, |mut rx| async move {
                    rx.recv().await.map(|v| (Ok(axum::body::Bytes::from(v)), rx))
                });
                provex
                    .ingest_stream(
                        &graph.graph,
                        PathBuf::from("stdin"),
                        Box::pin(source),
                        opts,
                        cancel,
                        progress.clone(),
                    )
                    .await
            } else {
                provex.ingest(&graph.graph, &files, opts, cancel, progress.clone()).await
            };
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
        Command::Ask { question, graph, format } => {
            write!(out, "{}", render(&provex.ask(&graph.graph, &question).await?, format.format)?)?;
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

/// Whether a file holds nothing but white space (nothing to verify: a failed check).
fn is_blank(path: &Path) -> bool {
    std::fs::read(path).is_ok_and(|b| b.iter().all(u8::is_ascii_whitespace))
}

fn layout_options(direction: LayoutDirection) -> provex::layout::LayoutOptions {
    let direction = match direction {
        LayoutDirection::Down => provex::layout::Direction::Down,
        LayoutDirection::Right => provex::layout::Direction::Right,
    };
    provex::layout::LayoutOptions { direction, ..Default::default() }
}

fn emit_layout(laid: &facade::LaidOut, format: LayoutFormat, out: Option<&Path>) -> anyhow::Result<()> {
    let text = match format {
        LayoutFormat::Json => laid.to_json() + "\n",
        LayoutFormat::Svg => laid.to_svg(),
    };
    match out {
        Some(path) => std::fs::write(path, text).with_context(|| path.display().to_string())?,
        None => print!("{text}"),
    }
    Ok(())
}

fn keys(command: KeysCommand) -> anyhow::Result<u8> {
    match command {
        KeysCommand::Generate { id, agent, out, registry } => {
            if out.exists() {
                anyhow::bail!("{} exists: not overwriting a key file", out.display());
            }
            let key = facade::generate_key(&id, &agent)?;
            write_secret(&out, &key.to_json())?;
            println!("wrote {} (key {id} for {agent}; keep it secret)", out.display());
            if let Some(reg) = registry {
                facade::add_key(&reg, &out)?;
                println!("added {id} to {}", reg.display());
            }
        }
        KeysCommand::Add { key_file, registry } => {
            let reg = facade::add_key(&registry, &key_file)?;
            println!("{}: {} keys", registry.display(), reg.len());
        }
        KeysCommand::List { registry, format } => {
            let mut keys = facade::read_registry(&registry)?.entries();
            keys.sort_by(|a, b| a.key_id.cmp(&b.key_id));
            print!("{}", render(&output::KeyList { keys }, format.format)?);
        }
    }
    Ok(0)
}

/// Writes a file readable by its owner only.
fn write_secret(path: &Path, text: &str) -> anyhow::Result<()> {
    use std::io::Write as _;
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.mode(0o600);
    }
    let mut f = opts.open(path).with_context(|| path.display().to_string())?;
    f.write_all(text.as_bytes())?;
    Ok(())
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
