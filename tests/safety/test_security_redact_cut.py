"""Issue 23 item 3: text is redacted before it is cut. A server's error body quoting the key
across the 200-character cut of the error excerpt leaked 49 of its 50 characters to the log,
the run report and the PR comment; now no prefix of it leaves the run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from bfcl_action.checker.verdict import show
from bfcl_action.report.github_limits import fit_chars
from bfcl_action.safety import credentials, redact
from bfcl_action.safety.escape import log_line, md_inline, truncate

KEY = "sk-proj-" + "K3y" * 14  # 50 characters


@pytest.fixture(autouse=True)
def fresh_secrets() -> Iterator[None]:
    credentials._reset_for_tests()
    yield
    credentials._reset_for_tests()


def _no_prefix(text: str, secret: str = KEY) -> None:
    for k in range(10, len(secret) + 1):
        assert secret[:k] not in text, f"{k} characters of the secret leaked"


@pytest.mark.parametrize("offset", [150, 180, 190, 199, 200, 201])
def test_every_cut_redacts_first(offset: int) -> None:
    redact.register(KEY)
    text = "x" * offset + KEY + " tail"
    for cut in (truncate(text, 200), log_line(text, 200), md_inline(text, 200)):
        _no_prefix(cut)
    _no_prefix(fit_chars(text, 200, "… (cut)"))
    _no_prefix(redact.shorten(text, 200))


def test_a_prefix_left_at_a_cut_made_out_of_reach_is_masked_at_the_edge() -> None:
    """The checker is pure and cannot import `redact`; its `show` cuts at 200: the output
    edge (`redact.redact`) masks the secret's head before the cut mark."""
    redact.register(KEY)
    shown = show("y" * 170 + KEY)
    assert KEY[:20] in shown  # the cut itself happened without redaction
    _no_prefix(redact.redact(shown))
    assert redact.redact("the prefix sk-proj-K is harmless") == "the prefix sk-proj-K is harmless"


class KeyQuotingServer(BaseHTTPRequestHandler):
    """Answers 400 with an error message that quotes the key across character 200."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        key = (self.headers.get("Authorization") or "").removeprefix("Bearer ")
        body = json.dumps({"error": {"message": "z" * 180 + key + " was refused"}}).encode()
        self.send_response(400)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


def _script(name: str) -> str:
    path = Path(sys.executable).parent / name
    return str(path) if path.exists() else name


def test_a_key_straddling_the_error_cut_never_reaches_log_report_or_comment(
    tmp_path: Path,
) -> None:
    (tmp_path / "tools.json").write_text(
        json.dumps(
            [
                {
                    "type": "function",
                    "function": {
                        "name": "ping",
                        "description": "Ping a host.",
                        "parameters": {
                            "type": "object",
                            "properties": {"host": {"type": "string", "description": "Host."}},
                            "required": ["host"],
                        },
                    },
                }
            ]
        )
    )
    (tmp_path / "cases.yml").write_text(
        "cases:\n  - id: ping_one\n    question: Ping example.org.\n    tools: [ping]\n"
        "    expect:\n      - ping: {host: [example.org]}\n"
    )
    (tmp_path / ".bfcl.yml").write_text("tools: [tools.json]\ncases: [cases.yml]\n")
    server = ThreadingHTTPServer(("127.0.0.1", 0), KeyQuotingServer)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path), "OPENAI_API_KEY": KEY}
    try:
        run = subprocess.run(
            [_script("bfcl-action"), "run", "--config", ".bfcl.yml", "--model", "m",
             "--base-url", f"http://127.0.0.1:{server.server_address[1]}/v1",
             "--no-cache", "--max-retries", "0", "--output", "run.json"],
            cwd=tmp_path, capture_output=True, text=True, timeout=120, env=env,
        )  # fmt: skip
    finally:
        server.shutdown()
    compare = subprocess.run(
        [_script("bfcl-action"), "compare", "--head", "run.json", "--markdown", "c.md"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, env=env,
    )  # fmt: skip
    report = (tmp_path / "run.json").read_text()
    comment = (tmp_path / "c.md").read_text()
    assert "z" * 20 in report  # the error excerpt itself is there
    for text in (run.stdout + run.stderr, report, comment, compare.stdout + compare.stderr):
        _no_prefix(text)
