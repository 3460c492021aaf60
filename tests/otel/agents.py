#!/usr/bin/env python3
"""Small agents made with the real `openai` client and its real OpenTelemetry
instrumentations, run against the stand-in chat endpoint (chat_stub.py), exporting their spans
over OTLP/HTTP and writing the same spans, from the SDK's in-memory exporter, as expected JSON.

    agents.py SCENARIO --otlp BASE --expected OUT.json [--chat URL] [--seed N]

BASE is what `OTEL_EXPORTER_OTLP_ENDPOINT` would be (`/v1/traces` is appended), for example
`http://127.0.0.1:8080/otlp/mygraph`. Without --chat the stand-in endpoint runs in-process.
Scenarios:
- genai-tool-agent (GenAI conventions): an agent's two chat calls with a tool call between
  them; the agent span carries `a2a.task.id` and `gen_ai.conversation.id`.
- openinference-agents (OpenInference): a triage agent hands off to a researcher (two LLM
  calls and a tool between them) and a writer; AGENT and TOOL spans with `graph.node.id` /
  `graph.node.parent_id`, all in one session.
  `--forecast` changes what its weather tool answers (two runs that differ by one answer).
- links-and-failure (GenAI conventions): two reviewers in traces of their own, a merger in a
  third whose span links to both; its tool fails (status error, exception event) and its
  first chat call fails (the endpoint answers 503) before one that succeeds.
- repeated-message (GenAI conventions): a user who says the same thing twice; the second
  chat call holds that message at two places of its input, and the first call holds it too.
"""
import argparse
import json
import sys

sys.dont_write_bytecode = True

import openai  # noqa: E402
from opentelemetry import context as otel_context  # noqa: E402
from opentelemetry.trace import Link, SpanKind  # noqa: E402

import chat_stub  # noqa: E402
from harness import GENAI, OPENINFERENCE, Run, current_context  # noqa: E402

MODEL = "gpt-4o-mini"

WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather of a city",
        "parameters": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
    },
}
SEARCH_TOOL = {
    "type": "function",
    "function": {
        "name": "search_docs",
        "description": "Search the team's documents",
        "parameters": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
    },
}


# What the weather tool answers; `--forecast` changes it, so a second run of the same agent
# gets one different tool result and, from it, a different final answer.
FORECAST = {"forecast": "sunny", "celsius": 21}


def get_weather(query):
    return {"city": "Lisbon", **FORECAST, "asked": query}


def search_docs(query):
    return {"hits": ["Provex reads OpenTelemetry spans", "Span links make a DAG"], "query": query}


def client(chat_url):
    return openai.OpenAI(base_url=chat_url, api_key="sk-test", max_retries=0)


def genai_tool_agent(run, chat):
    from opentelemetry.util.genai.handler import get_telemetry_handler
    from opentelemetry.util.genai.types import InputMessage, OutputMessage, Text

    handler = get_telemetry_handler(tracer_provider=run.provider)
    question = "Should I take an umbrella in Lisbon today?"
    system = {"role": "system", "content": "You are a travel planner. Use tools for facts."}
    user = {"role": "user", "content": question}
    with handler.invoke_local_agent(agent_name="travel-planner", request_model=MODEL) as agent:
        agent.agent_id = "agent-travel-planner-01"
        agent.agent_description = "Plans a day out"
        agent.conversation_id = "conv-travel-0001"
        agent.attributes["a2a.task.id"] = "task-travel-0001"
        agent.input_messages = [InputMessage(role="user", parts=[Text(content=question)])]
        first = chat.chat.completions.create(model=MODEL, messages=[system, user], tools=[WEATHER_TOOL])
        call = first.choices[0].message.tool_calls[0]
        args = json.loads(call.function.arguments)
        with handler.tool(call.function.name, tool_call_id=call.id, tool_type="function",
                          tool_description="Current weather of a city") as tool:
            tool.arguments = args
            result = get_weather(**args)
            tool.tool_result = result
        assistant = first.choices[0].message.model_dump(exclude_none=True)
        tool_message = {"role": "tool", "tool_call_id": call.id, "content": json.dumps(result)}
        second = chat.chat.completions.create(
            model=MODEL, messages=[system, user, assistant, tool_message], tools=[WEATHER_TOOL])
        answer = second.choices[0].message.content
        agent.output_messages = [OutputMessage(role="assistant", parts=[Text(content=answer)],
                                               finish_reason="stop")]


