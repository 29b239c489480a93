"""Flood control: at most N new entries per function cluster per release; the surplus waits
in `data/live/deferred.jsonl` for later releases instead of being dropped."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from curation.build import BuildReport, build, gather, read_deferred
from curation.settings import CurationSettings, Limits
from tests.support.curation import weather_doc

PLATFORMS = [
    "Twitter",
    "Mastodon",
    "Bluesky",
    "LinkedIn",
    "Threads",
    "Reddit",
    "Facebook",
    "Tumblr",
]


def _schedule_doc() -> dict[str, Any]:
    return {
        "name": "schedule_post",
        "description": "Schedule a social media post on a platform for a date.",
        "parameters": {
            "type": "object",
            "properties": {
                "platform": {"type": "string", "description": "where to post"},
                "date": {"type": "string", "description": "ISO date"},
            },
            "required": ["platform", "date"],
        },
    }


def _flood(n: int) -> list[dict[str, Any]]:
    """`n` templated variants of one contributed function: platform and date vary."""
    rows = []
    for i in range(n):
        platform, date = PLATFORMS[i % len(PLATFORMS)], f"2026-{1 + i // 28:02d}-{1 + i % 28:02d}"
        rows.append(
            {
                "question": f"Schedule my launch post on {platform} for {date}.",
                "functions": [_schedule_doc()],
                "ground_truth": [{"schedule_post": {"platform": platform, "date": date}}],
                "contributor": "templater",
                "license": "CC-BY-4.0",
            }
        )
    return rows


def _others() -> list[dict[str, Any]]:
    rows = []
    for city in ("Lima", "Quito"):
        rows.append(
            {
                "question": f"What's the weather in {city}?",
                "functions": [weather_doc()],
                "ground_truth": [{"get_weather": {"city": city}}],
                "contributor": "alice",
                "license": "CC-BY-4.0",
            }
        )
    return rows


def _build(
    tmp_path: Path, live: Path, version: str, rows: list[dict[str, Any]], cap: int | None = None
) -> BuildReport:
    path = tmp_path / f"{version}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    intake = gather([path])
    settings = CurationSettings(limits=Limits(max_per_function_cluster=cap)) if cap else None
    return build(
        live_dir=live,
        items=intake.items,
        intake_drops=intake.drops,
        references=[],
        version=version,
        settings=settings,
    )


def _released(live: Path, version: str) -> list[str]:
    text = (live / "releases" / version / "BFCL_v4_live_simple.json").read_text()
    return [json.loads(line)["question"][0][0]["content"] for line in text.splitlines()]


def test_a_flood_of_one_function_is_capped_and_the_rest_deferred(tmp_path: Path) -> None:
    live = tmp_path / "live"
    report = _build(tmp_path, live, "2026-W51", _flood(80) + _others())
    assert CurationSettings().limits.max_per_function_cluster == 5
    assert report.added == 5 + 2
    assert report.deferred == 75
    (stage,) = [s for s in report.funnel if s.stage == "flood_cap"]
    assert stage.dropped == {"deferred_to_later_release": 75}
    assert all("function cluster schedule_post" in d.detail for d in report.drops)
    assert len(read_deferred(live)) == 75
    changelog = (live / "CHANGELOG.md").read_text()
    assert "deferred to a later release by the flood cap: 75 (function cluster schedule_post)" in (
        changelog
    )
    assert "dropped:" not in changelog


def test_deferred_entries_are_released_later_and_none_is_lost(tmp_path: Path) -> None:
    live = tmp_path / "live"
    flood = _flood(80)
    versions = ["2026-W51", "2026-W52", "2026-W53", "2027-W01"]
    reports = [_build(tmp_path, live, versions[0], flood, cap=20)]
    for version in versions[1:]:
        reports.append(_build(tmp_path, live, version, [], cap=20))
    assert [r.added for r in reports] == [20, 20, 20, 20]
    assert [r.deferred for r in reports] == [60, 40, 20, 0]
    assert not (live / "deferred.jsonl").exists()
    asked = sorted(_released(live, versions[-1]))
    assert asked == sorted(r["question"] for r in flood)


def test_queued_entries_go_before_new_ones_of_the_same_cluster(tmp_path: Path) -> None:
    live = tmp_path / "live"
    first = _flood(8)
    _build(tmp_path, live, "2026-W51", first, cap=5)
    queued = {i.question[0][0].content for i in read_deferred(live)}
    assert len(queued) == 3
    newcomers = _flood(16)[8:]  # the same tool, other dates: other tests
    report = _build(tmp_path, live, "2026-W52", newcomers, cap=5)
    assert report.added == 5
    released_now = set(_released(live, "2026-W52")) - set(_released(live, "2026-W51"))
    assert queued <= released_now


def test_bfcl_imports_are_exempt(tmp_path: Path) -> None:
    from curation.models import Item, Origin
    from curation.neardup import Signer
    from curation.pipeline import cap_function_clusters
    from tests.support.curation import item

    signer = Signer(CurationSettings().near_duplicates.settings())
    imported = [
        item(f"weather in city {n}", ref=f"b:{n}").model_copy(
            update={
                "origin": Origin(kind="bfcl", ref=f"live_simple_{n}"),
                "canonical_hash": f"{n:03d}",
            }
        )
        for n in range(9)
    ]
    contributed = [
        item(f"weather in town {n}", ref=f"c:{n}").model_copy(
            update={"canonical_hash": f"c{n:02d}"}
        )
        for n in range(9)
    ]
    kept, drops = cap_function_clusters([*imported, *contributed], signer, 2)
    assert sum(1 for i in kept if i.origin.kind == "bfcl") == 9
    assert sum(1 for i in kept if i.origin.kind != "bfcl") == 2
    assert len(drops) == 7
    assert all(isinstance(i, Item) for i in kept)


def test_the_cap_is_read_from_curation_yml(tmp_path: Path) -> None:
    live = tmp_path / "live"
    live.mkdir()
    (live / "curation.yml").write_text("limits:\n  max_per_function_cluster: 3\n")
    report = _build(tmp_path, live, "2026-W51", _flood(10))
    assert (report.added, report.deferred) == (3, 7)


def test_a_corrupt_queue_names_its_line(tmp_path: Path) -> None:
    import pytest

    from bfcl_action.core.errors import InputError

    live = tmp_path / "live"
    _build(tmp_path, live, "2026-W51", _flood(7), cap=5)
    path = live / "deferred.jsonl"
    path.write_text(path.read_text().splitlines()[0] + "\n{not json\n")
    with pytest.raises(InputError, match=r"deferred.jsonl:2"):
        read_deferred(live)
