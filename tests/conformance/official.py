"""The official bfcl-eval checker, driven through its own per-entry evaluation functions.

Test-only: nothing under `bfcl_action/` may import `bfcl_eval`. The package is light-installed
(`--no-deps`, see noxfile.py): its data, checker and decoders work, but importing its checker
pulls `bfcl_eval.constants.model_config`, which imports every model handler and with them the
vendor SDKs (anthropic, cohere, mistralai, google-genai, boto3, ...) that are not installed and
whose code the checker never runs. `sdk_stubs()` puts placeholder modules for exactly
those names behind the real import machinery (a finder appended to `sys.meta_path`, so a real
installation always wins). Without it the import fails; installing the SDKs instead would pull
gigabytes for nothing. The stubs live in this process only and are never used by our code.
"""

from __future__ import annotations

import contextlib
import importlib.abc
import importlib.machinery
import os
import sys
import tempfile
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from bfcl_action.results.results_io import read_score_file

BFCL_EVAL_VERSION = "2026.3.23"

PROMPT_MODEL = "gpt-4o-2024-11-20"
"""An official model entry with `underscore_to_dot=False` (only its flag matters)."""
FC_DOT_MODEL = "gpt-4o-2024-11-20-FC"
"""An official model entry with `underscore_to_dot=True`."""

# Third-party modules the model handlers import at module level and the checker never calls.
SDK_STUBS = frozenset(
    {
        "anthropic",
        "boto3",
        "cohere",
        "datamodel_code_generator",
        "dotenv",
        "google",
        "httpx",
        "mistralai",
        "numpy",
        "openai",
        "overrides",
        "pandas",
        "qwen_agent",
        "requests",
        "tqdm",
        "writerai",
    }
)


