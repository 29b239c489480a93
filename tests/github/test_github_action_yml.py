"""action.yml, the workflows and docs/action.md agree with the program."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from bfcl_action.github.activities import Outcome, output_values
from bfcl_action.github.context import INPUT_NAMES, ActionContext, input_env_name

ROOT = Path(__file__).resolve().parents[2]
ACTION = YAML(typ="safe").load((ROOT / "action.yml").read_text())
WORKFLOWS = sorted([*ROOT.glob(".github/workflows/*.yml"), *ROOT.glob("docs/workflows/*.yml")])
DOCS = (ROOT / "docs" / "action.md").read_text()


def main_step() -> dict[str, Any]:
    [step] = [s for s in ACTION["runs"]["steps"] if s.get("id") == "bfcl"]
    return dict(step)


def doc_table(header: str) -> list[str]:
    """First-column names of the docs table whose header starts with `header`."""
    lines = DOCS.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"| {header} |"))
    names = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        names.append(line.split("|")[1].strip().strip("`"))
    return names


def test_every_action_input_is_passed_by_env_under_its_input_name() -> None:
    env = main_step()["env"]
    for name in ACTION["inputs"]:
        assert env[input_env_name(name)] == f"${{{{ inputs.{name} }}}}", name


def test_action_inputs_and_program_inputs_are_the_same_set() -> None:
    assert set(ACTION["inputs"]) == set(INPUT_NAMES)


def test_every_input_value_reaches_the_parsed_context() -> None:
    samples = {
        "fail-on-regression": "false",
        "statuses": "true",
        "comment": "on-regression",
        "alert": "false",
        "response-cache": "false",
        "batch": "true",
    }
    env = {}
    for key, value in main_step()["env"].items():
        match = re.fullmatch(r"\$\{\{ inputs\.([a-z-]+) \}\}", value)
        if match:
            env[key] = samples.get(match.group(1), f"value-of-{match.group(1)}")
    inputs = ActionContext.from_env(env).inputs
    for name in ACTION["inputs"]:
        got = getattr(inputs, name.replace("-", "_"))
        got = got.get_secret_value() if hasattr(got, "get_secret_value") else got
        expected: object = samples.get(name, f"value-of-{name}")
        if isinstance(got, bool):
            expected = expected == "true"
        assert str(got) == str(expected), name


def test_every_action_output_is_written_by_the_program() -> None:
    from bfcl_action.github.scheduled import SCHEDULED_OUTPUTS

    written = set(output_values(Outcome())) | set(SCHEDULED_OUTPUTS)
    for name, spec in ACTION["outputs"].items():
        assert spec["value"] == f"${{{{ steps.bfcl.outputs.{name} }}}}"
        assert name in written


def test_docs_list_exactly_the_action_inputs() -> None:
    assert doc_table("Input") == list(ACTION["inputs"])


def test_docs_list_exactly_the_action_outputs() -> None:
    assert doc_table("Output") == list(ACTION["outputs"])


def _steps(doc: Any) -> list[dict[str, Any]]:
    steps = list(doc.get("runs", {}).get("steps", []))
    for job in (doc.get("jobs") or {}).values():
        steps += job.get("steps", [])
    return steps


def _run_scripts(doc: Any) -> list[str]:
    return [s["run"] for s in _steps(doc) if "run" in s]


@pytest.mark.parametrize("path", [ROOT / "action.yml", *WORKFLOWS], ids=lambda p: p.name)
def test_no_expression_is_interpolated_into_a_script(path: Path) -> None:
    for script in _run_scripts(YAML(typ="safe").load(path.read_text())):
        assert "${{" not in script


@pytest.mark.parametrize("path", [ROOT / "action.yml", *WORKFLOWS], ids=lambda p: p.name)
def test_third_party_actions_are_pinned_by_commit(path: Path) -> None:
    for ref in [s["uses"] for s in _steps(YAML(typ="safe").load(path.read_text())) if "uses" in s]:
        if ref.startswith("./") or ref.startswith("bfcl-action/"):
            continue
        assert re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", ref), ref


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_workflows_default_to_read_only_permissions(path: Path) -> None:
    doc = YAML(typ="safe").load(path.read_text())
    assert doc["permissions"] == {"contents": "read"}


def test_lock_pins_every_runtime_dependency_exactly() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pins = {}
    for line in (ROOT / "requirements.lock").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, _, version = line.partition("==")
            assert version, line
            pins[re.sub(r"[-_.]+", "-", name.lower())] = version
    for dep in project["dependencies"]:
        name = re.match(r"[A-Za-z0-9_.-]+", dep)
        assert name is not None
        assert re.sub(r"[-_.]+", "-", name.group(0).lower()) in pins, dep


def test_action_pins_uv() -> None:
    assert re.search(r"uv==\d+\.\d+\.\d+", (ROOT / "action.yml").read_text())


def _our_steps(doc: Any) -> list[dict[str, Any]]:
    return [
        s
        for s in _steps(doc)
        if str(s.get("uses", "")) == "./" or str(s.get("uses", "")).startswith("bfcl-action/")
    ]


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_workflows_pass_only_inputs_the_action_has(path: Path) -> None:
    doc = YAML(typ="safe").load(path.read_text())
    for step in _our_steps(doc):
        assert set(step.get("with", {})) <= set(ACTION["inputs"]), path.name


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_workflows_read_only_outputs_the_action_sets(path: Path) -> None:
    doc = YAML(typ="safe").load(path.read_text())
    ours = {s["id"] for s in _our_steps(doc) if "id" in s}
    for step_id, name in re.findall(r"steps\.([\w-]+)\.outputs\.([\w-]+)", path.read_text()):
        if step_id in ours:
            assert name in ACTION["outputs"], f"{path.name}: {step_id}.{name}"
