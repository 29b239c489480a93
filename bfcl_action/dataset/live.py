"""Our weekly Live releases: `data/live/releases/<YYYY-Www>/`, in BFCL's file format.

A release directory holds `BFCL_v4_<category>.json` entry files, their
`possible_answer/BFCL_v4_<category>.json` twins (none for irrelevance/relevance) and a
`MANIFEST.json` with at least `version`, `categories` (name -> count) and `files`
(relative path -> sha256). `data/live/LATEST` names the newest release. Categories are keys
of the category table (`live_simple`, `live_multiple`, ...), so Live cases are checked
exactly like BFCL's own; they are reported under `live@<version>/<category>` so they never
share a row with the official `live_*` categories.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bfcl_action.categories import CATEGORIES, Checker
from bfcl_action.dataset.bfcl_format import read_category
from bfcl_action.errors import DatasetError
from bfcl_action.records import TestCase

LIVE_DIR_ENV = "BFCL_ACTION_LIVE_DIR"
VERSION_RE = re.compile(r"^\d{4}-W\d{2}$")


def live_root(explicit: Path | None = None) -> Path:
    """Where Live releases live: the argument, `$BFCL_ACTION_LIVE_DIR`, this source
    checkout's `data/live`, else `./data/live`."""
    if explicit is not None:
        return explicit
    configured = os.environ.get(LIVE_DIR_ENV)
    if configured:
        return Path(configured).expanduser()
    checkout = Path(__file__).resolve().parents[2] / "data" / "live"
    if checkout.is_dir():
        return checkout
    return Path("data") / "live"


def resolve_version(version: str, root: Path) -> str:
    """`latest` -> the version named in `LATEST`; any other value must be `YYYY-Www`."""
    if version == "latest":
        latest = root / "LATEST"
        try:
            version = latest.read_text(encoding="utf-8").strip()
        except OSError:
            raise DatasetError(
                f"no Live release found (cannot read {latest}); set {LIVE_DIR_ENV} to the "
                "data/live directory",
                field="dataset",
            ) from None
        if not VERSION_RE.match(version):
            raise DatasetError(
                f"expected a release name like 2026-W48, found {version!r}",
                file=str(latest),
                line=1,
            )
        return version
    if not VERSION_RE.match(version):
        raise DatasetError(
            f"Live versions are ISO weeks like live@2026-W48 or live@latest, found {version!r}",
            field="dataset",
        )
    return version


def release_path(version: str, root: Path) -> Path:
    path = root / "releases" / version
    if not path.is_dir():
        known = sorted(p.name for p in (root / "releases").glob("*") if p.is_dir())
        raise DatasetError(
            f"Live release {version} not found under {root / 'releases'}; "
            f"available: {', '.join(known) or 'none'}",
            field="dataset",
        )
    return path


def read_manifest(path: Path) -> dict[str, Any]:
    file = path / "MANIFEST.json"
    try:
        manifest = json.loads(file.read_text(encoding="utf-8"))
    except OSError as exc:
        raise DatasetError(
            f"cannot read release manifest: {exc.strerror}", file=str(file)
        ) from None
    except json.JSONDecodeError as exc:
        raise DatasetError(f"not valid JSON: {exc.msg}", file=str(file), line=exc.lineno) from None
    if not isinstance(manifest, dict):
        raise DatasetError("expected a JSON object", file=str(file))
    categories = manifest.get("categories")
    if not isinstance(categories, dict) or not categories:
        raise DatasetError(
            "expected a non-empty map of category -> count", file=str(file), field="categories"
        )
    for name in categories:
        category = CATEGORIES.get(name)
        if category is None or category.checker is Checker.MULTI_TURN:
            raise DatasetError(
                f"unknown single-turn category {name!r}", file=str(file), field="categories"
            )
    files = manifest.get("files", {})
    if not isinstance(files, dict):
        raise DatasetError("expected a map of path -> sha256", file=str(file), field="files")
    return manifest


def live_categories(version: str, root: Path) -> list[str]:
    path = release_path(resolve_version(version, root), root)
    categories: dict[str, Any] = read_manifest(path)["categories"]
    return [c for c in CATEGORIES if c in categories]


def load_live(
    version: str, categories: Sequence[str] | None, *, root: Path | None = None
) -> list[TestCase]:
    """Cases of one Live release; `dataset` is the resolved `live@<version>` (never
    `live@latest`), so a report always says which release it ran."""
    base = live_root(root)
    resolved = resolve_version(version, base)
    path = release_path(resolved, base)
    manifest = read_manifest(path)
    available = [c for c in CATEGORIES if c in manifest["categories"]]
    chosen = list(categories) if categories is not None else available
    dataset = f"live@{resolved}"
    cases: list[TestCase] = []
    for category in chosen:
        if category not in available:
            raise DatasetError(
                f"category {category!r} is not in {dataset}; available: {', '.join(available)}",
                field="categories",
            )
        loaded = read_category(
            path,
            category,
            dataset=dataset,
            suite=suite_label(dataset, category),
            display=f"{dataset}:",
            expected_sha256=manifest.get("files", {}),
        )
        expected = manifest["categories"][category]
        if isinstance(expected, int) and expected != len(loaded):
            raise DatasetError(
                f"{category}: manifest lists {expected} entries, the file has {len(loaded)}",
                file=str(path / "MANIFEST.json"),
                field="categories",
            )
        cases.extend(loaded)
    return cases


def suite_label(dataset: str, category: str) -> str:
    """`live@2026-W48/live_simple`: the dataset, a slash, the category."""
    return f"{dataset}/{category}"
