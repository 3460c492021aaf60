//! What Provex acknowledged survives a crash of its database: the private server keeps an
//! append-only file and every acknowledgement waits until the write is on disk; a write the
//! server refuses is an error naming the cause, never a success.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use provex::error::Error;
use provex::facade::{ConnectOptions, Provex, Quiet};
use provex::store::server::{PrivateServer, ServerOptions};
use provex::store::{Durability, Store};

use crate::common;

fn example() -> String {
    std::fs::read_to_string(common::repo().join("examples/a2a-run.jsonl")).unwrap()
}

async fn ingest_file(provex: &Provex, graph: &str, text: &str) -> provex::error::Result<u64> {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("e.jsonl");
    std::fs::write(&file, text).unwrap();
    let report = provex
        .ingest(graph, &[file], Default::default(), Arc::new(AtomicBool::new(false)), Arc::new(Quiet))
        .await?;
    Ok(report.nodes_written)
}

async fn open(url: &str) -> Provex {
    Provex::open(ConnectOptions { url: Some(url.to_owned()), server: None }).await.unwrap()
}

async fn raw(url: &str) -> redis::aio::MultiplexedConnection {
    redis::Client::open(url).unwrap().get_multiplexed_async_connection().await.unwrap()
}

/// Finding: an ingest answered 200 and FalkorDB killed right after lost the graph (the server
/// only took snapshots every 60 s).
#[tokio::test(flavor = "multi_thread")]
async fn an_acknowledged_ingest_survives_kill_9_of_the_database() {
    let data = tempfile::tempdir().unwrap();
    let opts = ServerOptions { data_dir: data.path().to_owned(), persist: true, port: None };
    let mut server = PrivateServer::start(&opts).unwrap();
    let provex = open(&server.url()).await;
    // Through the facade (the CLI's and the desktop's ingest)…
    assert_eq!(ingest_file(&provex, "acked", &example()).await.unwrap(), 61);
    // …and through POST /api/graphs/{g}/events.
    let provex = Arc::new(provex);
    let (running, base) = crate::serve::serve_on(provex.clone(), None).await;
    let answer = crate::serve::client()
        .post(format!("{base}/api/graphs/pushed/events"))
        .header("content-type", "application/x-ndjson")
        .body(example())
        .send()
        .await
        .unwrap();
    assert!(answer.status().is_success(), "{}", answer.text().await.unwrap());
    let report: serde_json::Value = answer.json().await.unwrap();
    assert_eq!(report["nodes_written"], 61, "{report}");
    assert_eq!(provex.durability(), Durability::LocalAof);

    // SIGKILL at once: no shutdown, no snapshot.
    server.kill();
    running.stop().await;
    drop(provex);
    let server = PrivateServer::start(&opts).unwrap();
    let after = open(&server.url()).await;
    assert_eq!(after.stats("acked").await.unwrap().nodes, 61, "the acknowledged ingest is on disk");
    assert_eq!(after.stats("pushed").await.unwrap().nodes, 61, "the acknowledged POST is on disk");
}

/// Finding (CI, 2026-11-25): restarting after a crash failed with "another Provex holds
/// server.lock but its server does not answer" when the lock was seen held for a moment: a
/// copy of its descriptor lives in a process another thread is forking until that process
/// runs `exec`. The start now takes the folder over as soon as the lock comes free.
#[tokio::test(flavor = "multi_thread")]
async fn a_lock_held_for_a_moment_does_not_fail_the_restart() {
    use std::os::unix::io::AsRawFd;
    let data = tempfile::tempdir().unwrap();
    let opts = ServerOptions { data_dir: data.path().to_owned(), persist: true, port: None };
    let mut server = PrivateServer::start(&opts).unwrap();
    let provex = open(&server.url()).await;
    assert_eq!(ingest_file(&provex, "acked", &example()).await.unwrap(), 61);
    drop(provex);
    server.kill();

    // Someone else holds the lock for half a second, as the forked copy would.
    let held = std::fs::OpenOptions::new().write(true).open(data.path().join("server.lock")).unwrap();
    // SAFETY: flock on a descriptor this test owns.
    assert_eq!(unsafe { libc::flock(held.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) }, 0);
    let release = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(500));
        drop(held);
    });
    let started = std::time::Instant::now();
    let server = PrivateServer::start(&opts).unwrap();
    release.join().unwrap();
    assert!(server.owned(), "the folder is taken over, not attached to a dead server");
    assert!(started.elapsed() < std::time::Duration::from_secs(10), "{:?}", started.elapsed());
    let after = open(&server.url()).await;
    assert_eq!(after.stats("acked").await.unwrap().nodes, 61);
}

