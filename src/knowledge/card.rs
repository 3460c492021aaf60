//! The A2A agent card of a graph's knowledge endpoint (docs/FORMATS.md, "Knowledge-graph statements"): a complete `AgentCard`
//! of the A2A draft the knowledge-graph extension extends, advertising the `knowledge/*` methods.

use serde_json::{json, Value};

/// The card of `/a2a/<graph>`; `base` is the server's origin (`http://host:port`).
pub fn agent_card(base: &str, graph: &str) -> Value {
    let url = format!("{}/a2a/{}", base.trim_end_matches('/'), encode(graph));
    json!({
        "name": format!("Provex knowledge graph {graph}"),
        "description": format!(
            "The knowledge graph `{graph}` kept by Provex in FalkorDB under W3C PROV: query it with GraphQL \
             (knowledge/query), propose statements (knowledge/update, checked against the server's alignment \
             rules) and follow its changes (knowledge/subscribe). Removed and replaced statements stay queryable as history."
        ),
        "url": url,
        "provider": {"organization": "Provex", "url": "https://github.com/provex"},
        "version": env!("CARGO_PKG_VERSION"),
        "documentationUrl": format!("{}/graphql?graph={}", base.trim_end_matches('/'), encode(graph)),
        "capabilities": {
            "streaming": true,
            "pushNotifications": false,
            "stateTransitionHistory": false,
            "knowledgeGraph": true,
            "knowledgeGraphQueryLanguages": ["graphql"]
        },
        "authentication": {"schemes": ["Bearer"]},
        "defaultInputModes": ["application/json", "text/plain"],
        "defaultOutputModes": ["application/json"],
        "skills": [{
            "id": "knowledge-graph",
            "name": "Knowledge graph",
            "description": "Statements (subject, predicate, object) with certainty and provenance: GraphQL queries \
                            (`triples`, and A2AP's statementsAbout, evidenceChain, agentReputation, consensusOn), \
                            updates (add, remove, replace) with justification, and a subscription to changes.",
            "tags": ["knowledge-graph", "graphql", "provenance", "a2a"],
            "examples": ["query { triples(subject: \"ex:Riverton\") { subject { id } predicate { id } object { id value } certainty } }"],
            "inputModes": ["application/json"],
            "outputModes": ["application/json"]
        }]
    })
}

/// The graph name as one URL path segment.
fn encode(graph: &str) -> String {
    form_urlencoded::byte_serialize(graph.as_bytes()).collect::<String>().replace('+', "%20")
}
