import pytest

from bfcl_action.core.categories import (
    CATEGORIES,
    SINGLE_TURN_OFFICIAL,
    Checker,
    Matching,
    get_category,
    parse_categories,
)
from bfcl_action.core.errors import ConfigError
from bfcl_action.core.records import Language


def test_official_single_turn_categories_are_the_thirteen_bfcl_ships() -> None:
    assert sorted(SINGLE_TURN_OFFICIAL) == sorted(
        [
            "simple_python",
            "simple_java",
            "simple_javascript",
            "multiple",
            "parallel",
            "parallel_multiple",
            "irrelevance",
            "live_simple",
            "live_multiple",
            "live_parallel",
            "live_parallel_multiple",
            "live_irrelevance",
            "live_relevance",
        ]
    )


def test_parallel_multiple_matches_order_free_like_upstream_name_rule() -> None:
    assert CATEGORIES["parallel_multiple"].matching is Matching.PARALLEL
    assert CATEGORIES["live_multiple"].matching is Matching.MULTIPLE
    assert CATEGORIES["simple_java"].language is Language.JAVA
    assert CATEGORIES["live_relevance"].checker is Checker.RELEVANCE


def test_unknown_category_error_names_the_closest_ones() -> None:
    with pytest.raises(ConfigError, match=r"unknown category 'simpel'; did you mean.*simple"):
        get_category("simpel")


def test_group_names_expand_to_their_available_categories() -> None:
    chosen = parse_categories("live,irrelevance", SINGLE_TURN_OFFICIAL)
    assert chosen[:4] == ["live_simple", "live_multiple", "live_parallel", "live_parallel_multiple"]
    assert chosen[-1] == "irrelevance"


def test_category_missing_from_dataset_is_an_error() -> None:
    with pytest.raises(ConfigError, match="not in the selected dataset"):
        parse_categories("own_simple", SINGLE_TURN_OFFICIAL)


def test_the_table_names_each_categorys_column_folder_and_kind() -> None:
    from bfcl_action.core.categories import (
        LIVE_CATEGORIES,
        MULTI_TURN_OFFICIAL,
        Column,
        columns_of,
        is_multi_turn,
    )

    assert columns_of(Column.NON_LIVE_SIMPLE_AST) == [
        "simple_python",
        "simple_java",
        "simple_javascript",
    ]
    assert columns_of(Column.IRRELEVANCE) == ["irrelevance", "live_irrelevance"]
    assert columns_of(Column.RELEVANCE) == ["live_relevance"]
    assert LIVE_CATEGORIES == (
        "live_simple",
        "live_multiple",
        "live_parallel",
        "live_parallel_multiple",
        "live_irrelevance",
        "live_relevance",
    )
    assert CATEGORIES["irrelevance"].directory == "non_live"
    assert CATEGORIES["live_irrelevance"].directory == "live"
    assert CATEGORIES["own_multi_turn"].directory == "own"
    assert all(is_multi_turn(n) for n in MULTI_TURN_OFFICIAL)
    assert is_multi_turn("own_multi_turn") and not is_multi_turn("nonexistent")
