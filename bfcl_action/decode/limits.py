"""Caps that keep decoding bounded in time and memory whatever the model sends.

Real model outputs are a few kilobytes; the caps sit far above that, so they only ever turn
hostile or runaway outputs into `ast_decoder:decoder_failed` (upstream would try, and may hang
or exhaust memory). Changing them cannot change a verdict on any realistic output.
"""

from __future__ import annotations

from typing import Final

MAX_TEXT_CHARS: Final = 1_000_000
"""Prompt-mode text longer than this is refused before parsing (a 1 MB Python AST is
already ~100 MB of objects)."""

MAX_STRUCTURE: Final = 20_000
"""Most structural characters (`( [ { , = :`) prompt-mode text may hold. Syntax trees cost
far more than text: this bounds parse time and memory (a realistic output has a few hundred)
while long string arguments stay allowed."""

MAX_OPERATORS: Final = 50_000
"""Most operator characters (`+ - * / % | & ^ ~ @ < >`) prompt-mode text may hold; long
operator chains parse into deep trees (prose with dashes and slashes stays far below)."""

MAX_TOKENS: Final = 20_000
"""Most tokens Java or JavaScript text may hold (a realistic call has a few hundred)."""

MAX_JSON_CHARS: Final = 5_000_000
"""An FC `arguments` string longer than this is refused before `json.loads`."""

MAX_DEPTH: Final = 100
"""Deepest nesting of expressions (lists in lists, calls in calls, operator chains) that is
decoded. Python's own tokenizer stops at 200 nested brackets."""

MAX_VALUE_SIZE: Final = 1_000_000
"""Largest string, bytes or sequence an evaluated operator (`"a" * n`, `[0] * n`) may build."""

MAX_INT_BITS: Final = 1_000_000
"""Largest integer (in bits) an evaluated operator (`2 ** n`, `1 << n`) may build."""

MAX_TOTAL_INT_BITS: Final = 4_000_000
"""All integers evaluated operators of one output may build together, charged before each is
computed (19,000 x `1 << 999990` would be 2.5 GB; 200 x `3 ** 500000` 9 s of CPU)."""
