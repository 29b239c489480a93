"""BFCL v4's agentic categories (web search, memory): is the expected answer in the final text?

The rule, as bfcl-eval applies it offline to a result file:

1. the result must be a list of exactly one element (the list of the model's steps), else
   `agentic:inference_error`;
2. the answer is the *last* step that does not decode to a function call (a step whose
   decoding fails or gives no call); there is none (or it is empty): `agentic:no_last_message`;
3. it passes when one of the expected texts occurs in it as a word, both sides lower-cased
   with the characters `,./-_*^()` removed and `'` read as `"`; else
   `agentic:answer_not_found`.

Pure and linear: the expected texts are escaped, never interpreted as patterns.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from bfcl_action.checker.verdict import PASS, CheckVerdict, fail
from bfcl_action.core.records import Mode
from bfcl_action.decode import decode_step

INFERENCE_ERROR = "agentic:inference_error"
NO_LAST_MESSAGE = "agentic:no_last_message"
ANSWER_NOT_FOUND = "agentic:answer_not_found"

_DROPPED = re.compile(r"[,./\-_*^()]")


def standardize(text: str) -> str:
    """BFCL's normal form for agentic answers (see the module docstring)."""
    return _DROPPED.sub("", text).lower().replace("'", '"')


def final_answer(model_output: Any, mode: Mode) -> tuple[Any, CheckVerdict | None]:
    """The last step that is not a call, or the verdict that says why there is none."""
    if not isinstance(model_output, list) or len(model_output) != 1:
        return None, fail(
            INFERENCE_ERROR,
            "the result is not a list of one conversation (a list of the model's steps)",
        )
    steps = model_output[0]
    last: Any = None
    for step in steps if isinstance(steps, list) else [steps]:
        if not decode_step(step, mode):
            last = step
    if not last:
        return None, fail(NO_LAST_MESSAGE, "no step of the answer is text rather than a call")
    return last, None


def check_answer_text(answer: Any, expected: Sequence[str]) -> CheckVerdict:
    """Whether `answer` (the final text) holds one of `expected` as a word."""
    if isinstance(answer, list):
        answer = answer[0] if answer else ""
    text = standardize(answer if isinstance(answer, str) else str(answer))
    for option in expected:
        if re.search(rf"\b{re.escape(standardize(option))}\b", text):
            return PASS
    shown = ", ".join(repr(o) for o in expected[:5])
    return fail(ANSWER_NOT_FOUND, f"none of the expected answers ({shown}) is in the final answer")


def check_agentic(model_output: Any, expected: Sequence[str], mode: Mode) -> CheckVerdict:
    """CheckVerdict on one agentic result entry (see the module docstring)."""
    answer, problem = final_answer(model_output, mode)
    if problem is not None:
        return problem
    return check_answer_text(answer, expected)
