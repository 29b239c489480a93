"""BFCL's two ways of asking: FC (functions as tools, answers as tool calls) and prompt (a
system prompt lists the functions, the answer is call text), and reading a response back
into BFCL's result form. Single-turn cases and conversation steps share these.

The instruction text is our own wording of what BFCL's default prompt asks for (persona,
task, "only the calls, in `[f(a=1), g(b=2)]` form", multi-turn behaviour, then the functions
as indented JSON). As upstream, a case's own system message is appended after ours.
"""

from __future__ import annotations

import json
from typing import Any

from bfcl_action.checker.variants import PromptTemplates, variant_of
from bfcl_action.core.categories import CATEGORIES
from bfcl_action.core.fingerprint import sha256_hex
from bfcl_action.core.records import Language, Mode, TestCase
from bfcl_action.model.naming import NameMap
from bfcl_action.model.render import (
    FunctionRenderer,
    RenderedFunctions,
    function_docs_json,
    with_language_notes,
)
from bfcl_action.model.types import ChatRequest, ChatResponse, Message, PermanentError
from bfcl_action.model.variant_prompts import variant_system_prompt

SYSTEM_PROMPT = """\
You are an expert at composing function calls. You receive a question and a list of \
functions you may call. Decide which call or calls, with which arguments, achieve what the \
question asks. If none of the functions fits, say so. If the question does not give the \
arguments a function requires, say so too.
You should only return the function calls in your response.

If you decide to call any of the functions, you MUST use the format \
[func_name1(param_name1=param_value1, param_name2=param_value2...), func_name2(params)]
You SHOULD NOT include any other text in the response.

At each turn, do your best to complete the tasks the user asks for within that turn. Keep \
returning function calls until you have fulfilled the request as well as you can. When you \
have no more functions to call, the turn is considered complete and the next turn or task \
begins.

Here is a list of functions in JSON format that you can invoke.
{functions}
"""

PROMPT_KEY = "prompt:" + sha256_hex(SYSTEM_PROMPT)[:12]
"""Names prompt-mode requests in fingerprints; the prompt text itself is in every request,
so editing it re-asks every case."""


def system_prompt(functions_json: str) -> str:
    return SYSTEM_PROMPT.format(functions=functions_json)


def with_system_prompt(messages: list[Message], prompt: str) -> list[Message]:
    """Our prompt first; a case's own system message is kept, appended after it."""
    if messages and messages[0].get("role") == "system":
        first = dict(messages[0])
        first["content"] = prompt + "\n\n" + str(first.get("content") or "")
        return [first, *messages[1:]]
    return [{"role": "system", "content": prompt}, *messages]


def first_turn_messages(case: TestCase) -> list[Message]:
    """The chat messages of a single-turn case, as plain dicts ready for a request."""
    if len(case.question) != 1:
        raise PermanentError(
            f"{case.id}: a {len(case.question)}-turn case needs a multi-turn category "
            "(own_multi_turn or multi_turn_*)"
        )
    return [m.model_dump(mode="json", exclude_none=True) for m in case.question[0]]


def case_request(
    case: TestCase,
    mode: Mode,
    renderer: FunctionRenderer,
    sample: int = 0,
    prompts: dict[str, str] | None = None,
    templates: PromptTemplates | None = None,
) -> tuple[ChatRequest, RenderedFunctions]:
    """Pure: the request for one sample of a single-turn case (FC: the functions as tools;
    prompt: our system prompt listing them; a format-sensitivity case: BFCL's system prompt
    for the configuration its id names, built from `templates`), and the rendering it used
    (for the names). `prompts` memoises the prompt text per function set (and
    configuration). Raises `PermanentError` for a case that has more than one turn, and for
    a format-sensitivity case in FC mode or without `templates`."""
    messages = first_turn_messages(case)
    rendered = renderer.render(case.functions, case.language)
    category = CATEGORIES.get(case.category)
    if category is not None and category.prompt_variants:
        variant = _variant_prompt(case, mode, rendered, prompts, templates)
        messages = with_system_prompt(messages, variant)
        return ChatRequest(messages, [], "", sample, case.id), rendered
    if mode is Mode.PROMPT:
        memo = prompts if prompts is not None else {}
        prompt = memo.get(rendered.key)
        if prompt is None:
            prompt = memo[rendered.key] = system_prompt(rendered.docs_json)
        messages = with_system_prompt(messages, prompt)
        return ChatRequest(messages, [], "", sample, case.id), rendered
    return ChatRequest(messages, rendered.tools, rendered.key, sample, case.id), rendered


def _variant_prompt(
    case: TestCase,
    mode: Mode,
    rendered: RenderedFunctions,
    prompts: dict[str, str] | None,
    templates: PromptTemplates | None,
) -> str:
    """BFCL's system prompt for a format-sensitivity case's configuration."""
    if mode is not Mode.PROMPT:
        raise PermanentError(f"{case.id}: format-sensitivity cases are asked in prompt mode only")
    variant = variant_of(case.id)
    if variant is None:
        raise PermanentError(f"{case.id}: the id names no prompt configuration")
    if templates is None:
        raise PermanentError(f"{case.id}: no prompt templates for {case.dataset or 'its data'}")
    config = variant[0]
    key = f"{case.dataset}:{rendered.key}:{config.key}"
    memo = prompts if prompts is not None else {}
    prompt = memo.get(key)
    if prompt is None:
        # bfcl-eval notes the language twice here: once loading the entry from its own
        # category, once more loading it as a format-sensitivity case (always "Python 3")
        noted = with_language_notes(function_docs_json(case.functions), case.language)
        noted = with_language_notes(noted, Language.PYTHON)
        prompt = memo[key] = variant_system_prompt(templates, config, noted)
    return prompt


def fc_output(response: ChatResponse, names: NameMap) -> Any:
    """BFCL's FC result form: `[{original_name: "<json args>"}]`, or the text if no calls.

    The calls are taken as the server sent them (arguments that are an object are written as
    JSON; `""` stays `""`), so the checker's verdict is BFCL's. Names are mapped back to the
    offered functions' names, so the result is checked against the possible answers without
    any per-model `underscore_to_dot` flag.
    """
    if response.raw_tool_calls:
        out: list[dict[str, Any]] = []
        for call in response.raw_tool_calls:
            fn = call.get("function") if isinstance(call, dict) else None
            if not isinstance(fn, dict):
                continue
            args = fn.get("arguments")
            if not isinstance(args, str):
                args = json.dumps(args)
            out.append({names.original(str(fn.get("name", ""))): args})
        return out
    return response.content


def prompt_output(response: ChatResponse) -> str:
    """Prompt mode's result: the answer's text."""
    return response.content
