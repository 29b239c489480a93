"""Issue 16, vulnerability 2: executable checks POST only to loopback endpoints unless the
workflow allows a host, follow no redirect, and put only a short escaped excerpt of an answer
in the report."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from bfcl_action.core.records import Mode, TestCase
from bfcl_action.multiturn import ExecutionOptions
from bfcl_action.multiturn.executable import check_executable
from bfcl_action.safety.http_tools import EndpointRefused, resolve_endpoint
from bfcl_action.safety.sandbox import SandboxLimits

FAST = ExecutionOptions(limits=SandboxLimits(call_timeout_s=2.0))
hits: list[str] = []


class Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        hits.append(self.path)
        if self.path == "/redirect":
            self.send_response(302)
            self.send_header("Location", "/internal")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        body = ("internal-secret-data\n::error::x " * 5000).encode()
        self.send_response(500 if self.path == "/error" else 200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def case(url: str, result: Any = "x") -> TestCase:
    return TestCase.model_validate(
        {
            "id": "exec_http",
            "category": "own_simple",
            "question": [[{"role": "user", "content": "?"}]],
            "possible_answer": [{"f": {"a": [1]}}],
            "execute": {"function": url, "result": result},
        }
    )


def run(url: str, options: ExecutionOptions = FAST) -> tuple[str | None, str]:
    output = [{"f": json.dumps({"a": 1})}]
    result = check_executable(case(url), output, mode=Mode.FC, options=options)
    return result.error_type, " ".join(result.error)


def test_a_non_loopback_endpoint_is_refused_without_a_connection() -> None:
    error_type, message = run("http://192.0.2.1:9/tool")
    assert error_type == "executable:timeout"
    assert "not a loopback address" in message and "exec-allow-hosts" in message


def test_an_allowed_host_passes_the_check() -> None:
    assert resolve_endpoint("http://192.0.2.1:9/x", ["192.0.2.1:9"])[1] == "192.0.2.1"
    assert resolve_endpoint("http://192.0.2.1:9/x", ["192.0.2.1"])[1] == "192.0.2.1"
    with pytest.raises(EndpointRefused):
        resolve_endpoint("http://192.0.2.1:9/x", ["192.0.2.1:10"])
    with pytest.raises(EndpointRefused):
        resolve_endpoint("file:///etc/passwd")


def test_redirects_are_not_followed(base: str) -> None:
    hits.clear()
    error_type, message = run(f"{base}/redirect")
    assert error_type == "executable:exception" and "redirects are not followed" in message
    assert hits == ["/redirect"]


def test_only_a_short_escaped_excerpt_of_an_answer_reaches_the_report(base: str) -> None:
    for path in ("/ok", "/error"):
        error_type, message = run(f"{base}{path}")
        assert error_type in {"executable:wrong_result", "executable:exception"}
        assert len(message) < 600
        assert "\n" not in message and "::error" not in message
