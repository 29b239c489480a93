from hypothesis import given
from hypothesis import strategies as st

from curation.dedup import Fingerprint, near_duplicate_groups, question_groups
from curation.neardup import NearDupSettings, Signer, TextIndex, cluster_texts, jaccard, shingles

S = Signer(NearDupSettings())
DOC = "get weather get the current weather for a city city name of the city unit temperature unit"


def test_shingles_are_word_trigrams_and_short_texts_are_one_shingle() -> None:
    assert shingles("a b c d", 3) == frozenset({"a b c", "b c d"})
    assert shingles("a b", 3) == frozenset({"a b"})
    assert shingles("", 3) == frozenset()


@given(st.lists(st.sampled_from(["alpha", "beta", "gamma", "delta"]), min_size=0, max_size=12))
def test_jaccard_of_a_set_with_itself_is_one(words: list[str]) -> None:
    sh = shingles(" ".join(words), 2)
    assert jaccard(sh, sh) == 1.0


def test_index_confirms_near_duplicates_and_rejects_unrelated_texts() -> None:
    index = TextIndex(S)
    a = index.add(DOC)
    b = index.add(DOC + " extra")
    c = index.add("send an email to a recipient with subject and body text of the message")
    assert index.pairs() == [(a, b)]
    assert index.similar(DOC) == [a, b]
    assert c not in index.similar(DOC)


def test_identical_texts_share_one_key() -> None:
    index = TextIndex(S)
    assert index.add(DOC) == index.add(DOC)


def test_cluster_texts_groups_transitively() -> None:
    texts = [DOC, DOC + " extra", "completely different words about stock prices today now"]
    groups = sorted(sorted(g) for g in cluster_texts(texts, S))
    assert groups == [[0, 1], [2]]


def test_question_groups_merge_near_identical_questions_only() -> None:
    qs = [
        "what's the weather in tokyo today?",
        "whats the weather in tokyo today?",
        "book a table for two at an italian restaurant",
    ]
    assert sorted(sorted(g) for g in question_groups(qs, 92.0)) == [[0, 1], [2]]


def test_same_tools_with_different_questions_stay_separate_tests() -> None:
    prints = [
        Fingerprint("h1", DOC, "what's the weather in tokyo today?"),
        Fingerprint("h2", DOC, "is it going to rain in paris this weekend, in fahrenheit"),
        Fingerprint("h3", DOC, "what's the weather in tokyo today"),
    ]
    groups = sorted(sorted(g) for g in near_duplicate_groups(prints, S))
    assert groups == [[0, 2], [1]]


def test_question_groups_work_across_row_blocks() -> None:
    qs = [f"question number {i} about something unique {i * 7919}" for i in range(10)]
    qs.append(qs[0] + "!")
    groups = question_groups(qs, 95.0, block=3)
    assert sorted(g for g in groups if len(g) > 1) == [[0, 10]]
