"""Turn a contribution into an `Item`: functions in BFCL's form, answers as option lists.

How an authored argument becomes an option list is `bfcl_action.cases.authoring`'s rule, the same
one own cases follow, so a Live item and an own case written from the same answer hold the
same possible answer.
"""

from __future__ import annotations

from bfcl_action.cases.authoring import expected_calls
from bfcl_action.core.records import FunctionDoc, Message
from curation.models import Contribution, Item, Origin


def question_turns(question: str | list[Message]) -> list[list[Message]]:
    """A single-turn question as BFCL writes it: one turn of chat messages."""
    if isinstance(question, str):
        return [[Message(role="user", content=question)]]
    return [list(question)]


def to_item(contribution: Contribution, functions: list[FunctionDoc], origin: Origin) -> Item:
    """Normalise one contribution whose functions were already parsed by the tool loaders."""
    return Item(
        origin=origin,
        question=question_turns(contribution.question),
        functions=functions,
        possible_answer=expected_calls(contribution.ground_truth, functions),
        contributor=contribution.contributor,
        license=contribution.license,
        source=contribution.source,
        requested_category=contribution.category,
        publish_handle=contribution.publish_handle,
    )
