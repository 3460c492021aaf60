//! Prompt lineage (issue 13) against FalkorDB: the example week lands with the agent's
//! versions, edges and heads as formats.md §4 stores them; LineageInput records are tracked
//! as the agent would; bad records are rejected with the seed's codes at their lines while
//! the good ones around them land; re-ingest changes nothing; the confidence takes its
//! semantic part from an embeddings endpoint (a local stand-in) and says when it cannot.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use provex::facade::{Provex, Quiet};
use provex::ingest::{Format, IngestOptions};
use provex::sources::lineage::embeddings::EmbeddingsConfig;
use uuid::Uuid;

use crate::common;

fn uid(name: &str) -> Uuid {
    Uuid::new_v5(&Uuid::NAMESPACE_DNS, format!("council-digest/{name}").as_bytes())
}

fn example() -> PathBuf {
    common::repo().join("examples/lineage/summarise-prompt.jsonl")
}

async fn ingest(provex: &Provex, graph: &str, file: &Path, rejects: &Path) -> provex::facade::IngestReport {
    let opts =
        IngestOptions { format: Format::Auto, rejects: Some(rejects.to_owned()), ..Default::default() };
    provex
        .ingest(graph, &[file.to_owned()], opts, Arc::new(AtomicBool::new(false)), Arc::new(Quiet))
        .await
        .unwrap()
}

async fn rows(provex: &Provex, graph: &str, q: &str) -> Vec<Vec<String>> {
    let t = provex.query(graph, q).await.unwrap();
    t.rows
        .iter()
        .map(|r| r.iter().map(|v| v.as_str().map(str::to_owned).unwrap_or_else(|| v.to_string())).collect())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_example_week_lands_as_the_agent_tracked_it() {
    let (provex, graph) = common::open("lineage_week").await;
    let dir = tempfile::tempdir().unwrap();
    let report = ingest(&provex, &graph, &example(), &dir.path().join("r.jsonl")).await;
    assert_eq!(report.files[0].format, "lineage", "recognised by auto");
    assert_eq!((report.events, report.rejected), (20, 0), "{report:?}");

    // Versions and positions as the agent numbered them, and the two prompts Provex tracked.
    let text = std::fs::read_to_string(example()).unwrap();
    let input = text
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|v| v.get("parent_prompt_id").is_some())
        .unwrap();
    let derived = provex::sources::lineage::prompt_id(
        &uid("session").to_string(),
        "2026-11-08T15:30:00Z",
        input["prompt_content"].as_str().unwrap(),
    );
    let versions = rows(
        &provex,
        &graph,
        "MATCH (p:Prompt) RETURN p.name, p.version, p.chain_position, p.is_head, p.`prov:base_type` ORDER BY p.name",
    )
    .await;
    let get = |id: Uuid| {
        versions
            .iter()
            .find(|r| r[0] == format!("prompt:{id}"))
            .unwrap_or_else(|| panic!("{id} in {versions:?}"))
            .clone()
    };
    assert_eq!(versions.len(), 11, "{versions:?}");
    assert!(versions.iter().all(|r| r[4] == "ProvEntity"));
    assert_eq!(get(uid("v1"))[1..4], ["1.0.0", "1", "false"]);
    assert_eq!(get(uid("fork"))[1..3], ["1.1.0", "4"]);
    assert_eq!(get(uid("merged"))[1..3], ["2.0.0", "5"]);
    assert_eq!(get(uid("reverted"))[1..4], ["2.0.2", "7", "false"], "it has a child now");
    assert_eq!(get(derived)[1..4], ["2.1.0", "8", "true"], "derives bumps the minor version");
    let heads: Vec<&Vec<String>> = versions.iter().filter(|r| r[3] == "true").collect();
    assert_eq!(heads.len(), 2, "the derived prompt and the planning root: {heads:?}");

    // Edges child → parent, typed by evolution, PROV WAS_DERIVED_FROM.
    let edges = rows(
        &provex,
        &graph,
        "MATCH (c:Prompt)-[e]->(p:Prompt) RETURN type(e), e.`prov:base_type`, count(e) ORDER BY type(e)",
    )
    .await;
    let expect = [
        ("WAS_DERIVED_FROM", 1),
        ("WAS_EVOLVED_FROM", 1),
        ("WAS_FORKED_FROM", 1),
        ("WAS_MERGED_FROM", 2),
        ("WAS_REFINED_FROM", 4),
        ("WAS_REVERTED_FROM", 1),
    ];
    assert_eq!(edges.len(), expect.len(), "{edges:?}");
    for (row, (t, n)) in edges.iter().zip(expect) {
        assert_eq!(
            (row[0].as_str(), row[1].as_str(), row[2].as_str()),
            (t, "WAS_DERIVED_FROM", n.to_string().as_str())
        );
    }
    let merge = rows(
        &provex,
        &graph,
        &format!(
            "MATCH (c:Prompt {{name: 'prompt:{}'}})-[e:WAS_MERGED_FROM]->(p) RETURN p.name ORDER BY p.name",
            uid("merged")
        ),
    )
    .await;
    let mut parents = vec![format!("prompt:{}", uid("v4")), format!("prompt:{}", uid("fork2"))];
    parents.sort();
    assert_eq!(merge.iter().map(|r| r[0].clone()).collect::<Vec<_>>(), parents, "both parents of the merge");
    let gen = rows(
        &provex,
        &graph,
        "MATCH (p:Prompt)-[:WAS_GENERATED_BY]->(d:LineageDecision) RETURN count(d), min(d.`prov:base_type`)",
    )
    .await;
    assert_eq!(gen[0], ["9", "ProvActivity"]);

    // The derived prompt's confidence is the renormalised formula on the two texts, and says so.
    let e = rows(
        &provex,
        &graph,
        &format!(
            "MATCH (c:Prompt {{name: 'prompt:{derived}'}})-[e]->(p:Prompt) RETURN e.`lineage:confidence`, e.`lineage:jaccard`, e.`lineage:edit_ratio`, e.`lineage:confidence_note`, c.content, p.content"
        ),
    )
    .await;
    let b = provex::sources::lineage::compare(&e[0][5], &e[0][4], None);
    assert!((e[0][0].parse::<f64>().unwrap() - b.confidence).abs() < 1e-9, "{e:?} vs {b:?}");
    assert!((e[0][1].parse::<f64>().unwrap() - b.jaccard).abs() < 1e-9);
    assert!(e[0][3].contains("semantic similarity unavailable"), "{}", e[0][3]);

    // Re-ingesting changes nothing.
    let before = common::graph_text(&provex, &graph).await;
    let props =
        rows(&provex, &graph, "MATCH (p:Prompt) RETURN p.name, p.is_head, p.version ORDER BY p.name").await;
    let again = ingest(&provex, &graph, &example(), &dir.path().join("r2.jsonl")).await;
    assert_eq!(again.rejected, 0);
    assert_eq!(common::graph_text(&provex, &graph).await, before);
    assert_eq!(
        rows(&provex, &graph, "MATCH (p:Prompt) RETURN p.name, p.is_head, p.version ORDER BY p.name").await,
        props
    );
    provex.delete_graph(&graph).await.unwrap();
}

