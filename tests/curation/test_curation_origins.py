"""Honest releases: origins, credits, licenses, the fresh config, withdrawals, provenance."""

import hashlib
import json
import shutil
from pathlib import Path

import git
import pytest

from bfcl_action.core.records import FunctionDoc, Message, TestCase
from curation.build import build, gather
from curation.intake import Intake
from tests.support.curation import contribution, weather_doc


def _bfcl_case() -> TestCase:
    return TestCase(
        id="live_simple_0-0-0",
        category="live_simple",
        question=[[Message(role="user", content="Weather in Lisbon, please")]],
        functions=[FunctionDoc.model_validate(weather_doc())],
        possible_answer=[{"get_weather": {"city": ["Lisbon"], "unit": ["", "celsius"]}}],
    )


def _release(
    tmp_path: Path,
    rows: list[dict],
    *,
    bfcl: bool = False,
    version: str = "2026-W50",
    live: Path | None = None,
    withdrawals: dict[str, str] | None = None,
) -> tuple[Path, Path]:  # type: ignore[type-arg]
    live = live or tmp_path / "live"
    src = tmp_path / f"{version}.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows))
    intake = gather([src])
    if bfcl:
        intake.add_cases([_bfcl_case()], source="bfcl-eval 2026.3.23")
    build(
        live_dir=live,
        items=intake.items,
        intake_drops=intake.drops,
        references=[],
        version=version,
        withdrawals=withdrawals,
    )
    return live, live / "releases" / version


def _provenance(folder: Path) -> list[dict]:  # type: ignore[type-arg]
    return [json.loads(line) for line in (folder / "provenance.jsonl").read_text().splitlines()]


def test_imported_entries_are_labelled_and_never_presented_as_contributions(tmp_path: Path) -> None:
    _, folder = _release(tmp_path, [contribution(license="MIT")], bfcl=True)
    rows = {r["origin_class"]: r for r in _provenance(folder)}
    assert set(rows) == {"contributed", "imported-bfcl"}
    assert rows["imported-bfcl"]["credit"] == "gorilla-llm/bfcl (upstream)"
    assert rows["imported-bfcl"]["fresh"] is False and rows["contributed"]["fresh"] is True
    card = (folder / "README.md").read_text()
    assert "User-contributed" not in card
    assert "| imported-bfcl | 1 |" in card and "| contributed | 1 |" in card
    assert "| MIT | 1 |" in card and "| Apache-2.0 | 1 |" in card and "license: other" in card
    assert "datasets>=4.7.0" in card
    assert "config_name: answers" in card and "config_name: fresh" in card
    manifest = json.loads((folder / "MANIFEST.json").read_text())
    assert manifest["origins"] == {"contributed": 1, "imported-bfcl": 1}
    assert manifest["fresh"] == 1
    fresh = (folder / "fresh" / "BFCL_v4_live_simple.json").read_text()
    assert "Tokyo" in fresh and "Lisbon" not in fresh


def test_contributors_are_credited_by_consented_handle_else_a_salted_pseudonym(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BFCL_CURATE_SALT", "s3cret")
    rows = [
        contribution(contributor="alice", publish_handle=True),
        contribution("Tell me a joke", ground_truth=[], contributor="bob"),
    ]
    _, folder = _release(tmp_path, rows)
    credits = sorted(r["credit"] for r in _provenance(folder))
    unsalted = hashlib.sha256(b"bob").hexdigest()[:16]
    assert credits[0] == "alice" and credits[1].startswith("anon-")
    assert unsalted not in (folder / "provenance.jsonl").read_text()
    assert "bob" not in (folder / "provenance.jsonl").read_text()


def test_without_a_salt_unconsented_contributors_are_anonymous(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("BFCL_CURATE_SALT", raising=False)
    _, folder = _release(tmp_path, [contribution(contributor="bob")])
    assert [r["credit"] for r in _provenance(folder)] == ["anonymous"]


def test_withdrawals_are_named_in_the_changelog_and_near_variants_stay_out(tmp_path: Path) -> None:
    question = "What's the weather in Tokyo right now, I am planning my trip there?"
    live, folder = _release(tmp_path, [contribution(question)], version="2026-W48")
    (entry_id,) = [r["id"] for r in _provenance(folder)]
    _release(
        tmp_path, [], version="2026-W49", live=live, withdrawals={entry_id: "license takedown"}
    )
    changelog = (live / "CHANGELOG.md").read_text()
    assert f"`{entry_id}`: license takedown" in changelog
    variant = contribution(question.replace("my trip", "our trip"))
    intake = Intake()
    src = tmp_path / "variant.jsonl"
    src.write_text(json.dumps(variant) + "\n")
    intake.add_file(src)
    report = build(
        live_dir=live, items=intake.items, intake_drops=[], references=[], version="2026-W50"
    )
    assert [d.reason for d in report.drops] == ["withdrawn_variant"]


def test_a_re_imported_entry_that_now_curates_differently_supersedes_the_old_one(
    tmp_path: Path,
) -> None:
    live, first = _release(tmp_path, [contribution()], version="2026-W48")
    (old_id,) = [r["id"] for r in _provenance(first)]
    corrected = contribution(ground_truth=[{"get_weather": {"city": ["Tokyo", "Tokyo, Japan"]}}])
    src = tmp_path / "2026-W48.jsonl"  # same file name and line: same origin
    src.write_text(json.dumps(corrected) + "\n")
    intake = gather([src])
    report = build(
        live_dir=live, items=intake.items, intake_drops=[], references=[], version="2026-W49"
    )
    assert report.added == 1 and report.total == 1
    changelog = (live / "CHANGELOG.md").read_text()
    assert f"`{old_id}`: superseded by" in changelog


def test_a_rebuild_from_another_checkout_path_is_byte_identical(tmp_path: Path) -> None:
    trees = []
    for name in ("checkout-a", "deeper/checkout-b"):
        root = tmp_path / name
        (root / "contributions").mkdir(parents=True)
        git.Repo.init(root)
        (root / "contributions" / "c.jsonl").write_text(json.dumps(contribution()) + "\n")
        intake = gather([root / "contributions"])
        live = root / "data" / "live"
        build(
            live_dir=live,
            items=intake.items,
            intake_drops=intake.drops,
            references=[],
            version="2026-W50",
        )
        trees.append({p.relative_to(live): p.read_bytes() for p in live.rglob("*") if p.is_file()})
        assert (
            str(tmp_path) not in (live / "releases" / "2026-W50" / "provenance.jsonl").read_text()
        )
    assert trees[0] == trees[1]
    shutil.rmtree(tmp_path / "checkout-a")
