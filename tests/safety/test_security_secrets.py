"""Issue 16, vulnerabilities 1 and 7 end to end: a secret the run knows never reaches stdout,
stderr, the run report or the PR comment, whether a tool returns it or the model server echoes
it in a 401 body."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from bfcl_action import cli
from bfcl_action.safety import credentials
from tests.support.openai_server import OpenAIServer
from tests.support.security import SECRET, project


@pytest.fixture(autouse=True)
def fresh_secrets() -> Iterator[None]:
    credentials._reset_for_tests()
    yield
    credentials._reset_for_tests()


def outputs(tmp_path: Path, out: str) -> str:
    texts = [out]
    for path in tmp_path.rglob("*"):
        if path.is_file() and path.suffix in {".json", ".md", ".jsonl", ".txt"}:
            texts.append(path.read_text(encoding="utf-8", errors="replace"))
    return "\n".join(texts)


def test_a_tool_returning_the_api_key_never_puts_it_in_the_report_or_comment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    config = project(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    with OpenAIServer() as server:
        server.responder = lambda body: {
            "tool_calls": [{"name": "leak", "arguments": {"text": SECRET}}]
        }
        code = cli.main(
            ["run", "--config", str(config), "--base-url", server.base_url, "--output",
             str(tmp_path / "run.json"), "--no-cache"]
        )  # fmt: skip
    assert code in (0, 1)
    report = (tmp_path / "run.json").read_text(encoding="utf-8")
    assert "OPENAI_API_KEY=***" in report or "***" in report
    cli.main(
        ["compare", "--head", str(tmp_path / "run.json"), "--markdown", str(tmp_path / "c.md"),
         "--summary", str(tmp_path / "s.md")]
    )  # fmt: skip
    captured = capsys.readouterr()
    everything = outputs(tmp_path, captured.out + captured.err)
    assert SECRET not in everything
    assert SECRET[:20] not in everything


class EchoingServer(BaseHTTPRequestHandler):
    """A model server that quotes the API key back in its 401 body (and tries a command)."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        key = (self.headers.get("Authorization") or "").removeprefix("Bearer ")
        body = json.dumps(
            {"error": {"message": f"Incorrect API key provided: {key}\n::error::x\n"}}
        ).encode()
        self.send_response(401)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


def test_a_server_echoing_the_key_in_a_401_body_is_redacted_everywhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    config = project(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    server = ThreadingHTTPServer(("127.0.0.1", 0), EchoingServer)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        cli.main(
            ["run", "--config", str(config), "--base-url",
             f"http://127.0.0.1:{server.server_address[1]}/v1", "--output",
             str(tmp_path / "run.json"), "--no-cache", "--max-retries", "0"]
        )  # fmt: skip
    finally:
        server.shutdown()
    if (tmp_path / "run.json").is_file():
        cli.main(["compare", "--head", str(tmp_path / "run.json"), "--markdown",
                  str(tmp_path / "c.md")])  # fmt: skip
    captured = capsys.readouterr()
    everything = outputs(tmp_path, captured.out + captured.err)
    assert "Incorrect API key provided" in everything  # the error itself is shown
    assert SECRET not in everything
    for line in (captured.out + captured.err).splitlines():
        assert not line.lstrip().startswith("::error::x")


def test_a_key_in_the_base_url_is_a_secret_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Some providers take the key in the query string (`?api-key=`) or as `user:pass@`."""
    config = project(tmp_path)
    server = ThreadingHTTPServer(("127.0.0.1", 0), EchoingServer)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    port = server.server_address[1]
    try:
        cli.main(
            ["run", "--config", str(config), "--base-url",
             f"http://user:PASSWORDVALUE42@127.0.0.1:{port}/v1?api-key=QUERYSECRET4242",
             "--output", str(tmp_path / "run.json"), "--no-cache", "--max-retries", "0"]
        )  # fmt: skip
    finally:
        server.shutdown()
    captured = capsys.readouterr()
    everything = outputs(tmp_path, captured.out + captured.err)
    assert "127.0.0.1" in everything  # the endpoint is still named
    assert "QUERYSECRET4242" not in everything and "PASSWORDVALUE42" not in everything