/// A data folder written before the append-only file was kept (a snapshot only) keeps its
/// graphs, and from then on survives a crash too.
#[tokio::test(flavor = "multi_thread")]
async fn a_snapshot_only_data_folder_keeps_its_graphs() {
    let data = tempfile::tempdir().unwrap();
    {
        let old = ServerOptions { data_dir: data.path().to_owned(), persist: false, port: None };
        let server = PrivateServer::start(&old).unwrap();
        let provex = open(&server.url()).await;
        ingest_file(&provex, "old", &example()).await.unwrap();
        let _: () =
            redis::cmd("SAVE").query_async(&mut raw(&server.admin_url().unwrap()).await).await.unwrap();
    }
    assert!(data.path().join("provex.rdb").is_file());
    assert!(!data.path().join("appendonlydir").exists());

    let opts = ServerOptions { data_dir: data.path().to_owned(), persist: true, port: None };
    let mut server = PrivateServer::start(&opts).unwrap();
    assert!(data.path().join("appendonlydir").is_dir());
    let provex = open(&server.url()).await;
    assert_eq!(provex.stats("old").await.unwrap().nodes, 61);
    ingest_file(&provex, "new", &example()).await.unwrap();
    server.kill();
    let server = PrivateServer::start(&opts).unwrap();
    let after = open(&server.url()).await;
    assert_eq!(after.stats("old").await.unwrap().nodes, 61);
    assert_eq!(after.stats("new").await.unwrap().nodes, 61);
}

/// Finding: a write FalkorDB refuses (here: no memory left under `maxmemory`) must not be
/// answered as a success.
#[tokio::test(flavor = "multi_thread")]
async fn a_refused_write_is_an_error_naming_the_cause() {
    let data = tempfile::tempdir().unwrap();
    let opts = ServerOptions { data_dir: data.path().to_owned(), persist: true, port: None };
    let server = PrivateServer::start(&opts).unwrap();
    let provex = Arc::new(open(&server.url()).await);
    let mut admin = raw(&server.admin_url().unwrap()).await;
    let _: () =
        redis::cmd("CONFIG").arg("SET").arg("maxmemory").arg("1").query_async(&mut admin).await.unwrap();

    let e = ingest_file(&provex, "full", &example()).await.unwrap_err();
    assert!(matches!(e, Error::NotStored(_)), "{e:?}");
    assert!(e.to_string().starts_with("FalkorDB is out of memory (OOM"), "{e}");
    assert_eq!(e.code().to_string(), "not_stored");

    // Over HTTP: the `{code, message}` of the cause, not a 200.
    let (running, base) = crate::serve::serve_on(provex.clone(), None).await;
    let answer = crate::serve::client()
        .post(format!("{base}/api/graphs/full2/events"))
        .header("content-type", "application/x-ndjson")
        .body(example())
        .send()
        .await
        .unwrap();
    let status = answer.status().as_u16();
    let body: serde_json::Value = answer.json().await.unwrap();
    assert_eq!(status, 507, "{body}");
    assert_eq!(body["code"], "not_stored", "{body}");
    assert!(body["message"].as_str().unwrap().contains("out of memory"), "{body}");
    running.stop().await;

    let _: () =
        redis::cmd("CONFIG").arg("SET").arg("maxmemory").arg("0").query_async(&mut admin).await.unwrap();
    assert_eq!(
        ingest_file(&provex, "full", &example()).await.unwrap(),
        61,
        "writes again once there is room"
    );
}

/// A server without an append-only file (the tests' own, or a shared one with `appendonly
/// no` and no replicas) is written to as before; the store says it is not durable.
#[tokio::test(flavor = "multi_thread")]
async fn a_server_without_an_append_only_file_still_takes_writes() {
    let store = Store::connect(common::url()).await.unwrap();
    assert_eq!(store.durability(), Durability::Unknown);
    let (provex, graph) = common::open("no_aof").await;
    assert_eq!(ingest_file(&provex, &graph, &example()).await.unwrap(), 61);
    assert_eq!(provex.durability(), Durability::None);
}
