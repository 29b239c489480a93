"""A local OpenAI-compatible Chat Completions server for tests and benchmarks.

Real HTTP on 127.0.0.1 (ephemeral port, one thread per connection, keep-alive), so tests
drive the real `openai` SDK. It scripts answers and injects faults:

- answers: `server.script[substring] = reply` matches the last user message; or the user
  message itself may be a directive `SCRIPT:{"content": ..., "tool_calls": [...]}`; else a
  default text answer. A reply is `{"content": str}` and/or
  `{"tool_calls": [{"name": ..., "arguments": {...}}]}`.
- faults: `server.fail(match, [kinds...])` makes the next matching requests fail in that
  order; `fault_rate` fails any request at random. Kinds: "429" (with `Retry-After`), "500",
  "503", "timeout" (answers after `hang_s`), "reset" (connection reset), "malformed" (non-JSON
  body), "empty" (no choices), "400".
- `latency` delays every answer; `requests` records every request body for assertions.

Run standalone (for benchmarks, so its CPU is not the client's):
`python -m tests.support.openai_server --latency 0.2 --fault-rate 0.2` prints the port.
"""

from __future__ import annotations

import argparse
import json
import random
import socket
import struct
import sys
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

FAULT_KINDS = ("429", "500", "503", "timeout", "reset", "malformed", "empty")
Reply = dict[str, Any]


def _last_user_text(body: dict[str, Any]) -> str:
    for message in reversed(body.get("messages") or []):
        if isinstance(message, dict) and message.get("role") == "user":
            return str(message.get("content") or "")
    return ""


class _QuietHTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256

    def handle_error(self, request: Any, client_address: Any) -> None:
        exc = sys.exc_info()[1]
        if isinstance(exc, (ConnectionError, TimeoutError)):
            return  # the client gave up (timeout test) or we reset on purpose
        super().handle_error(request, client_address)


class OpenAIServer:
    """The scripted server; use as a context manager or `start()` / `stop()`."""

    def __init__(
        self,
        *,
        latency: float = 0.0,
        fault_rate: float = 0.0,
        fault_kinds: tuple[str, ...] = FAULT_KINDS,
        seed: int = 0,
        retry_after: str = "0",
        hang_s: float = 2.0,
        record: bool = True,
    ) -> None:
        self.latency = latency
        self.fault_rate = fault_rate
        self.fault_kinds = fault_kinds
        self.retry_after = retry_after
        self.hang_s = hang_s
        self.record = record
        self.script: dict[str, Reply] = {}
        self.responder: Callable[[dict[str, Any]], Reply] | None = None
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.faults_served: list[str] = []
        self.count = 0
        self._planned: list[tuple[str, list[str]]] = []
        self._rng = random.Random(seed)
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- scripting -------------------------------------------------------------------------
    def fail(self, match: str, kinds: list[str]) -> None:
        """The next requests whose last user message contains `match` fail with `kinds`."""
        with self._lock:
            self._planned.append((match, list(kinds)))

    def answer_for(self, body: dict[str, Any]) -> Reply:
        if self.responder is not None:
            return self.responder(body)
        text = _last_user_text(body)
        if text.startswith("SCRIPT:"):
            reply, _ = json.JSONDecoder().raw_decode(text[len("SCRIPT:") :])
            assert isinstance(reply, dict)
            return reply
        for needle, reply in self.script.items():
            if needle in text:
                return reply
        return {"content": "I have no scripted answer for this."}

    def _fault_for(self, body: dict[str, Any]) -> str | None:
        text = _last_user_text(body)
        with self._lock:
            for entry in self._planned:
                match, kinds = entry
                if kinds and match in text:
                    kind = kinds.pop(0)
                    self.faults_served.append(kind)
                    return kind
            if self.fault_rate and self._rng.random() < self.fault_rate:
                kind = self._rng.choice(self.fault_kinds)
                self.faults_served.append(kind)
                return kind
        return None

    def requests_matching(self, needle: str) -> list[dict[str, Any]]:
        with self._lock:
            return [b for b in self.requests if needle in _last_user_text(b)]

    def reset_log(self) -> None:
        with self._lock:
            self.requests.clear()
            self.headers.clear()
            self.faults_served.clear()
            self.count = 0

    # -- lifecycle -------------------------------------------------------------------------
    @property
    def port(self) -> int:
        assert self._httpd is not None
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> OpenAIServer:
        handler = _make_handler(self)
        self._httpd = _QuietHTTPServer(("127.0.0.1", 0), handler)
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> OpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def completion(body: dict[str, Any], reply: Reply) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.get("content")}
    calls = reply.get("tool_calls")
    if calls:
        message["tool_calls"] = [
            {
                "id": f"call_{i}",
                "type": "function",
                "function": {
                    "name": c["name"],
                    "arguments": c["arguments"]
                    if isinstance(c.get("arguments"), str)
                    else json.dumps(c.get("arguments", {})),
                },
            }
            for i, c in enumerate(calls)
        ]
    return {
        "id": "chatcmpl-local",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", ""),
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if calls else "stop",
            }
        ],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


def _make_handler(server: OpenAIServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _send(self, status: int, payload: bytes, headers: dict[str, str] | None = None) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(payload)

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            try:
                body = json.loads(raw)
            except ValueError:
                self._send(400, b'{"error": {"message": "bad json"}}')
                return
            with server._lock:
                server.count += 1
                if server.record:
                    server.requests.append(body)
                    server.headers.append({k.lower(): v for k, v in self.headers.items()})
            if not self.path.endswith("/chat/completions"):
                self._send(404, b'{"error": {"message": "not found"}}')
                return
            fault = server._fault_for(body)
            if server.latency:
                time.sleep(server.latency)
            if fault is None:
                payload = json.dumps(completion(body, server.answer_for(body))).encode()
                self._send(200, payload)
            elif fault == "429":
                err = b'{"error": {"message": "rate limited", "type": "rate_limit"}}'
                self._send(429, err, {"Retry-After": server.retry_after})
            elif fault in {"500", "503", "400"}:
                self._send(int(fault), b'{"error": {"message": "scripted failure"}}')
            elif fault == "timeout":
                time.sleep(server.hang_s)
                self._send(200, json.dumps(completion(body, server.answer_for(body))).encode())
            elif fault == "reset":
                self.connection.setsockopt(
                    socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0)
                )
                self.connection.close()
                self.close_connection = True
            elif fault == "malformed":
                self._send(200, b'{"id": "chatcmpl-local", "choices": [')
            elif fault == "empty":
                self._send(200, json.dumps({"id": "x", "choices": [], "model": "m"}).encode())

    return Handler


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--latency", type=float, default=0.0)
    parser.add_argument("--fault-rate", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--hang", type=float, default=2.0)
    args = parser.parse_args(argv)
    server = OpenAIServer(
        latency=args.latency,
        fault_rate=args.fault_rate,
        seed=args.seed,
        hang_s=args.hang,
        record=False,
    ).start()
    sys.stdout.write(f"{server.port}\n")
    sys.stdout.flush()
    try:
        for line in sys.stdin:  # runs until stdin closes or "stats" is asked
            if line.strip() == "stats":
                sys.stdout.write(json.dumps({"count": server.count}) + "\n")
                sys.stdout.flush()
    finally:
        server.stop()


if __name__ == "__main__":
    main()
