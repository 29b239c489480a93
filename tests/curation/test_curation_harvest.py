"""`bfcl-curate harvest`: pinned public tool definitions (served on 127.0.0.1) -> fresh
functions -> drafts by the generate engine with a scripted model -> a review file; nothing
is released until a maintainer approves a draft, and the next build releases it in `fresh`.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from bfcl_action.core.errors import ConfigError, InputError
from curation.harvest import Source, fetch, load_sources, read_approved
from tests.support.curation import contribution, weather_doc
from tests.support.generate_script import responder
from tests.support.openai_server import OpenAIServer

BIN = Path(sys.executable).parent
COMMIT = "3f2c" + "a" * 36

TIDES = {
    "name": "get_tide_times",
    "description": "High and low tide times for a harbour on a date.",
    "inputSchema": {
        "type": "object",
        "properties": {
            "harbour": {"type": "string", "description": "Harbour name."},
            "date": {"type": "string", "description": "ISO date."},
        },
        "required": ["harbour", "date"],
    },
}
COURTS = {
    "type": "function",
    "function": {
        "name": "book_tennis_court",
        "description": "Reserve a tennis court at a club for a start time.",
        "parameters": {
            "type": "object",
            "properties": {
                "club": {"type": "string", "description": "Club name."},
                "start": {"type": "string", "description": "Start time, HH:MM."},
            },
            "required": ["club", "start"],
        },
    },
}
SEEN = {
    "type": "function",
    "function": {**weather_doc(), "parameters": {**weather_doc()["parameters"], "type": "object"}},
}

SCRIPT: dict[str, Any] = {
    "propose": {
        "get_tide_times": {
            "cases": [
                {
                    "kind": "simple",
                    "request": "When is high tide in Brest on 2026-07-14?",
                    "calls": [
                        {
                            "name": "get_tide_times",
                            "arguments": {"harbour": "Brest", "date": "2026-07-14"},
                        }
                    ],
                },
                {
                    "kind": "simple",
                    "request": "Tide times for Plymouth on 2026-08-02, please.",
                    "calls": [
                        {
                            "name": "get_tide_times",
                            "arguments": {"harbour": "Plymouth", "date": "2026-08-02"},
                        }
                    ],
                },
            ]
        },
        "book_tennis_court": {
            "cases": [
                {
                    "kind": "simple",
                    "request": "Book a court at Riverside Club at 18:30.",
                    "calls": [
                        {
                            "name": "book_tennis_court",
                            "arguments": {"club": "Riverside Club", "start": "18:30"},
                        }
                    ],
                }
            ]
        },
    },
    "verify": {
        "When is high tide in Brest on 2026-07-14?": {
            "tool_calls": [
                {"name": "get_tide_times", "arguments": {"harbour": "Brest", "date": "2026-07-14"}}
            ]
        },
        "Tide times for Plymouth on 2026-08-02, please.": {  # disagrees: for the review
            "tool_calls": [
                {
                    "name": "get_tide_times",
                    "arguments": {"harbour": "Plymouth", "date": "2026-08-03"},
                }
            ]
        },
        "Book a court at Riverside Club at 18:30.": {
            "tool_calls": [
                {
                    "name": "book_tennis_court",
                    "arguments": {"club": "Riverside Club", "start": "18:30"},
                }
            ]
        },
    },
}


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    root = tmp_path / "www"
    (root / COMMIT).mkdir(parents=True)
    (root / "mcp-tides.json").write_text(json.dumps({"tools": [TIDES]}))
    (root / COMMIT / "tools.json").write_text(json.dumps([COURTS, SEEN]))
    handler = functools.partial(SimpleHTTPRequestHandler, directory=str(root))
    handler.log_message = lambda *a, **k: None  # type: ignore[attr-defined]
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", root
    finally:
        server.shutdown()
        server.server_close()


def curate(
    cwd: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    full = {"PATH": os.environ.get("PATH", ""), "HOME": str(cwd), **(env or {})}
    proc = subprocess.run(
        [str(BIN / "bfcl-curate"), *args],
        cwd=cwd,
        env=full,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert "Traceback (most recent call last)" not in proc.stderr, proc.stderr
    return proc


def _sources(live: Path, base: str, root: Path) -> None:
    digest = hashlib.sha256((root / "mcp-tides.json").read_bytes()).hexdigest()
    (live / "sources.yml").write_text(
        f"- url: {base}/mcp-tides.json\n  sha256: {digest}\n  license: MIT\n  name: tides MCP\n"
        f"- url: {base}/{COMMIT}/tools.json\n  commit: {COMMIT}\n  license: Apache-2.0\n"
    )


def _release_with_weather(tmp_path: Path, live: Path) -> None:
    src = tmp_path / "seed.jsonl"
    src.write_text(json.dumps(contribution()) + "\n")
    done = curate(
        tmp_path,
        "build",
        "--input",
        str(src),
        "--live-dir",
        str(live),
        "--version",
        "2026-W50",
        "--reference",
        "none",
    )
    assert done.returncode == 0, done.stderr


def test_harvest_drafts_fresh_functions_and_a_build_releases_only_approved_ones(
    tmp_path: Path, served: tuple[str, Path]
) -> None:
    base, root = served
    live = tmp_path / "live"
    _release_with_weather(tmp_path, live)
    _sources(live, base, root)
    with OpenAIServer() as model:
        model.responder = responder(SCRIPT)
        done = curate(
            tmp_path,
            "harvest",
            "--live-dir",
            str(live),
            "--model",
            "scripted",
            "--base-url",
            model.base_url,
            "--version",
            "2026-W51",
            "--reference",
            "none",
            "--per-tool",
            "2",
        )
    assert done.returncode == 0, done.stderr
    assert "3 functions from 2 sources: 2 fresh, 1 seen before; 3 drafts (1 disagreements)" in (
        done.stdout
    )
    drafts = [json.loads(x) for x in (live / "drafts" / "2026-W51.jsonl").read_text().splitlines()]
    assert sorted(d["contribution"]["question"] for d in drafts) == sorted(
        [
            "When is high tide in Brest on 2026-07-14?",
            "Tide times for Plymouth on 2026-08-02, please.",
            "Book a court at Riverside Club at 18:30.",
        ]
    )
    assert {d["contribution"]["source"] for d in drafts} >= {f"{base}/{COMMIT}/tools.json@{COMMIT}"}
    review = (live / "review" / "2026-W51.md").read_text()
    disagreeing = next(d for d in drafts if d["verdict"] != "agrees")
    assert disagreeing["draft_id"] in review and "2026-08-03" in review
    assert "None is released until its id is added to `data/live/approved.txt`" in review

    unapproved = curate(
        tmp_path, "build", "--live-dir", str(live), "--version", "2026-W51", "--reference", "none"
    )
    assert unapproved.returncode == 0, unapproved.stderr
    assert not (live / "releases" / "2026-W51").exists()

    agreeing = sorted(d["draft_id"] for d in drafts if d["verdict"] == "agrees")
    (live / "approved.txt").write_text("# approved in the data PR\n" + "\n".join(agreeing) + "\n")
    approved = curate(
        tmp_path, "build", "--live-dir", str(live), "--version", "2026-W52", "--reference", "none"
    )
    assert approved.returncode == 0, approved.stderr
    release = live / "releases" / "2026-W52"
    provenance = [json.loads(x) for x in (release / "provenance.jsonl").read_text().splitlines()]
    generated = [p for p in provenance if p["origin_class"] == "generated"]
    assert sorted(p["origin"] for p in generated) == [f"generated:{i}" for i in agreeing]
    fresh = (release / "fresh" / "BFCL_v4_live_simple.json").read_text().splitlines()
    fresh_questions = {json.loads(x)["question"][0][0]["content"] for x in fresh}
    assert fresh_questions == {
        "When is high tide in Brest on 2026-07-14?",
        "Book a court at Riverside Club at 18:30.",
    }
    card = (release / "README.md").read_text()
    assert "generated" in card and "contributed" in card
    verified = curate(tmp_path, "verify", str(live), "--no-history")
    assert verified.returncode == 0, verified.stdout + verified.stderr


def test_a_source_must_be_pinned_and_the_error_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "sources.yml"
    path.write_text(
        '- url: https://example.com/a.json\n  sha256: "' + "0" * 64 + '"\n  license: MIT\n'
        "- url: https://example.com/b.json\n  license: MIT\n"
    )
    with pytest.raises(ConfigError, match=r"sources.yml:4: .*pin the file"):
        load_sources(path)


def test_a_commit_must_be_named_by_the_url(tmp_path: Path) -> None:
    path = tmp_path / "sources.yml"
    path.write_text(f"- url: https://example.com/main/a.json\n  commit: {COMMIT}\n  license: MIT\n")
    with pytest.raises(ConfigError, match="commit"):
        load_sources(path)


def test_a_file_that_changed_upstream_is_refused(served: tuple[str, Path]) -> None:
    base, _ = served
    source = Source(url=f"{base}/mcp-tides.json", sha256="1" * 64, license="MIT")
    with pytest.raises(InputError, match="is not the pinned"):
        fetch(source)


def test_approved_lines_must_be_draft_ids(tmp_path: Path) -> None:
    (tmp_path / "approved.txt").write_text("gen-0123456789ab\nlive_simple_00001\n")
    with pytest.raises(InputError, match=r"approved.txt:2"):
        read_approved(tmp_path)
