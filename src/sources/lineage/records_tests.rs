//! Records shaped as the agent's serde types write them (field for field, `skip_serializing_if`
//! fields left out), and each rejection with its code.

use serde_json::{json, Value};

use super::*;

const NODE: &str = "7c9e6679-7425-40de-944b-e07fc1f90ae7";
const PARENT: &str = "16fd2706-8baf-433b-82eb-8c7fada847da";
const LINEAGE: &str = "3f2504e0-4f89-11d3-9a0c-0305e82c3301";
const SESSION: &str = "a3bb189e-8bf9-3888-9912-ace4e6543002";

fn output() -> Value {
    json!({
        "lineage_node": {
            "id": NODE, "session_id": SESSION, "timestamp": "2026-11-17T09:30:00Z",
            "content": "Summarise the meeting in five bullet points, citing the minute of each.",
            "metadata": {"model": "gpt-5", "temperature": 0.2},
            "lineage_id": LINEAGE, "lineage_version": {"major": 1, "minor": 0, "patch": 1},
            "chain_position": 2, "is_root": false, "is_head": true,
            "lineage_tracked_at": "2026-11-17T09:30:01Z"
        },
        "lineage_id": LINEAGE,
        "evolution_edge": {
            "id": "9b2f1e0c-6a1d-4f8e-8d0a-2b7c3e4f5a6b", "from": PARENT, "to": NODE,
            "edge_type": "refines", "evolution_type": "refines",
            "evolution_reason": {"category": "quality", "description": "Cite the minute",
                                 "trigger_source": "human"},
            "similarity_score": 0.82,
            "diff_summary": {"chars_added": 24, "chars_removed": 0, "lines_changed": 0},
            "created_at": "2026-11-17T09:30:00Z"
        },
        "chain_position": 2, "chain_depth": 2, "confidence": 0.77,
        "constraints_applied": ["evolution_must_have_parent", "no_circular_lineage"],
        "timestamp": "2026-11-17T09:30:01Z"
    })
}

fn decision() -> Value {
    json!({
        "event_id": "c56a4180-65aa-42ec-a945-5fd21dec0538", "agent_id": "prompt-lineage-agent",
        "agent_version": "1.0.0", "decision_type": "prompt_lineage_tracking",
        "inputs_hash": "00ff00ff00ff00ff",
        "outputs": {"node_id": NODE, "lineage_id": LINEAGE, "chain_position": 2, "chain_depth": 2},
        "confidence": 0.77, "constraints_applied": ["no_circular_lineage"],
        "execution_ref": {"trace_id": "t-1", "span_id": "s-1"},
        "timestamp": "2026-11-17T09:30:01Z"
    })
}

fn input() -> Value {
    json!({
        "prompt_content": "Summarise the meeting in three bullet points.",
        "session_id": SESSION, "parent_prompt_id": NODE, "evolution_type": "evolves",
        "metadata": {"model": "gpt-5", "temperature": 0.7},
        "timestamp": "2026-11-18T10:00:00.000Z"
    })
}

fn parse(v: &Value) -> Result<LineageRecord, RecordError> {
    parse_record(&v.to_string())
}

fn code(v: &Value) -> (Code, String) {
    let e = parse(v).unwrap_err();
    (e.code, e.reason)
}

#[test]
fn the_three_records_are_told_apart_by_their_fields() {
    let LineageRecord::Output(o) = parse(&output()).unwrap() else { panic!("an output") };
    assert_eq!(o.lineage_node.lineage_version, Version { major: 1, minor: 0, patch: 1 });
    assert_eq!(o.evolution_edge.as_ref().unwrap().from.to_string(), PARENT);
    assert_eq!(o.lineage_node.metadata.tools_available, Vec::<String>::new());
    let LineageRecord::Decision(d) = parse(&decision()).unwrap() else { panic!("a decision") };
    assert_eq!((d.outputs.chain_depth, d.outputs.edge_id), (2, None));
    let LineageRecord::Input(i) = parse(&input()).unwrap() else { panic!("an input") };
    assert_eq!(i.timestamp_text, "2026-11-18T10:00:00.000Z", "kept as written");
    assert_eq!(i.evolution.as_deref(), Some("evolves"));
}

#[test]
fn versions_bump_as_the_agent_bumps_them() {
    let v = Version { major: 1, minor: 2, patch: 3 };
    let next = |t| v.next(t).to_string();
    assert_eq!(next(EvolutionType::Evolves), "1.2.4");
    assert_eq!(next(EvolutionType::Refines), "1.2.4");
    assert_eq!(next(EvolutionType::Reverts), "1.2.4");
    assert_eq!(next(EvolutionType::Derives), "1.3.0");
    assert_eq!(next(EvolutionType::Forks), "1.3.0");
    assert_eq!(next(EvolutionType::Merges), "2.0.0");
    assert_eq!(Version::ROOT.to_string(), "1.0.0");
}

#[test]
fn each_rejection_carries_the_seeds_code() {
    use Code::{InvalidLineageRelationship as Rel, ValidationError as Val};
    let mut v = output();
    v["evolution_edge"]["evolution_type"] = json!("mutates");
    assert_eq!(code(&v), (Rel, "unknown evolution type \"mutates\"".into()));
    let mut v = output();
    v["evolution_edge"]["from"] = json!(NODE);
    assert_eq!(code(&v).0, Rel, "a loop");
    let mut v = output();
    v["evolution_edge"]["to"] = json!(PARENT);
    assert_eq!(code(&v).0, Rel, "an edge that is not the node's");
    let mut v = output();
    v["confidence"] = json!(1.5);
    assert_eq!(code(&v), (Val, "confidence 1.5 is outside [0, 1]".into()));
    let mut v = output();
    v["evolution_edge"]["similarity_score"] = json!(-0.1);
    assert_eq!(code(&v).0, Val);
    let mut v = output();
    v["lineage_node"]["content"] = json!("   ");
    assert_eq!(code(&v), (Val, "lineage_node.content is empty".into()));
    let mut v = output();
    v["lineage_node"].as_object_mut().unwrap().remove("session_id");
    let (c, reason) = code(&v);
    assert!(c == Val && reason.contains("session_id"), "{reason}");
    let mut v = decision();
    v["decision_type"] = json!("something_else");
    assert_eq!(code(&v).0, Val);
    let mut v = input();
    v.as_object_mut().unwrap().remove("evolution_type");
    assert_eq!(code(&v), (Val, "evolution_type is required with parent_prompt_id".into()));
    let mut v = input();
    v.as_object_mut().unwrap().remove("parent_prompt_id");
    assert_eq!(code(&v), (Val, "a evolves evolution needs parent_prompt_id".into()));
    v["evolution_type"] = json!("merges");
    assert!(parse(&v).is_ok(), "a merge may name its parents elsewhere");
    assert_eq!(code(&json!({"hello": 1})).0, Val);
    assert_eq!(parse_record("{not json").unwrap_err().code, Val);
    let e = parse(&json!([1])).unwrap_err();
    assert_eq!(e.to_string(), "VALIDATION_ERROR: a record is a JSON object");
}
