"""Run reports on disk: written once, read back equal, told apart from digests, merged."""

from __future__ import annotations

from pathlib import Path

import pytest

from bfcl_action.core.errors import InputError
from bfcl_action.core.records import RunReport
from bfcl_action.results.digest import RunDigest, make_digest
from bfcl_action.results.run_reports import (
    load_baseline,
    load_report,
    load_reports,
    merge_reports,
    save_report,
)
from tests.support.reports import make_report


def test_a_saved_report_loads_back_equal(tmp_path: Path) -> None:
    report = make_report({"simple_python": "1101"})
    path = tmp_path / "out" / "report.json"
    save_report(report, path)
    assert load_report(path) == report


def test_a_report_file_is_a_report_baseline_and_any_text_with_a_digest_is_a_digest(
    tmp_path: Path,
) -> None:
    report = make_report({"simple_python": "1101"})
    as_json = tmp_path / "base.json"
    save_report(report, as_json)
    summary = tmp_path / "summary.md"
    summary.write_text("## Results\n\n" + make_digest(report) + "\n")
    assert isinstance(load_baseline(as_json), RunReport)
    assert isinstance(load_baseline(summary), RunDigest)


def test_a_malformed_report_names_the_file_and_the_field(tmp_path: Path) -> None:
    path = tmp_path / "head.json"
    data = make_report({"simple_python": "1"}).model_dump(mode="json")
    data["results"] = "oops"
    path.write_text(RunReport.model_construct(**data).model_dump_json(warnings=False))
    with pytest.raises(InputError) as err:
        load_report(path)
    assert err.value.file == str(path)
    assert err.value.field == "results"
    assert "not a bfcl-action run report" in err.value.message


def test_a_missing_report_is_an_input_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(InputError) as err:
        load_report(tmp_path / "nope.json")
    assert err.value.file == str(tmp_path / "nope.json")


def test_one_path_loads_as_is_and_several_are_merged(tmp_path: Path) -> None:
    report = make_report({"simple_python": "11"})
    path = tmp_path / "r.json"
    save_report(report, path)
    assert load_reports([path]) == report


def test_merging_refuses_reports_of_different_runs() -> None:
    a = make_report({"simple_python": "11"})
    b = make_report({"simple_python": "11"}, model="other-model")
    with pytest.raises(InputError, match="fingerprint"):
        merge_reports([("a.json", a), ("b.json", b)])
