"""Case questions as chat messages, and the hook that hands multi-turn cases to the
conversation loop (`bfcl_action.multiturn.driver`), which asks step by step."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bfcl_action.categories import is_multi_turn as is_multi_turn_category
from bfcl_action.models import TestCase
from bfcl_action.runner.backends import ModelAnswer, ModelRequest, PermanentError

if TYPE_CHECKING:
    from bfcl_action.multiturn.driver import ConversationSettings


def first_turn_messages(case: TestCase) -> list[dict[str, Any]]:
    """The chat messages of a single-turn case, as plain dicts ready for a request body."""
    if len(case.question) != 1:
        raise PermanentError(
            f"{case.id}: a {len(case.question)}-turn case needs a multi-turn category "
            "(own_multi_turn or multi_turn_*)"
        )
    return [m.model_dump(mode="json", exclude_none=True) for m in case.question[0]]


def is_multi_turn(case: TestCase) -> bool:
    return is_multi_turn_category(case.category)


@dataclass(frozen=True)
class _Conversation:
    case: TestCase


def conversation_request(case: TestCase, sample: int) -> ModelRequest:
    """A multi-turn case's request: no body (the loop builds one per step), no cache key
    (each step is cached on its own)."""
    return ModelRequest(case.id, sample, {}, None, context=_Conversation(case))


def is_conversation_request(request: ModelRequest) -> bool:
    return isinstance(request.context, _Conversation)


class ConversationHook:
    """Per-backend conversation settings (cache, retries, sandbox), set by the pipeline."""

    def __init__(self) -> None:
        self.settings: ConversationSettings | None = None

    async def run(self, backend: Any, request: ModelRequest) -> ModelAnswer:
        from bfcl_action.errors import BfclActionError
        from bfcl_action.multiturn.check import ExecutionOptions
        from bfcl_action.multiturn.driver import ConversationSettings, run_conversation

        assert isinstance(request.context, _Conversation)
        settings = self.settings or ConversationSettings(ExecutionOptions())
        try:
            return await run_conversation(
                request.context.case,
                model=backend.model,
                mode=backend.mode,
                client=backend.client,
                params=backend.params,
                renderer=backend.renderer,
                settings=settings,
                sample=request.sample,
            )
        except BfclActionError as exc:
            raise PermanentError(f"{request.case_id}: {exc.message}") from None
