//! Issue 11 §3.5: on a non-loopback bind, `follow` and `upload` read and write only inside
//! the data folder and the folders given with `--allow-dir` (symlinks and `..` resolved).
//! Through the facade, and through `provex serve` bound to a non-loopback address.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use provex::error::Error;
use provex::serve::{self, ServeOptions};
use serde_json::{json, Value};

use crate::common;

fn refusal(what: &str, path: &Path, allowed: &[&Path]) -> String {
    let list: Vec<String> = allowed.iter().map(|p| p.canonicalize().unwrap().display().to_string()).collect();
    format!(
        "{what} {} is not inside the folders this server may use ({}); \
         a server on a non-loopback address reads and writes only in its data folder \
         and the folders given with `provex serve --allow-dir`",
        path.display(),
        list.join(", ")
    )
}

/// A temp folder with `allowed/in.jsonl`, `outside/out.jsonl`, and in `allowed` a symlink to
/// the outside file and one to the outside folder.
struct Tree {
    _dir: tempfile::TempDir,
    allowed: PathBuf,
    outside: PathBuf,
}

fn tree() -> Tree {
    let dir = tempfile::tempdir().unwrap();
    let allowed = dir.path().join("allowed");
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(&allowed).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(allowed.join("in.jsonl"), "").unwrap();
    std::fs::write(outside.join("out.jsonl"), "").unwrap();
    std::os::unix::fs::symlink(outside.join("out.jsonl"), allowed.join("link.jsonl")).unwrap();
    std::os::unix::fs::symlink(&outside, allowed.join("linkdir")).unwrap();
    Tree { _dir: dir, allowed, outside }
}

#[tokio::test(flavor = "multi_thread")]
async fn follow_is_limited_to_the_allowed_folders() {
    let (provex, graph) = common::open("paths_follow").await;
    let provex = Arc::new(provex);
    let t = tree();
    // Unlimited by default (loopback): a file anywhere may be followed.
    assert_eq!(provex.allowed_paths(), None);
    let job = provex.start_follow(&graph, t.outside.join("out.jsonl"), None).unwrap();
    provex.stop_job(&job.id).unwrap();

    provex.restrict_paths(vec![t.allowed.clone()]).unwrap();
    // A shared server has no data folder: only the allowed folder is listed.
    assert_eq!(provex.allowed_paths(), Some(vec![t.allowed.canonicalize().unwrap()]));
    for bad in [
        t.outside.join("out.jsonl"),
        t.allowed.join("../outside/out.jsonl"),
        t.allowed.join("link.jsonl"),
        t.allowed.join("linkdir/out.jsonl"),
        t.allowed.join("missing.jsonl"),
        PathBuf::from("/etc/passwd"),
    ] {
        match provex.start_follow(&graph, bad.clone(), None) {
            Err(Error::ForbiddenPath(msg)) => {
                assert_eq!(msg, refusal("the file to follow", &bad, &[&t.allowed]))
            }
            other => panic!("{bad:?}: {other:?}"),
        }
    }
    let job = provex.start_follow(&graph, t.allowed.join("in.jsonl"), None).unwrap();
    assert_eq!(
        job.detail.as_deref(),
        Some(format!("following {}", t.allowed.canonicalize().unwrap().join("in.jsonl").display()).as_str())
    );
    provex.stop_job(&job.id).unwrap();
    provex.stop_all_jobs();
    let _ = provex.delete_graph(&graph).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn uploads_are_written_only_inside_the_allowed_folders() {
    let (provex, _graph) = common::open("paths_upload").await;
    let t = tree();
    let uploads = provex.uploads_dir();
    provex.restrict_paths(vec![t.allowed.clone()]).unwrap();
    match provex.new_upload_path("run.jsonl") {
        Err(Error::ForbiddenPath(msg)) => {
            assert_eq!(msg, refusal("the uploads folder", &uploads, &[&t.allowed]))
        }
        other => panic!("{other:?}"),
    }
    // Allowing the uploads folder lets uploads through, into that folder.
    std::fs::create_dir_all(&uploads).unwrap();
    provex.restrict_paths(vec![t.allowed.clone(), uploads.clone()]).unwrap();
    let path = provex.new_upload_path("../x/run.jsonl").unwrap();
    assert_eq!(path.parent().unwrap(), uploads.canonicalize().unwrap());
    assert!(path.file_name().unwrap().to_str().unwrap().ends_with("-run.jsonl"), "{path:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn allowed_folders_must_exist() {
    let (provex, _graph) = common::open("paths_missing").await;
    let e = provex.restrict_paths(vec![PathBuf::from("/no/such/provex/folder")]).unwrap_err();
    assert!(matches!(e, Error::Io { .. }), "{e:?}");
    assert_eq!(provex.allowed_paths(), None);
}

const TOKEN: &str = "0123456789abcdef-paths";

async fn post(url: &str, body: Value) -> (u16, Value) {
    let r = reqwest::Client::builder()
        .timeout(Duration::from_secs(60))
        .build()
        .unwrap()
        .post(url)
        .bearer_auth(TOKEN)
        .json(&body)
        .send()
        .await
        .unwrap();
    (r.status().as_u16(), r.json().await.unwrap())
}

/// `provex serve` on a non-loopback address limits follow to `--allow-dir`; on loopback the
/// same request is allowed.
#[tokio::test(flavor = "multi_thread")]
async fn serve_on_a_non_loopback_address_limits_follow() {
    let t = tree();
    for (bind, limited) in [("0.0.0.0:0", true), ("127.0.0.1:0", false)] {
        let (provex, graph) = common::open(if limited { "paths_serve_any" } else { "paths_serve_lo" }).await;
        let provex = Arc::new(provex);
        let opts = ServeOptions {
            bind: bind.parse().unwrap(),
            token: Some(TOKEN.to_owned()),
            token_dir: None,
            ui: Some(std::env::temp_dir().join("provex-no-ui-here")),
            open: false,
            allow_dirs: vec![t.allowed.clone()],
            limits: Default::default(),
        };
        let running = serve::start(provex.clone(), opts).await.expect("serve");
        let base = format!("http://127.0.0.1:{}/api/graphs/{graph}/follow", running.addr.port());
        let outside = t.allowed.join("../outside/out.jsonl");
        let (status, body) = post(&base, json!({ "path": outside })).await;
        if limited {
            assert_eq!(status, 403, "{body}");
            assert_eq!(body["code"], "forbidden_path");
            assert_eq!(body["message"], refusal("the file to follow", &outside, &[&t.allowed]));
        } else {
            assert_eq!(status, 200, "{body}");
            assert_eq!(body["state"], "running");
        }
        let (status, body) = post(&base, json!({ "path": t.allowed.join("in.jsonl") })).await;
        assert_eq!(status, 200, "{body}");
        provex.stop_all_jobs();
        running.stop().await;
        let _ = provex.delete_graph(&graph).await;
    }
}
