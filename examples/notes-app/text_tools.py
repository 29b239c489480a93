"""Plain functions behind the notes app's single-turn tools (executable checks run them)."""

from __future__ import annotations

import re


def slugify(title: str, separator: str = "-") -> dict[str, str]:
    """URL slug of a note title."""
    words = re.findall(r"[a-z0-9]+", title.lower())
    return {"slug": separator.join(words)}


def word_count(text: str) -> dict[str, int]:
    """Number of words in a text."""
    return {"words": len(text.split())}


def same_slug(model: dict[str, str], expected: dict[str, str]) -> bool:
    """A named predicate: slugs equal once separators are ignored."""
    return model["slug"].replace("_", "-") == expected["slug"].replace("_", "-")