class _StubMeta(type):
    """A class whose every attribute is another stub class (`cohere.types.ToolV2`)."""

    def __getattr__(cls, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return _StubMeta(name, (), {"__init__": lambda self, *a, **k: None})

    def __getitem__(cls, item: Any) -> Any:
        return cls


class _StubModule(types.ModuleType):
    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        stub = _StubMeta(name, (), {"__init__": lambda self, *a, **k: None})
        setattr(self, name, stub)
        return stub


class _StubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(
        self, fullname: str, path: Any = None, target: Any = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname.split(".")[0] not in SDK_STUBS:
            return None
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        module = _StubModule(spec.name)
        module.__path__ = []
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        return None


@contextlib.contextmanager
def sdk_stubs() -> Iterator[None]:
    """Make the vendor-SDK imports of bfcl_eval's model handlers succeed (see module doc).

    Only while bfcl_eval is imported: afterwards the finder and the placeholder modules go
    again, so code that later looks for a real SDK in the same process (the openai client
    probing for numpy, say) sees it missing instead of getting a placeholder.
    """
    finder = _StubFinder()
    sys.meta_path.append(finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)
        for name, module in list(sys.modules.items()):
            if isinstance(module, _StubModule):
                del sys.modules[name]


class OfficialChecker:
    """Verdicts from bfcl_eval's `_evaluate_single_ast_entry` / `_evaluate_single_relevance_entry`.

    Those functions are what `bfcl evaluate` runs per entry: decode, format check, checker.
    The handler they receive is an adapter choosing the official decoder for the output's
    representation: identity for already-decoded call lists, the OpenAI FC handler's
    `decode_ast` for FC JSON strings, `default_decode_ast_prompting` for prompt text.
    """

    def __init__(self) -> None:
        os.environ.setdefault("BFCL_PROJECT_ROOT", tempfile.mkdtemp(prefix="bfclroot-"))
        with sdk_stubs():
            from bfcl_eval.constants.enums import Language, ReturnFormat
            from bfcl_eval.eval_checker import eval_runner
            from bfcl_eval.model_handler.api_inference.openai_completion import (
                OpenAICompletionsHandler,
            )
            from bfcl_eval.model_handler.utils import default_decode_ast_prompting

        self._runner = eval_runner
        from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker

        self._ast_checker = ast_checker
        self._lang = {
            "python": (Language.PYTHON, ReturnFormat.PYTHON),
            "java": (Language.JAVA, ReturnFormat.JAVA),
            "javascript": (Language.JAVASCRIPT, ReturnFormat.JAVASCRIPT),
        }
        fc_self = types.SimpleNamespace(is_fc_model=True)

        def fc_decode(result: Any, language: Any, has_tool_call_tag: bool) -> Any:
            return OpenAICompletionsHandler.decode_ast(fc_self, result, language, has_tool_call_tag)

        def identity(result: Any, language: Any, has_tool_call_tag: bool) -> Any:
            return result

        self._decoders: dict[str, Callable[[Any, Any, bool], Any]] = {
            "decoded": identity,
            "fc": fc_decode,
            "prompt": default_decode_ast_prompting,
        }

    def ast_checker(
        self,
        functions: list[dict[str, Any]],
        decoded: list[dict[str, Any]],
        possible_answer: list[dict[str, Any]],
        language: str,
        category: str,
        model: str,
    ) -> dict[str, Any]:
        """The bare official AST checker on an already-decoded call list (no decoding)."""
        result: dict[str, Any] = self._ast_checker(
            functions, decoded, possible_answer, self._lang[language][0], category, model
        )
        return result

    def verdict(
        self,
        *,
        case_id: str,
        category: str,
        checker: str,
        language: str,
        functions: list[dict[str, Any]],
        possible_answer: list[dict[str, Any]],
        rep: str,
        output: Any,
        underscore_to_dot: bool,
    ) -> dict[str, Any]:
        """`{"valid", "error_type"}`, or `{"crash": "<exception>"}` when bfcl_eval raises."""
        handler = types.SimpleNamespace(decode_ast=self._decoders[rep])
        model = FC_DOT_MODEL if underscore_to_dot else PROMPT_MODEL
        prompt_entry = {"id": case_id, "function": functions}
        try:
            if checker == "ast":
                lang, fmt = self._lang[language]
                res = self._runner._evaluate_single_ast_entry(
                    handler,
                    case_id,
                    output,
                    possible_answer,
                    prompt_entry,
                    model,
                    category,
                    language=lang,
                    return_format=fmt,
                )
            else:
                res = self._runner._evaluate_single_relevance_entry(
                    handler, case_id, output, prompt_entry, model, category
                )
        except Exception as exc:  # a crash upstream would abort `bfcl evaluate`
            return {"crash": f"{type(exc).__name__}: {exc}"[:300]}
        valid = bool(res["valid"])
        return {"valid": valid, "error_type": None if valid else res.get("error_type")}


# --- scoring a result folder as `bfcl evaluate` does (shared by the conformance tests) ---


def official_evaluate(result_dir: Path, score_dir: Path, mode: str) -> None:
    """What `bfcl evaluate` does with one model's result folder: every result file through
    bfcl_eval's evaluation functions, then the leaderboard CSVs from the score files."""
    os.environ.setdefault("BFCL_PROJECT_ROOT", tempfile.mkdtemp(prefix="bfclroot-"))
    with sdk_stubs():
        from bfcl_eval.eval_checker import eval_runner, eval_runner_helper
        from bfcl_eval.model_handler.api_inference.openai_completion import (
            OpenAICompletionsHandler,
        )
        from bfcl_eval.model_handler.utils import (
            convert_to_function_call,
            default_decode_ast_prompting,
            default_decode_execute_prompting,
        )
        from bfcl_eval.utils import load_file

    fc_self = types.SimpleNamespace(is_fc_model=True)

    def fc_decode(result: Any, language: Any, has_tool_call_tag: bool = False) -> Any:
        return OpenAICompletionsHandler.decode_ast(fc_self, result, language, has_tool_call_tag)

    def fc_execute(result: Any, has_tool_call_tag: bool = False) -> Any:
        return convert_to_function_call(result)

    # What get_handler(model) would build, minus the vendor SDK it needs for inference only.
    handler = types.SimpleNamespace(
        decode_ast=fc_decode if mode == "fc" else default_decode_ast_prompting,
        decode_execute=fc_execute if mode == "fc" else default_decode_execute_prompting,
    )
    table: dict[str, Any] = {}
    for path in sorted(result_dir.rglob("BFCL_v4_*_result.json")):
        category = path.name.removeprefix("BFCL_v4_").removesuffix("_result.json")
        entries = load_file(path, sort_by_id=True)
        eval_runner.evaluate_task(
            category, result_dir.parent, score_dir, entries, result_dir.name, handler, table
        )
    # the score files' headers carry extra figures (format sensitivity's per configuration)
    eval_runner_helper.update_leaderboard_table_with_local_score_file(table, score_dir)
    eval_runner_helper.generate_leaderboard_csv(table, score_dir)


def score_files(root: Path) -> dict[str, Path]:
    return {p.relative_to(root).as_posix(): p for p in root.rglob("BFCL_v4_*_score.json")}


def failures_by_id(path: Path) -> dict[str, str | None]:
    _, failures = read_score_file(path)
    # bfcl-eval nests the error type under "error" for the agentic categories
    return {f["id"]: f.get("error_type") or f["error"]["error_type"] for f in failures}


def differing_ids(official_scores: Path, mine: Path) -> dict[str, set[str]]:
    """Per score file, the ids that fail on one side only or with another error type."""
    theirs_files, my_files = score_files(official_scores), score_files(mine)
    assert sorted(my_files) == sorted(theirs_files)
    differing = {}
    for rel, path in theirs_files.items():
        theirs, ours = failures_by_id(path), failures_by_id(my_files[rel])
        ids = {i for i in theirs.keys() | ours.keys() if theirs.get(i, "") != ours.get(i, "")}
        if ids:
            differing[rel] = ids
    return differing
