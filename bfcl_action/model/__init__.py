"""The message-level model layer: one request path under every model call of a run.

    client = open_client(options, cache=ResponseCache(dir))
    response = await client.generate(ChatRequest(messages, tools))   # cached, retried, counted

Single-turn cases (`bfcl_action.runner.chat`) and every step of a conversation
(`bfcl_action.multiturn.driver`) call `ModelClient.generate`, as inspect_ai's solvers call its
`generate()`; `ask` is the same path for synchronous callers.

Modules: `types` (requests, responses, errors, counters), `options`, `request` (the path:
cache, retries, concurrency, whole-request deadline, counters, endpoint guards), `registry`
(provider lookup by name), `providers/` (one file per provider: `openai`), `cache`, `retry`,
`render` and `naming` (function docs -> tool schemas, API-safe names), `forms` (FC and prompt
forms, answers back to BFCL's result form), `shapes` (server variations and their advice).
Nothing here imports `bfcl_action.runner` or `bfcl_action.multiturn`. Each name is imported
from the module that defines it (this package re-exports nothing).
"""
