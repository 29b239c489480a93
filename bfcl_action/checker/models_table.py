"""Which function-calling models get dotted function names back with underscores.

Several FC APIs reject `.` in tool names (OpenAI's pattern is `^[a-zA-Z0-9_-]{1,64}$`), so a
BFCL function `math.factorial` is offered as `math_factorial` and the model calls that. BFCL
then expects the underscore form for those models (its per-model `underscore_to_dot` flag).
This module records the flag as data: the official model registry names of bfcl-eval
2026.3.23, plus name prefixes of hosted APIs known to reject dots, for model ids outside the
registry. Prompt-mode models always keep dots (no official prompt model sets the flag).
"""

from __future__ import annotations

from bfcl_action.core.records import Mode

UNDERSCORE_TO_DOT_MODELS: frozenset[str] = frozenset(
    {
        "DeepSeek-V3.2-Exp-FC",
        "gpt-5.2-2025-12-11-FC",
        "gpt-5-mini-2025-08-07-FC",
        "gpt-5-nano-2025-08-07-FC",
        "gpt-4.1-2025-04-14-FC",
        "gpt-4.1-mini-2025-04-14-FC",
        "gpt-4.1-nano-2025-04-14-FC",
        "gpt-4o-2024-11-20-FC",
        "gpt-4o-mini-2024-07-18-FC",
        "o3-2025-04-16-FC",
        "o4-mini-2025-04-16-FC",
        "claude-opus-4-5-20251101-FC",
        "claude-sonnet-4-5-20250929-FC",
        "claude-haiku-4-5-20251001-FC",
        "nova-pro-v1.0",
        "nova-2-lite-v1.0",
        "nova-micro-v1.0",
        "open-mistral-nemo-2407-FC",
        "mistral-large-2411-FC",
        "mistral-small-2506-FC",
        "mistral-medium-2505-FC",
        "gemini-2.5-flash-lite-FC",
        "gemini-2.5-flash-FC",
        "gemini-3-pro-preview-FC",
        "gemini-3.1-flash-lite-preview-FC",
        "meetkai/functionary-small-v3.1-FC",
        "meetkai/functionary-medium-v3.1-FC",
        "command-r7b-12-2024-FC",
        "command-a-03-2025-FC",
        "command-a-reasoning-08-2025-FC",
        "grok-4-0709-FC",
        "grok-4-1-fast-reasoning-FC",
        "grok-4-1-fast-non-reasoning-FC",
        "qwen3-0.6b-FC",
        "qwen3-1.7b-FC",
        "qwen3-4b-FC",
        "qwen3-8b-FC",
        "qwen3-14b-FC",
        "qwen3-32b-FC",
        "qwen3-30b-a3b-instruct-2507-FC",
        "qwq-32b-FC",
        "glm-4.6-FC",
        "glm-4.5-FC",
        "glm-4.5-air-FC",
        "kimi-k2-0905-preview-FC",
        "Nanbeige3.5-Pro-Thinking-FC",
        "ibm-granite/granite-20b-functioncalling",
        "THUDM/glm-4-9b-chat",
        "openbmb/MiniCPM3-4B-FC",
        "openbmb/MiniCPM-SALA-FC",
        "meta-llama/llama-4-maverick-17b-128e-instruct-fp8-FC-novita",
        "meta-llama/llama-4-scout-17b-16e-instruct-FC-novita",
        "qwen/qwq-32b-FC-novita",
        "qwen3-4b-think-FC",
        "qwen3-4b-nothink-FC",
    }
)
"""Official registry names (bfcl-eval 2026.3.23) whose `underscore_to_dot` is true."""

