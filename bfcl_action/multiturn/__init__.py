"""Multi-turn and executable evaluation: environments in a sandboxed worker, BFCL's state and
response checks, and the conversation loop that drives a model through the turns.

Modules: `calls` (call values, ground-truth parsing), `conversation` (a case's typed
multi-turn view), `check` (the verdict), `driver` (asking a model, turn by turn, step by
step), `cases` (own conversation cases), `executable` (executable checks). The sandbox the
environments run in (`sandbox`, `worker`, `jail`) is `bfcl_action.safety`'s: tools from Python
modules and stdio MCP servers run in it too.
"""

from bfcl_action.multiturn.calls import ToolCall, parse_call_text
from bfcl_action.multiturn.check import (
    ExecutionOptions,
    check_conversation,
    decode_turns,
    judge_turns,
    missing_results,
)
from bfcl_action.multiturn.conversation import Conversation, conversation_of, turn_messages

__all__ = [
    "Conversation",
    "ExecutionOptions",
    "ToolCall",
    "check_conversation",
    "conversation_of",
    "decode_turns",
    "judge_turns",
    "missing_results",
    "parse_call_text",
    "turn_messages",
]
