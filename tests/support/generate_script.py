"""A scripted proposer and verifier for `bfcl-action generate`, served by `OpenAIServer`.

A script is JSON: `propose` maps a target tool to the proposer's reply (`{"cases": [...]}`
with each call's `arguments` as an object, written out as the JSON string the schema asks
for; or a raw `{"content": ...}` / `{"refusal": ...}` reply), and `verify` maps a request
text to the verify model's reply (`{"tool_calls": [...]}` or `{"content": ...}`). Anything
unscripted is answered with prose (no call).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

Reply = dict[str, Any]
_TARGET = re.compile(r"^Target tool: (\S+)$", re.MULTILINE)


def _text(message: Any) -> str:
    return str(message.get("content") or "") if isinstance(message, dict) else ""


def _proposal(reply: Reply) -> Reply:
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


def responder(script: dict[str, Any]) -> Callable[[dict[str, Any]], Reply]:
    """`OpenAIServer.responder` for a generation script."""

    def answer(body: dict[str, Any]) -> Reply:
        messages = body.get("messages") or []
        users = [_text(m) for m in messages if isinstance(m, dict) and m.get("role") == "user"]
        last = users[-1] if users else ""
        target = _TARGET.search(last)
        if target is not None and "tools" not in body:
            return _proposal(script.get("propose", {}).get(target.group(1), {"content": ""}))
        reply = script.get("verify", {}).get(last)
        return reply if reply is not None else {"content": "I can't help with that here."}

    return answer


def load_script(path: str | Path) -> dict[str, Any]:
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data
