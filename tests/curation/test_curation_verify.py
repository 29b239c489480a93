"""`verify` catches every way a Live folder can be quietly damaged."""

import json
import shutil
from pathlib import Path

import git
import pytest

from curation.build import build, gather
from curation.verify import verify_live_dir
from tests.support.curation import contribution


def _two_releases(tmp_path: Path) -> Path:
    live = tmp_path / "live"
    for version, rows in (
        ("2026-W48", [contribution()]),
        (
            "2026-W49",
            [contribution("How cold is Oslo?", ground_truth=[{"get_weather": {"city": "Oslo"}}])],
        ),
    ):
        src = tmp_path / f"{version}.jsonl"
        src.write_text("".join(json.dumps(r) + "\n" for r in rows))
        intake = gather([src])
        build(
            live_dir=live,
            items=intake.items,
            intake_drops=intake.drops,
            references=[],
            version=version,
        )
    assert verify_live_dir(live, check_history=False) == []
    return live


def test_a_deleted_older_release_is_a_problem(tmp_path: Path) -> None:
    live = _two_releases(tmp_path)
    shutil.rmtree(live / "releases" / "2026-W48")
    problems = " ".join(verify_live_dir(live, check_history=False))
    assert "parent 2026-W48 is missing" in problems


def test_an_edited_registry_is_a_problem(tmp_path: Path) -> None:
    live = _two_releases(tmp_path)
    path = live / "registry.jsonl"
    path.write_text(path.read_text().replace('"active"', '"tombstone"', 1))
    problems = " ".join(verify_live_dir(live, check_history=False))
    assert "registry.jsonl: sha256" in problems and "tombstone but in release" in problems


def test_a_rolled_back_latest_is_a_problem(tmp_path: Path) -> None:
    live = _two_releases(tmp_path)
    (live / "LATEST").write_text("2026-W48\n")
    problems = " ".join(verify_live_dir(live, check_history=False))
    assert "rolled back" in problems


@pytest.mark.parametrize("name", ["MANIFEST.json", "SHA256SUMS"])
def test_a_manifest_or_checksum_file_in_a_subfolder_is_an_extra_file(
    tmp_path: Path, name: str
) -> None:
    live = _two_releases(tmp_path)
    (live / "releases" / "2026-W49" / "possible_answer" / name).write_text("{}\n")
    problems = " ".join(verify_live_dir(live, check_history=False))
    assert f"possible_answer/{name}: not listed in MANIFEST.json" in problems


def test_a_committed_release_that_was_deleted_is_a_problem(tmp_path: Path) -> None:
    live = _two_releases(tmp_path)
    repo = git.Repo.init(tmp_path)
    repo.git.add("live")
    repo.git.commit(
        "-m",
        "data",
        env={
            "GIT_AUTHOR_NAME": "t",
            "GIT_AUTHOR_EMAIL": "t@e",
            "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@e",
        },
    )
    assert verify_live_dir(live) == []
    shutil.rmtree(live / "releases" / "2026-W48")
    problems = " ".join(verify_live_dir(live))
    assert "release 2026-W48 was committed and is now deleted" in problems
