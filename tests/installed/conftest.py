"""Fixtures of the installed-command layer: one wheel and one venv for the whole session.

Under pytest-xdist every worker would build its own; the first worker to take the lock
builds and the others reuse its venv (the directory is shared through the base temp dir's
parent, as pytest-xdist documents for session data)."""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.github_server import GitHubServer, running_github_server
from tests.support.installed import Installed, install
from tests.support.openai_server import OpenAIServer


@pytest.fixture(scope="session")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return install(tmp_path_factory.mktemp("installed"))
    shared = tmp_path_factory.getbasetemp().parent / "installed"
    shared.mkdir(exist_ok=True)
    with (shared / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = shared / ".done"
        if done.exists():
            venv = shared / "venv"
            [wheel] = (shared / "dist").glob("*.whl")
            return Installed(venv=venv, wheel=wheel, home=shared / "home")
        result = install(shared)
        done.write_text("ok")
        return result


@pytest.fixture
def user(installed: Installed, tmp_path: Path) -> Installed:
    """The installed package with a HOME (and caches) of this test's own."""
    home = tmp_path / "home"
    (home / "tmp").mkdir(parents=True)
    return Installed(venv=installed.venv, wheel=installed.wheel, home=home)


@pytest.fixture
def github() -> Iterator[GitHubServer]:
    with running_github_server() as server:
        yield server


@pytest.fixture
def openai() -> Iterator[OpenAIServer]:
    with OpenAIServer() as server:
        yield server
