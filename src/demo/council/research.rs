//! The council demo's research question (the council scenario's fifth step): a researcher asks a
//! TrustGraph-shaped ReAct agent "What did they say about zoning?". Its explain messages
//! and dialog stream in pace with the rest of the demo, as TrustGraph's gateway sends them
//! (`trustgraph.provenance` triples in `AgentResponse` messages); its knowledge query
//! retrieves the A2AP statements about zoning, and its answer derives from them, so the
//! evidence chain runs answer → reasoning → retrieved statements → each statement's quotes.

use serde_json::{json, Value};

use super::builder::iso;
use super::*;

const TG: &str = "https://trustgraph.ai/ns/";
const PROV: &str = "http://www.w3.org/ns/prov#";
const RDF_TYPE: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";
const RDFS_LABEL: &str = "http://www.w3.org/2000/01/rdf-schema#label";
const GRAPH: &str = "urn:graph:retrieval";

/// The session's IRI.
pub const SESSION: &str = "urn:trustgraph:agent:council-zoning-question";

fn iri(i: &str) -> Value {
    json!({"t": "i", "i": i})
}

fn lit(v: &str) -> Value {
    json!({"t": "l", "v": v})
}

fn t(s: &str, p: &str, o: Value) -> Value {
    json!({"s": iri(s), "p": iri(p), "o": o, "g": GRAPH})
}

fn types(s: &str, kinds: &[&str]) -> Vec<Value> {
    let mut out = vec![t(s, RDF_TYPE, iri(&format!("{PROV}Entity")))];
    out.extend(kinds.iter().map(|k| t(s, RDF_TYPE, iri(&format!("{TG}{k}")))));
    out
}

fn explain(id: &str, triples: Vec<Value>) -> Value {
    json!({"message_type": "explain", "end_of_message": false, "end_of_dialog": false,
           "explain_id": id, "explain_graph": GRAPH, "explain_triples": triples})
}

fn chunk(kind: &str, content: &str, last: bool) -> Value {
    let mut v =
        json!({"message_type": kind, "content": content, "end_of_message": true, "end_of_dialog": last});
    if last {
        v["in_token"] = json!(2_150);
        v["out_token"] = json!(118);
        v["model"] = json!("gpt-4o");
    }
    v
}

impl Builder {
    /// Emits the research session; `zoning` are the statements its query retrieves.
    pub(super) fn research(&mut self, zoning: &[&str]) {
        let q = SESSION;
        let (i1, thought, obs, fin) = (
            format!("{q}/i1"),
            format!("{q}/i1/thought"),
            format!("{q}/i1/observation"),
            format!("{q}/final"),
        );
        let mut question = types(q, &["Question", "AgentQuestion"]);
        question.push(t(q, RDFS_LABEL, lit("Agent Question")));
        question.push(t(q, &format!("{PROV}startedAtTime"), lit(&iso(self.clock))));
        question.push(t(q, &format!("{TG}query"), lit("What did they say about zoning?")));
        self.emit(Stream::Explain, &explain(q, question));
        self.tick(300);
        self.emit(Stream::Explain, &chunk("thought", "The question is about the meeting's zoning decisions: query the council graph's verified statements about zoning.", false));
        self.tick(500);
        let mut step = types(&i1, &["Analysis", "ToolUse"]);
        step.extend([
            t(&i1, RDFS_LABEL, lit("Analysis: knowledge-query")),
            t(&i1, &format!("{TG}action"), lit("knowledge-query")),
            t(
                &i1,
                &format!("{TG}arguments"),
                lit(r#"{"query": "zoning", "graph": "council", "kind": "a2ap:ProvenanceStatement"}"#),
            ),
            t(&i1, &format!("{TG}toolCandidate"), lit("knowledge-query")),
            t(&i1, &format!("{TG}toolCandidate"), lit("transcript-search")),
            t(&i1, &format!("{TG}stepNumber"), lit("1")),
            t(&i1, &format!("{TG}llmDurationMs"), lit("640")),
            t(&i1, &format!("{PROV}wasDerivedFrom"), iri(q)),
            t(&i1, &format!("{TG}thought"), iri(&thought)),
            t(&thought, RDF_TYPE, iri(&format!("{TG}Reflection"))),
            t(&thought, RDF_TYPE, iri(&format!("{TG}Thought"))),
            t(&thought, RDFS_LABEL, lit("Thought")),
            t(&thought, &format!("{PROV}wasDerivedFrom"), iri(&i1)),
        ]);
        self.emit(Stream::Explain, &explain(&i1, step));
        self.tick(700);
        self.emit(Stream::Explain, &chunk("observation", &format!("{} statements about zoning: Ordinance 2025-31 rezoning 400 Elm Street (approved 4–1), and the Elm Street project's 120 apartments, 18 affordable.", zoning.len()), false));
        self.tick(300);
        let mut seen = types(&obs, &["Observation"]);
        seen.push(t(&obs, RDFS_LABEL, lit("Observation")));
        seen.push(t(&obs, &format!("{PROV}wasDerivedFrom"), iri(&i1)));
        seen.push(t(&obs, &format!("{TG}toolDurationMs"), lit("212")));
        for s in zoning {
            seen.push(t(&obs, &format!("{PROV}wasDerivedFrom"), iri(s)));
        }
        self.emit(Stream::Explain, &explain(&obs, seen));
        self.tick(900);
        self.emit(Stream::Explain, &chunk("answer", "The council approved Ordinance 2025-31 by a 4–1 vote, rezoning the former bus depot at 400 Elm Street from light industrial to mixed use; the project there would bring 120 apartments, 18 of them affordable.", true));
        self.tick(200);
        let mut answer = types(&fin, &["Conclusion", "Answer"]);
        answer.extend([
            t(&fin, RDFS_LABEL, lit("Conclusion")),
            t(&fin, &format!("{PROV}wasDerivedFrom"), iri(&obs)),
            t(&fin, &format!("{TG}terminationReason"), lit("final-answer")),
            t(&fin, &format!("{TG}inToken"), lit("2150")),
            t(&fin, &format!("{TG}outToken"), lit("118")),
            t(&fin, &format!("{TG}llmModel"), lit("gpt-4o")),
        ]);
        for s in zoning {
            answer.push(t(&fin, &format!("{PROV}wasDerivedFrom"), iri(s)));
        }
        self.emit(Stream::Explain, &explain(&fin, answer));
    }
}
