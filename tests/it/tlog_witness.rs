//! Witnesses of a graph's log against a real FalkorDB: one `provex serve --witness-log KEY`
//! process witnesses the log of another instance, driven by its command line (`provex log
//! witness`). The witness cosigns each checkpoint that extends what it last cosigned, and
//! refuses, with `{code, message}`, a rewritten history (another root at a size it cosigned, a
//! smaller log, a larger log that does not extend it), a checkpoint signed by another key
//! under the log's name, and a request without its token; the log's side refuses an answer
//! cosigned by a key other than the pinned one. `verify BUNDLE --witness` checks the
//! cosignature offline.

use std::io::BufRead as _;
use std::path::Path;

use assert_cmd::Command;
use provex::sources::statements::keys::KeyFile;
use provex::tlog::checkpoint::InstanceKey;
use provex::tlog::witness::{AddCheckpoint, ADD_CHECKPOINT_PATH};
use serde_json::Value;

use crate::common;

const TOKEN: &str = "witness-test-token-0123456789abcdef";

/// The command line of the instance whose data folder is `data`, named `instance`.
fn cli(data: &Path, instance: &str) -> Command {
    let mut c = Command::cargo_bin("provex").unwrap();
    c.arg("--falkordb").arg(common::url()).env("PROVEX_DATA_DIR", data).env("PROVEX_INSTANCE", instance);
    c.env_remove("PROVEX_WITNESS_TOKEN");
    c
}

