"""Live releases read from their data wheels (`bfcl-action-live==<year>.<week>`), as an
installed bfcl-action without a data/live directory reads them.

The wheels are built by `bfcl-curate wheel` from the fixture releases and served by a package
index on 127.0.0.1; the real pip or uv downloads them, as for `bfcl@<version>`.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from bfcl_action.core.errors import DatasetError, LiveUnavailable
from bfcl_action.dataset import live, load_dataset, official
from curation.live_wheel import build_wheel, registry_for, render_registry
from tests.support.package_index import PackageIndex, running_index

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = Path(__file__).parents[1] / "fixtures" / "dataset" / "live"


def _pin(monkeypatch: pytest.MonkeyPatch, live_dir: Path) -> None:
    """Pin the releases of `live_dir` as if this bfcl-action had shipped with them, and hide
    the source checkout's data/live, as in an installed package."""
    registry = registry_for(live_dir)
    wheels = {
        v: live.LiveWheel(version=v, manifest_sha256=e["manifest_sha256"])
        for v, e in registry["releases"].items()  # type: ignore[attr-defined]
    }
    monkeypatch.setattr(live, "wheel_registry", lambda: (registry["latest"], wheels))
    monkeypatch.setattr(live, "CHECKOUT", live_dir / "no-checkout")
    monkeypatch.delenv("BFCL_ACTION_LIVE_DIR", raising=False)


@pytest.fixture
def index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[PackageIndex]:
    folder = tmp_path / "index"
    for version in ("2026-W47", "2026-W48"):
        build_wheel(FIXTURE, version, folder)
    _pin(monkeypatch, FIXTURE)
    monkeypatch.setenv("BFCL_ACTION_CACHE", str(tmp_path / "cache"))
    for key in ("PIP_FIND_LINKS", "UV_FIND_LINKS", "PIP_NO_INDEX", "UV_NO_INDEX", "UV_OFFLINE"):
        monkeypatch.delenv(key, raising=False)
    with running_index(folder) as served:
        for key, value in served.env().items():
            monkeypatch.setenv(key, value)
        yield served


def _downloads(index: PackageIndex) -> int:
    return sum(1 for r in index.requests if r.startswith("/files/"))


def test_latest_comes_from_the_pinned_wheel_when_there_is_no_live_directory(
    index: PackageIndex,
) -> None:
    cases = load_dataset("live@latest", ["live_simple"])
    assert {c.dataset for c in cases} == {"live@2026-W48"}
    assert len(cases) == 3
    assert _downloads(index) == 1


def test_a_release_is_read_offline_after_the_first_download(index: PackageIndex) -> None:
    first = load_dataset("live@2026-W47")
    index.server.shutdown()
    index.server.server_close()
    again = load_dataset("live@2026-W47")
    assert [c.id for c in again] == [c.id for c in first]
    assert _downloads(index) == 1


def test_the_cache_holds_only_verified_release_files(index: PackageIndex, tmp_path: Path) -> None:
    load_dataset("live@2026-W48")
    (entry,) = (tmp_path / "cache" / "live").iterdir()
    assert entry.name.startswith("2026-W48-")
    files = sorted(p.relative_to(entry).as_posix() for p in entry.rglob("*") if p.is_file())
    manifest = json.loads((FIXTURE / "releases" / "2026-W48" / "MANIFEST.json").read_text())
    assert files == sorted(["MANIFEST.json", *manifest["files"]])


def test_a_wheel_with_another_manifest_is_refused_and_nothing_is_cached(
    index: PackageIndex, tmp_path: Path
) -> None:
    tampered = tmp_path / "tampered"
    shutil.copytree(FIXTURE, tampered)
    manifest = tampered / "releases" / "2026-W48" / "MANIFEST.json"
    manifest.write_text(manifest.read_text().replace('"parent"', '"parent_"'))
    build_wheel(tampered, "2026-W48", index.folder)  # replaces the served wheel
    with pytest.raises(DatasetError, match=r"sha256 mismatch for the manifest of"):
        load_dataset("live@2026-W48")
    cache = tmp_path / "cache" / "live"
    assert [p.name for p in cache.iterdir() if not p.name.startswith(".")] == []


def test_a_tampered_cache_is_reported_with_the_way_out(index: PackageIndex, tmp_path: Path) -> None:
    load_dataset("live@2026-W48")
    (entry,) = (tmp_path / "cache" / "live").iterdir()
    (entry / "MANIFEST.json").write_text("{}")
    with pytest.raises(DatasetError, match=r"not the pinned .*delete .* to fetch the release"):
        load_dataset("live@2026-W48")


def test_an_entry_file_changed_in_the_cache_is_named(index: PackageIndex, tmp_path: Path) -> None:
    load_dataset("live@2026-W48")
    (entry,) = (tmp_path / "cache" / "live").iterdir()
    (entry / "BFCL_v4_live_simple.json").write_text("")
    with pytest.raises(DatasetError, match=r"BFCL_v4_live_simple.json: sha256"):
        load_dataset("live@2026-W48")


