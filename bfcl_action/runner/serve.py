"""A local OpenAI-compatible endpoint that answers from recordings or a script.

`bfcl-action serve-replay` runs it so a team can try `generate`, `run` and the Action's flow
without a key: point `OPENAI_BASE_URL` (or `--base-url`, `model.base_url`) at it. The test
suite's scripted server (tests/support/openai_server.py) is this server plus fault
injection and OpenAI's strict request checks.

- `LocalServer`: HTTP/1.1 with keep-alive on 127.0.0.1 only, an asyncio loop in its own
  thread; `POST .../chat/completions` is answered by `answer_for(body)`, `GET .../models`
  lists `model_names`. Request bodies are bounded (`MAX_BODY`).
- Answers (`Reply`): `{"content": str}` and/or `{"tool_calls": [{"name", "arguments"}]}`,
  or `{"message": {...}}` sent as it is; `completion` wraps one in OpenAI's shape.
- `scripted(script)`: a JSON script (`answers`: question -> reply; `propose` / `verify`: the
  proposer and verify model of `bfcl-action generate`, see docs/generate.md).
- `recorded(answers, cases)`: the answers a replay directory or BFCL result files hold, by
  case id; a request is matched to its case by question and offered tool names.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from bfcl_action.core.records import TestCase
from bfcl_action.tools.validate import mapped_name

Reply = dict[str, Any]
Responder = Callable[[dict[str, Any]], Reply]
MAX_BODY = 32 << 20
"""Largest request body read (a request with every tool of a big repository fits)."""

NO_ANSWER: Reply = {"content": "I have no recorded answer for this."}

REASONS = {
    200: "OK",
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    413: "Payload Too Large",
    429: "Too Many Requests",
    500: "Internal Server Error",
    503: "Service Unavailable",
}


def last_user_text(body: Mapping[str, Any]) -> str:
    for message in reversed(body.get("messages") or []):
        if isinstance(message, dict) and message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, list):  # content parts
                return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
            return str(content or "")
    return ""


def completion(body: Mapping[str, Any], reply: Reply) -> dict[str, Any]:
    """The Chat Completions response for `reply` to `body`."""
    if isinstance(reply.get("message"), dict):
        return _wrap(body, reply["message"], finish="stop")
    message: dict[str, Any] = {"role": "assistant", "content": reply.get("content")}
    if reply.get("refusal"):
        message["refusal"] = reply["refusal"]
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
    return _wrap(body, message, finish="tool_calls" if calls else "stop")


def _wrap(body: Mapping[str, Any], message: dict[str, Any], *, finish: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-local",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", ""),
        "system_fingerprint": "fp_local",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {
            "prompt_tokens": 10,
            "completion_tokens": 5,
            "total_tokens": 15,
            "prompt_tokens_details": {"cached_tokens": 4},
        },
    }


def error_body(message: str, code: str) -> bytes:
    """OpenAI's error shape."""
    return json.dumps({"error": {"message": message, "type": code, "code": code}}).encode()


class LocalServer:
    """The endpoint; use as a context manager or `start()` / `stop()`."""

    def __init__(self, *, port: int = 0) -> None:
        self.responder: Responder | None = None
        self.model_names: list[str] = []
        self.count = 0
        self._want_port = port
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._port: int | None = None
        self._thread: threading.Thread | None = None

    # -- answers ---------------------------------------------------------------------------
    def answer_for(self, body: dict[str, Any]) -> Reply:
        return self.responder(body) if self.responder is not None else NO_ANSWER

    # -- lifecycle -------------------------------------------------------------------------
    @property
    def port(self) -> int:
        assert self._port is not None
        return self._port

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> LocalServer:
        ready = threading.Event()
        failed: list[BaseException] = []

        def serve() -> None:
            loop = asyncio.new_event_loop()
            asyncio.set_event_loop(loop)
            self._loop = loop
            try:
                server = loop.run_until_complete(
                    asyncio.start_server(self._handle, "127.0.0.1", self._want_port, backlog=512)
                )
            except OSError as exc:
                failed.append(exc)
                ready.set()
                loop.close()
                return
            self._port = int(server.sockets[0].getsockname()[1])
            ready.set()
            try:
                loop.run_forever()
            finally:
                server.close()
                tasks = asyncio.all_tasks(loop)
                for task in tasks:
                    task.cancel()
                loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))
                loop.close()

        self._thread = threading.Thread(target=serve, daemon=True)
        self._thread.start()
        ready.wait(10)
        if failed:
            raise failed[0]
        return self

    def stop(self) -> None:
        if self._loop is not None and self._thread is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(5)
            self._loop = None

    def __enter__(self) -> LocalServer:
        return self.start()

    def __exit__(self, exc_type: object, *exc: object) -> None:
        self.stop()

    # -- HTTP ------------------------------------------------------------------------------
    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._connected()
        try:
            while True:
                try:
                    head = await reader.readuntil(b"\r\n\r\n")
                except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
                    return
                lines = head.decode("latin-1").split("\r\n")
                parts = lines[0].split(" ")
                method, path = parts[0], parts[1] if len(parts) > 1 else "/"
                headers: dict[str, str] = {}
                for line in lines[1:]:
                    if ":" in line:
                        key, value = line.split(":", 1)
                        headers[key.strip().lower()] = value.strip()
                try:
                    length = int(headers.get("content-length") or 0)
                except ValueError:
                    length = -1
                if not 0 <= length <= MAX_BODY:
                    send(writer, 413, error_body("request body too large", "invalid_request"))
                    await writer.drain()
                    return
                raw = await reader.readexactly(length)
                if not await self._dispatch(method, path, headers, raw, writer):
                    return
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.CancelledError):
            return  # client went away, or the server is stopping
        finally:
            with contextlib.suppress(Exception):
                writer.close()

    def _connected(self) -> None:
        """A hook for servers that count connections."""

    async def _dispatch(
        self,
        method: str,
        path: str,
        headers: dict[str, str],
        raw: bytes,
        writer: asyncio.StreamWriter,
    ) -> bool:
        """Answer one request; False when the connection must end."""
        route = path.split("?", 1)[0].rstrip("/")
        if method == "GET" and route.endswith("/models"):
            data = [{"id": m, "object": "model", "owned_by": "local"} for m in self.model_names]
            send(writer, 200, json.dumps({"object": "list", "data": data}).encode())
        elif method == "POST" and route.endswith("/chat/completions"):
            try:
                body = json.loads(raw)
            except (ValueError, RecursionError):
                body = None
            if not isinstance(body, dict):
                send(writer, 400, error_body("the body is not a JSON object", "invalid_json"))
            else:
                with self._lock:
                    self.count += 1
                send(writer, 200, json.dumps(completion(body, self.answer_for(body))).encode())
        else:
            send(writer, 404, error_body(f"no route {method} {route}", "not_found"))
        await writer.drain()
        return True


