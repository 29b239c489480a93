"""`curation.yml` is validated before anything runs, naming the file, line and key."""

from pathlib import Path

import pytest

from bfcl_action.core.errors import ConfigError
from curation.settings import load_settings


@pytest.mark.parametrize("threshold", ["0.99", "1.0", "0.0"])
def test_a_function_threshold_datasketch_cannot_use_is_a_config_error(
    tmp_path: Path, threshold: str
) -> None:
    path = tmp_path / "curation.yml"
    path.write_text(f"near_duplicates:\n  num_perm: 128\n  function_threshold: {threshold}\n")
    with pytest.raises(ConfigError) as err:
        load_settings(path)
    assert "curation.yml" in str(err.value) and "function_threshold" in str(err.value)


def test_a_high_threshold_is_fine_with_enough_permutations(tmp_path: Path) -> None:
    path = tmp_path / "curation.yml"
    path.write_text("near_duplicates:\n  num_perm: 256\n  function_threshold: 0.98\n")
    assert load_settings(path).near_duplicates.function_threshold == 0.98
