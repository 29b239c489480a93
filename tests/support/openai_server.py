"""A local OpenAI-compatible Chat Completions server for tests and benchmarks.

Real HTTP/1.1 on 127.0.0.1 (ephemeral port, keep-alive), served by an asyncio loop in its
own thread (cheap per request, so benchmarks measure the client, not this server); tests
drive the real `openai` SDK against it. It scripts answers and injects faults:

- answers: `server.script[substring] = reply` matches the last user message; or the user
  message itself may be a directive `SCRIPT:{"content": ..., "tool_calls": [...]}`; else a
  default text answer. A reply is `{"content": str}` and/or
  `{"tool_calls": [{"name": ..., "arguments": {...}}]}`, or `{"message": {...}}`: that
  assistant message sent as it is (for the shapes real servers vary in).
- strict like OpenAI: a request whose history has an assistant `tool_calls` entry without a
  `tool` message for its `tool_call_id`, a `tool` message answering no call, or `arguments`
  that are not a string gets 400 with OpenAI's wording; `known_models` (when set) makes any
  other model a 404 `model_not_found`; `api_key` (when set) makes any other key a 401.
- faults: `server.fail(match, [kinds...])` makes the next matching requests fail in that
  order; `fault_rate` fails any request at random. Kinds: "429" (with `Retry-After`), "500",
  "503", "timeout" (answers after `hang_s`), "reset" (connection reset), "malformed" (non-JSON
  body), "empty" (no choices), "400", "401", "403", "404", "drip" (a 200 whose body arrives
  one byte every `drip_s` seconds, at most `drip_bytes` bytes, then the connection closes).
- `latency` delays every answer; `requests` records every request body for assertions.
- structured outputs: a `response_format` of type `json_schema` is checked as OpenAI checks a
  strict schema (every property required, `additionalProperties: false`; else 400);
  `structured_outputs = False` answers 400 to any `json_schema` format, as servers without
  the feature do. A reply may carry `refusal` (OpenAI's structured-output refusal).
- the Batch API: `/files` and `/batches` (`server.batches`, see tests.support.openai_batches);
  batch lines are answered like real-time requests, and `batch_calls` lists the calls.

Run standalone (for benchmarks, so its CPU is not the client's):
`python -m tests.support.openai_server --latency 0.2 --fault-rate 0.2` prints the port.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import socket
import struct
import sys
from collections.abc import Callable
from typing import Any

from bfcl_action.runner.serve import LocalServer, completion
from bfcl_action.runner.serve import last_user_text as _last_user_text
from bfcl_action.runner.serve import send as send_reply
from tests.support.openai_batches import BatchAPI

FAULT_KINDS = ("429", "500", "503", "timeout", "reset", "malformed", "empty")
Reply = dict[str, Any]


class OpenAIServer(LocalServer):
    """The package's local server (`bfcl_action.runner.serve`) with OpenAI's strict checks, fault
    injection, recording and the Batch API; a context manager or `start()` / `stop()`."""

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
        drip_s: float = 0.5,
        drip_bytes: int = 400,
    ) -> None:
        super().__init__()
        self.latency = latency
        self.fault_rate = fault_rate
        self.fault_kinds = fault_kinds
        self.retry_after = retry_after
        self.hang_s = hang_s
        self.record = record
        self.drip_s = drip_s
        self.drip_bytes = drip_bytes
        self.known_models: set[str] | None = None
        self.api_key: str | None = None
        self.rejected: list[str] = []
        self.script: dict[str, Reply] = {}
        self.structured_outputs = True
        self.responder: Callable[[dict[str, Any]], Reply] | None = None
        self.usage: Any = None
        """When set, the `usage` object of every answer (a hostile or broken server's)."""
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.faults_served: list[str] = []
        self.exchanges: list[tuple[dict[str, Any], bytes]] = []
        """(request, 200 reply) pairs in OpenAI's own shapes, checked on a clean exit."""
        self.validate_against_spec = True
        self.count = 0
        self.served_model: str | None = None
        self.system_fingerprint: str | None = None
        self.connections = 0
        self.in_flight = 0
        self.max_in_flight = 0
        """Most requests waiting out `latency` at once (the client's concurrency, seen here)."""
        self._planned: list[tuple[str, list[str]]] = []
        self.batches = BatchAPI(self._chat_answer)
        """The files and batches endpoints (tests.support.openai_batches)."""
        self.batch_calls: list[str] = []
        self._rng = random.Random(seed)

    # -- scripting -------------------------------------------------------------------------
    def fail(self, match: str, kinds: list[str]) -> None:
        """The next requests whose last user message contains `match` fail with `kinds`."""
        with self._lock:
            self._planned.append((match, list(kinds)))

    def _served(self, payload: dict[str, Any]) -> dict[str, Any]:
        """The serving `model` and `system_fingerprint` a test set (`served_model`,
        `system_fingerprint`), as a provider names the snapshot behind an alias."""
        if self.served_model is not None:
            payload["model"] = self.served_model
        if self.system_fingerprint is not None:
            payload["system_fingerprint"] = self.system_fingerprint
        if self.usage is not None:
            payload["usage"] = self.usage
        return payload

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
            self.connections = 0

    # -- lifecycle -------------------------------------------------------------------------
    def __enter__(self) -> OpenAIServer:
        self.start()
        return self

    def __exit__(self, exc_type: object, *exc: object) -> None:
        self.stop()
        if exc_type is None and self.validate_against_spec:
            self.assert_matches_spec()

    def spec_problems(self) -> list[str]:
        """The recorded exchanges checked against the openai SDK's types (openai_spec.py)."""
        from tests.support.openai_spec import request_problems, response_problems

        seen: dict[str, None] = {}
        with self._lock:
            exchanges = list(self.exchanges)
        for body, payload in exchanges:
            for problem in [*request_problems(body), *response_problems(payload)]:
                seen.setdefault(problem)
        return list(seen)

    def assert_matches_spec(self) -> None:
        problems = self.spec_problems()
        if problems:
            raise AssertionError(
                "the local OpenAI server or its client drifted from OpenAI's types "
                f"({len(problems)} problem(s)):\n  " + "\n  ".join(problems[:20])
            )

    # -- HTTP ------------------------------------------------------------------------------
    def _connected(self) -> None:
        with self._lock:
            self.connections += 1

    async def _dispatch(
        self,
        method: str,
        path: str,
        headers: dict[str, str],
        raw: bytes,
        writer: asyncio.StreamWriter,
    ) -> bool:
        if self.batches.handles(path):
            await self._respond_batches(method, path, headers, raw, writer)
            return True
        return await self._respond(path, headers, raw, writer)

    def _response_format_error(self, fmt: Any) -> str | None:
        if fmt is None:
            return None
        kinds = {"text", "json_object", "json_schema"}
        if not isinstance(fmt, dict) or fmt.get("type") not in kinds:
            return "Invalid value for response_format.type"
        if fmt["type"] != "json_schema":
            return None
        if not self.structured_outputs:
            return "response_format json_schema is not supported by this server"
        spec = fmt.get("json_schema")
        if not isinstance(spec, dict) or not isinstance(spec.get("name"), str):
            return "Missing required parameter: response_format.json_schema.name"
        if spec.get("strict"):
            return _strict_schema_error(spec.get("schema"), "schema")
        return None

    def _chat_answer(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """A batch line's answer: what a real-time request with this body would get."""
        problem = history_problem(body)
        if problem is not None:
            return 400, json.loads(_error(problem, "invalid_request_error"))
        return 200, self._served(completion(body, self.answer_for(body)))

    async def _respond_batches(
        self,
        method: str,
        path: str,
        headers: dict[str, str],
        raw: bytes,
        writer: asyncio.StreamWriter,
    ) -> None:
        auth = headers.get("authorization", "")
        if self.api_key is not None and auth != f"Bearer {self.api_key}":
            status, payload, ctype = (
                401,
                _error("Incorrect API key provided.", "invalid_api_key"),
                "json",
            )
        else:
            status, payload, ctype = self.batches.respond(method, path, headers, raw)
        with self._lock:
            self.batch_calls.append(f"{method} {path.split('?', 1)[0]}")
        content_type = "application/json" if ctype == "json" else ctype
        send_reply(writer, status, payload, content_type=content_type)
        await writer.drain()

    async def _respond(
        self, path: str, headers: dict[str, str], raw: bytes, writer: asyncio.StreamWriter
    ) -> bool:
        """Answer one request; False when the connection must end."""

        def send(status: int, payload: bytes, extra: dict[str, str] | None = None) -> None:
            send_reply(writer, status, payload, extra)

        try:
            body = json.loads(raw)
        except ValueError:
            send(400, b'{"error": {"message": "bad json"}}')
            return True
        with self._lock:
            self.count += 1
            if self.record:
                self.requests.append(body)
                self.headers.append(headers)
        if not path.endswith("/chat/completions"):
            send(404, b'{"error": {"message": "not found"}}')
            return True
        auth = headers.get("authorization", "")
        if self.api_key is not None and auth != f"Bearer {self.api_key}":
            send(401, _error("Incorrect API key provided.", "invalid_api_key"))
            await writer.drain()
            return True
        model = str(body.get("model", ""))
        if self.known_models is not None and model not in self.known_models:
            text = f"The model `{model}` does not exist or you do not have access to it."
            send(404, _error(text, "model_not_found"))
            await writer.drain()
            return True
        format_error = self._response_format_error(body.get("response_format"))
        if format_error is not None:
            send(400, json.dumps({"error": {"message": format_error}}).encode())
            await writer.drain()
            return True
        problem = history_problem(body)
        if problem is not None:
            with self._lock:
                self.rejected.append(problem)
            send(400, _error(problem, "invalid_request_error"))
            await writer.drain()
            return True
        fault = self._fault_for(body)
        if self.latency:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            try:
                await asyncio.sleep(self.latency)
            finally:
                self.in_flight -= 1
        if fault is None:
            reply = self.answer_for(body)
            payload = json.dumps(self._served(completion(body, reply))).encode()
            if self.record and not isinstance(reply.get("message"), dict):
                with self._lock:
                    self.exchanges.append((body, payload))
            send(200, payload)
        elif fault == "429":
            err = b'{"error": {"message": "rate limited", "type": "rate_limit"}}'
            send(429, err, {"Retry-After": self.retry_after})
        elif fault in {"500", "503", "400", "401", "403", "404"}:
            send(int(fault), b'{"error": {"message": "scripted failure"}}')
        elif fault == "drip":
            payload = json.dumps(completion(body, self.answer_for(body))).encode()
            head = ["HTTP/1.1 200 OK", "Content-Type: application/json"]
            head.append(f"Content-Length: {len(payload)}")
            writer.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1"))
            for byte in payload[: self.drip_bytes]:
                writer.write(bytes([byte]))
                await writer.drain()
                await asyncio.sleep(self.drip_s)
            return False
        elif fault == "timeout":
            await asyncio.sleep(self.hang_s)
            send(200, json.dumps(completion(body, self.answer_for(body))).encode())
        elif fault == "reset":
            sock = writer.get_extra_info("socket")
            if sock is not None:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            writer.transport.abort()
            return False
        elif fault == "malformed":
            send(200, b'{"id": "chatcmpl-local", "choices": [')
        elif fault == "empty":
            send(200, json.dumps({"id": "x", "choices": [], "model": "m"}).encode())
        await writer.drain()
        return True


def _strict_schema_error(schema: Any, where: str) -> str | None:
    """OpenAI's strict-mode rules: objects list every property as required and forbid
    additional ones; nested schemas follow the same rules."""
    if not isinstance(schema, dict):
        return f"Invalid schema at {where}: not an object"
    if schema.get("type") == "object":
        props = schema.get("properties")
        if not isinstance(props, dict):
            return f"Invalid schema at {where}: object without properties"
        if schema.get("additionalProperties") is not False:
            return f"Invalid schema at {where}: 'additionalProperties' must be false"
        if sorted(schema.get("required") or []) != sorted(props):
            return f"Invalid schema at {where}: every property must be required"
        for name, sub in props.items():
            error = _strict_schema_error(sub, f"{where}.{name}")
            if error:
                return error
    if schema.get("type") == "array":
        return _strict_schema_error(schema.get("items"), f"{where}[]")
    return None


def _error(message: str, code: str) -> bytes:
    return json.dumps(
        {"error": {"message": message, "type": "invalid_request_error", "code": code}}
    ).encode()


def history_problem(body: dict[str, Any]) -> str | None:
    """What OpenAI's Chat Completions would reject in the message history, in its words."""
    messages = body.get("messages") or []
    waiting: list[str] = []
    for index, message in enumerate(messages):
        role = message.get("role") if isinstance(message, dict) else None
        if role == "tool":
            call_id = message.get("tool_call_id")
            if call_id not in waiting:
                return (
                    f"Invalid parameter: messages[{index}]: messages with role 'tool' must be a "
                    "response to a preceeding message with 'tool_calls'."
                )
            waiting.remove(call_id)
            continue
        if waiting:
            return (
                "An assistant message with 'tool_calls' must be followed by tool messages "
                "responding to each 'tool_call_id'. The following tool_call_ids did not have "
                f"response messages: {', '.join(waiting)}"
            )
        if role == "assistant":
            for number, call in enumerate(message.get("tool_calls") or []):
                arguments = (call.get("function") or {}).get("arguments")
                if not isinstance(arguments, str):
                    kind = "an object" if isinstance(arguments, dict) else type(arguments).__name__
                    return (
                        f"Invalid type for 'messages[{index}].tool_calls[{number}].function."
                        f"arguments': expected a string, but got {kind} instead."
                    )
                waiting.append(str(call.get("id")))
    if waiting:
        return (
            "An assistant message with 'tool_calls' must be followed by tool messages "
            "responding to each 'tool_call_id'. The following tool_call_ids did not have "
            f"response messages: {', '.join(waiting)}"
        )
    return None


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--latency", type=float, default=0.0)
    parser.add_argument("--fault-rate", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--hang", type=float, default=2.0)
    parser.add_argument(
        "--generate-script", metavar="JSON", help="answer as tests/support/generate_script.py"
    )
    args = parser.parse_args(argv)
    server = OpenAIServer(
        latency=args.latency,
        fault_rate=args.fault_rate,
        seed=args.seed,
        hang_s=args.hang,
        record=False,
    ).start()
    if args.generate_script:
        from tests.support.generate_script import load_script, responder

        server.responder = responder(load_script(args.generate_script))
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
