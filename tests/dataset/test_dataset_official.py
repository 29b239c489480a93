"""Official BFCL data: fetched by pinned version, sha256-verified, cached once, read offline."""

from __future__ import annotations

import os
import shutil
import sys
from collections import Counter
from pathlib import Path

import pytest

from bfcl_action.core.categories import SINGLE_TURN_OFFICIAL
from bfcl_action.core.errors import ConfigError, DatasetError
from bfcl_action.core.records import Language
from bfcl_action.dataset import dataset_categories, load_dataset, official
from tests.support.bfcl_wheel import ENTRIES_PER_CATEGORY, build_wheel, release_for

SPEC = "bfcl@2026.3.23"


@pytest.fixture
def wheel(tmp_path: Path) -> Path:
    return build_wheel(tmp_path / "wheels")


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "cache"
    monkeypatch.setenv("BFCL_ACTION_CACHE", str(path))
    monkeypatch.delenv("BFCL_ACTION_BFCL_WHEEL", raising=False)
    return path


@pytest.fixture
def pinned(wheel: Path, monkeypatch: pytest.MonkeyPatch) -> official.BfclRelease:
    """Pin the fixture wheel's digest in place of the official one."""
    release = release_for(wheel)
    monkeypatch.setitem(official.RELEASES, release.version, release)
    return release


def _serve(monkeypatch: pytest.MonkeyPatch, source: Path) -> list[int]:
    """Make downloads copy `source`; returns a list that counts the calls."""
    calls: list[int] = []

    def fake_fetch(release: official.BfclRelease, work: Path) -> Path:
        calls.append(1)
        target = work / release.wheel_name
        shutil.copyfile(source, target)
        return target

    monkeypatch.setattr(official, "fetch_release", fake_fetch)
    return calls


def _leftovers(cache: Path) -> list[str]:
    base = cache / "bfcl"
    return sorted(p.name for p in base.iterdir()) if base.exists() else []


def test_loads_every_single_turn_category_from_a_local_wheel(
    wheel: Path, cache: Path, pinned: official.BfclRelease
) -> None:
    cases = load_dataset(SPEC, wheel=wheel)
    counts = Counter(c.category for c in cases)
    assert counts == {c: ENTRIES_PER_CATEGORY for c in SINGLE_TURN_OFFICIAL}


def test_maps_entries_to_test_cases_with_answers_language_and_labels(
    wheel: Path, cache: Path, pinned: official.BfclRelease
) -> None:
    (java,) = [c for c in load_dataset(SPEC, ["simple_java"], wheel=wheel) if c.id.endswith("_1")]
    assert java.id == "simple_java_1"
    assert java.language is Language.JAVA
    assert java.functions[0].name == "math.add"
    assert java.possible_answer == [{"math.add": {"a": [1], "b": [2]}}]
    assert (java.dataset, java.suite) == (SPEC, "simple_java")
    assert java.source is not None and java.source.line == 2


def test_irrelevance_cases_have_no_possible_answer(
    wheel: Path, cache: Path, pinned: official.BfclRelease
) -> None:
    cases = load_dataset(SPEC, ["irrelevance"], wheel=wheel)
    assert all(c.possible_answer == [] for c in cases)


def test_group_names_select_their_categories(
    wheel: Path, cache: Path, pinned: official.BfclRelease
) -> None:
    cases = load_dataset(SPEC, ["hallucination"], wheel=wheel)
    assert {c.category for c in cases} == {"irrelevance", "live_irrelevance", "live_relevance"}


def test_unknown_category_is_a_config_error(
    wheel: Path, cache: Path, pinned: official.BfclRelease
) -> None:
    with pytest.raises(ConfigError, match="own_simple"):
        load_dataset(SPEC, ["own_simple"], wheel=wheel)


