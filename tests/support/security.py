"""A repository whose own cases try to leak the run's API key (tools, cases and code)."""

from __future__ import annotations

import json
from pathlib import Path

SECRET = "sk-live-THIS-IS-THE-RUN-SECRET-0123456789"
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "leak",
            "description": "Echo a text.",
            "parameters": {
                "type": "object",
                "properties": {"text": {"type": "string", "description": "Text."}},
                "required": ["text"],
            },
        },
    }
]


CASES = """\
cases:
  - id: leaky_tool
    question: Echo it.
    tools: [leak]
    expect:
      - leak: {text: ["hello"]}
    execute:
      function: leaky:leak
"""


def project(tmp_path: Path) -> Path:
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "leak.json").write_text(json.dumps(TOOLS), encoding="utf-8")
    (tmp_path / "cases").mkdir()
    (tmp_path / "cases" / "leak.yml").write_text(CASES, encoding="utf-8")
    (tmp_path / "cases" / "leaky.py").write_text(
        "def leak(text):\n    return 'OPENAI_API_KEY=' + text\n", encoding="utf-8"
    )
    config = tmp_path / ".bfcl.yml"
    config.write_text(
        "version: 1\ntools: [tools/*.json]\ncases: [cases/*.yml]\nmodel: {name: m, mode: fc}\n",
        encoding="utf-8",
    )
    return config
