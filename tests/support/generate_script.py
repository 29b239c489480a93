"""A scripted proposer and verify model for `bfcl-action generate` (tests and the demo).

The script format and the answers are the package's own (`bfcl_action.runner.serve.scripted`, what
`bfcl-action serve-replay --script` serves): `propose` maps a target tool to the proposer's
reply (`{"cases": [...]}` with each call's `arguments` as an object), and `verify` maps a
request text to the verify model's reply. Anything unscripted is answered with prose.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bfcl_action.runner.serve import scripted as responder

__all__ = ["load_script", "responder"]


def load_script(path: str | Path) -> dict[str, Any]:
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data
