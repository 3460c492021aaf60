//! Records pushed live (issue 12 §2): `POST /api/graphs/{graph}/events` with a chunked NDJSON
//! body grows an open view while the body is still being written, survives a client that
//! goes away mid-body (every whole line it sent is kept), and loses nothing when the sender
//! outruns the database; `provex ingest -` reads standard input as it grows.

use std::io::Write;
use std::time::{Duration, Instant};

use provex::api::StreamMessage;
use provex::facade::Provex;

use crate::common;
use crate::raw_http::Raw;
use crate::serve::{start, Events};

fn booted(i: usize) -> String {
    format!(
        r#"{{"Global":{{"id":"e{i}","context_id":"c","timestamp_ms":{i},"data":{{"AgentBooted":{{"agent_id":"agent-{i}","agent_type":"clerk","agent_version":"1","archive_path":"p"}}}}}}}}"#
    )
}

/// Ends a pushed body and reads its report.
fn report(push: Raw) -> serde_json::Value {
    let answer = push.finish();
    assert_eq!(answer.status, 200, "{}\n{}", answer.head, answer.body);
    answer.json()
}

/// The node count of `lines` ingested as a file into a graph of their own.
async fn reference_nodes(provex: &Provex, graph: &str, lines: &[String]) -> u64 {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("ref.jsonl");
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    let g = format!("{graph}_ref");
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let opts = provex::ingest::IngestOptions::default();
    provex.ingest(&g, &[file], opts, stop, std::sync::Arc::new(provex::facade::Quiet)).await.unwrap();
    let n = provex.stats(&g).await.unwrap().nodes;
    provex.delete_graph(&g).await.unwrap();
    n
}

async fn until_nodes(provex: &Provex, graph: &str, at_least: u64) -> u64 {
    let start = Instant::now();
    loop {
        if let Ok(s) = provex.stats(graph).await {
            if s.nodes >= at_least {
                return s.nodes;
            }
        }
        assert!(start.elapsed() < Duration::from_secs(30), "{graph} never reached {at_least} nodes");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pushed_body_grows_an_open_view_while_it_is_written() {
    let (provex, graph, _running, base) = start("events_live", None).await;
    let lines = common::example_lines();
    let mut push = tokio::task::block_in_place(|| {
        let mut p = Raw::events(&base, &graph);
        p.chunk(&(lines[..5].join("\n") + "\n"));
        p
    });
    until_nodes(&provex, &graph, 1).await;
    let mut view = Events::open(&format!("{base}/api/graphs/{graph}/stream?since=0")).await;
    while view.next_within(Duration::from_millis(300)).await.is_some() {}
    // Each further line shows up on the open view before the body ends.
    let mut seen_live = 0;
    for line in &lines[5..] {
        tokio::task::block_in_place(|| push.chunk(&format!("{line}\n")));
        if let Some(StreamMessage::Batch { nodes, edges, .. }) =
            view.next_within(Duration::from_secs(5)).await
        {
            if !nodes.is_empty() || !edges.is_empty() {
                seen_live += 1;
            }
        }
    }
    assert!(seen_live >= 10, "only {seen_live} lines reached the open view while the body was written");
    let report = tokio::task::block_in_place(|| report(push));
    assert_eq!(
        (report["events"].as_u64(), report["rejected"].as_u64()),
        (Some(lines.len() as u64), Some(0)),
        "{report}"
    );
    // The same graph as the file ingested.
    let other = format!("{graph}_file");
    let opts = provex::ingest::IngestOptions::default();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    provex
        .ingest(
            &other,
            &[common::repo().join("examples/a2a-run.jsonl")],
            opts,
            stop,
            std::sync::Arc::new(provex::facade::Quiet),
        )
        .await
        .unwrap();
    assert_eq!(common::graph_text(&provex, &graph).await, common::graph_text(&provex, &other).await);
    provex.delete_graph(&other).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_gone_mid_body_keeps_its_whole_lines() {
    let (provex, graph, _running, base) = start("events_gone", None).await;
    tokio::task::block_in_place(|| {
        let mut p = Raw::events(&base, &graph);
        let body: String = (0..40).map(|i| booted(i) + "\n").collect();
        p.chunk(&body);
        p.chunk(&booted(40)[..30]);
        drop(p); // the connection closes mid-line
    });
    let want = reference_nodes(&provex, &graph, &(0..40).map(booted).collect::<Vec<_>>()).await;
    until_nodes(&provex, &graph, want).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        provex.stats(&graph).await.unwrap().nodes,
        want,
        "every whole line, and nothing of the cut one"
    );
    let health = crate::serve::client().get(format!("{base}/api/health")).send().await.unwrap();
    assert!(health.status().is_success(), "the server still answers");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nothing_is_lost_when_the_sender_outruns_the_database() {
    let (provex, graph, _running, base) = start("events_fast", None).await;
    const N: usize = 20_000;
    let report = tokio::task::block_in_place(|| {
        let mut p = Raw::events(&base, &graph);
        // As fast as the socket takes it, in chunks that cut lines anywhere.
        let body: String = (0..N).map(|i| booted(i) + "\n").collect();
        for piece in body.as_bytes().chunks(7_919) {
            p.chunk(
                std::str::from_utf8(piece)
                    .unwrap_or_else(|e| std::str::from_utf8(&piece[..e.valid_up_to()]).unwrap()),
            );
        }
        report(p)
    });
    assert_eq!(
        (report["events"].as_u64(), report["rejected"].as_u64()),
        (Some(N as u64), Some(0)),
        "{report}"
    );
    let want = reference_nodes(&provex, &graph, &(0..N).map(booted).collect::<Vec<_>>()).await;
    assert_eq!(provex.stats(&graph).await.unwrap().nodes, want);
}

/// `provex ingest -`: lines piped in are in the graph before the pipe closes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ingest_dash_reads_standard_input_as_it_grows() {
    let (provex, graph) = common::open("events_stdin").await;
    let dir = tempfile::tempdir().unwrap();
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("provex"))
        .args(["--falkordb", common::url(), "ingest", "-", "--graph", &graph, "--rejects"])
        .arg(dir.path().join("rejects.jsonl"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let lines = common::example_lines();
    writeln!(stdin, "{}", lines[..10].join("\n")).unwrap();
    stdin.flush().unwrap();
    let nodes = until_nodes(&provex, &graph, 5).await;
    assert!(nodes > 0);
    writeln!(stdin, "{{\"Global\": broken").unwrap();
    writeln!(stdin, "{}", lines[10..].join("\n")).unwrap();
    drop(stdin);
    let out = tokio::task::block_in_place(|| child.wait_with_output().unwrap());
    let text = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "exit 1: a line was rejected\n{text}");
    assert!(text.contains("stdin:11:"), "the bad line named by its number: {text}");
    assert!(text.contains(&format!("{} events ingested", lines.len())), "{text}");
    let rejected = std::fs::read_to_string(dir.path().join("rejects.jsonl")).unwrap();
    assert!(rejected.contains("\"line\":11"), "{rejected}");
    provex.delete_graph(&graph).await.unwrap();
}
