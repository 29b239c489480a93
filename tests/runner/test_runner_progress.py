"""Progress output: a live bar on a terminal, plain periodic lines in CI logs."""

from __future__ import annotations

import io

import pytest

from bfcl_action.runner.progress import PlainProgress, RichProgress, make_progress


class FakeTty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_is_a_bar_on_a_terminal_and_plain_lines_in_ci(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("CI", raising=False)
    assert isinstance(make_progress(FakeTty()), RichProgress)
    assert isinstance(make_progress(io.StringIO()), PlainProgress)
    monkeypatch.setenv("CI", "true")
    assert isinstance(make_progress(FakeTty()), PlainProgress)


def test_plain_progress_reports_counts_cache_hits_and_errors() -> None:
    stream = io.StringIO()
    progress = PlainProgress(stream, interval=0)
    progress.start(total=4, cached=2)
    progress.advance()
    progress.advance(failed=True)
    progress.finish()
    last = stream.getvalue().splitlines()[-1]
    assert last.startswith("bfcl-action run: finished 4/4 answers (2 from cache, 1 infra errors)")


def test_rich_bar_shows_counts_and_cache_hits() -> None:
    stream = FakeTty()
    bar = RichProgress(stream)
    bar.start(total=3, cached=1)
    bar.advance()
    bar.advance(failed=True)
    bar.finish()
    text = stream.getvalue()
    assert "3/3" in text
    assert "cache 1" in text
    assert "errors 1" in text
