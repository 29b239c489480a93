"""Every function doc bfcl-eval scores loads as an own tool file (read from the installed
package's data, never imported: importing bfcl_eval writes folders)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

from bfcl_action.core.categories import CATEGORIES
from bfcl_action.tools.load import tools_from_sources
from bfcl_action.tools.validate import ToolLimits


def _data_dir() -> Path | None:
    spec = importlib.util.find_spec("bfcl_eval")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "data"


def _function_docs(data: Path) -> list[tuple[str, dict[str, Any]]]:
    """(where, doc) for every distinct function doc of the scored categories."""
    seen: set[str] = set()
    out: list[tuple[str, dict[str, Any]]] = []
    files = [data / f"BFCL_v4_{c}.json" for c in CATEGORIES]
    files += sorted((data / "multi_turn_func_doc").glob("*.json"))
    for file in files:
        if not file.is_file():
            continue
        for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                entry = json.loads(line)
            except ValueError:  # not JSON Lines of entries (format_sensitivity's id map)
                break
            if not isinstance(entry, dict):
                break
            docs = entry.get("function") or [] if "id" in entry else [entry]
            for doc in docs:
                key = json.dumps(doc, sort_keys=True)
                if key not in seen:
                    seen.add(key)
                    out.append((f"{file.name}:{number}", doc))
    return out


@pytest.mark.conformance
def test_every_scored_bfcl_function_doc_loads() -> None:
    data = _data_dir()
    if data is None:
        pytest.skip("bfcl-eval is not installed (nox -s conformance installs it)")
    docs = _function_docs(data)
    assert len(docs) > 3000
    failed = []
    for where, doc in docs:
        try:
            tools_from_sources([(where, json.dumps([doc]))], ToolLimits(provider="generic"))
        except Exception as exc:  # the message is what the report needs
            failed.append(f"{where}: {str(exc)[:200]}")
    assert failed == []
