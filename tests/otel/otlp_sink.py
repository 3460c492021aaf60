#!/usr/bin/env python3
"""An OTLP/HTTP trace endpoint that records what exporters send, as OTLP JSON lines (the
form the OpenTelemetry Collector's file exporter writes), to make fixture files.

`POST /v1/traces` or `POST /{name}/v1/traces` takes an `ExportTraceServiceRequest` as
`application/x-protobuf` (optionally gzip) and appends it, in OTLP's JSON mapping, as one
line to `OUT_DIR/{name}.jsonl` (`otel.jsonl` without a name). The JSON mapping: hex trace
and span ids, lowerCamelCase keys, 64-bit integers as strings, enums as integers. It answers
200 with an empty `ExportTraceServiceResponse`, as a collector does.

    otlp_sink.py OUT_DIR [PORT]

Also importable: `serve(out_dir)` starts it on a thread and returns (server, base_url).
"""
import base64
import gzip
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from google.protobuf.json_format import MessageToDict
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

_LOCK = threading.Lock()


def _hex(b64):
    return base64.b64decode(b64).hex()


def to_otlp_json(request):
    """`request` (an ExportTraceServiceRequest) in OTLP's JSON mapping, as a dict."""
    doc = MessageToDict(request, use_integers_for_enums=True)
    for rs in doc.get("resourceSpans", []):
        for ss in rs.get("scopeSpans", []):
            for span in ss.get("spans", []):
                for key in ("traceId", "spanId", "parentSpanId"):
                    if key in span:
                        span[key] = _hex(span[key])
                for link in span.get("links", []):
                    for key in ("traceId", "spanId"):
                        if key in link:
                            link[key] = _hex(link[key])
    return doc


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    out_dir = Path(".")

    def log_message(self, *_):
        pass

    def _answer(self, status, body, ctype="application/x-protobuf"):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        parts = [p for p in self.path.split("?")[0].split("/") if p]
        if parts[-2:] != ["v1", "traces"] or len(parts) > 3:
            return self._answer(404, b"not an OTLP traces path", "text/plain")
        name = parts[0] if len(parts) == 3 else "otel"
        if self.headers.get("Content-Encoding", "").lower() == "gzip":
            body = gzip.decompress(body)
        if not self.headers.get("Content-Type", "").startswith("application/x-protobuf"):
            return self._answer(415, b"protobuf only", "text/plain")
        request = ExportTraceServiceRequest()
        try:
            request.ParseFromString(body)
        except Exception as e:  # protobuf's DecodeError
            return self._answer(400, str(e).encode(), "text/plain")
        line = json.dumps(to_otlp_json(request), separators=(",", ":"), ensure_ascii=False)
        with _LOCK, open(self.out_dir / f"{name}.jsonl", "a", encoding="utf-8") as out:
            out.write(line + "\n")
        self._answer(200, ExportTraceServiceResponse().SerializeToString())


def serve(out_dir, port=0):
    handler = type("SinkHandler", (Handler,), {"out_dir": Path(out_dir)})
    server = ThreadingHTTPServer(("127.0.0.1", port), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


if __name__ == "__main__":
    Path(sys.argv[1]).mkdir(parents=True, exist_ok=True)
    srv, url = serve(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 0)
    print(url, flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        srv.shutdown()
