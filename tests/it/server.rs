//! The private server: one per data folder. A second Provex on the same folder uses the
//! running server instead of starting another that would overwrite the first one's data.

use provex::facade::{ConnectOptions, Provex};
use provex::store::server::{PrivateServer, ServerOptions};

#[tokio::test(flavor = "multi_thread")]
async fn a_second_provex_on_the_same_data_uses_the_running_server() {
    let data = tempfile::tempdir().unwrap();
    let opts = ServerOptions { data_dir: data.path().to_owned(), persist: true, port: None };
    let owner = PrivateServer::start(&opts).unwrap();
    assert!(owner.owned());
    let second = PrivateServer::start(&opts).unwrap();
    assert!(!second.owned(), "no second server on the same data");
    assert_eq!(second.port(), owner.port());

    // Both see the same graphs; the second one leaving does not stop the server.
    let a = Provex::open(ConnectOptions { url: Some(owner.url()), server: None }).await.unwrap();
    a.query("shared", "RETURN 1").await.ok();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("e.jsonl");
    std::fs::write(
        &file,
        std::fs::read_to_string(crate::common::repo().join("examples/a2a-run.jsonl")).unwrap(),
    )
    .unwrap();
    a.ingest(
        "shared",
        &[file],
        Default::default(),
        std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false)),
        std::sync::Arc::new(provex::facade::Quiet),
    )
    .await
    .unwrap();
    drop(second);
    let b = Provex::open(ConnectOptions { url: Some(owner.url()), server: None }).await.unwrap();
    assert_eq!(b.stats("shared").await.unwrap().nodes, 61);

    // When the owner stops (saving), the next one owns the folder and finds the data.
    drop(owner);
    let next = PrivateServer::start(&opts).unwrap();
    assert!(next.owned());
    let c = Provex::open(ConnectOptions { url: Some(next.url()), server: None }).await.unwrap();
    assert_eq!(c.stats("shared").await.unwrap().nodes, 61, "the data survived the restart");
}