def test_downloads_once_then_reads_the_cache_offline(
    wheel: Path, cache: Path, pinned: official.BfclRelease, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _serve(monkeypatch, wheel)
    first = load_dataset(SPEC)
    wheel.unlink()
    second = load_dataset(SPEC)
    assert len(calls) == 1
    assert [c.id for c in first] == [c.id for c in second]


def test_cache_holds_only_the_finished_release_directory(
    wheel: Path, cache: Path, pinned: official.BfclRelease, monkeypatch: pytest.MonkeyPatch
) -> None:
    _serve(monkeypatch, wheel)
    load_dataset(SPEC, ["simple_python"])
    assert _leftovers(cache) == [official.release_dir(pinned, cache).name]


def test_corrupt_download_is_refused_and_leaves_the_cache_empty(
    wheel: Path,
    cache: Path,
    pinned: official.BfclRelease,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    truncated = tmp_path / "truncated.whl"
    truncated.write_bytes(wheel.read_bytes()[:1000])
    _serve(monkeypatch, truncated)
    with pytest.raises(DatasetError, match="sha256 mismatch"):
        load_dataset(SPEC)
    assert _leftovers(cache) == []


def test_local_wheel_with_another_digest_is_refused(
    cache: Path, pinned: official.BfclRelease, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = build_wheel(tmp_path / "other", skip=("parallel",))
    monkeypatch.setenv("BFCL_ACTION_BFCL_WHEEL", str(other))
    with pytest.raises(DatasetError, match=r"sha256 mismatch .* expected " + pinned.sha256):
        load_dataset(SPEC)
    assert _leftovers(cache) == []


def test_wheel_lacking_a_category_is_refused_without_caching_anything(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    partial = build_wheel(tmp_path / "partial", skip=("live_parallel",))
    monkeypatch.setitem(official.RELEASES, "2026.3.23", release_for(partial))
    with pytest.raises(DatasetError, match="lacks data for: live_parallel"):
        load_dataset(SPEC, wheel=partial)
    assert _leftovers(cache) == []


def test_failed_download_names_the_installer_error_and_the_local_wheel_option(
    cache: Path, pinned: official.BfclRelease, monkeypatch: pytest.MonkeyPatch
) -> None:
    failing = [sys.executable, "-c", "import sys; sys.stderr.write('index unreachable'); exit(1)"]
    monkeypatch.setattr(official, "_installers", lambda: iter([("pip", failing)]))
    with pytest.raises(DatasetError) as caught:
        load_dataset(SPEC)
    message = str(caught.value)
    assert "index unreachable" in message
    assert "BFCL_ACTION_BFCL_WHEEL" in message
    assert _leftovers(cache) == []


def test_no_installer_at_all_is_a_clear_error(
    cache: Path, pinned: official.BfclRelease, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(official, "_installers", lambda: iter([]))
    with pytest.raises(DatasetError, match="neither pip nor uv is available"):
        load_dataset(SPEC)


def test_installed_tree_from_uv_is_extracted_like_a_wheel(
    wheel: Path, cache: Path, pinned: official.BfclRelease, monkeypatch: pytest.MonkeyPatch
) -> None:
    import zipfile

    def fake_uv(release: official.BfclRelease, work: Path) -> Path:
        target = work / "target"
        zipfile.ZipFile(wheel).extractall(target)
        return target

    monkeypatch.setattr(official, "fetch_release", fake_uv)
    assert len(load_dataset(SPEC, ["parallel"])) == ENTRIES_PER_CATEGORY


def test_tampered_cache_file_is_reported_by_name(
    wheel: Path, cache: Path, pinned: official.BfclRelease
) -> None:
    load_dataset(SPEC, wheel=wheel)
    target = official.release_dir(pinned, cache) / "BFCL_v4_multiple.json"
    target.write_text(target.read_text().replace("Question", "Changed"))
    with pytest.raises(DatasetError, match=r"BFCL_v4_multiple\.json: sha256"):
        load_dataset(SPEC, ["multiple"])


def test_unknown_version_is_refused_with_the_known_ones() -> None:
    with pytest.raises(DatasetError, match=r"unknown BFCL version '2020\.1\.1'.*bfcl@2026\.3\.23"):
        load_dataset("bfcl@2020.1.1")


@pytest.mark.parametrize("spec", ["bfcl", "hf@x", "", "bfcl@"])
def test_malformed_spec_is_refused(spec: str) -> None:
    with pytest.raises(DatasetError, match="unknown dataset"):
        dataset_categories(spec)


def test_official_categories_are_known_without_a_download() -> None:
    assert dataset_categories(SPEC) == SINGLE_TURN_OFFICIAL


def _has_installer() -> bool:
    return any(True for _ in official._installers())


@pytest.mark.skipif(not _has_installer(), reason="neither pip nor uv available")
def test_real_installer_honours_the_users_index_configuration(
    wheel: Path, cache: Path, pinned: official.BfclRelease, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Point pip and uv at a local folder only: the configured index is what gets used.
    for key in ("PIP_NO_INDEX", "UV_NO_INDEX", "UV_OFFLINE"):
        monkeypatch.setenv(key, "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(wheel.parent))
    monkeypatch.setenv("UV_FIND_LINKS", str(wheel.parent))
    monkeypatch.setenv("UV_NO_CACHE", "1")
    cases = load_dataset(SPEC, ["simple_python"])
    assert len(cases) == ENTRIES_PER_CATEGORY


@pytest.mark.network
def test_fetches_and_loads_the_real_bfcl_release(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BFCL_ACTION_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("BFCL_ACTION_BFCL_WHEEL", raising=False)
    counts = Counter(c.category for c in load_dataset(SPEC))
    assert counts == {
        "simple_python": 400,
        "simple_java": 100,
        "simple_javascript": 50,
        "multiple": 200,
        "parallel": 200,
        "parallel_multiple": 200,
        "irrelevance": 240,
        "live_simple": 258,
        "live_multiple": 1053,
        "live_parallel": 16,
        "live_parallel_multiple": 24,
        "live_irrelevance": 884,
        "live_relevance": 16,
    }
    assert not os.listdir(tmp_path / "cache" / "bfcl")[0].startswith(".")


def test_a_concurrent_process_finishing_first_is_fine(
    wheel: Path, cache: Path, pinned: official.BfclRelease, monkeypatch: pytest.MonkeyPatch
) -> None:
    def racing_fetch(release: official.BfclRelease, work: Path) -> Path:
        official.ensure_extracted(release, wheel=wheel)  # the "other process" wins the race
        return wheel

    monkeypatch.setattr(official, "fetch_release", racing_fetch)
    assert len(load_dataset(SPEC, ["multiple"])) == ENTRIES_PER_CATEGORY
    assert _leftovers(cache) == [official.release_dir(pinned, cache).name]


def test_incomplete_cache_directory_is_reported(
    wheel: Path, cache: Path, pinned: official.BfclRelease
) -> None:
    stray = official.release_dir(pinned, cache)
    (stray / "possible_answer").mkdir(parents=True)
    with pytest.raises(DatasetError, match="exists but is incomplete; delete it"):
        load_dataset(SPEC, wheel=wheel)


def test_unwritable_cache_is_a_dataset_error(
    wheel: Path, tmp_path: Path, pinned: official.BfclRelease, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("BFCL_ACTION_CACHE", str(blocker / "cache"))
    with pytest.raises(DatasetError, match="BFCL_ACTION_CACHE"):
        load_dataset(SPEC, wheel=wheel)


def test_environments_are_extracted_from_the_pinned_wheel_with_inert_packages(
    tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import subprocess
    import sys

    from bfcl_action.dataset.official import ensure_environments

    with_envs = build_wheel(tmp_path / "envs", environments=True)
    release = release_for(with_envs)
    monkeypatch.setitem(official.RELEASES, release.version, release)
    calls = _serve(monkeypatch, with_envs)

    root = ensure_environments(release)

    assert ensure_environments(release) == root and len(calls) == 1  # cached after one fetch
    probe = "from bfcl_eval.eval_checker.multi_turn_eval.func_source_code import math_api as m"
    proc = subprocess.run(
        [
            sys.executable,
            "-I",
            "-c",
            f"import sys; sys.path.insert(0, {str(root)!r}); {probe}; print(m.MODULE)",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (proc.returncode, proc.stdout.strip()) == (0, "math_api"), proc.stderr


def test_a_wheel_without_the_environments_is_a_clear_error(
    wheel: Path, cache: Path, pinned: official.BfclRelease
) -> None:
    from bfcl_action.dataset.official import ensure_environments

    with pytest.raises(DatasetError, match="lacks the multi-turn environments: gorilla_file"):
        ensure_environments(pinned, wheel=wheel)
