"""Near-duplicates by test, not by text: distinct tests that read alike all survive."""

from pathlib import Path

from curation.build import build, gather
from curation.dedup import Fingerprint, near_duplicate_groups
from curation.neardup import Signer
from curation.settings import CurationSettings

FIXTURES = Path(__file__).parents[1] / "fixtures" / "curation"


def _released(tmp_path: Path) -> tuple[list[str], list[str]]:
    intake = gather([FIXTURES / "minimal_pairs.jsonl"])
    report = build(
        live_dir=tmp_path / "live",
        items=intake.items,
        intake_drops=intake.drops,
        references=[],
        version="2026-W50",
    )
    kept = [i.source for i in intake.items if i.origin not in {d.origin for d in report.drops}]
    return kept, [d.reason for d in report.drops]


def test_every_minimal_pair_survives_and_only_the_true_duplicate_merges(tmp_path: Path) -> None:
    kept, reasons = _released(tmp_path)
    assert reasons == ["near_duplicate"]
    for tag in ("london-berlin", "walk-drive", "maroon", "system"):
        assert kept.count(f"minimal-pair:{tag}") == 2, tag
    assert kept.count("minimal-pair:control") == 1


def test_near_duplicate_groups_never_join_different_expected_calls() -> None:
    signer = Signer(CurationSettings().near_duplicates.settings())
    text = "get weather city unit the current weather for a city"
    prints = [
        Fingerprint("a", text, "what's the weather in london", answer_key="london"),
        Fingerprint("b", text, "what's the weather in london", answer_key="berlin"),
        Fingerprint("c", text, "what's the weather in london?", answer_key="london"),
    ]
    groups = sorted(sorted(g) for g in near_duplicate_groups(prints, signer))
    assert groups == [[0, 2], [1]]
