import pytest

from bfcl_action.errors import InputError
from curation.ids import Registry, assign_ids, dump_registry, load_registry, withdraw


def test_new_items_get_the_next_number_of_their_category() -> None:
    ids, reg = assign_ids(
        [("live_simple", "h1"), ("live_simple", "h2"), ("live_multiple", "h3")],
        Registry(),
        "2026-W48",
    )
    assert ids == ["live_simple-00000", "live_simple-00001", "live_multiple-00000"]
    assert len(reg.entries) == 3


def test_known_items_keep_their_ids() -> None:
    _, reg = assign_ids([("live_simple", "h1")], Registry(), "2026-W48")
    ids, reg2 = assign_ids([("live_simple", "h2"), ("live_simple", "h1")], reg, "2026-W49")
    assert ids == ["live_simple-00001", "live_simple-00000"]
    assert [e.release for e in reg2.entries] == ["2026-W48", "2026-W49"]


def test_withdrawn_ids_are_never_reused() -> None:
    _, reg = assign_ids([("live_simple", "h1"), ("live_simple", "h2")], Registry(), "2026-W48")
    reg = withdraw(reg, {"live_simple-00001": "license takedown"})
    ids, _ = assign_ids([("live_simple", "h9")], reg, "2026-W49")
    assert ids == ["live_simple-00002"]


def test_withdrawing_an_unknown_id_is_an_error() -> None:
    with pytest.raises(InputError, match="unknown ids: nope"):
        withdraw(Registry(), {"nope": "x"})


def test_registry_round_trips_through_its_file(tmp_path) -> None:  # type: ignore[no-untyped-def]
    _, reg = assign_ids([("live_simple", "h1")], Registry(), "2026-W48")
    path = tmp_path / "registry.jsonl"
    path.write_text(dump_registry(reg))
    assert load_registry(path) == reg


def test_bad_registry_line_names_file_and_line(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "registry.jsonl"
    path.write_text('{"id": "x"}\n')
    with pytest.raises(InputError, match=r"registry.jsonl:1"):
        load_registry(path)
