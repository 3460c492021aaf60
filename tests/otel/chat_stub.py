#!/usr/bin/env python3
"""A stand-in OpenAI-compatible chat endpoint (stdlib only), so the real `openai` client and
its real OpenTelemetry instrumentations run without a network.

`POST /v1/chat/completions` answers deterministically from the request alone:
- a request offering tools whose conversation has no `tool` message yet gets a call of the
  first tool, with arguments derived from the last user message;
- otherwise the answer is text: `ANSWER_PREFIX` + the last message's content (a tool
  result, or the user's question), so an answer carries what fed it;
- the model `unavailable` gets a 503 with an OpenAI-style error body (a failing call).

    chat_stub.py [PORT]    serves until interrupted (PORT 0 or absent: a free port, printed)

Also importable: `serve(port, script)` starts it on a thread and returns (server, base_url);
`script(request)` may return `(response model, answer text)` for scripted answers.
"""
import hashlib
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ANSWER_PREFIX = "Answer: "
CREATED = 1764115200  # fixed, so answers are byte-identical run to run


def _digest(value):
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()[:24]


def _words(messages):
    return sum(len(str(m.get("content") or "").split()) for m in messages)


def _text(content):
    if isinstance(content, list):  # content parts
        return " ".join(p.get("text", "") for p in content if isinstance(p, dict))
    return content or ""


def complete(request, script=None):
    """The chat completion answering `request` (a dict), or None for a failing model.
    `script(request)`, when given, may return `(response model, answer text)` to answer with."""
    model = request.get("model", "stub-model")
    scripted = script(request) if script else None
    if model == "unavailable":
        return None
    messages = request.get("messages", [])
    tools = request.get("tools") or []
    last = messages[-1] if messages else {"content": ""}
    has_tool_result = any(m.get("role") == "tool" for m in messages)
    if scripted:
        message = {"role": "assistant", "content": scripted[1]}
        finish = "stop"
    elif tools and not has_tool_result:
        fn = tools[0]["function"]
        question = _text(next((m.get("content") for m in reversed(messages) if m.get("role") == "user"), ""))
        args = {"query": question}
        message = {
            "role": "assistant",
            "content": None,
            "tool_calls": [{
                "id": "call_" + _digest([fn["name"], args])[:16],
                "type": "function",
                "function": {"name": fn["name"], "arguments": json.dumps(args)},
            }],
        }
        finish = "tool_calls"
    else:
        message = {"role": "assistant", "content": ANSWER_PREFIX + _text(last.get("content"))}
        finish = "stop"
    prompt_tokens = _words(messages) + 3
    completion_tokens = len(json.dumps(message).split())
    return {
        "id": "chatcmpl-" + _digest(request),
        "object": "chat.completion",
        "created": CREATED,
        "model": scripted[0] if scripted else model + "-2026-01-01",
        "system_fingerprint": "fp_stub",
        "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    script = None

    def log_message(self, *_):
        pass

    def _send(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        try:
            request = json.loads(self.rfile.read(length) or b"{}")
        except ValueError:
            return self._send(400, {"error": {"message": "body is not JSON", "type": "invalid_request_error"}})
        if self.path.rstrip("/") != "/v1/chat/completions":
            return self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
        answer = complete(request, type(self).script)
        if answer is None:
            return self._send(503, {"error": {"message": "The model is overloaded.", "type": "server_error",
                                              "code": "model_unavailable"}})
        self._send(200, answer)


def serve(port=0, script=None):
    handler = type("StubHandler", (Handler,), {"script": staticmethod(script) if script else None})
    server = ThreadingHTTPServer(("127.0.0.1", port), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/v1"


if __name__ == "__main__":
    srv, url = serve(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
    print(url, flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        srv.shutdown()
