"""`live@latest` from a non-editable install, as a user of `pip install bfcl-action` runs it.

The session builds this checkout's wheel and installs it into a fresh venv (pip seeded, so
the installed package fetches with pip as most users' would); its dependencies come from the
test venv through a `.pth` line, which keeps the install offline and leaves the source tree
(with its `data/live`) out of reach. The Live data wheels are built from `data/live` with
`bfcl-curate wheel` and served by a package index on 127.0.0.1 that pip is pointed at
through `PIP_INDEX_URL`, as a user points it at a mirror.

A small stand-in for the installed-command layer (`tests/installed/`, being built
separately); when that layer lands, these tests can move onto its fixtures.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from curation.live_wheel import build_wheel
from tests.support.github_server import running_github_server
from tests.support.openai_server import OpenAIServer
from tests.support.package_index import PackageIndex, running_index

ROOT = Path(__file__).resolve().parents[2]
LIVE = ROOT / "data" / "live"
TRACEBACK = "Traceback (most recent call last)"


def _uv() -> list[str]:
    found = shutil.which("uv")
    return [found] if found else [sys.executable, "-m", "uv"]


@dataclass
class Venv:
    root: Path

    @property
    def bin(self) -> Path:
        return self.root / "bin"


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Venv:
    work = tmp_path_factory.mktemp("installed")
    quiet = {"capture_output": True, "text": True, "check": True, "timeout": 300}
    try:
        subprocess.run(
            [*_uv(), "build", "--wheel", "--offline", "-q", "-o", str(work / "dist"), str(ROOT)],
            **quiet,
        )
        [wheel] = (work / "dist").glob("bfcl_action-*.whl")
        root = work / "venv"
        subprocess.run(
            [*_uv(), "venv", "-q", "--seed", "--offline", "--python", sys.executable, str(root)],
            **quiet,
        )
        python = str(root / "bin" / "python")
        subprocess.run(
            [
                *_uv(),
                "pip",
                "install",
                "-q",
                "--offline",
                "--python",
                python,
                "--no-deps",
                str(wheel),
            ],
            **quiet,
        )
        purelib = subprocess.run(
            [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], **quiet
        ).stdout.strip()
    except subprocess.CalledProcessError as exc:
        pytest.fail(f"the wheel does not install: {exc.cmd}\n{exc.stderr}")
    # The dependencies, from the test venv (a plain path: its .pth hooks, among them the
    # editable install of this checkout, are not run from there).
    Path(purelib, "_test_dependencies.pth").write_text(
        sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8"
    )
    return Venv(root)


@pytest.fixture(scope="module")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("index")
    latest = (LIVE / "LATEST").read_text(encoding="utf-8").strip()
    build_wheel(LIVE, latest, folder)
    return folder


@pytest.fixture
def index(wheels: Path) -> Iterator[PackageIndex]:
    with running_index(wheels) as served:
        yield served


def run(
    venv: Venv, home: Path, *args: str, extra: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """A console script of the venv with an `env -i`-like environment plus `extra`."""
    home.mkdir(parents=True, exist_ok=True)
    env = {
        "PATH": f"{venv.bin}:/usr/bin:/bin",
        "HOME": str(home),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "LANG": "C.UTF-8",
        **(extra or {}),
    }
    proc = subprocess.run(
        [str(venv.bin / args[0]), *args[1:]],
        cwd=home,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert TRACEBACK not in proc.stdout + proc.stderr, proc.stderr
    # the log edge defuses `@mentions` with a zero-width joiner; the words are what we check
    return subprocess.CompletedProcess(
        proc.args, proc.returncode, proc.stdout, proc.stderr.replace("\u200d", "")
    )


def _questions(category: str) -> set[str]:
    latest = (LIVE / "LATEST").read_text(encoding="utf-8").strip()
    path = LIVE / "releases" / latest / f"BFCL_v4_{category}.json"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return {
        m["content"] for r in rows for turn in r["question"] for m in turn if m["role"] == "user"
    }


def _live_run(
    venv: Venv, home: Path, model: OpenAIServer, extra: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    return run(
        venv,
        home,
        "bfcl-action",
        "run",
        "--dataset",
        "live@latest",
        "--categories",
        "live_simple",
        "--sample",
        "3",
        "--model",
        "m",
        "--base-url",
        model.base_url,
        "--output",
        str(home / "run.json"),
        extra=extra,
    )


def test_a_pip_install_runs_live_latest_then_reads_it_offline(
    venv: Venv, index: PackageIndex, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    latest = (LIVE / "LATEST").read_text(encoding="utf-8").strip()
    with OpenAIServer() as model:
        first = _live_run(venv, home, model, index.env())
        assert first.returncode in (0, 1), first.stderr
        report = json.loads((home / "run.json").read_text())
        assert {r["suite"] for r in report["results"]} == {f"live@{latest}/live_simple"}
        assert len(report["results"]) == 3
        asked = {m["content"] for b in model.requests for m in b["messages"] if m["role"] == "user"}
        assert asked and asked <= _questions("live_simple")
        assert "skipped" not in (first.stdout + first.stderr).lower()
        downloads = [r for r in index.requests if r.startswith("/files/")]
        assert len(downloads) == 1

        index.server.shutdown()  # the second read needs no index
        index.server.server_close()
        (home / "run.json").unlink()
        again = _live_run(venv, home, model, index.env())
        assert again.returncode in (0, 1), again.stderr
        assert len(json.loads((home / "run.json").read_text())["results"]) == 3


def test_an_unknown_live_version_names_itself_and_the_fix(
    venv: Venv, index: PackageIndex, tmp_path: Path
) -> None:
    proc = run(
        venv,
        tmp_path / "home",
        "bfcl-action",
        "run",
        "--dataset",
        "live@2031-W01",
        "--model",
        "m",
        "--base-url",
        "http://127.0.0.1:9/v1",
        extra=index.env(),
    )
    assert proc.returncode == 2, proc.stderr
    assert "live@2031-W01 is not a release this bfcl-action knows" in proc.stderr
    assert "pip install -U bfcl-action" in proc.stderr
    assert index.requests == []


def test_a_release_that_cannot_be_downloaded_says_which_and_what_to_do(
    venv: Venv, tmp_path: Path
) -> None:
    empty = tmp_path / "empty-index"
    empty.mkdir()
    with running_index(empty) as nothing:
        proc = run(
            venv,
            tmp_path / "home",
            "bfcl-action",
            "run",
            "--dataset",
            "live@latest",
            "--model",
            "m",
            "--base-url",
            "http://127.0.0.1:9/v1",
            extra=nothing.env(),
        )
    assert proc.returncode == 2, proc.stderr
    assert "could not download bfcl-action-live==" in proc.stderr
    assert "BFCL_ACTION_LIVE_DIR" in proc.stderr


def _action_step(name: str) -> dict[str, Any]:
    steps = YAML(typ="safe").load((ROOT / "action.yml").read_text(encoding="utf-8"))["runs"][
        "steps"
    ]
    [step] = [s for s in steps if s.get("name") == name]
    return dict(step)


def test_the_action_runs_live_latest_from_its_non_editable_install(
    venv: Venv, index: PackageIndex, tmp_path: Path
) -> None:
    """action.yml's evaluate step (its own run line) with `suites: live@latest`."""
    step = _action_step("Evaluate and report")
    workdir = tmp_path / "repo"
    workdir.mkdir()
    event = workdir.parent / "event.json"
    output, summary = tmp_path / "github_output", tmp_path / "step_summary"
    output.write_text("")
    summary.write_text("")
    latest = (LIVE / "LATEST").read_text(encoding="utf-8").strip()
    with running_github_server() as github, OpenAIServer() as model:
        sha = github.commit("octo/app", "main", "main")
        event.write_text(json.dumps(github.push_event("octo/app", "main")))
        env = {
            **index.env(),
            "BFCL_PYTHON": str(venv.bin / "python"),
            "GITHUB_ACTIONS": "true",
            "GITHUB_EVENT_NAME": "push",
            "GITHUB_EVENT_PATH": str(event),
            "GITHUB_REPOSITORY": "octo/app",
            "GITHUB_API_URL": github.url,
            "GITHUB_SERVER_URL": "https://github.com",
            "GITHUB_SHA": sha,
            "GITHUB_RUN_ID": "4242",
            "GITHUB_OUTPUT": str(output),
            "GITHUB_STEP_SUMMARY": str(summary),
            "BFCL_GITHUB_THROTTLE": "0",
            "INPUT_GITHUB_TOKEN": "write-token",
            "INPUT_WORKING_DIRECTORY": str(workdir),
            "INPUT_SUITES": "live@latest",
            "INPUT_CATEGORIES": "live_simple",
            "INPUT_SAMPLE": "3",
            "INPUT_MODEL": "m",
            "INPUT_API_KEY": "sk-local-test",
            "INPUT_BASE_URL": model.base_url,
        }
        home = tmp_path / "home"
        home.mkdir()
        proc = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
            cwd=workdir,
            env={"PATH": "/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8", **env},
            capture_output=True,
            text=True,
            timeout=180,
        )
        out = proc.stdout + proc.stderr
        assert TRACEBACK not in out, out
        assert proc.returncode == 0, out
        assert "skipped" not in out.lower()
        asked = {m["content"] for b in model.requests for m in b["messages"] if m["role"] == "user"}
        assert len(asked) == 3 and asked <= _questions("live_simple")
        assert f"live@{latest}" in summary.read_text().replace("\u200d", "")
