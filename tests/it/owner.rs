//! Only its owner reads and writes the private database: other local processes cannot
//! connect without the password in the owner's 0600 file, Provex's own user cannot run
//! administrative commands, and a shared server needs no more than the least-privilege ACL
//! user the README documents.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use provex::facade::{self, ConnectOptions, Provex, Quiet};
use provex::ingest::IngestOptions;
use provex::store::secret;
use provex::store::server::{PrivateServer, ServerOptions};

use crate::common;

async fn ingest(provex: &Provex, graph: &str, files: &[std::path::PathBuf]) -> u64 {
    provex
        .ingest(graph, files, IngestOptions::default(), Arc::new(AtomicBool::new(false)), Arc::new(Quiet))
        .await
        .unwrap()
        .nodes_written
}

fn example(dir: &tempfile::TempDir) -> Vec<std::path::PathBuf> {
    let file = dir.path().join("e.jsonl");
    std::fs::copy(common::repo().join("examples/a2a-run.jsonl"), &file).unwrap();
    vec![file]
}

async fn open(url: &str) -> Provex {
    Provex::open(ConnectOptions { url: Some(url.to_owned()), server: None }).await.unwrap()
}

/// What one command gets back on a fresh connection to `url` (the error's text, or the
/// reply), after `AUTH user password` when `auth` is given.
async fn send(url: &str, auth: Option<(&str, &str)>, args: &[&str]) -> String {
    let client = redis::Client::open(url).unwrap();
    let mut con = match client.get_multiplexed_async_connection().await {
        Ok(c) => c,
        Err(e) => return e.to_string(),
    };
    if let Some((user, pass)) = auth {
        let r = redis::cmd("AUTH").arg(user).arg(pass).query_async::<redis::Value>(&mut con).await;
        if let Err(e) = r {
            return e.to_string();
        }
    }
    let mut cmd = redis::cmd(args[0]);
    for a in &args[1..] {
        cmd.arg(*a);
    }
    match cmd.query_async::<redis::Value>(&mut con).await {
        Ok(v) => format!("answered {v:?}"),
        Err(e) => e.to_string(),
    }
}