def openinference_agents(run, chat):
    from openinference.instrumentation import OITracer, TraceConfig, using_session

    tracer = OITracer(run.tracer, config=TraceConfig())
    request = "Write a two-line note on how Provex reads agent traces."
    with using_session("session-oi-0001"):
        with tracer.start_as_current_span("triage", openinference_span_kind="agent") as triage:
            triage.set_attributes({"agent.name": "triage", "graph.node.id": "triage",
                                   "graph.node.name": "Triage"})
            triage.set_input(request)
            plan = chat.chat.completions.create(model=MODEL, messages=[
                {"role": "system", "content": "Route the request to research, then writing."},
                {"role": "user", "content": request}]).choices[0].message.content

            with tracer.start_as_current_span("researcher", openinference_span_kind="agent") as res:
                res.set_attributes({"agent.name": "researcher", "graph.node.id": "researcher",
                                    "graph.node.name": "Researcher", "graph.node.parent_id": "triage"})
                res.set_input(plan)
                messages = [{"role": "system", "content": "Research with search_docs."},
                            {"role": "user", "content": plan}]
                first = chat.chat.completions.create(model=MODEL, messages=messages, tools=[SEARCH_TOOL])
                call = first.choices[0].message.tool_calls[0]
                with tracer.start_as_current_span("search_docs", openinference_span_kind="tool") as tool:
                    tool.set_tool(name="search_docs", description="Search the team's documents",
                                  parameters=call.function.arguments)
                    tool.set_attribute("tool_call.id", call.id)
                    tool.set_input(call.function.arguments, mime_type="application/json")
                    found = search_docs(**json.loads(call.function.arguments))
                    tool.set_output(json.dumps(found), mime_type="application/json")
                messages += [first.choices[0].message.model_dump(exclude_none=True),
                             {"role": "tool", "tool_call_id": call.id, "content": json.dumps(found)}]
                notes = chat.chat.completions.create(model=MODEL, messages=messages,
                                                     tools=[SEARCH_TOOL]).choices[0].message.content
                res.set_output(notes)

            with tracer.start_as_current_span("writer", openinference_span_kind="agent") as writer:
                writer.set_attributes({"agent.name": "writer", "graph.node.id": "writer",
                                       "graph.node.name": "Writer", "graph.node.parent_id": "triage"})
                writer.set_input(notes)
                note = chat.chat.completions.create(model=MODEL, messages=[
                    {"role": "system", "content": "Write two lines."},
                    {"role": "user", "content": notes}]).choices[0].message.content
                writer.set_output(note)
            triage.set_output(note)


def _reviewer(run, chat, handler, name, focus, draft):
    from opentelemetry.util.genai.types import InputMessage, OutputMessage, Text

    text = f"Review the {focus} of: {draft}"
    # A trace of its own: started from an empty context.
    token = otel_context.attach(otel_context.Context())
    try:
        with handler.invoke_local_agent(agent_name=name, request_model=MODEL) as agent:
            agent.agent_id = f"agent-{name}"
            agent.input_messages = [InputMessage(role="user", parts=[Text(content=text)])]
            verdict = chat.chat.completions.create(model=MODEL, messages=[
                {"role": "system", "content": f"You are {name}. Review the draft."},
                {"role": "user", "content": text}]).choices[0].message.content
            agent.output_messages = [OutputMessage(role="assistant", parts=[Text(content=verdict)],
                                                   finish_reason="stop")]
            return current_context(agent.span), verdict
    finally:
        otel_context.detach(token)


