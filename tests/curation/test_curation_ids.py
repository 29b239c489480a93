import pytest

from bfcl_action.core.errors import InputError
from curation.ids import Registry, assign_ids, dump_registry, load_registry, withdraw


def test_new_items_get_the_next_number_of_their_category() -> None:
    ids, reg = assign_ids(
        [("live_simple", "h1"), ("live_simple", "h2"), ("live_multiple", "h3")],
        Registry(),
        "2026-W48",
    )
    assert ids == ["live_simple_00000", "live_simple_00001", "live_multiple_00000"]
    assert len(reg.entries) == 3


def test_known_items_keep_their_ids() -> None:
    _, reg = assign_ids([("live_simple", "h1")], Registry(), "2026-W48")
    ids, reg2 = assign_ids([("live_simple", "h2"), ("live_simple", "h1")], reg, "2026-W49")
    assert ids == ["live_simple_00001", "live_simple_00000"]
    assert [e.release for e in reg2.entries] == ["2026-W48", "2026-W49"]


def test_withdrawn_ids_are_never_reused() -> None:
    _, reg = assign_ids([("live_simple", "h1"), ("live_simple", "h2")], Registry(), "2026-W48")
    reg = withdraw(reg, {"live_simple_00001": "license takedown"})
    ids, _ = assign_ids([("live_simple", "h9")], reg, "2026-W49")
    assert ids == ["live_simple_00002"]


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


def test_w49_style_ids_are_renamed_to_bfcl_shape_keeping_number_and_alias() -> None:
    from curation.ids import RegistryEntry, bfcl_id, migrate_ids

    old = Registry(
        entries=[
            RegistryEntry(
                id="live_simple-00042",
                canonical_hash="h",
                category="live_simple",
                release="2026-W49",
            )
        ]
    )
    (entry,) = migrate_ids(old).entries
    assert entry.id == "live_simple_00042" and entry.aliases == ["live_simple-00042"]
    assert bfcl_id("live_parallel_multiple-00007") == "live_parallel_multiple_00007"
    ids, _ = assign_ids([("live_simple", "new")], migrate_ids(old), "2026-W50")
    assert ids == ["live_simple_00043"]
    # withdrawing by the old spelling still works
    assert withdraw(migrate_ids(old), {"live_simple-00042": "x"}).entries[0].status == "tombstone"


def test_ids_read_back_as_their_category_the_way_bfcl_reads_them() -> None:
    ids, _ = assign_ids(
        [("live_parallel_multiple", "a"), ("live_simple", "b")], Registry(), "2026-W50"
    )
    for entry_id, category in zip(ids, ["live_parallel_multiple", "live_simple"], strict=True):
        head, index = entry_id.rsplit("_", 1)
        assert head == category and index.isdigit()