def send(
    writer: asyncio.StreamWriter,
    status: int,
    payload: bytes,
    extra: Mapping[str, str] | None = None,
    content_type: str = "application/json",
) -> None:
    head = [f"HTTP/1.1 {status} {REASONS.get(status, 'Status')}", f"Content-Type: {content_type}"]
    head.append(f"Content-Length: {len(payload)}")
    head.extend(f"{k}: {v}" for k, v in (extra or {}).items())
    writer.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + payload)


# ---------------------------------------------------------------------------------- scripts
_TARGET = re.compile(r"^Target tool: (\S+)$", re.MULTILINE)


def _proposal(reply: Reply) -> Reply:
    """A scripted `generate` proposal (`{"cases": [...]}`, each call's arguments as an
    object) as the JSON text the proposer's schema asks for."""
    if "cases" not in reply:
        return reply
    cases = []
    for case in reply["cases"]:
        calls = [
            {
                "name": call["name"],
                "arguments": call["arguments"]
                if isinstance(call["arguments"], str)
                else json.dumps(call["arguments"]),
            }
            for call in case.get("calls", [])
        ]
        cases.append({**case, "calls": calls})
    return {"content": json.dumps({"cases": cases})}


def scripted(script: Mapping[str, Any]) -> Responder:
    """Answers from a script: `propose` maps a target tool to the `generate` proposer's
    reply; `verify` and `answers` map a question (the last user message) to a reply;
    anything else is answered with prose (no call)."""
    propose = script.get("propose") or {}
    answers = {**(script.get("answers") or {}), **(script.get("verify") or {})}

    def answer(body: dict[str, Any]) -> Reply:
        last = last_user_text(body)
        target = _TARGET.search(last)
        if target is not None and "tools" not in body:
            return _proposal(propose.get(target.group(1), {"content": ""}))
        reply = answers.get(last)
        return reply if isinstance(reply, dict) else {"content": "I can't help with that here."}

    return answer


def script_problems(script: Any) -> list[str]:
    """What is wrong with a script's shape (empty when it can be served)."""
    if not isinstance(script, dict):
        return ["expected a JSON object with `answers`, `propose` and/or `verify`"]
    unknown = sorted(set(script) - {"answers", "propose", "verify"})
    problems = [f"unknown key {k!r} (expected answers, propose, verify)" for k in unknown]
    for key in ("answers", "propose", "verify"):
        if key in script and not isinstance(script[key], dict):
            problems.append(f"{key}: expected an object")
    return problems


# ---------------------------------------------------------------------------------- replays
def reply_of(output: Any) -> Reply:
    """A recorded output as a reply: FC calls (`[{name: "<json args>"}]`) as tool calls,
    text (prompt mode) as content."""
    if isinstance(output, str):
        return {"content": output}
    calls = []
    for call in output if isinstance(output, list) else []:
        if isinstance(call, dict) and len(call) == 1:
            [(name, args)] = call.items()
            calls.append({"name": str(name), "arguments": args})
    return {"tool_calls": calls} if calls else {"content": ""}


def _request_key(question: str, tools: Iterable[str]) -> tuple[str, tuple[str, ...]]:
    return question, tuple(sorted(mapped_name(t) for t in tools))


def recorded(answers: Mapping[str, Any], cases: Iterable[TestCase]) -> Responder:
    """Answers recorded by case id, for requests matched to those cases: by question and
    the names of the tools offered, else by question alone (first case asking it)."""
    by_request: dict[tuple[str, tuple[str, ...]], Reply] = {}
    by_question: dict[str, Reply] = {}
    for case in cases:
        if case.id not in answers or not case.question:
            continue
        turn = case.question[-1]
        question = next((m.content or "" for m in reversed(turn) if m.role == "user"), "")
        reply = reply_of(answers[case.id])
        by_request.setdefault(_request_key(question, (f.name for f in case.functions)), reply)
        by_question.setdefault(question, reply)

    def answer(body: dict[str, Any]) -> Reply:
        question = last_user_text(body)
        offered = [
            str((t.get("function") or {}).get("name", ""))
            for t in body.get("tools") or []
            if isinstance(t, dict)
        ]
        return by_request.get(_request_key(question, offered)) or by_question.get(
            question, NO_ANSWER
        )

    return answer
