//! TrustGraph query-time provenance (issue 12 §1) against FalkorDB, on streams made by
//! TrustGraph's own code (`trustgraph-base`, tests/trustgraph/make_streams.py): every explain
//! type of a ReAct, GraphRAG and DocRAG session, bare and enveloped, in the three spellings of
//! the kind field; exact nodes, labels and edges; placeholders filled out of order; the same
//! graph by upserts and by GRAPH.BULK; re-ingest changes nothing; bad lines are rejected with
//! their line and the rest lands; the seed's own node shapes.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use provex::facade::{IngestReport, Provex, Quiet};
use provex::ingest::{Format, IngestOptions};

use crate::common;

fn streams(dir: &Path) -> Vec<PathBuf> {
    let python = common::repo().join(".venv/bin/python");
    let run = std::process::Command::new(python)
        .arg(common::repo().join("tests/trustgraph/make_streams.py"))
        .arg(dir)
        .output()
        .unwrap();
    assert!(run.status.success(), "make_streams.py: {}", String::from_utf8_lossy(&run.stderr));
    ["react", "graphrag", "docrag", "docrag-dash"].iter().map(|n| dir.join(format!("{n}.jsonl"))).collect()
}

async fn ingest(provex: &Provex, graph: &str, files: &[PathBuf], bulk: bool, rejects: &Path) -> IngestReport {
    let opts =
        IngestOptions { format: Format::Auto, bulk, rejects: Some(rejects.to_owned()), ..Default::default() };
    provex.ingest(graph, files, opts, Arc::new(AtomicBool::new(false)), Arc::new(Quiet)).await.unwrap()
}

