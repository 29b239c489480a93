"""A local SerpAPI-compatible search endpoint and the web pages its results point at.

One HTTP server on 127.0.0.1 (ephemeral port), in a thread:

- `GET /search.json?engine=duckduckgo&q=...&kl=...&api_key=...`: SerpAPI's answer shape,
  `{"organic_results": [{"position", "title", "link", "snippet"}, ...]}`, the results of the
  first `results` key that occurs in `q` (lower-cased), else none. With `api_key` set, any
  other key gets SerpAPI's 401 `{"error": "Invalid API key. ..."}`; `rate_limited` answers
  that many next searches with 429 and SerpAPI's rate-limit error; `broken` answers 200 with
  an error payload and no results.
- `GET /pages/<name>`: `pages[name]` as HTML; `/redirect?to=<url>`: a 302 there;
  `/missing`: 404; `/drip`: a page that arrives one byte every `drip_s` seconds; `/big`: a page
  of `big_bytes`.
- `requests`: every request as (path, query dict), for assertions (the key reached only the
  search path, a refused URL was never asked, ...).

`result(title, page, snippet)` builds one organic result linking to `/pages/<page>` here.
`researcher()` is a scripted model for the local OpenAI server that searches, reads the first
result's page and answers in text, as a web-search model does.
"""

from __future__ import annotations

import ast
import json
import threading
import time
import urllib.parse
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

RATE_LIMIT_ERROR = (
    "Your account has run out of searches. (429: the number of requests exceeds the limit)"
)


class WebServer:
    """Search endpoint and pages; a context manager."""

    def __init__(self) -> None:
        self.results: dict[str, list[dict[str, Any]]] = {}
        self.pages: dict[str, str] = {}
        self.api_key: str | None = None
        self.rate_limited = 0
        self.broken = False
        self.drip_s = 0.2
        self.big_bytes = 3 * 1024 * 1024
        self.requests: list[tuple[str, dict[str, str]]] = []
        self._lock = threading.Lock()
        server = self
        self._http = ThreadingHTTPServer(("127.0.0.1", 0), _handler(server))
        self._http.daemon_threads = True
        self._thread = threading.Thread(target=self._http.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        return int(self._http.server_address[1])

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def endpoint(self) -> str:
        return f"{self.base}/search.json"

    def page_url(self, name: str) -> str:
        return f"{self.base}/pages/{name}"

    def result(self, title: str, page: str, snippet: str) -> dict[str, Any]:
        return {"title": title, "link": self.page_url(page), "snippet": snippet}

    def paths(self) -> list[str]:
        with self._lock:
            return [path for path, _ in self.requests]

    def __enter__(self) -> WebServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._http.shutdown()
        self._http.server_close()
        self._thread.join(timeout=5)

    # -- answers ---------------------------------------------------------------------------
    def search(self, query: dict[str, str]) -> tuple[int, dict[str, Any]]:
        if self.api_key is not None and query.get("api_key") != self.api_key:
            return 401, {"error": "Invalid API key. Your API key should be here: https://x"}
        with self._lock:
            if self.rate_limited > 0:
                self.rate_limited -= 1
                return 429, {"error": RATE_LIMIT_ERROR}
        if self.broken:
            return 200, {"search_metadata": {"status": "Error"}, "error": "backend is down"}
        words = query.get("q", "").lower()
        found = next((rows for key, rows in self.results.items() if key in words), [])
        ranked = [{"position": i + 1, **row} for i, row in enumerate(found)]
        return 200, {"search_metadata": {"status": "Success"}, "organic_results": ranked}


def _handler(server: WebServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            del format, args

        def _send(self, status: int, body: bytes, content_type: str, **headers: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            parts = urllib.parse.urlsplit(self.path)
            query = dict(urllib.parse.parse_qsl(parts.query))
            with server._lock:
                server.requests.append((parts.path, query))
            if parts.path == "/search.json":
                status, payload = server.search(query)
                self._send(status, json.dumps(payload).encode(), "application/json")
            elif parts.path.startswith("/pages/"):
                name = parts.path.removeprefix("/pages/")
                if name in server.pages:
                    html = server.pages[name].encode()
                    self._send(200, html, "text/html; charset=utf-8")
                else:
                    self._send(404, b"<h1>Not Found</h1>", "text/html")
            elif parts.path == "/redirect":
                self._send(302, b"", "text/html", Location=query.get("to", "/"))
            elif parts.path == "/drip":
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", "100000")
                self.end_headers()
                try:
                    for _ in range(100000):
                        self.wfile.write(b"x")
                        self.wfile.flush()
                        time.sleep(server.drip_s)
                except OSError:
                    return
            elif parts.path == "/big":
                self._send(200, b"<p>" + b"a" * server.big_bytes + b"</p>", "text/html")
            else:
                self._send(404, b"<h1>Not Found</h1>", "text/html")

    return Handler


# -- a scripted model that researches -------------------------------------------------------

RESULTS_PREFIX = "[{'role': 'tool'"
"""How a prompt-mode conversation hands tool results back (one user message)."""


def researcher(
    answer: Callable[[str, str], str] | None = None, *, prompt: bool = False
) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """A responder for the local OpenAI server (`OpenAIServer.responder`) that does what a
    web-search model does: search for the question, fetch the first result's page in
    `truncate` mode, then answer in text. `answer(question, page_text)` words the answer
    (default: the page's last line). Works in FC mode (tool calls, `tool` replies) and, with
    `prompt`, in prompt mode (call text, results in one user message)."""

    def reply(body: dict[str, Any]) -> dict[str, Any]:
        messages = body["messages"]
        opening = max(
            i
            for i, m in enumerate(messages)
            if m["role"] == "user" and not str(m["content"]).startswith(RESULTS_PREFIX)
        )
        question = str(messages[opening]["content"])
        step = sum(1 for m in messages[opening:] if m["role"] == "assistant")
        last = _last_result(messages[opening:])
        if step == 0:
            return _call(prompt, "search_engine_query", keywords=question)
        if step == 1:
            try:
                href = ast.literal_eval(last)[0]["href"]
            except (ValueError, SyntaxError, LookupError, TypeError):
                return {"content": f"I could not search: {last[:200]}"}
            return _call(prompt, "fetch_url_content", url=href, mode="truncate")
        try:
            text = str(json.loads(last)["content"])
        except (ValueError, LookupError, TypeError):
            return {"content": f"I could not read the page: {last[:200]}"}
        words = answer(question, text) if answer else text.splitlines()[-1]
        return {"content": words}

    return reply


def _call(prompt: bool, name: str, **arguments: str) -> dict[str, Any]:
    if prompt:
        args = ", ".join(f"{k}={v!r}" for k, v in arguments.items())
        return {"content": f"[{name}({args})]"}
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


def _last_result(messages: list[dict[str, Any]]) -> str:
    """The content of the last tool result: a `tool` message, or the last item of a
    prompt-mode results message."""
    for message in reversed(messages):
        if message["role"] == "tool":
            return str(message["content"])
        content = str(message.get("content") or "")
        if message["role"] == "user" and content.startswith(RESULTS_PREFIX):
            return str(ast.literal_eval(content)[-1]["content"])
    return ""
