from pathlib import Path

import pytest

from bfcl_action.core.errors import InputError
from curation.models import StageCount
from curation.release import release_files, write_release
from curation.store import read_release_items, verify_release
from tests.support.curation import item


def _items():  # type: ignore[no-untyped-def]
    a = item("Weather in Tokyo?", ref="f:1")
    a.id, a.category, a.canonical_hash = "live_simple_00000", "live_simple", "h1"
    b = item("Hello there", answer=[], ref="f:2")
    b.id, b.category, b.canonical_hash = "live_irrelevance_00000", "live_irrelevance", "h2"
    return [b, a]


def _files(items):  # type: ignore[no-untyped-def]
    return release_files(
        items,
        version="2026-W48",
        parent=None,
        added=2,
        withdrawn=[],
        funnel=[StageCount(stage="intake", entered=2, kept=2)],
        settings={"x": 1},
        libraries={"datasketch": "2.0.0"},
    )


def test_release_is_byte_identical_for_the_same_items_in_any_order() -> None:
    items = _items()
    assert _files(items) == _files(list(reversed(items)))


def test_release_has_bfcl_files_answers_only_for_ast_categories_and_a_card() -> None:
    files = _files(_items())
    assert "BFCL_v4_live_simple.json" in files
    assert "possible_answer/BFCL_v4_live_simple.json" in files
    assert "possible_answer/BFCL_v4_live_irrelevance.json" not in files
    card = files["README.md"].decode()
    assert "config_name: live_simple" in card and "path: BFCL_v4_live_simple.json" in card
    assert b"alice" not in files["provenance.jsonl"]  # contributors are hashed


def test_written_release_verifies_reads_back_and_is_immutable(tmp_path: Path) -> None:
    files = _files(_items())
    target = write_release(tmp_path, "2026-W48", files)
    assert verify_release(target) == []
    back = {i.id: i for i in read_release_items(target)}
    assert back["live_simple_00000"].possible_answer == _items()[1].possible_answer
    with pytest.raises(InputError, match="immutable"):
        write_release(tmp_path, "2026-W48", files)


def test_a_changed_file_fails_verification(tmp_path: Path) -> None:
    target = write_release(tmp_path, "2026-W48", _files(_items()))
    (target / "BFCL_v4_live_simple.json").write_text("{}\n")
    (target / "extra.txt").write_text("x")
    problems = verify_release(target)
    assert any("BFCL_v4_live_simple.json: sha256" in p for p in problems)
    assert any("extra.txt: not listed" in p for p in problems)
