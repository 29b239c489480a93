"""Our weekly Live releases (`live@<YYYY-Www>`, `live@latest`), in BFCL's file format.

A release directory holds `BFCL_v4_<category>.json` entry files, their
`possible_answer/BFCL_v4_<category>.json` twins (none for irrelevance/relevance) and a
`MANIFEST.json` with at least `version`, `categories` (name -> count) and `files`
(relative path -> sha256). Categories are keys of the category table (`live_simple`,
`live_multiple`, ...), so Live cases are checked exactly like BFCL's own; they are reported
under `live@<version>/<category>` so they never share a row with the official `live_*`
categories.

Where a release comes from, first match wins:

1. a directory holding `LATEST` and `releases/` (`live_dir=`, `$BFCL_ACTION_LIVE_DIR`, or the
   `data/live` of the source checkout this module runs from);
2. otherwise the release's data wheel, `bfcl-action-live==<year>.<week>`, fetched once with
   the user's own pip or uv and package index (as `bfcl@<version>` is) and extracted into
   `<cache>/live/`. Which releases exist, which one `latest` is, and the sha256 of each
   release's `MANIFEST.json` come from `live_wheels.json`, shipped inside this package, so
   an installed bfcl-action reads exactly the releases it was built with. The manifest pins
   every other file by sha256, so the pin is on content: it does not depend on how the
   wheel was compressed, and a release rebuilt from the git tree verifies the same.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, NamedTuple

from bfcl_action.core.categories import CATEGORIES, Checker
from bfcl_action.core.errors import DatasetError, LiveUnavailable
from bfcl_action.core.records import TestCase
from bfcl_action.dataset import official
from bfcl_action.dataset.bfcl_format import PoolEntry, read_category, read_pool_entries

LIVE_DIR_ENV = "BFCL_ACTION_LIVE_DIR"
VERSION_RE = re.compile(r"^(\d{4})-W(\d{2})$")
PACKAGE = "bfcl-action-live"
WHEEL_PREFIX = "bfcl_action_live/releases/"
"""Where a data wheel keeps its release: `bfcl_action_live/releases/<version>/...`."""
CACHE_LAYOUT = 1
CHECKOUT = Path(__file__).resolve().parents[2] / "data" / "live"
"""`data/live` of the source checkout this module runs from; absent in an installed package."""
_FILE_RE = re.compile(r"^(?:possible_answer/)?\w[\w.-]*$")
_FIX = (
    f"set {LIVE_DIR_ENV} to a data/live directory (a clone of the bfcl-action repository has one)"
)


@dataclass(frozen=True)
class LiveWheel:
    """One published Live release: its version and the sha256 of its `MANIFEST.json`."""

    version: str
    manifest_sha256: str

    @property
    def package_version(self) -> str:
        return package_version(self.version)

    @property
    def requirement(self) -> str:
        return f"{PACKAGE}=={self.package_version}"


def package_version(version: str) -> str:
    """`2026-W05` -> `2026.5`: the data wheel's version (PEP 440, sorts like the weeks)."""
    match = VERSION_RE.match(version)
    if not match:
        raise DatasetError(f"expected a release name like 2026-W48, found {version!r}")
    return f"{match.group(1)}.{int(match.group(2))}"


def wheel_registry() -> tuple[str | None, dict[str, LiveWheel]]:
    """`(latest, version -> LiveWheel)` from the `live_wheels.json` shipped in this package."""
    text = resources.files("bfcl_action.dataset").joinpath("live_wheels.json").read_text("utf-8")
    data = json.loads(text)
    wheels = {
        version: LiveWheel(version=version, manifest_sha256=entry["manifest_sha256"])
        for version, entry in data["releases"].items()
    }
    latest = data.get("latest")
    return (latest if isinstance(latest, str) else None), wheels


def live_root(explicit: Path | None = None) -> Path | None:
    """The directory Live releases are read from (the argument, `$BFCL_ACTION_LIVE_DIR`, this
    source checkout's `data/live`), or None: the data wheels pinned in this package."""
    if explicit is not None:
        return explicit
    configured = os.environ.get(LIVE_DIR_ENV)
    if configured:
        return Path(configured).expanduser()
    if (CHECKOUT / "LATEST").is_file() and (CHECKOUT / "releases").is_dir():
        return CHECKOUT
    return None


