"""Derived suites are drawn per case: editing one tool moves only the cases that offer it.

The property the PR loop rests on (issue 14): a derived case is a function of the seed, the
case's own identity and the tools that case offers. So with random tool sets and a random
edit of one tool, every derived case that does not offer the edited tool is byte-identical
between base and head, and no other tool's text, the pool's order or the number of other
cases can move it.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from bfcl_action.cases.suites import (
    compact_entries,
    derive_distractors,
    derive_irrelevance,
    distractor_pool,
)
from bfcl_action.core.records import FunctionDoc, Message, TestCase

_WORDS = (
    "weather forecast city email send calendar meeting invoice payment stock price ticket "
    "flight hotel booking translate language recipe music playlist route traffic parcel "
    "tracking reminder timer alarm currency exchange news headline score match"
)
WORDS = _WORDS.split()


def _pool(size: int) -> list[TestCase]:
    rng = random.Random(size)
    out = []
    for i in range(size):
        words = rng.sample(WORDS, 3)
        out.append(
            TestCase(
                id=f"irrelevance_{i}",
                category="irrelevance",
                question=[[Message(role="user", content=f"Tell me about {' '.join(words)}?")]],
                functions=[
                    FunctionDoc(
                        name=f"{words[0]}_{words[1]}_{i}",
                        description=f"Looks up {words[1]} and {words[2]}.",
                    )
                ],
            )
        )
    return out


POOL = _pool(120)
FUNCTIONS = distractor_pool(POOL)
ENTRIES = compact_entries(POOL)

tool_names = st.lists(
    st.sampled_from(WORDS).map(lambda w: f"do_{w}"), min_size=2, max_size=6, unique=True
)
descriptions = st.lists(st.sampled_from(WORDS), min_size=1, max_size=6).map(" ".join)


def _own_cases(tools: list[FunctionDoc]) -> list[TestCase]:
    return [
        TestCase(
            id=f"case_{t.name}",
            category="own_simple",
            question=[[Message(role="user", content=f"Please {t.name}")]],
            functions=[t],
            possible_answer=[{t.name: {}}],
            dataset="own",
            suite="own_simple",
        )
        for t in tools
    ]


def _json(cases: list[TestCase]) -> dict[str, str]:
    return {c.id: c.model_dump_json() for c in cases}


@settings(max_examples=40, deadline=None)
@given(
    names=tool_names,
    texts=st.lists(descriptions, min_size=6, max_size=6),
    edited=st.integers(min_value=0, max_value=5),
    new_text=descriptions,
    seed=st.integers(min_value=0, max_value=2**16),
)
def test_editing_one_tool_leaves_every_distractor_case_not_offering_it_identical(
    names: list[str], texts: list[str], edited: int, new_text: str, seed: int
) -> None:
    base_tools = [FunctionDoc(name=n, description=d) for n, d in zip(names, texts, strict=False)]
    target = base_tools[edited % len(base_tools)]
    head_tools = [
        t.model_copy(update={"description": new_text}) if t.name == target.name else t
        for t in base_tools
    ]
    base = _json(derive_distractors(_own_cases(base_tools), FUNCTIONS, ks=[0, 4, 8], seed=seed))
    head = _json(derive_distractors(_own_cases(head_tools), FUNCTIONS, ks=[0, 4, 8], seed=seed))
    assert base.keys() == head.keys()
    for case_id, text in base.items():
        if not case_id.endswith(f"__case_{target.name}"):
            assert head[case_id] == text, case_id


@settings(max_examples=40, deadline=None)
@given(names=tool_names, texts=st.lists(descriptions, min_size=6, max_size=6))
def test_a_distractor_case_does_not_depend_on_the_other_cases(
    names: list[str], texts: list[str]
) -> None:
    tools = [FunctionDoc(name=n, description=d) for n, d in zip(names, texts, strict=False)]
    cases = _own_cases(tools)
    together = _json(derive_distractors(cases, FUNCTIONS, ks=[4], seed=3))
    alone = _json(derive_distractors(cases[:1], FUNCTIONS, ks=[4], seed=3))
    assert alone.items() <= together.items()


def test_the_pool_order_does_not_move_any_derived_case() -> None:
    tools = [FunctionDoc(name="do_weather", description="forecast for a city")]
    shuffled = list(POOL)
    random.Random(1).shuffle(shuffled)
    assert _json(derive_irrelevance(tools, ENTRIES, count=20, seed=1, max_similarity=90)) == _json(
        derive_irrelevance(tools, compact_entries(shuffled), count=20, seed=1, max_similarity=90)
    )
    assert _json(derive_distractors(_own_cases(tools), distractor_pool(POOL), ks=[8], seed=1)) == (
        _json(derive_distractors(_own_cases(tools), distractor_pool(shuffled), ks=[8], seed=1))
    )


@settings(max_examples=40, deadline=None)
@given(
    names=tool_names,
    texts=st.lists(descriptions, min_size=6, max_size=6),
    edited=st.integers(min_value=0, max_value=5),
    new_text=descriptions,
)
def test_editing_one_tool_keeps_every_irrelevance_question_not_close_to_either_version(
    names: list[str], texts: list[str], edited: int, new_text: str
) -> None:
    """Irrelevance cases offer every tool (so their request changes), but the questions
    asked move only where the edit made a question close to, or no longer close to, the tool:
    a question that stays eligible on both sides stays in the draw."""
    base_tools = [FunctionDoc(name=n, description=d) for n, d in zip(names, texts, strict=False)]
    target = edited % len(base_tools)
    head_tools = list(base_tools)
    head_tools[target] = base_tools[target].model_copy(update={"description": new_text})

    def ids(tools: list[FunctionDoc], count: int) -> set[str]:
        return {
            c.id for c in derive_irrelevance(tools, ENTRIES, count=count, seed=9, max_similarity=90)
        }

    base, head = ids(base_tools, 15), ids(head_tools, 15)
    eligible_base, eligible_head = ids(base_tools, 999), ids(head_tools, 999)
    for dropped in (base & eligible_head) - head:
        # still askable, yet replaced: only a question the edit made askable can push it out
        assert head - eligible_base, dropped
    for entered in head - base:
        assert entered not in eligible_base or (base - eligible_head), entered