/// A LineageOutput line of the example, changed by `edit`.
fn edited(lines: &[String], name: &str, edit: impl FnOnce(&mut serde_json::Value)) -> String {
    let mut v: serde_json::Value = lines
        .iter()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|v| v["lineage_node"]["id"] == uid(name).to_string())
        .unwrap();
    edit(&mut v);
    v.to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_records_are_rejected_with_the_seed_codes_and_the_rest_lands() {
    let (provex, graph) = common::open("lineage_bad").await;
    let dir = tempfile::tempdir().unwrap();
    let good: Vec<String> = std::fs::read_to_string(example()).unwrap().lines().map(str::to_owned).collect();
    let new_id = Uuid::from_u128(0xabc);
    let mut lines: Vec<String> = Vec::new();
    // The child of v2 arrives before v2 (out of order): it waits, then lands.
    lines.push(good[0].clone()); // 1: v1
    lines.push(good[4].clone()); // 2: v3, whose parent v2 comes at line 4
    lines.push("{\"lineage_node\": ".to_owned()); // 3: malformed JSON
    lines.push(good[2].clone()); // 4: v2
                                 // 5: a second root in the lineage
    lines.push(edited(&good, "v1", |v| v["lineage_node"]["id"] = new_id.to_string().into()));
    // 6: an unknown evolution type
    lines.push(edited(&good, "v2", |v| v["evolution_edge"]["evolution_type"] = "mutates".into()));
    // 7: a parent that never comes
    lines.push(edited(&good, "v4", |v| {
        v["lineage_node"]["id"] = Uuid::from_u128(0xdef).to_string().into();
        v["evolution_edge"]["to"] = Uuid::from_u128(0xdef).to_string().into();
        v["evolution_edge"]["from"] = Uuid::from_u128(0x404).to_string().into();
    }));
    // 8: a child not later than its parent
    lines.push(edited(&good, "v4", |v| {
        v["lineage_node"]["timestamp"] = "2026-11-01T00:00:00Z".into();
        v["lineage_node"]["id"] = Uuid::from_u128(0xe0).to_string().into();
        v["evolution_edge"]["to"] = Uuid::from_u128(0xe0).to_string().into();
    }));
    // 9: a confidence out of bounds; 10: empty content
    lines.push(edited(&good, "v4", |v| v["confidence"] = 1.5.into()));
    lines.push(edited(&good, "v4", |v| v["lineage_node"]["content"] = "  ".into()));
    // 11: v1 evolving from v3 would close a cycle
    lines.push(edited(&good, "v2", |v| {
        v["lineage_node"]["id"] = uid("v1").to_string().into();
        v["lineage_node"]["is_root"] = false.into();
        v["lineage_node"]["timestamp"] = "2026-11-02T09:12:00Z".into();
        v["evolution_edge"]["to"] = uid("v1").to_string().into();
        v["evolution_edge"]["from"] = uid("v3").to_string().into();
    }));
    lines.push(good[10].clone()); // 12: v4 (parent v3)
    let file = dir.path().join("spliced.jsonl");
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    let rejects = dir.path().join("rejects.jsonl");
    let report = ingest(&provex, &graph, &file, &rejects).await;
    let got: Vec<(u64, String)> = common::rejects(&rejects);
    let codes: Vec<(u64, &str)> = got.iter().map(|(n, r)| (*n, r.split(':').next().unwrap())).collect();
    assert_eq!(
        codes,
        [
            (3, "VALIDATION_ERROR"),
            (5, "INVALID_LINEAGE_RELATIONSHIP"),
            (6, "INVALID_LINEAGE_RELATIONSHIP"),
            (8, "VALIDATION_ERROR"),
            (9, "VALIDATION_ERROR"),
            (10, "VALIDATION_ERROR"),
            (11, "INVALID_LINEAGE_RELATIONSHIP"),
            (7, "INVALID_LINEAGE_RELATIONSHIP"),
        ],
        "{got:#?}"
    );
    assert!(got[1].1.contains("already has its root"), "{}", got[1].1);
    assert!(got[6].1.contains("cycle"), "{}", got[6].1);
    assert!(got[7].1.contains("neither in the graph nor in the file"), "{}", got[7].1);
    assert_eq!((report.events, report.rejected), (4, 8));
    // The good records all landed, the bad ones did not.
    let names: Vec<String> = rows(&provex, &graph, "MATCH (p:Prompt) RETURN p.name ORDER BY p.name")
        .await
        .into_iter()
        .map(|r| r[0].clone())
        .collect();
    let mut want: Vec<String> =
        ["v1", "v2", "v3", "v4"].iter().map(|n| format!("prompt:{}", uid(n))).collect();
    want.sort();
    assert_eq!(names, want);
    // `lineage stats` counts the rejections by code, once each however often ingested.
    ingest(&provex, &graph, &file, &rejects).await;
    let stats = provex.lineage_stats(&graph, None).await.unwrap();
    assert_eq!(stats.rejected_by_code.get("VALIDATION_ERROR"), Some(&4));
    assert_eq!(stats.rejected_by_code.get("INVALID_LINEAGE_RELATIONSHIP"), Some(&4));
    assert_eq!(stats.by_evolution_type.get("refines"), Some(&2));
    assert_eq!(stats.heads, 1);
    provex.delete_graph(&graph).await.unwrap();
}

