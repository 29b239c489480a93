"""Hostile input never aborts the build: one bad item is one drop with a reason."""

import json
from pathlib import Path

import pytest

from curation.build import build, gather
from curation.intake import Intake
from curation.models import Origin
from curation.pipeline import validate_items
from curation.settings import CurationSettings
from tests.support.curation import contribution, item

FIXTURES = Path(__file__).parents[1] / "fixtures" / "curation"


def test_a_huge_integer_and_a_200_deep_line_are_dropped_and_the_rest_released(
    tmp_path: Path,
) -> None:
    intake = gather([FIXTURES / "hostile_lines.jsonl"])
    report = build(
        live_dir=tmp_path / "live",
        items=intake.items,
        intake_drops=intake.drops,
        references=[],
        version="2026-W50",
    )
    assert report.added == 2
    reasons = {d.origin.ref.rsplit(":", 1)[1]: d.reason for d in report.drops}
    assert reasons == {"2": "number_too_large", "3": "too_deep", "4": "invalid_json"}
    assert all(d.detail for d in report.drops)


def test_a_deep_yaml_contribution_is_one_drop(tmp_path: Path) -> None:
    path = tmp_path / "deep.yaml"
    path.write_text("- " + "[" * 3000 + "]" * 3000 + "\n- question: hi\n")
    intake = Intake()
    intake.add_file(path)
    assert intake.drops and not intake.items


def test_a_yaml_alias_bomb_is_dropped_within_budget(tmp_path: Path) -> None:
    lines = ['a0: &a0 ["x", "x", "x", "x", "x", "x", "x", "x", "x", "x"]']
    for i in range(1, 8):
        prev = f"*a{i - 1}"
        lines.append(f"a{i}: &a{i} [{', '.join([prev] * 10)}]")
    lines.append("question: boom")
    path = tmp_path / "bomb.yaml"
    path.write_text("\n".join(lines) + "\n")
    intake = Intake()
    intake.add_file(path)
    assert [d.reason for d in intake.drops] == ["too_large"]


def test_an_unexpected_exception_in_validation_rejects_only_that_item(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import curation.pipeline as pipeline

    real = pipeline.check_names

    def flaky(it):  # type: ignore[no-untyped-def]
        if it.origin.ref == "bad":
            raise RecursionError("maximum recursion depth exceeded")
        return real(it)

    monkeypatch.setattr(pipeline, "check_names", flaky)
    kept, drops = validate_items([item(ref="bad"), item(ref="good")], CurationSettings())
    assert [k.origin.ref for k in kept] == ["good"]
    assert drops[0].reason == "internal_error" and "RecursionError" in drops[0].detail


def test_an_unexpected_exception_while_parsing_drops_only_that_contribution(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import curation.intake as intake_mod

    def boom(raw, where):  # type: ignore[no-untyped-def]
        if where == "a:1":
            raise MemoryError("simulated")
        return real(raw, where)

    real = intake_mod.parse_functions
    monkeypatch.setattr(intake_mod, "parse_functions", boom)
    intake = Intake()
    intake.add(contribution("Weather in Oslo?"), Origin(kind="file", ref="a:1"))
    intake.add(contribution(), Origin(kind="file", ref="a:2"))
    assert len(intake.items) == 1 and intake.drops[0].reason == "internal_error"


def test_every_item_of_a_json_array_file_names_its_own_line(tmp_path: Path) -> None:
    path = tmp_path / "many.json"
    path.write_text(json.dumps([contribution(), contribution("Hi", license="Nope")], indent=2))
    intake = Intake()
    intake.add_file(path)
    lines = [i.origin.ref.rsplit(":", 1)[1] for i in intake.items]
    assert lines[0] == "2" and lines[1] != "2" and int(lines[1]) > 2


def test_origins_never_record_absolute_paths(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text(json.dumps(contribution()) + "\n")
    intake = Intake()
    intake.add_file(path)
    (it,) = intake.items
    assert not it.origin.ref.startswith("/") and it.origin.ref == "c.jsonl:1"


def test_hostile_contributions_mixed_with_valid_ones_lose_nothing_valid(tmp_path: Path) -> None:
    from benchmarks._hostile import hostile_contributions, valid_contributions

    rows = valid_contributions(30) + hostile_contributions()
    src = tmp_path / "mixed.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows))
    intake = gather([src])
    from curation.settings import CurationSettings, Limits

    no_flood_cap = CurationSettings(limits=Limits(max_per_function_cluster=1000))
    report = build(
        live_dir=tmp_path / "live",
        items=intake.items,
        intake_drops=intake.drops,
        references=[],
        version="2026-W50",
        settings=no_flood_cap,  # the 30 valid rows share one templated tool
    )
    assert report.added == 30
    assert sorted(d.reason for d in report.drops) == sorted(
        [
            "too_deep",
            "ref_cycle",
            "ref_expansion",
            "invalid_functions",
            "invalid_functions",
            "invalid_functions",
        ]
    )
    assert all(d.detail for d in report.drops)
