"""What keeps untrusted input, tool code and secrets contained: credentials held out of the
environment, redaction at every output edge, escaping and the log edge, the parse budget and
the readers built on it (JSON Lines and a memo of their repeated members, globs, strict
numbers), and the sandbox, its worker and the OS jail tool code runs in (docs/security.md).
Everything above may use it; it imports only `core`.
"""