/// A stand-in for an OpenAI-compatible embeddings endpoint: each text's letter counts, or a
/// 500 when `fail` is set.
async fn stand_in(fail: bool) -> String {
    use axum::routing::post;
    let app = axum::Router::new().route(
        "/v1/embeddings",
        post(move |axum::Json(body): axum::Json<serde_json::Value>| async move {
            if fail {
                return (
                    axum::http::StatusCode::INTERNAL_SERVER_ERROR,
                    axum::Json(serde_json::json!({"error": "down"})),
                );
            }
            let texts: Vec<String> = match &body["input"] {
                serde_json::Value::String(s) => vec![s.clone()],
                serde_json::Value::Array(a) => {
                    a.iter().map(|v| v.as_str().unwrap_or("").to_owned()).collect()
                }
                _ => vec![],
            };
            let data: Vec<serde_json::Value> = texts
                .iter()
                .enumerate()
                .map(|(i, t)| {
                    let mut v = vec![0f32; 26];
                    for c in t.to_lowercase().chars().filter(char::is_ascii_lowercase) {
                        v[(c as u8 - b'a') as usize] += 1.0;
                    }
                    serde_json::json!({"object": "embedding", "index": i, "embedding": v})
                })
                .collect();
            (
                axum::http::StatusCode::OK,
                axum::Json(serde_json::json!({"object": "list", "data": data, "model": body["model"]})),
            )
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    url
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_semantic_part_comes_from_the_embeddings_endpoint() {
    let (provex, graph) = common::open("lineage_semantic").await;
    let dir = tempfile::tempdir().unwrap();
    provex.set_embeddings(Some(EmbeddingsConfig {
        url: stand_in(false).await,
        model: "letters".into(),
        key: None,
    }));
    ingest(&provex, &graph, &example(), &dir.path().join("r.jsonl")).await;
    let (a, b) = (uid("v1").to_string(), uid("v2").to_string());
    let c = provex.lineage_compare(&graph, &a, &b, true, true).await.unwrap();
    let s = c.semantic.expect("semantic from the endpoint");
    assert!(s > 0.9 && s <= 1.0, "{c:?}");
    assert!((c.confidence - (0.40 * c.jaccard + 0.35 * s + 0.25 * c.edit_ratio)).abs() < 1e-12);
    assert!(c.note.is_none());
    assert_eq!(
        c.suggested_type.as_deref(),
        Some(provex::facade::suggest_type(&provex::sources::lineage::compare(
            &provex.lineage_prompt(&graph, &a).await.unwrap().content.unwrap(),
            &provex.lineage_prompt(&graph, &b).await.unwrap().content.unwrap(),
            None,
        )))
    );
    let diff = c.diff.unwrap();
    assert!(diff.iter().any(|d| d.op == "insert" && d.text.contains("cite")), "{diff:?}");
    // The tracked input's edge has a semantic part too.
    let e = rows(
        &provex,
        &graph,
        "MATCH (c:Prompt)-[e:WAS_DERIVED_FROM]->(p:Prompt) RETURN e.`lineage:semantic`",
    )
    .await;
    assert!(e[0][0].parse::<f64>().is_ok(), "{e:?}");

    // The endpoint down: the seed's CONFIDENCE_COMPUTATION_ERROR recovery, said.
    provex.set_embeddings(Some(EmbeddingsConfig {
        url: stand_in(true).await,
        model: "letters".into(),
        key: None,
    }));
    let c = provex.lineage_compare(&graph, &a, &b, false, false).await.unwrap();
    assert_eq!(c.semantic, None);
    assert!(c.note.as_deref().unwrap().starts_with("CONFIDENCE_COMPUTATION_ERROR"), "{c:?}");
    assert!((c.confidence - (0.40 * c.jaccard + 0.25 * c.edit_ratio) / 0.65).abs() < 1e-12);
    provex.delete_graph(&graph).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn inspect_retrieve_replay_and_similar_read_the_lineage() {
    let (provex, graph) = common::open("lineage_reads").await;
    let dir = tempfile::tempdir().unwrap();
    provex.set_embeddings(None);
    ingest(&provex, &graph, &example(), &dir.path().join("r.jsonl")).await;
    let id = format!("prompt:{}", uid("reverted"));
    let i = provex.lineage_inspect(&graph, &id).await.unwrap();
    let versions: Vec<&str> = i.history.iter().map(|s| s.prompt.version.as_str()).collect();
    assert_eq!(versions, ["1.0.0", "1.0.1", "1.0.2", "1.0.3", "2.0.0", "2.0.1", "2.0.2"]);
    assert!(i.history[0].evolution.is_none());
    assert_eq!(i.history[6].evolution.as_ref().unwrap().evolution_type, "reverts");

    // Depth 1 either way around the merge: its two parents and its child.
    let g = provex.lineage_retrieve(&graph, &uid("merged").to_string(), 1, 1, false).await.unwrap();
    let mut ids: Vec<String> = g.prompts.iter().map(|p| p.id.clone()).collect();
    ids.sort();
    let mut want: Vec<String> =
        ["merged", "v4", "fork2", "regressed"].iter().map(|n| uid(n).to_string()).collect();
    want.sort();
    assert_eq!(ids, want);
    assert!(g.prompts.iter().all(|p| p.content.is_none()), "no content unless asked");
    assert_eq!(g.evolutions.len(), 3);
    let deep = provex.lineage_retrieve(&graph, &uid("merged").to_string(), 10, 0, true).await.unwrap();
    assert_eq!(deep.prompts.len(), 7, "merged and every ancestor");
    assert!(deep.prompts.iter().all(|p| p.content.is_some()));

    let steps = provex.lineage_replay(&graph, &id).await.unwrap();
    assert_eq!(steps.len(), 10, "the lineage in time order");
    assert!(steps.windows(2).all(|w| w[0].prompt.timestamp <= w[1].prompt.timestamp));
    let merge = steps.iter().find(|s| s.prompt.id == uid("merged").to_string()).unwrap();
    assert_eq!(merge.from.len(), 2);

    // The revert's text is the merge's: it is the most similar prompt to it.
    let hits = provex.lineage_similar(&graph, &uid("merged").to_string(), 0.5, 3).await.unwrap();
    assert_eq!(hits[0].id, uid("reverted").to_string());
    assert!((hits[0].confidence - 1.0).abs() < 1e-12);
    assert!(provex.lineage_inspect(&graph, "not-a-uuid").await.is_err());
    let all = provex.lineages(&graph).await.unwrap();
    assert_eq!(all.len(), 2, "{all:?}");
    let main = all.iter().find(|l| l.prompts == 10).expect("the week's lineage");
    assert_eq!(main.root.as_deref(), Some(uid("v1").to_string().as_str()));
    assert_eq!((main.heads, main.first.as_str()), (1, "2026-11-02T09:12:00+00:00"));
    assert!(main.title.starts_with("You are the clerk's assistant."), "{}", main.title);
    provex.delete_graph(&graph).await.unwrap();
}

/// Seed 002's CLI contract end to end: every command and output format, and errors in
/// `--format json` carrying the seed's codes.
#[test]
fn the_lineage_commands_answer_in_every_format() {
    use assert_cmd::Command;
    let graph = format!("t_lineage_cli_{}", std::process::id());
    let dir = tempfile::tempdir().unwrap();
    let cli = || {
        let mut c = Command::cargo_bin("provex").unwrap();
        c.arg("--falkordb").arg(common::url()).env_remove("PROVEX_EMBEDDINGS_URL");
        c
    };
    let run = |args: &[&str]| {
        let out = cli().args(args).args(["--graph", &graph]).output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let ex = example();
    let (code, out, err) =
        run(&["ingest", ex.to_str().unwrap(), "--rejects", dir.path().join("r").to_str().unwrap()]);
    assert_eq!(code, Some(0), "{out}{err}");
    let (v1, merged, reverted) =
        (uid("v1").to_string(), format!("prompt:{}", uid("merged")), uid("reverted").to_string());

    let (code, out, _) = run(&["lineage", "inspect", &reverted, "--format", "json"]);
    assert_eq!(code, Some(0));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["history"].as_array().unwrap().len(), 7);
    assert_eq!(v["history"][6]["evolution"]["evolution_type"], "reverts");
    for format in ["text", "yaml", "table"] {
        let (code, out, _) = run(&["lineage", "inspect", &reverted, "--format", format]);
        assert_eq!(code, Some(0));
        assert!(out.contains("2.0.2"), "{format}: {out}");
    }

    let file = dir.path().join("sub.yaml");
    let (code, _, err) = run(&[
        "lineage",
        "retrieve",
        &merged,
        "--ancestor-depth",
        "1",
        "--descendant-depth",
        "1",
        "--include-content",
        "--output",
        file.to_str().unwrap(),
        "--format",
        "yaml",
    ]);
    assert_eq!(code, Some(0), "{err}");
    let y: serde_json::Value = serde_norway::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(y["prompts"].as_array().unwrap().len(), 4);
    assert!(y["prompts"][0]["content"].is_string());

    let (code, out, _) = run(&["lineage", "replay", &v1, "--verbose", "--show-confidence-computation"]);
    assert_eq!(code, Some(0));
    assert!(
        out.contains("step 10:") && out.contains("recomputed: jaccard") && out.contains("renormalised"),
        "{out}"
    );
    let (_, out, _) = run(&["lineage", "replay", &v1, "--format", "json"]);
    let steps: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(steps.as_array().unwrap().len(), 10);

    let (_, out, _) = run(&["lineage", "stats", "--format", "json"]);
    let st: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (st["prompts"].as_u64(), st["lineages"].as_u64(), st["heads"].as_u64()),
        (Some(11), Some(2), Some(2))
    );
    assert_eq!(st["by_evolution_type"]["refines"], 4);
    let (_, out, _) = run(&["lineage", "stats", &v1]);
    assert!(out.contains("10 prompts in 1 lineage") && out.contains("branches: experiment/bullets"), "{out}");

    let (_, out, _) =
        run(&["lineage", "compare", &v1, &merged, "--suggest-type", "--detailed", "--format", "json"]);
    let c: serde_json::Value = serde_json::from_str(&out).unwrap();
    for field in ["jaccard", "edit_ratio", "confidence", "suggested_type", "diff"] {
        assert!(!c[field].is_null(), "{field}: {c}");
    }
    assert!(c["semantic"].is_null() && c.get("semantic").is_some(), "semantic is null without an endpoint");
    let (_, out, _) = run(&["lineage", "compare", &v1, &merged, "--detailed"]);
    assert!(out.contains("{+") && out.contains("unavailable"), "{out}");

    let (_, out, _) =
        run(&["lineage", "similar", &merged, "--threshold", "0.9", "--limit", "1", "--format", "json"]);
    let hits: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(hits[0]["id"], reverted);

    // Errors carry the seed's codes in JSON.
    let (code, out, _) = run(&["lineage", "inspect", "nope", "--format", "json"]);
    assert_eq!(code, Some(2));
    let e: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(e["error"]["code"], "VALIDATION_ERROR", "{e}");
    let (_, out, _) = run(&["lineage", "similar", &v1, "--threshold", "1.5", "--format", "json"]);
    assert_eq!(serde_json::from_str::<serde_json::Value>(&out).unwrap()["error"]["code"], "VALIDATION_ERROR");
}

/// A step below 0.5 confidence leads its line in `provex lineage` with its doubt (the
/// lineage format's confidence bands), as a claim's standing leads with its worst finding.
#[test]
fn a_step_unlikely_related_to_its_parent_says_so_first() {
    use assert_cmd::Command;
    let graph = format!("t_lineage_doubt_{}", std::process::id());
    let dir = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        let out = Command::cargo_bin("provex")
            .unwrap()
            .arg("--falkordb")
            .arg(common::url())
            .env_remove("PROVEX_EMBEDDINGS_URL")
            .args(args)
            .args(["--graph", &graph])
            .output()
            .unwrap();
        (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned())
    };
    let rejects = dir.path().join("r");
    let (code, out) = run(&["ingest", example().to_str().unwrap(), "--rejects", rejects.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{out}");
    // A child of the newsletter's parent that shares almost nothing with it.
    let (session, at, content) = (
        "9311309e-6cef-5d4b-9d03-789d1c4d255d",
        "2026-11-09T10:00:00Z",
        "Translate this poem into French verse.",
    );
    let line = serde_json::json!({
        "prompt_content": content, "session_id": session,
        "parent_prompt_id": "f03a2152-e243-5540-9b2c-6e8719594def", "evolution_type": "derives",
        "timestamp": at,
    });
    let file = common::file_with(&dir, "stray.jsonl", &[&line.to_string()]);
    let (code, out) = run(&["ingest", file.to_str().unwrap(), "--rejects", rejects.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{out}");
    let stray = provex::sources::lineage::prompt_id(session, at, content).to_string();
    let (code, out) = run(&["lineage", "inspect", &stray, "--format", "text"]);
    assert_eq!(code, Some(0), "{out}");
    let step = out.lines().find(|l| l.contains("derives from")).unwrap_or_else(|| panic!("{out}"));
    assert!(step.contains("⚠ unlikely related: derives from f03a2152"), "{step}");
    // Its parent lists it among its children with the doubt first; steps of 0.5 and above
    // say nothing first.
    let (_, out) = run(&["lineage", "inspect", &uid("reverted").to_string(), "--format", "text"]);
    let steps: Vec<&str> = out.lines().filter(|l| l.contains("(confidence ")).collect();
    assert!(steps.len() >= 8, "{out}");
    for step in steps {
        assert_eq!(step.contains('⚠'), step.contains(&stray), "{step}");
    }
}
