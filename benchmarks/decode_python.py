"""Prompt-mode Python decoding: the regex fast path against the `ast` path.

On the prompt-mode Python texts of the checker benchmark's workload (`checker._workload`:
ground truth renderings and mutations), reports how many texts the fast path answers, checks
that each answer equals the `ast` path's, and times `decode_python` (fast path first) against
`decode_python_ast` (the `ast` path alone), per text, interleaved, best of `ROUNDS`.
"""

from __future__ import annotations

import contextlib
import json
import platform
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROUNDS = 7


def _texts() -> list[str]:
    from benchmarks.checker import _workload

    return [
        sample.output
        for case, sample in _workload()
        if sample.rep == "prompt"
        and case.language.value == "python"
        and isinstance(sample.output, str)
    ]


def _per_text_us(fns: list[Callable[[str], Any]], texts: list[str]) -> list[float]:
    from bfcl_action.decode import DecodeError

    best = [float("inf")] * len(fns)
    for _ in range(ROUNDS):
        for i, fn in enumerate(fns):
            t0 = time.perf_counter()
            for text in texts:
                with contextlib.suppress(DecodeError):
                    fn(text)
            best[i] = min(best[i], time.perf_counter() - t0)
    return [round(t / max(1, len(texts)) * 1e6, 2) for t in best]


def main() -> dict[str, Any]:
    from bfcl_action.decode import DecodeError
    from bfcl_action.decode.prompt_text import bracket_text
    from bfcl_action.decode.python_calls import decode_python, decode_python_ast
    from bfcl_action.decode.python_fast import decode_python_fast

    texts = _texts()
    answered: list[str] = []
    mismatches = 0
    for text in texts:
        try:
            fast = decode_python_fast(bracket_text(text))
        except DecodeError:
            continue
        if fast is None:
            continue
        answered.append(text)
        try:
            slow = [(c.name, c.arguments) for c in decode_python_ast(text)]
        except DecodeError:
            slow = None
        if repr(slow) != repr(fast):  # repr tells -0.0 from 0.0, 1 from 1.0 and True
            mismatches += 1
    answered_set = set(answered)
    fell_back = [t for t in texts if t not in answered_set]
    both = [decode_python_ast, decode_python]
    all_ast, all_new = _per_text_us(both, texts)
    ans_ast, ans_new = _per_text_us(both, answered)
    rest_ast, rest_new = _per_text_us(both, fell_back)
    result = {
        "texts": len(texts),
        "fast_path_answered": len(answered),
        "coverage": round(len(answered) / max(1, len(texts)), 4),
        "mismatches": mismatches,
        "us_per_text": {
            "all": {"ast": all_ast, "with_fast_path": all_new},
            "answered_by_fast_path": {"ast": ans_ast, "with_fast_path": ans_new},
            "fell_back": {"ast": rest_ast, "with_fast_path": rest_new},
        },
        "rounds": ROUNDS,
        "python": platform.python_version(),
    }
    out = Path("bench-results")
    out.mkdir(exist_ok=True)
    (out / "decode_python.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(
        f"decode_python: {len(texts)} texts, fast path answers {result['coverage']:.1%} "
        f"({mismatches} mismatches with ast)"
    )
    for group, fig in result["us_per_text"].items():
        print(f"  {group:>22}: ast {fig['ast']} us/text, with fast path {fig['with_fast_path']}")
    return result


if __name__ == "__main__":
    main()
