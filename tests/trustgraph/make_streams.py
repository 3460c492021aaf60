#!/usr/bin/env python3
"""Writes TrustGraph explainability streams made with TrustGraph's own code (the PyPI package
`trustgraph-base`): the provenance triples from `trustgraph.provenance`, wrapped in
`AgentResponse` messages and put on the wire by
`trustgraph.messaging.translators.agent.AgentResponseTranslator`, as a gateway sends them.

    make_streams.py OUT_DIR

writes, one JSON object a line:
- react.jsonl: a ReAct agent session (question, two iterations, one tool failing, the
  answer), bare AgentResponse messages with `message_type`, thoughts, observations and the
  answer text between the explain messages;
- graphrag.jsonl: a GraphRAG session (question, grounding concepts, exploration, focus with
  selected edges as quoted triples with reasoning and score, synthesis), each message in the
  `{"id", "response", "complete"}` envelope;
- docrag.jsonl: a DocRAG session (question, grounding, exploration, chunk selection,
  synthesis), with the older `chunk_type` spelling; docrag-dash.jsonl the same with
  `chunk-type`.
"""
import json
import sys
from pathlib import Path

from trustgraph.schema import AgentResponse
from trustgraph.messaging.translators.agent import AgentResponseTranslator
from trustgraph.provenance import (
    agent_session_uri, agent_iteration_uri, agent_thought_uri, agent_observation_uri,
    agent_final_uri, question_uri, grounding_uri, exploration_uri, focus_uri, synthesis_uri,
    docrag_question_uri, docrag_grounding_uri, docrag_exploration_uri, docrag_focus_uri,
    docrag_synthesis_uri,
)
from trustgraph.provenance import triples as T
from trustgraph.provenance import agent as A

ENC = AgentResponseTranslator()
GRAPH = "urn:graph:retrieval"


def explain(uri, triples):
    return ENC.encode(AgentResponse(message_type="explain", explain_id=uri, explain_graph=GRAPH,
                                    explain_triples=T.set_graph(triples, GRAPH)))


def chunk(kind, text, end_of_dialog=False, **tokens):
    return ENC.encode(AgentResponse(message_type=kind, content=text, end_of_message=True,
                                    end_of_dialog=end_of_dialog, **tokens))


def react(session="3f0c2a5e-react"):
    q = agent_session_uri(session)
    i1, i2 = agent_iteration_uri(session, 1), agent_iteration_uri(session, 2)
    out = [
        explain(q, A.agent_session_triples(q, "What did they say about zoning?", "2025-10-14T18:40:00Z")),
        chunk("thought", "I should look up the council's statements about zoning."),
        explain(i1, A.agent_iteration_triples(
            i1, question_uri=q, action="knowledge-query", arguments={"question": "zoning", "limit": 5},
            thought_uri=agent_thought_uri(session, 1), tool_candidates=["knowledge-query", "web-search"],
            step_number=1, llm_duration_ms=812, in_token=1200, out_token=64, model="gpt-4o")),
        chunk("observation", "3 statements about the zoning variance on Elm Street."),
        explain(agent_observation_uri(session, 1), A.agent_observation_triples(
            agent_observation_uri(session, 1), i1, tool_duration_ms=143)),
        chunk("thought", "Check the planning archive too."),
        explain(i2, A.agent_iteration_triples(
            i2, previous_uri=agent_observation_uri(session, 1), action="web-search",
            arguments={"q": "Riverton zoning variance"}, thought_uri=agent_thought_uri(session, 2),
            step_number=2, llm_duration_ms=540)),
        chunk("observation", "The search tool timed out."),
        explain(agent_observation_uri(session, 2), A.agent_observation_triples(
            agent_observation_uri(session, 2), i2, tool_duration_ms=30000, tool_error="timeout after 30 s")),
        chunk("answer", "They approved the Elm Street zoning variance 4–1.", end_of_dialog=True,
              in_token=2400, out_token=96, model="gpt-4o"),
        explain(agent_final_uri(session), A.agent_final_triples(
            agent_final_uri(session), previous_uri=agent_observation_uri(session, 2),
            termination_reason="final-answer", in_token=2400, out_token=96, model="gpt-4o")),
    ]
    return out


def graphrag(session="7b1d-graphrag"):
    q, g, e, f, s = (question_uri(session), grounding_uri(session), exploration_uri(session),
                     focus_uri(session), synthesis_uri(session))
    edges = [
        {"edge": ("http://riverton.gov/e/elm-street", "http://riverton.gov/p/zonedAs",
                  "http://riverton.gov/e/r2"), "reasoning": "names the zoning of the lot", "score": 0.91},
        {"edge": ("http://riverton.gov/e/council", "http://riverton.gov/p/approved",
                  "http://riverton.gov/e/variance-31"), "reasoning": "the decision itself", "score": 0.87},
    ]
    msgs = [
        explain(q, T.question_triples(q, "Which zoning changes were approved?", "2025-10-14T18:41:00Z")),
        explain(g, T.grounding_triples(g, q, ["zoning", "variance", "Elm Street"])),
        explain(e, T.exploration_triples(e, g, 42, ["http://riverton.gov/e/elm-street"])),
        explain(f, T.focus_triples(f, e, edges, session_id=session, model="gpt-4o")),
        chunk("answer", "The Elm Street variance (R2) was approved.", end_of_dialog=True),
        explain(s, T.synthesis_triples(s, f, model="gpt-4o")),
    ]
    return [{"id": f"req-{session}", "response": m, "complete": i == len(msgs) - 1} for i, m in enumerate(msgs)]


def docrag(session="c9e2-docrag", key="chunk_type"):
    q, g, e, f, s = (docrag_question_uri(session), docrag_grounding_uri(session),
                     docrag_exploration_uri(session), docrag_focus_uri(session), docrag_synthesis_uri(session))
    msgs = [
        explain(q, T.docrag_question_triples(q, "When does the bike lane open?", "2025-10-14T18:42:00Z")),
        explain(g, T.grounding_triples(g, q, ["bike lane"])),
        explain(e, T.docrag_exploration_triples(e, g, 12, ["urn:chunk:a", "urn:chunk:b"])),
        explain(f, T.docrag_chunk_selection_triples(f, e, [{"chunk_id": "urn:chunk:a", "score": 0.97}], session)),
        chunk("answer", "In April.", end_of_dialog=True),
        explain(s, T.docrag_synthesis_triples(s, f)),
    ]
    for m in msgs:
        m[key] = m.pop("message_type")
    return msgs


def main(out):
    out.mkdir(parents=True, exist_ok=True)
    for name, lines in [("react", react()), ("graphrag", graphrag()), ("docrag", docrag()),
                        ("docrag-dash", docrag("d4f1-docrag", "chunk-type"))]:
        (out / f"{name}.jsonl").write_text("".join(json.dumps(l) + "\n" for l in lines))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
