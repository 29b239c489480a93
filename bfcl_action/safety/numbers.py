"""Numbers read from inputs (Action inputs, command-line options): one strict reading.

Python's `int()` and `float()` accept more than a person means: `2_0` (20), Unicode digits,
`inf`, `nan`, surrounding white space. A threshold such as `max-drop=2_0` silently becoming 20
is a wrong result, so every number from an input is read here: ASCII digits, an optional sign,
decimal point and exponent; anything else is a `ValueError` naming what was found.
"""

from __future__ import annotations

import math
import re

_INTEGER = re.compile(r"[+-]?[0-9]+")
_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
MAX_DIGITS = 30


def integer(text: str) -> int:
    """An integer written plainly (`12`, `-3`); named for argparse's error message."""
    if len(text) > MAX_DIGITS or not _INTEGER.fullmatch(text):
        raise ValueError(f"expected an integer (digits only), found {text[:40]!r}")
    return int(text)


def number(text: str) -> float:
    """A finite decimal number written plainly (`2`, `0.05`, `1e-3`)."""
    if len(text) > MAX_DIGITS or not _NUMBER.fullmatch(text):
        raise ValueError(f"expected a number (digits, `.`, exponent), found {text[:40]!r}")
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"expected a finite number, found {text[:40]!r}")
    return value
