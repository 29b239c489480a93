"""Helpers of the decoder tests."""

from __future__ import annotations

import math
from typing import Any


def same(left: Any, right: Any) -> bool:
    """Equality by exact type and value: -0.0 is not 0.0, 1 is not 1.0 or True, dict key
    order counts, nan equals nan."""
    if type(left) is not type(right):
        return False
    if isinstance(left, float):
        if math.isnan(left):
            return math.isnan(right)
        return left == right and math.copysign(1, left) == math.copysign(1, right)
    if isinstance(left, list | tuple):
        return len(left) == len(right) and all(map(same, left, right))
    if isinstance(left, dict):
        return list(left) == list(right) and all(same(left[k], right[k]) for k in left)
    return bool(left == right)
