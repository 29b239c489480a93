"""Stable hashes that decide whether two runs can be compared.

Hashes are over canonical JSON (sorted keys, no whitespace), so the same inputs give the same
fingerprint on every machine and Python version.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from typing import Any


def canonical_json(value: Any) -> str:
    """JSON with sorted keys and no insignificant whitespace; the input to every hash here."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def case_set_hash(ids: Iterable[str]) -> str:
    """Order-free hash of the case ids of a run (16 hex chars: short enough for a digest)."""
    return sha256_hex("\n".join(sorted(set(ids))))[:16]


def config_fingerprint(
    *, model: str, mode: str, datasets: Iterable[str], settings: dict[str, Any]
) -> str:
    """Hash of what makes scores comparable: model, mode, datasets and sampling settings."""
    payload = {
        "model": model,
        "mode": mode,
        "datasets": sorted(datasets),
        "settings": settings,
    }
    return sha256_hex(canonical_json(payload))[:16]