def test_an_unknown_release_names_the_version_the_known_ones_and_the_fixes(
    index: PackageIndex,
) -> None:
    with pytest.raises(LiveUnavailable) as caught:
        load_dataset("live@2026-W99")
    message = str(caught.value)
    assert "live@2026-W99 is not a release this bfcl-action knows" in message
    assert "live@2026-W47, live@2026-W48" in message
    assert "pip install -U bfcl-action" in message
    assert "BFCL_ACTION_LIVE_DIR" in message
    assert index.requests == []


def test_a_release_missing_from_the_index_is_live_unavailable_naming_the_requirement(
    index: PackageIndex,
) -> None:
    for wheel in index.folder.glob("*2026.48*"):
        wheel.unlink()
    with pytest.raises(LiveUnavailable) as caught:
        load_dataset("live@2026-W48")
    message = str(caught.value)
    assert "live@2026-W48: could not download bfcl-action-live==2026.48" in message
    assert "BFCL_ACTION_LIVE_DIR" in message


def test_a_live_directory_still_wins_over_the_wheels(
    index: PackageIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BFCL_ACTION_LIVE_DIR", str(FIXTURE))
    assert len(load_dataset("live@2026-W47")) == 3
    assert index.requests == []


def test_an_installed_tree_from_uv_is_read_like_a_wheel(tmp_path: Path) -> None:
    wheel_file = build_wheel(FIXTURE, "2026-W48", tmp_path / "dist")
    tree = tmp_path / "tree"
    with zipfile.ZipFile(wheel_file) as archive:
        archive.extractall(tree)
    digest = hashlib.sha256(
        (FIXTURE / "releases" / "2026-W48" / "MANIFEST.json").read_bytes()
    ).hexdigest()
    staging = tmp_path / "staging"
    staging.mkdir()
    live.extract_release(tree, live.LiveWheel("2026-W48", digest), staging)
    assert (staging / "possible_answer" / "BFCL_v4_live_simple.json").is_file()


def test_data_wheel_versions_sort_like_the_weeks() -> None:
    assert live.package_version("2026-W05") == "2026.5"
    assert live.package_version("2026-W50") == "2026.50"
    with pytest.raises(DatasetError):
        live.package_version("2026-50")


def test_building_a_wheel_twice_gives_the_same_bytes(tmp_path: Path) -> None:
    one = build_wheel(FIXTURE, "2026-W48", tmp_path / "a").read_bytes()
    two = build_wheel(FIXTURE, "2026-W48", tmp_path / "b").read_bytes()
    assert one == two


def test_a_wheel_is_never_built_from_a_release_whose_files_changed(tmp_path: Path) -> None:
    changed = tmp_path / "live"
    shutil.copytree(FIXTURE, changed)
    (changed / "releases" / "2026-W48" / "BFCL_v4_live_simple.json").write_text("")
    with pytest.raises(DatasetError, match=r"BFCL_v4_live_simple.json.*not the manifest's"):
        build_wheel(changed, "2026-W48", tmp_path / "dist")


def test_the_shipped_registry_pins_every_release_of_data_live() -> None:
    shipped = (ROOT / "bfcl_action" / "dataset" / "live_wheels.json").read_text()
    assert shipped == render_registry(registry_for(ROOT / "data" / "live"))


def _curate(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    script = Path(sys.executable).with_name("bfcl-curate")
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(cwd)}
    return subprocess.run(
        [str(script), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )


def test_register_check_fails_until_a_new_release_is_registered(tmp_path: Path) -> None:
    live_dir = tmp_path / "live"
    shutil.copytree(FIXTURE, live_dir)
    registry = tmp_path / "live_wheels.json"
    registry.write_text(render_registry(registry_for(FIXTURE)))
    new = live_dir / "releases" / "2026-W49"
    shutil.copytree(live_dir / "releases" / "2026-W48", new)
    (live_dir / "LATEST").write_text("2026-W49\n")
    check = ["register", "--live-dir", str(live_dir), "--registry", str(registry), "--check"]
    failed = _curate(*check, cwd=tmp_path)
    assert failed.returncode == 1
    assert "run `bfcl-curate register`" in failed.stderr
    written = _curate(*check[:-1], cwd=tmp_path)
    assert written.returncode == 0, written.stderr
    assert json.loads(registry.read_text())["latest"] == "2026-W49"
    assert _curate(*check, cwd=tmp_path).returncode == 0


def test_the_wheel_command_writes_an_installable_data_wheel(tmp_path: Path) -> None:
    done = _curate("wheel", "2026-W48", "--live-dir", str(FIXTURE), "--out", "dist", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    wheel_file = tmp_path / "dist" / "bfcl_action_live-2026.48-py3-none-any.whl"
    assert done.stdout.strip() == str(Path("dist") / wheel_file.name)
    with zipfile.ZipFile(wheel_file) as archive:
        names = archive.namelist()
    assert "bfcl_action_live/releases/2026-W48/MANIFEST.json" in names
    assert "bfcl_action_live-2026.48.dist-info/RECORD" in names


def test_official_fetch_still_requires_hashes() -> None:
    command = official._command("pip", ["pip"], Path("r.txt"), Path("d"))
    assert "--require-hashes" in command
    assert "--require-hashes" not in official._command(
        "pip", ["pip"], Path("r.txt"), Path("d"), hashed=False
    )
