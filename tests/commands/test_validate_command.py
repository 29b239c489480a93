"""`validate`: config, tools and cases checked without a model; annotations for GitHub."""

import shutil
from pathlib import Path

from bfcl_action.cli import main
from bfcl_action.commands.validate import annotation
from bfcl_action.tools.issues import ToolIssue

EXAMPLE = Path(__file__).parents[2] / "examples" / "weather-app"
FIXTURES = Path(__file__).parents[1] / "fixtures" / "tools"


def test_summary_of_the_example(capsys) -> None:
    assert main(["validate", "--config", str(EXAMPLE / ".bfcl.yml")]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "14 tools (anthropic 5, mcp 4, openai_chat 5) in 3 files",
        "30 cases: own_irrelevance 3, own_multiple 14, own_parallel 2, own_parallel_multiple 2,"
        " own_relevance 2, own_simple 7",
    ]


def test_derived_suites_are_listed_in_numeric_order(capsys) -> None:
    assert main(["validate", "--derived", "--config", str(EXAMPLE / ".bfcl.yml")]) == 0
    cases = capsys.readouterr().out.splitlines()[1]
    assert "own_distractors_k0 7, own_distractors_k4 7, own_distractors_k16 7, " in cases


def test_errors_exit_2_with_annotations_on_the_files(tmp_path: Path, capsys, monkeypatch) -> None:
    shutil.copy(FIXTURES / "malformed" / "anthropic_bad.yaml", tmp_path / "tools.yaml")
    (tmp_path / ".bfcl.yml").write_text("tools: [tools.yaml]\n")
    monkeypatch.chdir(tmp_path)
    assert main(["validate", "--annotations"]) == 2
    captured = capsys.readouterr()
    assert captured.out.splitlines()[0] == (
        "::error file=tools.yaml,line=14,col=3,title=bfcl-action::tool book_table: name: "
        "duplicate tool name (first defined at tools.yaml:1) (expected a name unique across "
        "all tool files (after mapping '.' to '_'), found 'book_table')"
    )
    assert "2 errors in tool definitions" in captured.err


def test_annotations_escape_what_could_inject_a_command() -> None:
    issue = ToolIssue(file="a,b:c.json", line=1, message="bad\n::error::pwned 100%")
    assert annotation(issue) == (
        "::error file=a%2Cb%3Ac.json,line=1,title=bfcl-action::bad%0A::error::pwned 100%25"
    )
