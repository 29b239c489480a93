"""Questions that ask for the same call in other words: politeness, punctuation, word order,
a reworded lead-in ("Give me ..." / "Would you give me ...?" / "I'd like to see ...").

Only the words that carry the request count: the question is case-folded, split into word
tokens (punctuation and word order are gone once it is a set), and the words of courtesy,
lead-ins and grammar in `FILLER` are dropped. Two questions are rewordings when the Jaccard
of those word sets reaches `reworded_threshold`.

The rule is loose on purpose and only safe behind the answer-key gate: it is applied only to
two items whose expected calls are the same (`curation.canonical.answer_key`) and not empty,
where the call's arguments already pin what is asked. "Weather in London" and "weather in
Berlin" never meet here (different keys), and questions that expect no call (irrelevance)
are compared by the strict character ratio only. A question left with no request words
(all filler) is never matched by this rule.
"""

from __future__ import annotations

import re
import unicodedata

FILLER = frozenset(
    " ".join(
        (
            "a an the this that these those some any my our your me us i we you it its",
            "to of for in on at by with from into about as and or but so if than then",
            "is are was were be been being am do does did done have has had",
            "will would shall should can could may might must",
            "please pls kindly thanks thank thx cheers hi hello hey ok okay",
            "just also really quite very possibly perhaps maybe actually now",
            "mind kind",
            "id im ive ill youre whats lets",
            "want wanna like love need needed wish wondering wonder curious trying try",
            "give show tell find get got fetch retrieve look looking lookup up see know let help",
            "check pull grab bring provide display search",
            "what which who how where when whether there here",
        )
    ).split()
)
"""Words that do not change which call a question asks for once that call is fixed."""

_WORD = re.compile(r"\w+(?:'\w+)?")


def request_words(text: str) -> frozenset[str]:
    """The request-carrying words of a question (case, width and punctuation folded)."""
    folded = unicodedata.normalize("NFKC", text).casefold().replace("\u2019", "'")
    words = (w.replace("'", "") for w in _WORD.findall(folded))
    return frozenset(w for w in words if w not in FILLER)


def reworded_similarity(a: frozenset[str], b: frozenset[str]) -> float:
    """Jaccard of two request-word sets; 0 when either is empty (nothing to compare)."""
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)
