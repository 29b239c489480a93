"""The Python fast path against the `ast` path on every prompt-mode Python text the
conformance generator makes for the official single-turn entries (ground truth renderings
and their mutations: the texts `benchmarks/checker.py` times, and more)."""

from __future__ import annotations

import importlib.util

import pytest

from bfcl_action.core.categories import SINGLE_TURN_OFFICIAL
from bfcl_action.decode import DECODER_FAILED, DecodeError
from bfcl_action.decode.prompt_text import bracket_text
from bfcl_action.decode.python_calls import decode_python_ast
from bfcl_action.decode.python_fast import decode_python_fast, not_a_call_list
from tests.conformance import run
from tests.conformance.generate import case_samples
from tests.support.decode import same

pytestmark = [
    pytest.mark.conformance,
    pytest.mark.skipif(
        importlib.util.find_spec("bfcl_eval") is None, reason="bfcl-eval is not installed"
    ),
]


@pytest.fixture(scope="module")
def texts(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    mp = pytest.MonkeyPatch()
    mp.setenv("BFCL_PROJECT_ROOT", str(tmp_path_factory.mktemp("bfclroot")))
    try:
        cases = run.load_package_cases(SINGLE_TURN_OFFICIAL)
    finally:
        mp.undo()
    return [
        sample.output
        for case in cases
        if case.language.value == "python"
        for sample in case_samples(case, 0)
        if sample.rep == "prompt" and isinstance(sample.output, str)
    ]


def test_fast_path_equals_the_ast_path_on_the_corpus(texts: list[str]) -> None:
    answered = 0
    for text in texts:
        try:
            answer = decode_python_fast(bracket_text(text))
        except DecodeError:
            continue
        if answer is None:
            continue
        answered += 1
        expected = [(call.name, call.arguments) for call in decode_python_ast(text)]
        assert same(answer, expected), text
    # Most generated texts are deliberate mutations; the fast path still answers over half.
    assert answered > len(texts) / 2


def test_refusals_without_ast_are_refusals_of_the_ast_path_on_the_corpus(
    texts: list[str],
) -> None:
    refused = 0
    for text in texts:
        try:
            source = bracket_text(text)
        except DecodeError:
            continue
        if decode_python_fast(source) is not None:
            continue
        why = not_a_call_list(source)
        if why is None:
            continue
        refused += 1
        with pytest.raises(DecodeError) as caught:
            decode_python_ast(text)
        assert caught.value.error_type == DECODER_FAILED, text
        if why.startswith("list element"):
            assert caught.value.message == why, text
    # Prose and plain values are a fair share of the generated irrelevance outputs.
    assert refused > len(texts) / 10
