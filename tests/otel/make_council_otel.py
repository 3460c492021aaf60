#!/usr/bin/env python3
"""Makes examples/council/council-otel.jsonl: the council demo's summariser's own
OpenTelemetry spans, made with the real SDK, `openai` client and GenAI instrumentation
(`opentelemetry-instrumentation-openai-v2`, content on spans) against the stand-in chat
endpoint, exported over OTLP/HTTP to the capture sink (OTLP JSON lines).

The run is the one the demo's A2A runtime events describe (council-events.jsonl): the agent
span carries the summariser's agent id, its A2A task id (`a2a.task.id`) and context id
(`gen_ai.conversation.id`); it fetches the transcript (an `execute_tool` span), makes its LLM
call with the prompt the events record, whose answer holds the text of the summariser's claims
(council-a2ap.jsonl), and publishes each claim as its statement (a span naming the statement's
`urn:uuid:`, linked to the LLM call that wrote it). The SDK's clock is set to the events'
timestamps, so the spans sit on the same timeline and the file is the same on every run.

    make_council_otel.py [OUT_FILE]     (default: examples/council/council-otel.jsonl)
"""
import json
import shutil
import sys
import tempfile
from pathlib import Path

sys.dont_write_bytecode = True

import opentelemetry.sdk.trace as sdk_trace  # noqa: E402
from opentelemetry.trace import Link  # noqa: E402

import chat_stub  # noqa: E402
import otlp_sink  # noqa: E402
from agents import client  # noqa: E402
from harness import GENAI, Run  # noqa: E402

HERE = Path(__file__).resolve().parent
COUNCIL = HERE.parent.parent / "examples" / "council"


class Clock:
    """The SDK's clock: set to a timestamp, then one microsecond further at every reading."""

    def __init__(self):
        self.now = 0

    def at(self, ms):
        self.now = max(self.now, ms * 1_000_000)

    def __call__(self):
        self.now += 1000
        return self.now


def read_run():
    """The summariser's task in the runtime events and its claims in the signed statements."""
    events = [json.loads(line) for line in (COUNCIL / "council-events.jsonl").read_text().splitlines()]
    booted = next(e["Global"] for e in events if "Global" in e and "AgentBooted" in e["Global"]["data"])
    agent = booted["data"]["AgentBooted"]
    tasks = [e["Task"] for e in events if "Task" in e]
    created = next(t for t in tasks if t["data"].get("TaskCreated", {}).get("agent_id") == agent["agent_id"])
    mine = [t for t in tasks if t["task_id"] == created["task_id"]]

    def first(kind):
        return next(t for t in mine if kind in t["data"])

    received = first("MessageReceived")
    run = {
        "agent": agent,
        "task_id": created["task_id"],
        "context_id": created["context_id"],
        "request": received["data"]["MessageReceived"]["content"][0],
        "statements_by": received["data"]["MessageReceived"]["metadata"]["a2ap_agent"],
        "document": received["data"]["MessageReceived"]["metadata"]["a2ap_document"],
        "tool": first("ToolCallStarted"), "tool_done": first("ToolCallCompleted"),
        "llm": first("LlmCallStarted"), "llm_done": first("LlmCallCompleted"),
        "artifacts": [(t["timestamp_ms"], t["data"]["TaskArtifactGenerated"]["artifact_id"])
                      for t in mine if "TaskArtifactGenerated" in t["data"]],
        "working": next(t for t in mine if t["data"].get("TaskStatusChanged", {}).get("new_status") == "working"),
        "completed": next(t for t in mine if t["data"].get("TaskStatusChanged", {}).get("new_status") == "completed"),
    }
    docs = [json.loads(line) for line in (COUNCIL / "council-a2ap.jsonl").read_text().splitlines()]
    claims = {d["@id"]: d["claim"]["text"] for d in docs
              if "claim" in d and d["agent"]["@id"] == run["statements_by"]}
    run["claims"] = [(ts, urn, claims[urn]) for ts, urn in run["artifacts"]]
    transcript = next(d for d in docs if d.get("@id") == run["document"])
    run["transcript"] = transcript["text"]
    return run


def summarise(run, tracing, chat, clock, handler):
    from opentelemetry.util.genai.types import InputMessage, OutputMessage, Text

    agent = run["agent"]
    clock.at(run["working"]["timestamp_ms"])
    answer = "\n".join(f"{i}. {text}" for i, (_, _, text) in enumerate(run["claims"], 1))
    with handler.invoke_local_agent(agent_name=agent["agent_type"], request_model=run["llm"]["data"]["LlmCallStarted"]["model"]) as inv:
        inv.agent_id = agent["agent_id"]
        inv.agent_version = agent["agent_version"]
        inv.agent_description = "Summarises city council meetings into signed claims with evidence"
        inv.conversation_id = run["context_id"]
        inv.attributes["a2a.task.id"] = run["task_id"]
        inv.input_messages = [InputMessage(role="user", parts=[Text(content=run["request"])])]

        tool = run["tool"]["data"]["ToolCallStarted"]
        clock.at(run["tool"]["timestamp_ms"])
        with handler.tool(tool["tool_name"], tool_type="function",
                          tool_description="Fetches a meeting's transcript") as t:
            t.arguments = tool["args"]
            clock.at(run["tool_done"]["timestamp_ms"])
            t.tool_result = {"document": run["document"], "text": run["transcript"]}

        llm = run["llm"]["data"]["LlmCallStarted"]
        clock.at(run["llm"]["timestamp_ms"])
        chat.chat.completions.create(model=llm["model"], messages=llm["prompt"]["messages"])
        completion = tracing.memory.get_finished_spans()[-1]

        for ts, urn, text in run["claims"]:
            clock.at(ts)
            with tracing.tracer.start_as_current_span(
                    "publish_statement", links=[Link(completion.context, {"link.reason": "claim_text"})],
                    attributes={"a2a.task.id": run["task_id"], "a2a.artifact.id": urn,
                                "a2ap.statement.id": urn, "a2ap.claim.text": text}):
                clock.at(ts + 120)
        clock.at(run["completed"]["timestamp_ms"])
        inv.output_messages = [OutputMessage(role="assistant", parts=[Text(content=answer)], finish_reason="stop")]
    return answer


def main():
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else COUNCIL / "council-otel.jsonl"
    run = read_run()
    clock = Clock()
    sdk_trace.time_ns = clock  # the SDK reads its clock here (span start, end, events)
    answer = "\n".join(f"{i}. {text}" for i, (_, _, text) in enumerate(run["claims"], 1))
    model = f"{run['llm']['data']['LlmCallStarted']['model']}-{run['agent']['agent_version']}"

    def script(_request):
        clock.at(run["llm_done"]["timestamp_ms"])  # the model's eight seconds
        return model, answer

    _, chat_url = chat_stub.serve(script=script)
    with tempfile.TemporaryDirectory() as tmp:
        server, base = otlp_sink.serve(tmp)
        tracing = Run(GENAI, run["agent"]["agent_type"], otlp=f"{base}/council", seed=2810,
                      namespace="riverton-council")
        from opentelemetry.util.genai.handler import get_telemetry_handler

        summarise(run, tracing, client(chat_url), clock, get_telemetry_handler(tracer_provider=tracing.provider))
        spans = tracing.finish(Path(tmp) / "council.expected.json")
        server.shutdown()
        shutil.copy(Path(tmp) / "council.jsonl", out)
    print(f"{out}: {len(spans)} spans")


if __name__ == "__main__":
    main()