def resolve_version(version: str, root: Path | None) -> str:
    """`latest` -> the newest release (`LATEST` of the directory, else the newest pinned
    wheel); any other value must be `YYYY-Www`."""
    if version == "latest":
        if root is None:
            latest, _ = wheel_registry()
            if latest is None:
                raise LiveUnavailable(
                    f"live@latest: this bfcl-action ships no Live release; {_FIX}",
                    field="dataset",
                )
            return latest
        file = root / "LATEST"
        try:
            version = file.read_text(encoding="utf-8").strip()
        except OSError:
            raise LiveUnavailable(
                f"live@latest: no Live release found (cannot read {file}); set "
                f"{LIVE_DIR_ENV} to a data/live directory, or unset it to use the releases "
                "pinned in this bfcl-action",
                field="dataset",
            ) from None
        if not VERSION_RE.match(version):
            raise DatasetError(
                f"expected a release name like 2026-W48, found {version!r}",
                file=str(file),
                line=1,
            )
        return version
    if not VERSION_RE.match(version):
        raise DatasetError(
            f"Live versions are ISO weeks like live@2026-W48 or live@latest, found {version!r}",
            field="dataset",
        )
    return version


def release_path(version: str, root: Path | None) -> Path:
    """The directory holding release `version` (resolved), fetching its wheel if needed."""
    if root is None:
        return ensure_release(version)
    path = root / "releases" / version
    if not path.is_dir():
        known = sorted(p.name for p in (root / "releases").glob("*") if p.is_dir())
        raise LiveUnavailable(
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


def live_categories(version: str, root: Path | None = None) -> list[str]:
    """Category names of one release, in the category table's order (reads the manifest;
    for a pinned wheel that is the first read, which fetches it)."""
    base = live_root(root)
    path = release_path(resolve_version(version, base), base)
    categories: dict[str, Any] = read_manifest(path)["categories"]
    return [c for c in CATEGORIES if c in categories]


class _Release(NamedTuple):
    """One opened release: where it is, its manifest, its categories, its resolved name."""

    path: Path
    manifest: dict[str, Any]
    available: list[str]
    dataset: str

    def check_category(self, category: str) -> None:
        if category not in self.available:
            raise DatasetError(
                f"category {category!r} is not in {self.dataset}; "
                f"available: {', '.join(self.available)}",
                field="categories",
            )

    def check_count(self, category: str, found: int) -> None:
        """The manifest's entry count of `category` against what its file held."""
        expected = self.manifest["categories"][category]
        if isinstance(expected, int) and expected != found:
            raise DatasetError(
                f"{category}: manifest lists {expected} entries, the file has {found}",
                file=str(self.path / "MANIFEST.json"),
                field="categories",
            )


def _open_release(version: str, root: Path | None) -> _Release:
    base = live_root(root)
    resolved = resolve_version(version, base)
    path = release_path(resolved, base)
    manifest = read_manifest(path)
    available = [c for c in CATEGORIES if c in manifest["categories"]]
    return _Release(path, manifest, available, f"live@{resolved}")


def load_live(
    version: str, categories: Sequence[str] | None, *, root: Path | None = None
) -> list[TestCase]:
    """Cases of one Live release; `dataset` is the resolved `live@<version>` (never
    `live@latest`), so a report always says which release it ran."""
    release = _open_release(version, root)
    dataset = release.dataset
    cases: list[TestCase] = []
    for category in list(categories) if categories is not None else release.available:
        release.check_category(category)
        loaded = read_category(
            release.path,
            category,
            dataset=dataset,
            suite=suite_label(dataset, category),
            display=f"{dataset}:",
            expected_sha256=release.manifest.get("files", {}),
        )
        release.check_count(category, len(loaded))
        cases.extend(loaded)
    return cases


def load_live_entries(
    version: str, categories: Sequence[str], *, root: Path | None = None
) -> list[PoolEntry]:
    """Every entry of `categories` of one release, in the compact form a pool reads
    (`bfcl_format.read_pool_entries`); the manifest's entry counts are checked as
    `load_live` checks them."""
    release = _open_release(version, root)
    out: list[PoolEntry] = []
    for category in categories:
        release.check_category(category)
        entries = read_pool_entries(
            release.path,
            category,
            display=f"{release.dataset}:",
            expected_sha256=release.manifest.get("files", {}),
        )
        release.check_count(category, len(entries))
        out.extend(entries)
    return out


def suite_label(dataset: str, category: str) -> str:
    """`live@2026-W48/live_simple`: the dataset, a slash, the category."""
    return f"{dataset}/{category}"


# --- the pinned data wheels -----------------------------------------------------------------


def get_wheel(version: str) -> LiveWheel:
    """The pinned wheel of `version`; a version this install does not know is LiveUnavailable
    naming the known ones and the two ways to get newer data."""
    _, wheels = wheel_registry()
    try:
        return wheels[version]
    except KeyError:
        known = ", ".join(f"live@{v}" for v in sorted(wheels)) or "none"
        raise LiveUnavailable(
            f"live@{version} is not a release this bfcl-action knows (known: {known}); "
            f"upgrade bfcl-action (pip install -U bfcl-action) for newer releases, or {_FIX}",
            field="dataset",
        ) from None


def cache_dir(wheel: LiveWheel, cache: Path | None = None) -> Path:
    root = cache if cache is not None else official.cache_root()
    return root / "live" / f"{wheel.version}-{wheel.manifest_sha256[:12]}-v{CACHE_LAYOUT}"


def ensure_release(version: str, *, cache: Path | None = None) -> Path:
    """The cache directory of pinned release `version`, fetching its wheel on first use.

    The directory appears in one rename once every file is verified, so an interrupted
    fetch leaves nothing behind; later reads are offline and re-check the manifest's sha256
    (the entry files are checked against the manifest as they are read).
    """
    wheel = get_wheel(version)
    final = cache_dir(wheel, cache)
    if (final / "MANIFEST.json").is_file():
        _check_manifest(final / "MANIFEST.json", wheel)
        return final

    def fill(work: Path, staging: Path) -> None:
        found = official.fetch_wheel(wheel.requirement, work, hashed=False)
        if isinstance(found, str):
            raise LiveUnavailable(
                f"live@{version}: could not download {wheel.requirement} ({found}). Check that "
                f"your package index is reachable with your pip/uv configuration, or {_FIX}",
                field="dataset",
            )
        extract_release(found, wheel, staging)

    return official.fill_cache(final, fill)


def extract_release(source: Path, wheel: LiveWheel, staging: Path) -> None:
    """Copy the release out of a wheel (or an installed tree) into `staging`, refusing it
    unless `MANIFEST.json` has the pinned sha256 and every file it lists has its own."""
    prefix = f"{WHEEL_PREFIX}{wheel.version}/"
    members = {rel: read() for rel, read in official.wheel_members(source, prefix, _FILE_RE)}
    label = f"{wheel.requirement} (live@{wheel.version})"
    if "MANIFEST.json" not in members:
        raise DatasetError(f"{label} holds no {prefix}MANIFEST.json", file=str(source))
    manifest_bytes = members["MANIFEST.json"]
    found = hashlib.sha256(manifest_bytes).hexdigest()
    if found != wheel.manifest_sha256:
        raise DatasetError(
            f"sha256 mismatch for the manifest of {label}: expected {wheel.manifest_sha256}, "
            f"found {found}; the download is corrupt or not the published release",
            file=str(source),
        )
    (staging / "MANIFEST.json").write_bytes(manifest_bytes)
    files = json.loads(manifest_bytes).get("files", {})
    for rel, expected in sorted(files.items()):
        data = members.get(rel)
        if data is None:
            raise DatasetError(f"{label} lacks {rel}, which its manifest lists", file=str(source))
        if hashlib.sha256(data).hexdigest() != expected:
            raise DatasetError(
                f"sha256 mismatch for {rel} in {label}; the download is corrupt",
                file=str(source),
            )
        target = staging / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


def _check_manifest(path: Path, wheel: LiveWheel) -> None:
    try:
        found = hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError as exc:
        raise DatasetError(
            f"cannot read the cached manifest: {exc.strerror}", file=str(path)
        ) from None
    if found != wheel.manifest_sha256:
        raise DatasetError(
            f"live@{wheel.version}: the cached manifest's sha256 {found} is not the pinned "
            f"{wheel.manifest_sha256}; delete {path.parent} to fetch the release again",
            file=str(path),
        )