/// Runs a command; exit code, standard output and error.
fn run(c: &mut Command) -> (i32, String, String) {
    let out = c.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn ok(c: &mut Command) -> String {
    let (code, out, err) = run(c);
    assert_eq!(code, 0, "{out}{err}");
    out
}

/// A `provex serve` process, stopped when dropped (also when a check fails).
struct Server(std::process::Child);

impl Drop for Server {
    fn drop(&mut self) {
        // SAFETY: a signal to the child this test started.
        unsafe { libc::kill(self.0.id() as i32, libc::SIGTERM) };
        let _ = self.0.wait();
    }
}

/// `provex serve` as a witness of the log of `log_key`, in its own process; the server and
/// its base address.
fn witness_server(data: &Path, log_key: &str) -> (Server, String) {
    let mut child = Server(
        std::process::Command::new(assert_cmd::cargo::cargo_bin("provex"))
            .args(["--falkordb", common::url()])
            .args(["serve", "--bind", "127.0.0.1:0", "--token", TOKEN, "--witness-log", log_key, "--ui"])
            .arg(data.join("no-ui"))
            .env("PROVEX_DATA_DIR", data)
            .env("PROVEX_INSTANCE", "w1")
            .stderr(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap(),
    );
    let mut err = std::io::BufReader::new(child.0.stderr.take().unwrap());
    let url = loop {
        let mut line = String::new();
        assert!(err.read_line(&mut line).unwrap() > 0, "serve ended before listening");
        if let Some(rest) = line.split("serving on ").nth(1) {
            break rest.split_whitespace().next().unwrap().to_owned();
        }
    };
    std::thread::spawn(move || std::io::copy(&mut err, &mut std::io::sink()));
    let host = url.split("://").nth(1).unwrap().split('/').next().unwrap();
    (child, format!("http://{host}"))
}

/// `provex log witness` as JSON, or its exit code and error.
fn witness(data: &Path, instance: &str, graph: &str, url: &str, wkey: &str) -> Result<Value, (i32, String)> {
    let (code, out, err) = run(cli(data, instance)
        .args(["log", "witness", url, "-g", graph, "--witness-key", wkey, "--json"])
        .env("PROVEX_WITNESS_TOKEN", TOKEN));
    if code == 0 {
        Ok(serde_json::from_str(&out).unwrap())
    } else {
        Err((code, err))
    }
}

fn ingest(data: &Path, instance: &str, graph: &str, files: &[std::path::PathBuf]) {
    ok(cli(data, instance).args(["ingest", "--graph", graph]).args(files));
}

/// Forgets a graph's log in FalkorDB, as whoever rewrites its history would.
fn forget_log(graph: &str) {
    let client = redis::Client::open(common::admin_url()).unwrap();
    let mut con = client.get_connection().unwrap();
    let _: () = redis::cmd("DEL")
        .arg(format!("provex:log:{graph}"))
        .arg(format!("provex:log:{graph}:checkpoint"))
        .query(&mut con)
        .unwrap();
}

/// Sends an `add-checkpoint` body straight to the witness: status, content type, body.
async fn post(url: &str, body: Vec<u8>, accept: &str, token: Option<&str>) -> (u16, String, String) {
    // What a web form cannot send, so that the origin rule lets a request without a token by.
    let mut r = reqwest::Client::new()
        .post(format!("{url}{ADD_CHECKPOINT_PATH}"))
        .header("content-type", "application/octet-stream")
        .header("accept", accept)
        .body(body);
    if let Some(t) = token {
        r = r.bearer_auth(t);
    }
    let res = r.send().await.unwrap();
    let status = res.status().as_u16();
    let ct = res.headers().get("content-type").map(|v| v.to_str().unwrap().to_owned()).unwrap_or_default();
    (status, ct, res.text().await.unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_witness_cosigns_what_extends_its_view_and_refuses_a_rewritten_history() {
    let pid = std::process::id();
    let graph = format!("t_witness_{pid}");
    let instance = format!("log-{pid}");
    let (log_dir, witness_dir, other_dir) =
        (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let council = tempfile::tempdir().unwrap();
    let files: Vec<_> = provex::facade::write_council_files(council.path())
        .unwrap()
        .into_iter()
        .filter(|f| f.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    let a2a = common::repo().join("examples/a2a-run.jsonl");

    ingest(log_dir.path(), &instance, &graph, &files[..1]);
    let log_key = ok(cli(log_dir.path(), &instance).args(["log", "key"])).trim().to_owned();
    let wkey = ok(cli(witness_dir.path(), "w1").args(["log", "key", "--witness"])).trim().to_owned();
    assert!(wkey.starts_with("provex-witness/w1+"), "{wkey}");
    let (server, url) = witness_server(witness_dir.path(), &log_key);

    // First sight: cosigned from nothing.
    let first = witness(log_dir.path(), &instance, &graph, &url, &wkey).expect("first cosignature");
    let size1 = first["size"].as_u64().unwrap();
    assert_eq!(first["old"], 0);
    assert!(size1 > 0);
    let cp1 = first["checkpoint"].as_str().unwrap().to_owned();
    assert_eq!(cp1.lines().filter(|l| l.starts_with("— provex-witness/w1 ")).count(), 1, "{cp1}");
    // The kept checkpoint carries the cosignature: `log checkpoint` gives it back.
    let kept = ok(cli(log_dir.path(), &instance).args(["log", "checkpoint", "-g", &graph]));
    assert_eq!(kept, cp1);
    let cp1_file = log_dir.path().join("cp1");
    std::fs::write(&cp1_file, &cp1).unwrap();
    ok(Command::cargo_bin("provex").unwrap().args(["log", "verify"]).arg(&cp1_file).args([
        "--key",
        &log_key,
        "--witness",
        &wkey,
    ]));

    // The log grows: the witness gets the proof from the size it cosigned.
    ingest(log_dir.path(), &instance, &graph, &files[1..]);
    let second = witness(log_dir.path(), &instance, &graph, &url, &wkey).expect("second cosignature");
    let size2 = second["size"].as_u64().unwrap();
    assert_eq!(second["old"], size1);
    assert!(size2 > size1);

    // A bundle made now carries the cosigned checkpoint; verify --witness checks it offline.
    let signer = KeyFile::from_seed("exporter-1", "urn:agent:auditor", [9; 32]);
    let signer_file = log_dir.path().join("exporter.key");
    std::fs::write(&signer_file, signer.to_json()).unwrap();
    let bundle_file = log_dir.path().join("b.jsonld");
    ok(cli(log_dir.path(), &instance)
        .args(["bundle", "--graph", &graph, "--all", "--out"])
        .arg(&bundle_file)
        .arg("--sign")
        .arg(&signer_file));
    let offline = || {
        let mut c = Command::cargo_bin("provex").unwrap();
        c.env("PROVEX_FALKORDB_URL", "redis://127.0.0.1:1");
        c
    };
    let out = ok(offline().arg("verify").arg(&bundle_file).args(["--witness", &wkey]));
    assert!(out.contains("witness      provex-witness/w1 cosigned the checkpoint"), "{out}");
    // Key pinning: another witness's key finds no cosignature of its own.
    let stranger = ok(cli(other_dir.path(), "w2").args(["log", "key", "--witness"])).trim().to_owned();
    let (code, out, _) = run(offline().arg("verify").arg(&bundle_file).args(["--witness", &stranger]));
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("no cosignature by witness provex-witness/w2"), "{out}");
    // ... and the log's side refuses a witness answering with a key other than the pinned.
    let (code, err) = witness(log_dir.path(), &instance, &graph, &url, &stranger).unwrap_err();
    assert_ne!(code, 0);
    assert!(err.contains("without a valid cosignature of the pinned key"), "{err}");

    // Another key under the same name: the witness pins the log's key.
    let impostor = tempfile::tempdir().unwrap();
    let fake = format!("{graph}_x");
    ingest(impostor.path(), &instance, &fake, std::slice::from_ref(&a2a));
    let (code, err) = witness(impostor.path(), &instance, &fake, &url, &wkey).unwrap_err();
    assert_ne!(code, 0);
    assert!(err.contains("is not signed by the key this witness pins"), "{err}");

    // Without the token: 401 as {code, message}.
    let sign_key = {
        let file = KeyFile::from_json(&std::fs::read_to_string(log_dir.path().join("log-key.json")).unwrap())
            .unwrap();
        InstanceKey::from_parts(&file.agent, file.signing_key().unwrap()).unwrap()
    };
    let forged = |size: u64, root: u8| sign_key.sign(&graph, size, provex::tlog::Hash([root; 32])).unwrap();
    let fork = AddCheckpoint { old: size2, proof: vec![], checkpoint: forged(size2, 7) }.to_bytes();
    let (status, _, body) = post(&url, fork.clone(), "application/json", None).await;
    assert_eq!(status, 401, "{body}");
    assert_eq!(serde_json::from_str::<Value>(&body).unwrap()["code"], "unauthorized");

    // A page on another origin, even with the token; a body over the limit.
    let res = reqwest::Client::new()
        .post(format!("{url}{ADD_CHECKPOINT_PATH}"))
        .header("origin", "http://elsewhere.example")
        .header("sec-fetch-site", "cross-site")
        .bearer_auth(TOKEN)
        .body(fork.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(res.status().as_u16(), 403);
    assert_eq!(res.json::<Value>().await.unwrap()["code"], "forbidden_origin");
    let huge = [b"old 0\n\n".to_vec(), vec![b'x'; 200 * 1024]].concat();
    let (status, _, body) = post(&url, huge, "application/json", Some(TOKEN)).await;
    assert_eq!(status, 413, "{body}");
    assert_eq!(serde_json::from_str::<Value>(&body).unwrap()["code"], "payload_too_large");

    // A fork: the log's key signs another root for the size the witness cosigned.
    let (status, ct, body) = post(&url, fork, "application/json", Some(TOKEN)).await;
    assert_eq!((status, ct.as_str()), (409, "application/json"), "{body}");
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["code"], "log_conflict");
    assert!(v["message"].as_str().unwrap().contains("two histories"), "{body}");
    // A smaller log: the witness names the size it cosigned, in C2SP's form when asked.
    let smaller = AddCheckpoint { old: 1, proof: vec![], checkpoint: forged(1, 7) }.to_bytes();
    let (status, _, body) = post(&url, smaller.clone(), "application/json", Some(TOKEN)).await;
    assert_eq!(status, 409);
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!((v["code"].as_str(), v["size"].as_u64()), (Some("log_conflict"), Some(size2)), "{body}");
    let (status, ct, body) = post(&url, smaller, "text/x.tlog.size", Some(TOKEN)).await;
    assert_eq!((status, ct.as_str(), body), (409, "text/x.tlog.size", format!("{size2}\n")));
    // Not a request at all.
    let (status, _, body) = post(&url, b"old x\n\n".to_vec(), "application/json", Some(TOKEN)).await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(serde_json::from_str::<Value>(&body).unwrap()["code"], "bad_request");

    // The history rewritten: the log forgotten and rebuilt smaller...
    forget_log(&graph);
    ingest(log_dir.path(), &instance, &graph, &files[..1]);
    let (code, err) = witness(log_dir.path(), &instance, &graph, &url, &wkey).unwrap_err();
    assert_ne!(code, 0);
    assert!(err.contains(&format!("has cosigned {size2} leaves")) && err.contains("rewritten"), "{err}");
    // ... then larger than what the witness saw, but not extending it.
    while cli(log_dir.path(), &instance)
        .args(["log", "checkpoint", "-g", &graph])
        .output()
        .unwrap()
        .stdout
        .split(|b| *b == b'\n')
        .nth(1)
        .and_then(|l| std::str::from_utf8(l).ok()?.parse::<u64>().ok())
        .unwrap_or(0)
        <= size2
    {
        ingest(log_dir.path(), &instance, &graph, &files);
    }
    let (code, err) = witness(log_dir.path(), &instance, &graph, &url, &wkey).unwrap_err();
    assert_ne!(code, 0);
    assert!(err.contains(&format!("does not extend the {size2} leaves this witness cosigned")), "{err}");

    // What the witness keeps outlives it: started again, it still refuses.
    drop(server);
    let (_server, url) = witness_server(witness_dir.path(), &log_key);
    let (_, err) = witness(log_dir.path(), &instance, &graph, &url, &wkey).unwrap_err();
    assert!(err.contains("does not extend"), "{err}");
}
