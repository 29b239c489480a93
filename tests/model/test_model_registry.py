"""Providers are one file each: a module in `bfcl_action.model.providers` with `NAME` and
`create(options)` serves `--model NAME:MODEL` through the same request path as OpenAI."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from bfcl_action.core.records import Mode
from bfcl_action.model import providers
from bfcl_action.model.options import BackendOptions
from bfcl_action.model.registry import create_provider, provider_names, split_model
from bfcl_action.runner import RunOptions, run_evaluation
from tests.support.runner import make_case

ECHO = textwrap.dedent(
    '''
    """A provider that answers every question by calling `add(a=1, b=2)`."""
    from bfcl_action.model.types import ChatResponse, ToolCallPart

    NAME = "echo"

    class Echo:
        endpoint = "echo://local"

        def __init__(self, options):
            self.model = options.model
            self.asked = []

        def identity(self):
            return {"endpoint": self.endpoint, "model": self.model}

        async def complete(self, request):
            self.asked.append(request.messages[-1]["content"])
            call = {"id": "1", "function": {"name": "add", "arguments": '{"a": 1, "b": 2}'}}
            part = ToolCallPart("1", "add", '{"a": 1, "b": 2}')
            return ChatResponse(content="", tool_calls=(part,), raw_tool_calls=(call,))

        async def aclose(self):
            pass

    def create(options):
        return Echo(options)
    '''
)


def test_a_model_prefix_picks_a_provider_only_when_one_has_that_name() -> None:
    assert "openai" in provider_names()
    assert split_model("openai:gpt-4o") == ("openai", "gpt-4o")
    assert split_model("llama3.1:8b") == ("openai", "llama3.1:8b")
    provider = create_provider(BackendOptions(model="openai:gpt-4o", mode=Mode.FC))
    assert provider.model == "gpt-4o"


def test_a_new_provider_is_one_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "echo.py").write_text(ECHO, encoding="utf-8")
    monkeypatch.setattr(providers, "__path__", [*providers.__path__, str(tmp_path)])
    answer = [{"add": {"a": [1], "b": [2]}}]
    cases = [make_case("simple_python_0", "add one and two", answer=answer)]
    options = RunOptions(backend=BackendOptions(model="echo:any", mode=Mode.FC))
    report, stats = run_evaluation(cases, options)
    assert report.results[0].model_output == [{"add": '{"a": 1, "b": 2}'}]
    assert report.results[0].valid
    assert stats.requests == 1
