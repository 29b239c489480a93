"""Live releases (`live@<YYYY-Www>`, `live@latest`) read from data/live in BFCL's format."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bfcl_action.core.errors import ConfigError, DatasetError
from bfcl_action.dataset import dataset_categories, load_dataset

FIXTURE = Path(__file__).parents[1] / "fixtures" / "dataset" / "live"


@pytest.fixture
def live_dir(tmp_path: Path) -> Path:
    copy = tmp_path / "live"
    shutil.copytree(FIXTURE, copy)
    return copy


def test_latest_resolves_through_the_latest_file() -> None:
    cases = load_dataset("live@latest", live_dir=FIXTURE)
    assert {c.dataset for c in cases} == {"live@2026-W48"}
    assert len(cases) == 5


def test_cases_are_labelled_dataset_slash_category() -> None:
    cases = load_dataset("live@2026-W47", ["live_simple"], live_dir=FIXTURE)
    assert [c.suite for c in cases] == ["live@2026-W47/live_simple"] * 2
    assert cases[0].category == "live_simple"


def test_possible_answers_are_joined_by_id() -> None:
    (first, *_) = load_dataset("live@2026-W48", ["live_simple"], live_dir=FIXTURE)
    assert first.possible_answer == [
        {"weather.get_forecast": {"city": ["city 0"], "days": [1, ""]}}
    ]


def test_categories_come_from_the_manifest_in_table_order() -> None:
    assert dataset_categories("live@latest", live_dir=FIXTURE) == [
        "live_simple",
        "live_irrelevance",
    ]


def test_live_dir_can_be_set_by_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BFCL_ACTION_LIVE_DIR", str(FIXTURE))
    assert len(load_dataset("live@2026-W47")) == 3


def test_category_missing_from_the_release_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="live_multiple"):
        load_dataset("live@2026-W48", ["live_multiple"], live_dir=FIXTURE)


def test_unknown_release_lists_the_available_ones() -> None:
    with pytest.raises(DatasetError, match=r"2026-W01 not found.*2026-W47, 2026-W48"):
        load_dataset("live@2026-W01", live_dir=FIXTURE)


def test_version_must_be_an_iso_week() -> None:
    with pytest.raises(DatasetError, match="ISO weeks"):
        load_dataset("live@2026.3.23", live_dir=FIXTURE)


def test_missing_latest_file_is_a_clear_error(live_dir: Path) -> None:
    (live_dir / "LATEST").unlink()
    with pytest.raises(DatasetError, match="no Live release found"):
        load_dataset("live@latest", live_dir=live_dir)


def test_file_changed_after_release_fails_its_checksum(live_dir: Path) -> None:
    target = live_dir / "releases" / "2026-W48" / "BFCL_v4_live_irrelevance.json"
    target.write_text(target.read_text().replace("joke", "poem"))
    with pytest.raises(DatasetError, match=r"BFCL_v4_live_irrelevance\.json: sha256"):
        load_dataset("live@2026-W48", live_dir=live_dir)


def test_count_differing_from_the_manifest_is_refused(live_dir: Path) -> None:
    manifest = live_dir / "releases" / "2026-W48" / "MANIFEST.json"
    manifest.write_text(manifest.read_text().replace('"live_simple": 3', '"live_simple": 4'))
    with pytest.raises(DatasetError, match="manifest lists 4 entries, the file has 3"):
        load_dataset("live@2026-W48", ["live_simple"], live_dir=live_dir)


def test_manifest_with_an_unknown_category_is_refused(live_dir: Path) -> None:
    manifest = live_dir / "releases" / "2026-W48" / "MANIFEST.json"
    manifest.write_text(manifest.read_text().replace('"live_simple": 3', '"simple": 3'))
    with pytest.raises(DatasetError, match="unknown single-turn category 'simple'"):
        load_dataset("live@2026-W48", live_dir=live_dir)


def test_bad_line_in_a_release_names_file_and_line(live_dir: Path) -> None:
    release = live_dir / "releases" / "2026-W48"
    target = release / "BFCL_v4_live_irrelevance.json"
    target.write_text(target.read_text() + "{not json\n")
    manifest = release / "MANIFEST.json"
    manifest.write_text(manifest.read_text().replace('"BFCL_v4_live_irrelevance.json"', '"x"'))
    with pytest.raises(DatasetError, match=r"BFCL_v4_live_irrelevance\.json:3:2: not valid JSON"):
        load_dataset("live@2026-W48", live_dir=live_dir)
