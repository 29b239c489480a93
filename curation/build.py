"""`bfcl-curate build`: the I/O around the pure pipeline (read sources, write the release)."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel

from bfcl_action.core.categories import LIVE_CATEGORIES
from bfcl_action.core.errors import InputError
from bfcl_action.core.records import TestCase
from curation.canonical import answer_key, canonical_hash, function_text, similarity_text
from curation.dedup import Reference
from curation.ids import Registry, bfcl_id, dump_registry, load_registry, migrate_ids, withdraw
from curation.intake import Intake
from curation.models import Drop, Item, Origin, StageCount, origin_class
from curation.pipeline import DEFERRED, CurationResult, curate
from curation.release import SALT_ENV, library_versions, release_files, write_release
from curation.settings import CurationSettings, load_settings
from curation.store import latest_version, read_release_items

CONTRIBUTION_SUFFIXES = (".json", ".jsonl", ".yml", ".yaml")
DEFERRED_FILE = "deferred.jsonl"
"""Entries the flood cap held back, one curated (scrubbed) item per line; the next build
takes them first. Kept beside the releases, never inside one."""


def read_deferred(live_dir: Path) -> list[Item]:
    """The queue of deferred entries (empty when there is none); a bad line names itself."""
    path = live_dir / DEFERRED_FILE
    if not path.exists():
        return []
    items = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            items.append(Item.model_validate_json(line))
        except ValueError as exc:
            raise InputError(f"not a deferred entry: {exc}", file=str(path), line=number) from None
    return items


def write_deferred(live_dir: Path, items: Sequence[Item]) -> None:
    path = live_dir / DEFERRED_FILE
    if not items:
        path.unlink(missing_ok=True)
        return
    lines = [
        i.model_dump_json(exclude={"id"}) for i in sorted(items, key=lambda i: i.canonical_hash)
    ]
    _write_atomic(path, "".join(line + "\n" for line in lines))


class BuildReport(BaseModel):
    """What `build` did; written with `--report` and summarised in the data PR body."""

    version: str
    parent: str | None
    released: bool
    added: int
    total: int
    counts: dict[str, int]
    funnel: list[StageCount]
    drops: list[Drop]
    scrubbed: dict[str, int]
    notes: list[str]
    deferred: int = 0
    """Entries held back by the flood cap, queued in `data/live/deferred.jsonl`."""


def iso_week(today: dt.date | None = None) -> str:
    year, week, _ = (today or dt.date.today()).isocalendar()
    return f"{year}-W{week:02d}"


def contribution_files(paths: Sequence[Path]) -> list[Path]:
    """Files named directly, and contribution files found below named folders, sorted."""
    found: list[Path] = []
    for path in paths:
        if not path.exists():
            raise InputError("no such file or folder", file=str(path), field="--input")
        if path.is_dir():
            found.extend(
                p
                for p in sorted(path.rglob("*"))
                if p.is_file() and p.suffix in CONTRIBUTION_SUFFIXES
            )
        else:
            found.append(path)
    return found


def references_from_cases(cases: Sequence[TestCase]) -> list[Reference]:
    """Official BFCL entries as published tests that contributions must not repeat."""
    refs = []
    for case in cases:
        item = Item(
            origin=Origin(kind="bfcl", ref=case.id),
            question=case.question,
            functions=case.functions,
            possible_answer=case.possible_answer,
            contributor="",
            license="",
            category=case.category if case.category in LIVE_CATEGORIES else "",
        )
        refs.append(
            Reference(
                ref=case.id,
                function_text=function_text(item.functions),
                question_text=similarity_text(item),
                canonical_hash=canonical_hash(item),
                source="bfcl-live" if case.category in LIVE_CATEGORIES else "bfcl",
                answer_key=answer_key(item) if item.category else "",
                expects_call=bool(item.category and item.possible_answer),
            )
        )
    return refs


def changelog_entry(
    result: CurationResult,
    version: str,
    parent: str | None,
    withdrawals: dict[str, str] | None = None,
    notes: Sequence[str] = (),
    renamed: int = 0,
) -> str:
    """What changed against the parent and why: additions per category and origin, every
    withdrawn id with its reason (explicit and from re-curation), drops by reason."""
    counts: dict[str, int] = {}
    origins: dict[str, int] = {}
    for item in result.added:
        counts[item.category] = counts.get(item.category, 0) + 1
        origins[origin_class(item.origin)] = origins.get(origin_class(item.origin), 0) + 1
    withdrawn = {**(withdrawals or {}), **result.withdrawn}
    lines = [f"## {version}", ""]
    lines.append(
        f"Parent: {parent or 'none'}. Added {len(result.added)}; withdrawn {len(withdrawn)}; "
        f"total {len(result.items)}."
    )
    lines.append("")
    for category, n in sorted(counts.items()):
        lines.append(f"- {category}: +{n}")
    if origins:
        by_origin = ", ".join(f"{o} {n}" for o, n in sorted(origins.items()))
        lines.append(f"- added by origin: {by_origin}")
    dropped: dict[str, int] = {}
    for d in result.drops:
        if d.reason != DEFERRED:
            dropped[d.reason] = dropped.get(d.reason, 0) + 1
    if dropped:
        lines.append("- dropped: " + ", ".join(f"{r} {n}" for r, n in sorted(dropped.items())))
    if result.deferred:
        clusters = sorted({d.detail.split(":", 1)[0] for d in result.drops if d.reason == DEFERRED})
        lines.append(
            f"- deferred to a later release by the flood cap: {len(result.deferred)} "
            f"({'; '.join(clusters)})"
        )
    superseded = len(result.superseded)
    if renamed:
        lines.append(
            f"- {renamed} ids renamed to BFCL's shape (`live_simple-00042` -> "
            "`live_simple_00042`, same number; the old spelling is kept as an alias), because "
            "BFCL's tools read the category from the id and could not read or sort the old one"
        )
    if superseded:
        lines.append(
            f"- {superseded} released entries superseded by a corrected re-curation of the same "
            "source (each listed below with what changed)"
        )
    if len(withdrawn) > superseded:
        lines.append(f"- {len(withdrawn) - superseded} released entries withdrawn (reasons below)")
    if len(result.added) > superseded:
        lines.append(f"- {len(result.added) - superseded} entries new to the set")
    for note in notes:
        lines.append(f"- {note}")
    if withdrawn:
        lines += ["", "Withdrawn:", ""]
        lines += [f"- `{i}`: {reason}" for i, reason in sorted(withdrawn.items())]
    return "\n".join(lines) + "\n\n"


def withdrawn_items(live_dir: Path, registry: Registry) -> list[Item]:
    """The released items behind every withdrawal that was not a correction, read from the
    (immutable) release that first published each: their near variants stay out."""
    wanted: dict[str, set[str]] = {}
    for e in registry.entries:
        if e.status == "tombstone" and not e.superseded_by:
            wanted.setdefault(e.release, set()).update({e.id, *e.aliases})
    found: list[Item] = []
    for version, ids in sorted(wanted.items()):
        folder = live_dir / "releases" / version
        if folder.exists():
            found.extend(i for i in read_release_items(folder) if i.id in ids)
    return found


def _write_atomic(path: Path, data: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(data, encoding="utf-8")
    os.replace(tmp, path)


def build(
    *,
    live_dir: Path,
    items: list[Item],
    intake_drops: list[Drop],
    references: list[Reference],
    version: str,
    withdrawals: dict[str, str] | None = None,
    settings: CurationSettings | None = None,
    notes: Sequence[str] = (),
) -> BuildReport:
    """Curate the batch against what `live_dir` holds and write the next release if there is
    anything to add or withdraw. Nothing is written when the batch changes nothing."""
    settings = settings or load_settings(live_dir / "curation.yml")
    loaded = load_registry(live_dir / "registry.jsonl")
    registry = migrate_ids(loaded)
    renamed = sum(1 for e in registry.entries if e.aliases) - sum(
        1 for e in loaded.entries if e.aliases
    )
    parent = latest_version(live_dir)
    previous = read_release_items(live_dir / "releases" / parent) if parent else []
    if withdrawals:
        registry = withdraw(registry, withdrawals)
    queued = read_deferred(live_dir)
    result = curate(
        items,
        queued=queued,
        withdrawn_items=withdrawn_items(live_dir, registry),
        previous=previous,
        references=references,
        registry=registry,
        settings=settings,
        version=version,
        intake_drops=intake_drops,
    )
    changed = bool(result.added) or bool(withdrawals) or bool(result.withdrawn)
    counts: dict[str, int] = {}
    for item in result.items:
        counts[item.category] = counts.get(item.category, 0) + 1
    report = BuildReport(
        version=version,
        parent=parent,
        released=changed,
        added=len(result.added),
        total=len(result.items),
        counts=dict(sorted(counts.items())),
        funnel=result.funnel,
        drops=result.drops,
        scrubbed=dict(sorted(result.scrubbed.items())),
        notes=list(notes),
        deferred=len(result.deferred),
    )
    if queued or result.deferred:
        live_dir.mkdir(parents=True, exist_ok=True)
        write_deferred(live_dir, result.deferred)
    if not changed:
        return report
    registry_text = dump_registry(result.registry)
    files = release_files(
        result.items,
        version=version,
        parent=parent,
        added=len(result.added),
        withdrawn={bfcl_id(k): v for k, v in {**(withdrawals or {}), **result.withdrawn}.items()},
        funnel=result.funnel,
        settings=settings.model_dump(),
        libraries=library_versions(),
        fresh_ids={i.id for i in result.added if origin_class(i.origin) != "imported-bfcl"},
        aliases={e.id: e.aliases for e in result.registry.entries if e.aliases},
        salt=os.environ.get(SALT_ENV) or None,
        registry_sha256=hashlib.sha256(registry_text.encode()).hexdigest(),
    )
    write_release(live_dir, version, files)
    _write_atomic(live_dir / "registry.jsonl", registry_text)
    changelog = live_dir / "CHANGELOG.md"
    old = changelog.read_text(encoding="utf-8") if changelog.exists() else "# Live releases\n\n"
    head, _, rest = old.partition("\n\n")
    entry = changelog_entry(result, version, parent, withdrawals, notes, renamed)
    _write_atomic(changelog, f"{head}\n\n{entry}{rest}")
    if not (live_dir / "curation.yml").exists():
        _write_atomic(live_dir / "curation.yml", _settings_yaml(settings))
    _write_atomic(live_dir / "LATEST", version + "\n")
    return report


def _settings_yaml(settings: CurationSettings) -> str:
    body = json.dumps(settings.model_dump(), indent=2, sort_keys=True)
    return (
        "# Curation settings for data/live (YAML; JSON is valid YAML). Changing a threshold\n"
        "# changes what later releases keep; each MANIFEST.json records the values used.\n"
        + body
        + "\n"
    )


def gather(paths: Sequence[Path], *, workers: int | None = None) -> Intake:
    """Contributions from files and folders; large files are parsed on every core."""
    intake = Intake()
    cores = workers if workers is not None else (os.cpu_count() or 1)
    for path in contribution_files(paths):
        intake.add_file(path, workers=cores)
    return intake
