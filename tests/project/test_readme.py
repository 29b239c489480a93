"""The README is the product's front page: its tables and commands must stay true."""

import re
from pathlib import Path

from ruamel.yaml import YAML

ROOT = Path(__file__).resolve().parents[1].parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
ACTION = YAML(typ="safe").load((ROOT / "action.yml").read_text(encoding="utf-8"))


def _table_names(text: str) -> set[str]:
    return set(re.findall(r"^\| `([a-z0-9-]+)` \|", text, flags=re.MULTILINE))


def test_every_action_input_and_output_is_in_the_readme_tables() -> None:
    documented = _table_names(README)
    assert set(ACTION["inputs"]) <= documented
    assert set(ACTION["outputs"]) <= documented


def test_the_readme_documents_no_input_the_action_lacks() -> None:
    inputs_table = README.split("| Input |", 1)[1].split("\n\n", 1)[0]
    assert _table_names(inputs_table) == set(ACTION["inputs"])


def test_setup_has_exactly_two_copy_paste_commands_and_ci_runs_the_test_one() -> None:
    setup = README.split("## Set up on a fresh machine", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"```bash\n(.*?)\n```", setup, flags=re.DOTALL)
    assert len(commands) == 2
    demo, tests = commands
    assert "nox -s demo" in demo
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert tests.split("&& ", 1)[1] in ci


def test_every_doc_the_readme_links_exists() -> None:
    for target in re.findall(r"\]\(((?:docs|examples|data)/[^)#]+)\)", README):
        assert (ROOT / target).exists(), target
