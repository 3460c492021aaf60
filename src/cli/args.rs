//! The `provex` command line's arguments, as clap declares them.

use std::path::PathBuf;

use super::{lineage, log};
use clap::{Args, Parser, Subcommand};

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
    /// A shared FalkorDB server (redis:// or rediss://, with user and password; a Redis
    /// Cluster: redis+cluster://host:port,host:port or rediss+cluster://); without it
    /// Provex starts its private server.
    #[arg(long, global = true, env = "PROVEX_FALKORDB_URL")]
    pub falkordb: Option<String>,
    /// Data folder of the private server (default: the user's data folder).
    #[arg(long, global = true, env = "PROVEX_DATA_DIR")]
    pub data_dir: Option<PathBuf>,
}

pub use super::graph_arg::{FormatArg, GraphArg};

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Prompt lineage: inspect, retrieve, replay, stats, compare, similar.
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
        /// No longer needed: a new graph of any size is built with GRAPH.BULK from a temporary
        /// file; this bounds the nodes (or edges) of one part of it held in memory.
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
        /// Verify again what this graph holds instead, and re-hash it against its log: a node
        /// changed behind the log or a rewritten log fails (exit 1); records logged since the
        /// latest signed checkpoint are named as not yet checkpointed (partly verified, exit 0).
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
        /// A witness's key (`provex log key --witness` there), or a file holding it
        /// (repeatable): the bundle's log checkpoint must carry its valid cosignature
        /// (`provex log witness` before `provex bundle`).
        #[arg(long, value_name = "KEY", conflicts_with = "graph")]
        witness: Vec<String>,
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
    ///
    /// When they hold OpenTelemetry spans, the output starts with the runs compared call by
    /// call (calls matched by operation, agent, model, tool and order, not by span id):
    /// calls, messages, tool arguments and results, and agents that differ. Two runs in one
    /// graph: `provex diff G --trace T1 --trace T2`; in two: `provex diff A B --trace T1
    /// --trace T2` (a trace id, or a prefix naming one trace). With traces, the exit code
    /// says whether the runs differ.
    Diff {
        /// The graph or file to compare from.
        a: String,
        /// The graph or file to compare to (default: A, for two traces of it).
        b: Option<String>,
        /// A trace of A, then one of B: give it twice, or not at all.
        #[arg(long = "trace", value_name = "TRACE_ID", num_args = 1)]
        traces: Vec<String>,
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
        /// Also receive OpenTelemetry traces over OTLP/gRPC (`TraceService/Export`) on this
        /// address, into the graph `otel` or the one named by the metadata `provex-graph`;
        /// calls carry `authorization: Bearer TOKEN`. (OTLP/HTTP is always received at
        /// /v1/traces and /otlp/GRAPH/v1/traces.) Anything but loopback needs --token.
        #[arg(long, value_name = "ADDR")]
        otlp_grpc: Option<std::net::SocketAddr>,
        /// OTLP exports (HTTP and gRPC) stored at once; more are answered 429 (gRPC
        /// UNAVAILABLE) with a retry delay.
        #[arg(long, env = "PROVEX_OTLP_MAX_EXPORTS", default_value_t = 16, value_name = "N")]
        otlp_max_exports: usize,
        /// Witness the tamper-evident logs of the Provex instance with this verifier key
        /// (`provex log key` there), or of each key one a line in this file (repeatable):
        /// POST /witness/add-checkpoint cosigns their checkpoints with this instance's
        /// witness key (`provex log key --witness`) while each extends what it last cosigned.
        #[arg(long = "witness-log", value_name = "KEY")]
        witness_log: Vec<String>,
    },
    /// Write what is generated from the API declarations: the UI's TypeScript types and
    /// client, the desktop shell's command list and capability file.
    Contract {
        /// The repository root they are written under.
        #[arg(long, default_value = ".")]
        root: PathBuf,
    },
    /// Search every graph (words, an agent, a trace or span id); `search reindex` rebuilds its index.
    Search(super::search::SearchArgs),
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

pub use super::choices::*;