async fn rows(provex: &Provex, graph: &str, q: &str) -> Vec<String> {
    let t = provex.query(graph, q).await.unwrap();
    t.rows
        .iter()
        .map(|r| {
            r.iter()
                .map(|v| {
                    v.as_str()
                        .map(str::to_owned)
                        .unwrap_or_else(|| common::without_log(v.clone()).to_string())
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

/// A node's labels, sorted (FalkorDB lists them in the order the graph first saw each).
async fn labelled(provex: &Provex, graph: &str, q: &str) -> Vec<String> {
    let t = provex.query(graph, q).await.unwrap();
    t.rows
        .iter()
        .map(|r| {
            let mut labels: Vec<String> = serde_json::from_value(r[1].clone()).unwrap();
            labels.sort();
            format!("{} {}", r[0].as_str().unwrap(), labels.join(","))
        })
        .collect()
}

/// The differences between two listings, for a readable failure.
fn differ(a: &[String], b: &[String]) -> Vec<String> {
    let only_a = a.iter().filter(|x| !b.contains(x)).map(|x| format!("- {x}"));
    only_a.chain(b.iter().filter(|x| !a.contains(x)).map(|x| format!("+ {x}"))).collect()
}

/// Every node with its labels and properties, and every edge with its properties, as text.
async fn everything(provex: &Provex, graph: &str) -> Vec<String> {
    let mut all = labelled(provex, graph, "MATCH (n) RETURN n.name, labels(n) ORDER BY n.name").await;
    all.extend(rows(provex, graph, "MATCH (n) RETURN n.name, properties(n) ORDER BY n.name").await);
    all.extend(rows(provex, graph, "MATCH (a)-[e]->(b) RETURN a.name, type(e), b.name, properties(e) ORDER BY a.name, type(e), b.name").await);
    all
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn trustgraph_streams_land_as_their_triples_say() {
    let (provex, graph) = common::open("tg_streams").await;
    let dir = tempfile::tempdir().unwrap();
    let files = streams(dir.path());
    let report = ingest(&provex, &graph, &files, true, &dir.path().join("r")).await;
    assert_eq!(report.rejected, 0, "{report:?}");
    assert!(
        report.files.iter().all(|f| f.format == "trustgraph"),
        "auto recognises every spelling: {report:?}"
    );
    assert_eq!(report.events, 29);

    // The ReAct session, node by node: labels from the TrustGraph types.
    let react = labelled(
        &provex,
        &graph,
        "MATCH (n:Explain) WHERE n.name STARTS WITH 'urn:trustgraph:agent:3f0c2a5e-react' RETURN n.name, labels(n) ORDER BY n.name",
    )
    .await;
    let s = "urn:trustgraph:agent:3f0c2a5e-react";
    assert_eq!(
        react,
        [
            format!("{s} AgentQuestion,Explain,Question"),
            format!("{s}/final Answer,Conclusion,Explain"),
            format!("{s}/i1 Analysis,Explain,ToolUse"),
            format!("{s}/i1/observation Explain,Observation"),
            format!("{s}/i1/thought Explain,Reflection,Thought"),
            format!("{s}/i2 Analysis,Explain,ToolUse"),
            format!("{s}/i2/observation Error,Explain,Observation"),
            format!("{s}/i2/thought Explain,Reflection,Thought"),
        ]
    );
    let derived = rows(
        &provex,
        &graph,
        &format!("MATCH (a)-[e:WAS_DERIVED_FROM]->(b) WHERE a.name STARTS WITH '{s}' RETURN a.name, e.`prov:base_type`, b.name ORDER BY a.name"),
    )
    .await;
    assert_eq!(
        derived,
        [
            format!("{s}/final WAS_DERIVED_FROM {s}/i2/observation"),
            format!("{s}/i1 WAS_DERIVED_FROM {s}"),
            format!("{s}/i1/observation WAS_DERIVED_FROM {s}/i1"),
            format!("{s}/i1/thought WAS_DERIVED_FROM {s}/i1"),
            format!("{s}/i2 WAS_DERIVED_FROM {s}/i1/observation"),
            format!("{s}/i2/observation WAS_DERIVED_FROM {s}/i2"),
            format!("{s}/i2/thought WAS_DERIVED_FROM {s}/i2"),
        ]
    );
    let i1 = rows(
        &provex,
        &graph,
        &format!(
            "MATCH (n {{name: '{s}/i1'}}) RETURN n.`tg:action`, n.`tg:arguments`, n.`tg:toolCandidate`, n.`tg:llmDurationMs`, n.`tg:inToken`, n.`tg:llmModel`, n.`prov:base_type`, n.`tg:graph`"
        ),
    )
    .await;
    assert_eq!(
        i1,
        [
            r#"knowledge-query {"question": "zoning", "limit": 5} ["knowledge-query","web-search"] 812 1200 gpt-4o ProvEntity urn:graph:retrieval"#
        ]
    );
    let failed = rows(
        &provex,
        &graph,
        &format!("MATCH (n {{name: '{s}/i2/observation'}}) RETURN n.`tg:toolError`, n.`tg:toolDurationMs`"),
    )
    .await;
    assert_eq!(failed, ["timeout after 30 s 30000"]);
    // The dialog beside the DAG, in stream order, and the session's outcome.
    let dialog = rows(
        &provex,
        &graph,
        &format!(
            "MATCH (m:DialogMessage)-[:IN_SESSION]->(q {{name: '{s}'}}) RETURN m.seq, m.kind ORDER BY m.seq"
        ),
    )
    .await;
    assert_eq!(dialog, ["1 thought", "2 observation", "3 thought", "4 observation", "5 answer"]);
    assert_eq!(
        rows(&provex, &graph, &format!("MATCH (q {{name: '{s}'}}) RETURN q.`provex:status`, q.`tg:query`"))
            .await,
        ["answered What did they say about zoning?"]
    );

    // GraphRAG: grounding concepts, explored edge count, the selected edges as quoted triples.
    let g = "7b1d-graphrag";
    let grounding = rows(
        &provex,
        &graph,
        &format!("MATCH (n:Grounding {{name: 'urn:trustgraph:prov:grounding:{g}'}}) RETURN n.`tg:concept`"),
    )
    .await;
    assert_eq!(grounding, [r#"["zoning","variance","Elm Street"]"#]);
    assert_eq!(rows(&provex, &graph, &format!("MATCH (n:Exploration {{name: 'urn:trustgraph:prov:exploration:{g}'}}) RETURN n.`tg:edgeCount`")).await, ["42"]);
    let selected = rows(
        &provex,
        &graph,
        &format!("MATCH (:Focus {{name: 'urn:trustgraph:prov:focus:{g}'}})-[:SELECTED_EDGE]->(e:EdgeSelection) RETURN e.`tg:edge_s`, e.`tg:edge_p`, e.`tg:edge_o`, e.`tg:reasoning`, e.`tg:score` ORDER BY e.name"),
    )
    .await;
    assert_eq!(
        selected,
        [
            "http://riverton.gov/e/elm-street http://riverton.gov/p/zonedAs http://riverton.gov/e/r2 names the zoning of the lot 0.91",
            "http://riverton.gov/e/council http://riverton.gov/p/approved http://riverton.gov/e/variance-31 the decision itself 0.87",
        ]
    );
    // DocRAG, in both older spellings: chunk selections with their chunk and score.
    for d in ["c9e2-docrag", "d4f1-docrag"] {
        let chunks = rows(
            &provex,
            &graph,
            &format!("MATCH (:Focus {{name: 'urn:trustgraph:docrag:{d}/focus'}})-[:SELECTED_CHUNK]->(c:ChunkSelection)-[:HAS_DOCUMENT]->(x) RETURN x.name, c.`tg:score`"),
        )
        .await;
        assert_eq!(chunks, ["urn:chunk:a 0.97"], "{d}");
    }

    // The same graph by upserts; re-ingesting changes nothing.
    let bulk = everything(&provex, &graph).await;
    let merge = format!("{graph}_merge");
    ingest(&provex, &merge, &files, false, &dir.path().join("r2")).await;
    assert_eq!(
        differ(&bulk, &everything(&provex, &merge).await),
        Vec::<String>::new(),
        "upserts and GRAPH.BULK agree"
    );
    ingest(&provex, &merge, &files, false, &dir.path().join("r3")).await;
    assert_eq!(
        differ(&bulk, &everything(&provex, &merge).await),
        Vec::<String>::new(),
        "re-ingest changes nothing"
    );
    provex.delete_graph(&merge).await.unwrap();
    provex.delete_graph(&graph).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn placeholders_are_filled_whatever_the_order() {
    let (provex, graph) = common::open("tg_order").await;
    let dir = tempfile::tempdir().unwrap();
    let files = streams(dir.path());
    let explain: Vec<String> = std::fs::read_to_string(&files[0])
        .unwrap()
        .lines()
        .filter(|l| l.contains("\"explain\""))
        .map(str::to_owned)
        .collect();
    let (fwd, back) = (dir.path().join("fwd.jsonl"), dir.path().join("back.jsonl"));
    std::fs::write(&fwd, explain.join("\n") + "\n").unwrap();
    std::fs::write(&back, explain.iter().rev().cloned().collect::<Vec<_>>().join("\n") + "\n").unwrap();
    let other = format!("{graph}_back");
    ingest(&provex, &graph, &[fwd], false, &dir.path().join("r")).await;
    ingest(&provex, &other, &[back], false, &dir.path().join("r2")).await;
    // The final answer refers to the last observation before it arrives: a placeholder, filled.
    let (back, fwd) = (everything(&provex, &other).await, everything(&provex, &graph).await);
    assert_eq!(differ(&fwd, &back), Vec::<String>::new());
    let obs = labelled(&provex, &other, "MATCH (n {name: 'urn:trustgraph:agent:3f0c2a5e-react/i2/observation'}) RETURN n.`prov:base_type`, labels(n)").await;
    assert_eq!(obs, ["ProvEntity Error,Explain,Observation"]);
    provex.delete_graph(&other).await.unwrap();
    provex.delete_graph(&graph).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_lines_are_rejected_and_the_seed_shapes_land() {
    let (provex, graph) = common::open("tg_bad").await;
    let dir = tempfile::tempdir().unwrap();
    let lines = [
        // 1: a retrieval with its facts and a link to extraction-time provenance
        r#"{"id":"urn:trustgraph:prov:r1","session_id":"urn:trustgraph:session:s1","timestamp":"2024-01-15T10:30:00Z","type":"retrieval","derived_from":[],"facts":[{"id":"urn:trustgraph:fact:f1","content":"Swallow airspeed is 8.5 m/s"}],"source_refs":["urn:trustgraph:extract:x1"]}"#,
        // 2: malformed JSON
        r#"{"message_type": "explain", "explain_triples": ["#,
        // 3: reasoning from the retrieval
        r#"{"id":"urn:trustgraph:prov:r2","session_id":"urn:trustgraph:session:s1","timestamp":"2024-01-15T10:30:01Z","type":"reasoning","derived_from":["urn:trustgraph:prov:r1"],"prompt_summary":"Asked for the speed","conclusion":"8.5 m/s"}"#,
        // 4: an unknown node type
        r#"{"id":"urn:trustgraph:prov:r9","session_id":"s","type":"guess","derived_from":[]}"#,
        // 5: a tool invocation (the seed's graceful degradation)
        r#"{"id":"urn:trustgraph:prov:r3","session_id":"urn:trustgraph:session:s1","timestamp":"2024-01-15T10:30:02Z","type":"tool_invocation","tool_name":"calculator","input":{"expression":"8 + 5"},"output":"13","detail_level":"basic","derived_from":["urn:trustgraph:prov:r2"]}"#,
        // 6: a triple whose term kind is unknown
        r#"{"message_type":"explain","explain_id":"urn:x","explain_triples":[{"s":{"t":"i","i":"urn:x"},"p":{"t":"i","i":"urn:p"},"o":{"t":"z"}}]}"#,
        // 7: a provenance event, and 8: the same as an AgentResponse chunk
        r#"{"provenance_refs":["urn:trustgraph:prov:r4"]}"#,
        r#"{"chunk_type":"provenance","content":"","provenance_refs":["urn:trustgraph:prov:r5"],"end_of_message":false}"#,
        // 9: an answer derived from the reasoning
        r#"{"id":"urn:trustgraph:prov:r4","session_id":"urn:trustgraph:session:s1","timestamp":"2024-01-15T10:30:03Z","type":"answer","derived_from":["urn:trustgraph:prov:r2","urn:trustgraph:prov:r3"],"content":"About 8.5 m/s."}"#,
    ];
    let file = dir.path().join("seed.jsonl");
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    let rejects = dir.path().join("rejects.jsonl");
    let report = ingest(&provex, &graph, &[file], false, &rejects).await;
    assert_eq!((report.events, report.rejected), (6, 3), "{report:?}");
    let rejected: Vec<(u64, String)> = common::rejects(&rejects);
    assert_eq!(rejected.iter().map(|(n, _)| *n).collect::<Vec<_>>(), [2, 4, 6]);
    assert!(
        rejected[0].1.starts_with("truncated JSON") || rejected[0].1.starts_with("malformed JSON"),
        "{}",
        rejected[0].1
    );
    assert!(rejected[1].1.contains("unknown provenance node type \"guess\""), "{}", rejected[1].1);
    assert!(rejected[2].1.contains("unknown term kind \"z\""), "{}", rejected[2].1);
    let nodes = labelled(&provex, &graph, "MATCH (n:Explain) RETURN n.name, labels(n) ORDER BY n.name").await;
    assert_eq!(
        nodes,
        [
            "urn:trustgraph:extract:x1 Explain",
            "urn:trustgraph:fact:f1 Explain,Fact",
            "urn:trustgraph:prov:r1 Explain,Retrieval",
            "urn:trustgraph:prov:r2 Explain,Reasoning",
            "urn:trustgraph:prov:r3 Explain,ToolInvocation",
            "urn:trustgraph:prov:r4 Answer,Explain",
            "urn:trustgraph:prov:r5 Explain",
        ]
    );
    let edges =
        rows(&provex, &graph, "MATCH (a)-[e]->(b) RETURN a.name, type(e), b.name ORDER BY a.name, b.name")
            .await;
    assert_eq!(
        edges,
        [
            "urn:trustgraph:prov:r1 SOURCED_FROM urn:trustgraph:extract:x1",
            "urn:trustgraph:prov:r1 RETRIEVED urn:trustgraph:fact:f1",
            "urn:trustgraph:prov:r2 WAS_DERIVED_FROM urn:trustgraph:prov:r1",
            "urn:trustgraph:prov:r3 WAS_DERIVED_FROM urn:trustgraph:prov:r2",
            "urn:trustgraph:prov:r4 WAS_DERIVED_FROM urn:trustgraph:prov:r2",
            "urn:trustgraph:prov:r4 WAS_DERIVED_FROM urn:trustgraph:prov:r3",
        ]
    );
    let tool = rows(&provex, &graph, "MATCH (n {name: 'urn:trustgraph:prov:r3'}) RETURN n.`tg:toolName`, n.`tg:input`, n.`tg:output`, n.`prov:base_type`").await;
    assert_eq!(tool, [r#"calculator {"expression":"8 + 5"} 13 ProvActivity"#]);
    provex.delete_graph(&graph).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_and_the_chain_back_to_the_question() {
    let (provex, graph) = common::open("tg_reasoning").await;
    let dir = tempfile::tempdir().unwrap();
    let files = streams(dir.path());
    ingest(&provex, &graph, &files, false, &dir.path().join("r")).await;
    let sessions = provex.sessions(&graph).await.unwrap();
    let summary: Vec<(String, String, String, u64)> = sessions
        .iter()
        .map(|s| (s.kind.clone(), s.question.clone().unwrap_or_default(), s.status.clone(), s.steps))
        .collect();
    assert_eq!(sessions.len(), 4, "{summary:?}");
    let react = sessions.iter().find(|s| s.kind == "agent").unwrap();
    assert_eq!(
        (react.question.as_deref(), react.status.as_str(), react.steps, react.answer.as_deref()),
        (
            Some("What did they say about zoning?"),
            "answered",
            5, // the chain's steps after the question: thoughts are read inside their step
            Some("urn:trustgraph:agent:3f0c2a5e-react/final")
        )
    );

    let r = provex.reasoning(&graph, "urn:trustgraph:agent:3f0c2a5e-react/final").await.unwrap();
    // The chain says what kind of session it is, as the session list does (the UI reads no IRI).
    assert_eq!(r.kind, "agent");
    let steps: Vec<(&str, Vec<String>)> =
        r.chain.iter().map(|s| (s.id.rsplit(':').next().unwrap(), s.types.clone())).collect();
    assert_eq!(
        steps.iter().map(|(id, _)| *id).collect::<Vec<_>>(),
        [
            "3f0c2a5e-react",
            "3f0c2a5e-react/i1",
            "3f0c2a5e-react/i1/observation",
            "3f0c2a5e-react/i2",
            "3f0c2a5e-react/i2/observation",
            "3f0c2a5e-react/final"
        ],
        "question → iteration → observation → … → answer"
    );
    let i1 = &r.chain[1];
    assert_eq!(i1.properties["tg:action"], "knowledge-query");
    assert_eq!(i1.properties["tg:llmDurationMs"], 812);
    assert_eq!(i1.parts.len(), 1, "its thought");
    assert!(r.chain[4].failed && !r.chain[2].failed, "the failed tool is marked");
    assert_eq!(r.question.as_deref(), Some("What did they say about zoning?"));
    assert_eq!(r.latest.as_deref(), Some("urn:trustgraph:agent:3f0c2a5e-react/final"));
    let kinds: Vec<&str> = r.dialog.iter().map(|d| d.kind.as_str()).collect();
    assert_eq!(kinds, ["thought", "observation", "thought", "observation", "answer"]);
    assert_eq!(r.dialog[4].model.as_deref(), Some("gpt-4o"));

    // GraphRAG: the focus step carries its selected edges with reasoning and score.
    let g = provex.reasoning(&graph, "urn:trustgraph:prov:synthesis:7b1d-graphrag").await.unwrap();
    assert_eq!(g.chain.len(), 5, "question, grounding, exploration, focus, synthesis");
    assert_eq!(g.kind, "graphrag");
    let focus = &g.chain[3];
    assert_eq!(focus.parts.len(), 2);
    assert_eq!(focus.parts[0].properties["tg:reasoning"], "names the zoning of the lot");
    assert_eq!(g.chain[1].properties["tg:concept"], serde_json::json!(["zoning", "variance", "Elm Street"]));
    assert!(provex.reasoning(&graph, "urn:nothing").await.is_err());
    provex.delete_graph(&graph).await.unwrap();
}

/// One evidence chain across sources (issue 12 §4) on the council demo: the researcher's
/// answer → its reasoning → the A2AP statements it retrieved → each one's quote at its
/// `hh:mm:ss`, signature and consensus.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_council_answer_goes_on_into_the_statements_and_their_evidence() {
    let (provex, graph) = common::open("tg_council").await;
    let demo = provex::demo::council::generate();
    provex.demo_council(&graph, None, Arc::new(AtomicBool::new(false))).await.unwrap();
    let session = provex::demo::council::research::SESSION;
    let sessions = provex.sessions(&graph).await.unwrap();
    assert_eq!(sessions.len(), 1);
    assert_eq!(
        (sessions[0].question.as_deref(), sessions[0].status.as_str()),
        (Some("What did they say about zoning?"), "answered")
    );
    let r = provex.reasoning(&graph, &format!("{session}/final")).await.unwrap();
    assert_eq!(r.chain.len(), 4, "question → iteration → observation → answer");
    let mut linked: Vec<(&str, &str)> = r.links.iter().map(|l| (l.id.as_str(), l.label.as_str())).collect();
    linked.sort();
    linked.dedup();
    let mut want = vec![
        (demo.statements.rezoning_approved.as_str(), "Statement"),
        (demo.statements.affordable_units.as_str(), "Statement"),
    ];
    want.sort();
    assert_eq!(linked, want);
    assert!(r.links.iter().any(|l| l.text.as_deref().is_some_and(|t| t.contains("Ordinance 2025-31"))));
    // In the graph: the answer's edges go to the statements themselves (no second node).
    let to = rows(
        &provex,
        &graph,
        &format!("MATCH (:Explain {{name: '{session}/final'}})-[:WAS_DERIVED_FROM]->(s:Statement) RETURN s.name ORDER BY s.name"),
    )
    .await;
    assert_eq!(to.len(), 2);
    assert_eq!(
        rows(&provex, &graph, "MATCH (n:Explain) WHERE n.name STARTS WITH 'urn:uuid:' RETURN count(n)").await,
        ["0"]
    );
    // And on from each statement to its evidence.
    let trail = provex.trail(&graph, &demo.statements.rezoning_approved).await.unwrap();
    assert!(trail.evidence.iter().all(|e| e.timestamp.is_some()), "each quote at its hh:mm:ss");
    assert!(trail.verified);
    // Both claims it draws on stand verified, so the answer does too.
    assert!(r.links.iter().all(|l| l.standing.as_deref() == Some("verified")), "{:?}", r.links);
    assert_eq!(r.standing.as_deref(), Some("verified"));

    // An answer drawn from the parking-study claim (consensus 0.89, signature invalid)
    // headlines the claim's invalid signature, not its consensus.
    let parking = &demo.statements.parking_study_altered;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("parking.jsonl");
    let answer = serde_json::json!({"id": "urn:trustgraph:prov:parking-answer", "session_id": "urn:trustgraph:session:parking",
        "timestamp": "2025-10-16T10:00:00Z", "type": "answer", "derived_from": [parking], "content": "A parking study was promised."});
    std::fs::write(&file, format!("{answer}\n")).unwrap();
    let report = ingest(&provex, &graph, &[file], false, &dir.path().join("rejects.jsonl")).await;
    assert_eq!(report.rejected, 0, "{report:?}");
    let r = provex.reasoning(&graph, "urn:trustgraph:prov:parking-answer").await.unwrap();
    let link = r.links.iter().find(|l| &l.id == parking).unwrap_or_else(|| panic!("{:?}", r.links));
    assert_eq!(link.standing.as_deref(), Some("invalid_signature"));
    assert_eq!(r.standing.as_deref(), Some("invalid_signature"));
    assert!(provex.trail(&graph, parking).await.unwrap().verified, "verified by consensus alone");
    provex.delete_graph(&graph).await.unwrap();
}

/// A statement that arrives after the explain stream naming it takes the placeholder's place:
/// one node of that name, the answer's edges on it, whether the files come in one ingest (bulk
/// or not) or one after the other.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_statement_arriving_after_the_explain_stream_takes_its_placeholders_place() {
    let council = common::repo().join("examples/council");
    let explain = council.join("council-explain.jsonl");
    let a2ap = council.join("council-a2ap.jsonl");
    let session = provex::demo::council::research::SESSION;
    let dir = tempfile::tempdir().unwrap();
    for (case, together, bulk) in [("apart", false, false), ("together", true, false), ("bulk", true, true)] {
        let (provex, graph) = common::open(&format!("tg_late_{case}")).await;
        if together {
            ingest(&provex, &graph, &[explain.clone(), a2ap.clone()], bulk, &dir.path().join("r")).await;
        } else {
            ingest(&provex, &graph, std::slice::from_ref(&explain), bulk, &dir.path().join("r")).await;
            let before =
                rows(&provex, &graph, "MATCH (n:Explain) WHERE size(keys(n)) <= 3 RETURN count(n)").await;
            assert_ne!(before, ["0"], "{case}: the statements are placeholders until they arrive");
            ingest(&provex, &graph, std::slice::from_ref(&a2ap), bulk, &dir.path().join("r")).await;
        }
        assert_eq!(
            rows(&provex, &graph, "MATCH (n:Explain) WHERE size(keys(n)) <= 3 RETURN count(n)").await,
            ["0"],
            "{case}: no placeholder left"
        );
        assert_eq!(
            rows(&provex, &graph, "MATCH (n) WITH n.name AS k, count(n) AS c WHERE c > 1 RETURN count(k)")
                .await,
            ["0"],
            "{case}: one node per name"
        );
        let derived = rows(
            &provex,
            &graph,
            &format!("MATCH (:Explain {{name: '{session}/final'}})-[:WAS_DERIVED_FROM]->(s:Statement) RETURN count(s)"),
        )
        .await;
        assert_eq!(derived, ["2"], "{case}: the answer derives from the statements themselves");
        let r = provex.reasoning(&graph, &format!("{session}/final")).await.unwrap();
        assert!(r.links.iter().any(|l| l.label == "Statement"), "{case}: the chain goes on into them");
        provex.delete_graph(&graph).await.unwrap();
    }
}