#[cfg(unix)]
fn mode(path: &std::path::Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

/// Finding: any local process could connect to the private FalkorDB's port and run
/// `GRAPH.LIST`, rewrite a statement or `CONFIG SET` the server (`requirepass` was empty).
#[tokio::test(flavor = "multi_thread")]
async fn only_provex_reaches_its_private_server() {
    let data = tempfile::tempdir().unwrap();
    let dir = data.path().join("falkordb");
    let opts = ServerOptions { data_dir: dir.clone(), persist: true, port: None };
    let owner = PrivateServer::start(&opts).unwrap();
    let provex = open(&owner.url()).await;
    let files = tempfile::tempdir().unwrap();
    assert_eq!(ingest(&provex, "mine", &example(&files)).await, 61);
    let password = std::fs::read_to_string(dir.join(secret::SECRET_FILE)).unwrap();
    assert!(owner.url().contains(&password), "the store connects with the password in the folder");

    let bare = format!("redis://127.0.0.1:{}", owner.port());
    for args in [
        &["GRAPH.LIST"][..],
        &["GRAPH.QUERY", "mine", "MATCH (n) SET n.text = 'rewritten'"],
        &["CONFIG", "SET", "appendonly", "no"],
        &["ACL", "LIST"],
        &["SHUTDOWN", "NOSAVE"],
    ] {
        let answer = send(&bare, None, args).await;
        assert!(answer.contains("NOAUTH"), "{args:?} without credentials: {answer}");
    }
    // No other user gets in: not `default` (off, no password), not a guessed password.
    for (user, pass) in [("default", ""), ("default", "x"), ("provex", "guess"), ("provex-admin", &password)]
    {
        let answer = send(&bare, Some((user, pass)), &["GRAPH.LIST"]).await;
        assert!(answer.contains("WRONGPASS"), "AUTH {user}: {answer}");
    }
    // Provex's own user cannot administer the server.
    for args in [
        &["CONFIG", "SET", "appendonly", "no"][..],
        &["CONFIG", "GET", "requirepass"],
        &["DEBUG", "SLEEP", "0"],
        &["MODULE", "LOAD", "/tmp/evil.so"],
        &["SHUTDOWN", "NOSAVE"],
        &["ACL", "SETUSER", "default", "on", "nopass", "+@all"],
        &["FLUSHALL"],
        &["MONITOR"],
    ] {
        let answer = send(&owner.url(), None, args).await;
        assert!(refused(&answer), "{args:?} as Provex's user: {answer}");
    }
    assert_eq!(provex.stats("mine").await.unwrap().nodes, 61, "nothing was rewritten");

    #[cfg(unix)]
    {
        assert_eq!(mode(&dir), 0o700, "the data folder is the owner's only");
        assert_eq!(mode(&dir.join(secret::SECRET_FILE)), 0o600, "the password file is the owner's only");
        assert_eq!(mode(&dir.join("falkordb.log")) & 0o077, 0, "the server's files are the owner's only");
    }
    // What Provex shows of its database does not carry the password.
    assert!(!provex.url().contains(&password), "{}", provex.url());
    let ps = std::fs::read_to_string(format!("/proc/{}/cmdline", owner.pid().unwrap())).unwrap_or_default();
    assert!(!ps.contains(&password), "the server's arguments carry only the password's hash");

    // A second Provex on the same data folder attaches with the password from the folder.
    let second = PrivateServer::start(&opts).unwrap();
    assert!(!second.owned());
    assert_eq!(second.url(), owner.url());
    assert!(second.admin_url().is_none(), "the administrative password stays with the owner");
    let attached = open(&second.url()).await;
    assert_eq!(attached.stats("mine").await.unwrap().nodes, 61);
    drop(attached);
    drop(second);

    // Restarted on the same data: the graph is there, under the same password.
    drop(provex);
    drop(owner);
    let next = PrivateServer::start(&opts).unwrap();
    assert!(next.owned());
    assert!(next.url().contains(&password), "the folder's password is kept while it is the owner's only");
    let again = open(&next.url()).await;
    assert_eq!(again.stats("mine").await.unwrap().nodes, 61, "the data survived the restart");
    let bare = format!("redis://127.0.0.1:{}", next.port());
    assert!(send(&bare, None, &["GRAPH.LIST"]).await.contains("NOAUTH"));
}

/// A server for tests only (not persistent) is closed the same way.
#[tokio::test(flavor = "multi_thread")]
async fn a_server_in_memory_is_closed_too() {
    let data = tempfile::tempdir().unwrap();
    let opts = ServerOptions { data_dir: data.path().to_owned(), persist: false, port: None };
    let server = PrivateServer::start(&opts).unwrap();
    let bare = format!("redis://127.0.0.1:{}", server.port());
    assert!(send(&bare, None, &["CONFIG", "SET", "maxmemory", "1"]).await.contains("NOAUTH"));
    assert!(send(&server.url(), None, &["GRAPH.LIST"]).await.starts_with("answered"));
    #[cfg(unix)]
    assert_eq!(mode(&data.path().join(secret::SECRET_FILE)), 0o600);
}

/// The README's least-privilege user for a shared server, created with exactly the line it
/// documents: Provex ingests, reads, bundles and diffs through it, and cannot administer.
#[tokio::test(flavor = "multi_thread")]
async fn provex_works_as_the_documented_least_privilege_user() {
    let line = secret::shared_acl_line();
    let readme = std::fs::read_to_string(common::repo().join("README.md")).unwrap();
    assert!(readme.contains(&line), "the README documents this exact line:\n{line}");

    // A server of its own with an append-only file, set up by its administrator.
    let data = tempfile::tempdir().unwrap();
    let opts = ServerOptions { data_dir: data.path().to_owned(), persist: true, port: None };
    let server = PrivateServer::start(&opts).unwrap();
    let mut admin = redis::Client::open(server.admin_url().unwrap())
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .unwrap();
    let mut cmd = redis::cmd("ACL");
    for word in line.replace(">PASSWORD", ">shared-pass-1").split(' ').skip(1) {
        cmd.arg(word);
    }
    let _: () = cmd.query_async(&mut admin).await.unwrap();

    let url = format!("redis://provex-app:shared-pass-1@127.0.0.1:{}", server.port());
    let provex = open(&url).await;
    let dir = tempfile::tempdir().unwrap();
    let council: Vec<_> = facade::write_council_files(dir.path())
        .unwrap()
        .into_iter()
        .filter(|f| f.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    assert!(ingest(&provex, "least", &council).await > 0);
    assert_eq!(provex.durability(), provex::store::Durability::LocalAof, "WAITAOF is allowed");
    assert_eq!(ingest(&provex, "other", &example(&dir)).await, 61);
    // Reads.
    let stats = provex.stats("least").await.unwrap();
    assert!(stats.nodes > 0);
    let table = provex.query("least", "MATCH (n) RETURN count(n)").await.unwrap();
    assert_eq!(table.rows.len(), 1);
    let graphs = provex.graphs().await.unwrap();
    assert!(graphs.contains(&"least".to_owned()) && graphs.contains(&"other".to_owned()));
    // A bundle and a diff.
    let bundle = provex.bundle("least", &[], None).await.unwrap();
    assert!(bundle.contains("provex:AuditBundle"));
    let diff = provex.diff_graphs("least", "other").await.unwrap();
    let diff = serde_json::to_string(&diff).unwrap();
    assert!(diff.len() > 2, "{diff}");
    // And it cannot administer the server.
    for args in [&["CONFIG", "SET", "maxmemory", "1"][..], &["DEBUG", "SLEEP", "0"], &["SHUTDOWN", "NOSAVE"]]
    {
        let answer = send(&url, None, args).await;
        assert!(refused(&answer), "{args:?}: {answer}");
    }
    provex.delete_graph("least").await.unwrap();
    provex.delete_graph("other").await.unwrap();
}

/// Whether a reply is a refusal: the ACL's (`NOPERM`), or the server's own for `DEBUG` and
/// `MODULE`, which it runs for no connection at all.
fn refused(answer: &str) -> bool {
    answer.contains("no permissions") || answer.contains("command not allowed")
}
