"""Fixtures every test module may use; helpers to import live in `tests/support/`."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.github_server import GitHubServer, running_github_server
from tests.support.openai_server import OpenAIServer
from tests.support.runner import LIVE, weather_responder


@pytest.fixture
def github_server() -> Iterator[GitHubServer]:
    """A local GitHub API server (127.0.0.1, a free port) for one test."""
    with running_github_server() as server:
        yield server


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    """A local OpenAI-compatible server for one test (requests hang at most 1 s)."""
    with OpenAIServer(hang_s=1.0) as srv:
        yield srv


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch, server: OpenAIServer) -> OpenAIServer:
    """`server` answering the weather questions of the bundled Live fixture, with the
    variables `bfcl-action run` reads in CI (an API key that must never be printed)."""
    monkeypatch.setenv("BFCL_ACTION_LIVE_DIR", str(LIVE))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-never-printed")
    monkeypatch.setenv("CI", "true")
    server.responder = weather_responder
    return server
