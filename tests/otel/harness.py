"""What every agent run here shares: a tracer provider that exports over OTLP/HTTP (protobuf,
batched, as applications configure it) and keeps the same spans in the SDK's
`InMemorySpanExporter`; the instrumentation of the `openai` client (OpenTelemetry's GenAI
`opentelemetry-instrumentation-openai-v2` with content captured on spans, or Arize's
`openinference-instrumentation-openai`); and the expected-spans JSON written from memory.
"""
import json
import os
import random

from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.id_generator import IdGenerator

GENAI = "genai"
OPENINFERENCE = "openinference"


class SeededIds(IdGenerator):
    """Trace and span ids from a seeded generator, so fixture files keep their ids."""

    def __init__(self, seed):
        self._rng = random.Random(seed)

    def generate_span_id(self):
        return self._rng.getrandbits(64) or 1

    def generate_trace_id(self):
        return self._rng.getrandbits(128) or 1


class Run:
    """One agent run's tracing: `tracer`, `provider`, the in-memory copy in `memory`."""

    def __init__(self, instrumentation, service, otlp=None, seed=None, namespace="provex-tests"):
        if instrumentation == GENAI:
            # The latest GenAI conventions, content (messages, tool arguments and results) as
            # span attributes: `gen_ai.input.messages`, `gen_ai.output.messages`, ...
            os.environ["OTEL_SEMCONV_STABILITY_OPT_IN"] = "gen_ai_latest_experimental"
            os.environ["OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"] = "SPAN_ONLY"
        attrs = {"service.name": service, "service.version": "1.0.0"}
        if namespace:
            attrs["service.namespace"] = namespace
        if seed is not None:  # else the SDK's random one
            attrs["service.instance.id"] = f"{service}-{seed}"
        self.provider = TracerProvider(
            resource=Resource.create(attrs),
            id_generator=SeededIds(seed) if seed is not None else None,
        )
        self.memory = InMemorySpanExporter()
        self.provider.add_span_processor(SimpleSpanProcessor(self.memory))
        if otlp:
            # Small batches: a run's spans reach the endpoint in several requests, children
            # before their parents, as they end.
            exporter = OTLPSpanExporter(endpoint=otlp.rstrip("/") + "/v1/traces")
            self.provider.add_span_processor(
                BatchSpanProcessor(exporter, max_export_batch_size=4, schedule_delay_millis=20))
        self.tracer = self.provider.get_tracer("provex.tests.agents", "1.0.0")
        if instrumentation == GENAI:
            from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor
        else:
            from openinference.instrumentation.openai import OpenAIInstrumentor
        self.instrumentor = OpenAIInstrumentor()
        self.instrumentor.instrument(tracer_provider=self.provider)

    def finish(self, expected_path):
        """Flushes the exporter and writes the in-memory spans as expected-spans JSON."""
        self.provider.force_flush()
        spans = [span_dict(s) for s in self.memory.get_finished_spans()]
        self.provider.shutdown()
        self.instrumentor.uninstrument()
        with open(expected_path, "w", encoding="utf-8") as out:
            json.dump({"spans": spans}, out, indent=1, ensure_ascii=False)
            out.write("\n")
        return spans


def _value(v):
    return list(v) if isinstance(v, tuple) else v


def _attrs(attributes):
    return {k: _value(v) for k, v in (attributes or {}).items()}


def span_dict(s):
    """One finished SDK span as plain JSON. `kind` is OTLP's enum number (the SDK's + 1)."""
    return {
        "trace_id": f"{s.context.trace_id:032x}",
        "span_id": f"{s.context.span_id:016x}",
        "parent_span_id": f"{s.parent.span_id:016x}" if s.parent else None,
        "name": s.name,
        "kind": s.kind.value + 1,
        "kind_name": s.kind.name.lower(),
        "start_ns": s.start_time,
        "end_ns": s.end_time,
        "status": {"code": s.status.status_code.name.lower(), "message": s.status.description},
        "attributes": _attrs(s.attributes),
        "events": [{"name": e.name, "time_ns": e.timestamp, "attributes": _attrs(e.attributes)}
                   for e in s.events],
        "links": [{"trace_id": f"{l.context.trace_id:032x}", "span_id": f"{l.context.span_id:016x}",
                   "attributes": _attrs(l.attributes)} for l in s.links],
        "resource": _attrs(s.resource.attributes),
        "scope": {"name": s.instrumentation_scope.name, "version": s.instrumentation_scope.version},
    }


def current_context(span=None):
    """The span context of `span` (else the current span), for links."""
    return (span or trace.get_current_span()).get_span_context()
