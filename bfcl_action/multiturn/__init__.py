"""Multi-turn and executable evaluation: environments in a sandboxed worker, BFCL's state and
response checks, and the conversation loop that drives a model through the turns.

Modules: `worker` (the sandboxed process, stdlib only), `sandbox` (its parent side), `jail`
(the OS layers, and `start_jailed` for a command such as a stdio MCP server),
`calls` (call values, ground-truth parsing), `conversation` (a case's typed multi-turn view),
`check` (the verdict), `driver` (asking a model, turn by turn, step by step).
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
from bfcl_action.multiturn.sandbox import (
    EnvironmentSetupError,
    EnvironmentSpec,
    Sandbox,
    SandboxError,
    SandboxLimits,
)

__all__ = [
    "Conversation",
    "EnvironmentSetupError",
    "EnvironmentSpec",
    "ExecutionOptions",
    "Sandbox",
    "SandboxError",
    "SandboxLimits",
    "ToolCall",
    "check_conversation",
    "conversation_of",
    "decode_turns",
    "judge_turns",
    "missing_results",
    "parse_call_text",
    "turn_messages",
]
