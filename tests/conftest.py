"""Fixtures every test module may use; helpers to import live in `tests/support/`."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.github_server import GitHubServer, running_github_server


@pytest.fixture
def github_server() -> Iterator[GitHubServer]:
    """A local GitHub API server (127.0.0.1, a free port) for one test."""
    with running_github_server() as server:
        yield server