DOT_KEEPING_FC_MODELS: frozenset[str] = frozenset(
    {
        "gorilla-openfunctions-v2",
        "firefunction-v2-FC",
        "nvidia/llama-3.1-nemotron-ultra-253b-v1",
        "palmyra-x-004",
        "qwen3-235b-a22b-instruct-2507-FC",
        "xiaoming-14B",
        "google/functiongemma-270m-it-FC",
        "meta-llama/Llama-3.1-8B-Instruct-FC",
        "meta-llama/Llama-3.1-70B-Instruct-FC",
        "meta-llama/Llama-3.2-1B-Instruct-FC",
        "meta-llama/Llama-3.2-3B-Instruct-FC",
        "meta-llama/Llama-3.3-70B-Instruct-FC",
        "meta-llama/Llama-4-Scout-17B-16E-Instruct-FC",
        "meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8-FC",
        "Salesforce/Llama-xLAM-2-70b-fc-r",
        "Salesforce/Llama-xLAM-2-8b-fc-r",
        "Salesforce/xLAM-2-32b-fc-r",
        "Salesforce/xLAM-2-3b-fc-r",
        "Salesforce/xLAM-2-1b-fc-r",
        "microsoft/Phi-4-mini-instruct-FC",
        "ibm-granite/granite-3.2-8b-instruct",
        "ibm-granite/granite-3.1-8b-instruct",
        "ibm-granite/granite-4.0-350m",
        "MadeAgents/Hammer2.1-7b",
        "MadeAgents/Hammer2.1-3b",
        "MadeAgents/Hammer2.1-1.5b",
        "MadeAgents/Hammer2.1-0.5b",
        "Qwen/Qwen3-0.6B-FC",
        "Qwen/Qwen3-1.7B-FC",
        "Qwen/Qwen3-4B-Instruct-2507-FC",
        "Qwen/Qwen3-8B-FC",
        "Qwen/Qwen3-14B-FC",
        "Qwen/Qwen3-32B-FC",
        "Qwen/Qwen3-30B-A3B-Instruct-2507-FC",
        "Qwen/Qwen3-235B-A22B-Instruct-2507-FC",
        "X-Humanoid/Pelican1.0-VL-235B-A22B-FC",
        "X-Humanoid/Pelican1.0-VL-30B-A3B-FC",
        "tiiuae/Falcon3-10B-Instruct-FC",
        "tiiuae/Falcon3-7B-Instruct-FC",
        "tiiuae/Falcon3-3B-Instruct-FC",
        "tiiuae/Falcon3-1B-Instruct-FC",
        "katanemo/Arch-Agent-1.5B",
        "katanemo/Arch-Agent-3B",
        "katanemo/Arch-Agent-7B",
        "katanemo/Arch-Agent-32B",
        "BitAgent/BitAgent-Bounty-8B",
        "ThinkAgents/ThinkAgent-1B",
        "Nanbeige/Nanbeige4-3B-Thinking-2511",
    }
)
"""Official FC registry names (bfcl-eval 2026.3.23) that keep dots."""

DOT_REJECTING_API_PREFIXES: tuple[str, ...] = (
    "gpt-",
    "chatgpt-",
    "o1",
    "o3",
    "o4",
    "claude-",
    "gemini-",
    "mistral-",
    "open-mistral-",
    "ministral-",
    "magistral-",
    "codestral-",
    "devstral-",
    "command-",
    "grok-",
    "deepseek-",
    "glm-",
    "kimi-",
    "nova-",
    "amazon.nova-",
    "us.amazon.nova-",
    "qwen3-",
    "qwen-",
    "qwq-",
)
"""Case-sensitive prefixes of hosted API model ids (the last `/` segment) whose FC endpoints
reject dots: OpenAI, Anthropic, Google, Mistral, Cohere, xAI, DeepSeek, Zhipu, Moonshot,
Amazon and Alibaba name their models this way. Hugging Face ids such as `Qwen/Qwen3-8B` are
capitalised and do not match."""


def needs_underscore_to_dot(model_name: str, mode: Mode = Mode.FC) -> bool:
    """Whether BFCL would expect `a_b` for a function `a.b` from this model.

    Looks the name up among the official registry names, then falls back to the hosted-API
    prefixes, both also in the `_`-for-`/` spelling of BFCL result folders (a run of
    `openai/gpt-oss-120b` sits in `result/openai_gpt-oss-120b/`).
    """
    if mode is not Mode.FC:
        return False
    name = model_name.strip()
    spellings = (name, name.replace("_", "/"))
    for candidate in spellings:
        if candidate in UNDERSCORE_TO_DOT_MODELS:
            return True
        if candidate in DOT_KEEPING_FC_MODELS:
            return False
    bases = {candidate.rsplit("/", 1)[-1] for candidate in spellings}
    return any(b.startswith(prefix) for b in bases for prefix in DOT_REJECTING_API_PREFIXES)
