"""Datasets by spec: `bfcl@<version>` (official BFCL data) and `live@<version>|live@latest`.

    cases = load_dataset("bfcl@2026.3.23", ["simple_python", "live"])

`categories` takes category names or group names (`non_live`, `live`, `hallucination`,
`multi_turn`; the last only by name, never through `all`) as in
`bfcl_action.core.categories.parse_categories`; None means every category of the dataset. Every
returned `TestCase` carries `dataset` (the resolved spec) and `suite` (its report label).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from bfcl_action.core.categories import (
    AGENTIC_OFFICIAL,
    FORMAT_SENSITIVITY,
    MULTI_TURN_OFFICIAL,
    SINGLE_TURN_OFFICIAL,
    parse_categories,
)
from bfcl_action.core.errors import ConfigError, DatasetError
from bfcl_action.core.records import ExecutionData, TestCase
from bfcl_action.dataset import live, official
from bfcl_action.dataset.bfcl_format import PoolEntry

__all__ = ["dataset_categories", "load_dataset", "load_pool_entries", "parse_spec"]


def parse_spec(spec: str) -> tuple[str, str]:
    """Split `name@version`; the name must be `bfcl` or `live`."""
    name, sep, version = spec.strip().partition("@")
    if not sep or not version or name not in {"bfcl", "live"}:
        known = ", ".join(f"bfcl@{v}" for v in official.RELEASES)
        raise DatasetError(
            f"unknown dataset {spec!r}; expected one of {known}, live@<YYYY-Www>, live@latest",
            field="dataset",
        )
    if name == "bfcl":
        official.get_release(version)
    return name, version


def dataset_categories(
    spec: str,
    *,
    live_dir: Path | None = None,
    multi_turn: bool = False,
    agentic: bool = False,
    format_sensitivity: bool = False,
) -> list[str]:
    """Category names the dataset provides, in the category table's order (no download).

    Multi-turn categories are listed only with `multi_turn=True`: they need the official
    environments installed (docs/multi-turn.md), so `all` never selects them silently.
    Agentic categories (web search, memory) are listed only with `agentic=True`: they are
    scored from result files, never run. Format sensitivity (5,200 prompt-mode cases) is
    listed only with `format_sensitivity=True`.
    """
    name, version = parse_spec(spec)
    if name == "bfcl":
        return (
            list(SINGLE_TURN_OFFICIAL)
            + (list(MULTI_TURN_OFFICIAL) if multi_turn else [])
            + (list(AGENTIC_OFFICIAL) if agentic else [])
            + ([FORMAT_SENSITIVITY] if format_sensitivity else [])
        )
    return live.live_categories(version, live_dir)


def load_dataset(
    spec: str,
    categories: Sequence[str] | None = None,
    *,
    wheel: Path | None = None,
    cache_dir: Path | None = None,
    live_dir: Path | None = None,
) -> list[TestCase]:
    """Load a dataset's test cases, fetching and caching official data on first use.

    `wheel` uses a local copy of the official wheel (still sha256-verified); `cache_dir`
    overrides `$BFCL_ACTION_CACHE`; `live_dir` overrides where Live releases are read.
    Raises DatasetError for an unknown spec, a failed download or a hash mismatch, and
    ConfigError for a category the dataset does not have.
    """
    name, version = parse_spec(spec)
    available = dataset_categories(spec, live_dir=live_dir)
    if name == "bfcl" and categories:
        available = dataset_categories(
            spec,
            live_dir=live_dir,
            multi_turn=_names_any(categories, {"multi_turn", *MULTI_TURN_OFFICIAL}),
            agentic=_names_any(categories, {"agentic", *AGENTIC_OFFICIAL}),
            format_sensitivity=_names_any(categories, {FORMAT_SENSITIVITY}),
        )
    chosen = _choose(categories, available)
    if name == "bfcl":
        release = official.get_release(version)
        cases = official.load_official(release, chosen, wheel=wheel, cache=cache_dir)
        if any(c in MULTI_TURN_OFFICIAL for c in chosen):
            cases = _with_environments(cases, release, wheel=wheel, cache_dir=cache_dir)
        return cases
    return live.load_live(version, chosen, root=live_dir)


def load_pool_entries(
    spec: str,
    categories: Sequence[str],
    *,
    wheel: Path | None = None,
    cache_dir: Path | None = None,
    live_dir: Path | None = None,
) -> list[PoolEntry]:
    """The entries of a dataset's single-turn `categories` (names as `dataset_categories`
    gives them), in the compact form the derived suites' pools read: no case is built."""
    name, version = parse_spec(spec)
    if name == "bfcl":
        release = official.get_release(version)
        return official.load_official_entries(release, categories, wheel=wheel, cache=cache_dir)
    return live.load_live_entries(version, categories, root=live_dir)


def _with_environments(
    cases: list[TestCase],
    release: official.BfclRelease,
    *,
    wheel: Path | None,
    cache_dir: Path | None,
) -> list[TestCase]:
    """Multi-turn cases with the import root of the official environments, which come from
    the same pinned wheel as the data (no `pip install bfcl-eval` needed)."""
    from bfcl_action.dataset.official import ensure_environments

    root = str(ensure_environments(release, wheel=wheel, cache=cache_dir))
    out = []
    for case in cases:
        if case.category in MULTI_TURN_OFFICIAL:
            paths = case.metadata_as(ExecutionData).environment_paths
            case = TestCase.model_validate(
                {**case.model_dump(), "environment_paths": [*paths, root]}
            )
        out.append(case)
    return out


def _names_any(categories: Sequence[str], names: set[str]) -> bool:
    """True when the caller asks by name (a category or its group) for one of `names`:
    multi-turn and agentic categories are loaded only when named."""
    if isinstance(categories, str):
        return False
    items = {c.strip() for item in categories for c in item.split(",")}
    return bool(items & names)


def _choose(categories: Sequence[str] | None, available: list[str]) -> list[str]:
    if categories is None:
        return available
    if isinstance(categories, str):
        raise ConfigError("pass categories as a list of names, not one string")
    return parse_categories(",".join(categories), available) if categories else available