class ReportMissing(RuntimeError):
    pass


def fetch_report(report_id):
    raise ReportMissing(f"report {report_id} is not in the archive")


def links_and_failure(run, chat):
    from opentelemetry.util.genai.handler import get_telemetry_handler

    handler = get_telemetry_handler(tracer_provider=run.provider)
    draft = "Draft: span links make the agent graph a DAG."
    a_ctx, a_verdict = _reviewer(run, chat, handler, "reviewer-a", "accuracy", draft)
    b_ctx, b_verdict = _reviewer(run, chat, handler, "reviewer-b", "clarity", draft)
    links = [Link(a_ctx, {"link.reason": "review", "reviewer": "a"}),
             Link(b_ctx, {"link.reason": "review", "reviewer": "b"})]
    token = otel_context.attach(otel_context.Context())
    try:
        with run.tracer.start_as_current_span(
                "invoke_agent merger", kind=SpanKind.INTERNAL, links=links,
                attributes={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.id": "agent-merger",
                            "gen_ai.agent.name": "merger", "gen_ai.request.model": MODEL}):
            try:
                with run.tracer.start_as_current_span(
                        "execute_tool fetch_report",
                        attributes={"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "fetch_report",
                                    "gen_ai.tool.type": "function", "gen_ai.tool.call.id": "call_fetch_0001",
                                    "gen_ai.tool.call.arguments": json.dumps({"report_id": "r-42"})}) as tool:
                    try:
                        fetch_report("r-42")
                    except ReportMissing as e:
                        tool.set_attribute("error.type", type(e).__qualname__)
                        raise
            except ReportMissing:
                pass
            messages = [{"role": "system", "content": "Merge the reviews."},
                        {"role": "user", "content": a_verdict},
                        {"role": "user", "content": b_verdict}]
            try:
                chat.chat.completions.create(model="unavailable", messages=messages)
            except openai.APIStatusError:
                pass
            chat.chat.completions.create(model=MODEL, messages=messages)
    finally:
        otel_context.detach(token)


def repeated_message(run, chat):
    system = {"role": "system", "content": "Tell a story, a little at a time."}
    more = {"role": "user", "content": "Go on."}
    first = chat.chat.completions.create(model=MODEL, messages=[system, more])
    reply = first.choices[0].message.model_dump(exclude_none=True)
    chat.chat.completions.create(model=MODEL, messages=[system, more, reply, more])


SCENARIOS = {
    "genai-tool-agent": (GENAI, "travel-planner-app", genai_tool_agent),
    "openinference-agents": (OPENINFERENCE, "writing-crew", openinference_agents),
    "links-and-failure": (GENAI, "review-board", links_and_failure),
    "repeated-message": (GENAI, "storyteller", repeated_message),
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("scenario", choices=sorted(SCENARIOS))
    parser.add_argument("--otlp", help="OTLP/HTTP base URL (`/v1/traces` is appended)")
    parser.add_argument("--expected", required=True, help="where to write the expected spans")
    parser.add_argument("--chat", help="chat endpoint base URL (default: the stand-in, in-process)")
    parser.add_argument("--seed", type=int, help="seed of trace and span ids (default: random)")
    parser.add_argument("--forecast", help="what the weather tool answers (default: sunny, 21 C), "
                        "as FORECAST:CELSIUS, e.g. rain:14")
    args = parser.parse_args()
    if args.forecast:
        forecast, celsius = args.forecast.split(":")
        FORECAST.update(forecast=forecast, celsius=int(celsius))
    instrumentation, service, agent = SCENARIOS[args.scenario]
    chat_url = args.chat
    if not chat_url:
        _, chat_url = chat_stub.serve()
    run = Run(instrumentation, service, otlp=args.otlp, seed=args.seed)
    agent(run, client(chat_url))
    spans = run.finish(args.expected)
    print(f"{args.scenario}: {len(spans)} spans")


if __name__ == "__main__":
    main()
