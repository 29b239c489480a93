"""Python code as a tool source: a module's functions (and pydantic models), their schemas
as pydantic validates a call, the module imported inside the sandbox worker."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from bfcl_action.settings.config import load_config
from bfcl_action.tools import ToolFormat, ToolValidationError
from bfcl_action.tools.configured import load_configured
from bfcl_action.tools.pyschema import parse_docstring

MODULE = '''\
import os
from typing import Literal

from pydantic import BaseModel, Field, validate_call


def search_flights(
    origin: str,
    destination: str,
    passengers: int = 1,
    cabin: Literal["economy", "business"] = "economy",
) -> list[str]:
    """Search flights between two airports.

    Args:
        origin: IATA code of the departure airport.
        destination: IATA code of the arrival
            airport.
        passengers: How many people travel.
    """
    return []


@validate_call
def book(flight_id: str, *, seats: list[int] | None = None) -> str:
    """Book a flight.

    :param flight_id: The flight to book.
    :param seats: Seat numbers, if chosen.
    """
    return "ok"


class CancelBooking(BaseModel):
    """Cancel a booking by its reference."""

    reference: str = Field(description="Booking reference")

'''


def repo(tmp_path: Path, module: str, names: list[str]) -> Path:
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "__init__.py").write_text("")
    (tmp_path / "app" / "tools.py").write_text(module)
    entry = json.dumps({"module": "app.tools", "names": names})
    (tmp_path / ".bfcl.yml").write_text(f"tools:\n  - python: {entry}\n")
    return tmp_path / ".bfcl.yml"


def load(config_path: Path):  # type: ignore[no-untyped-def]
    config = load_config(config_path)
    return load_configured(
        config.tools,
        base_dir=config_path.parent,
        limits=config.tool_limits,
        origins=config.origins("tools"),
    )


def test_functions_and_models_become_tools_with_pydantic_schemas(tmp_path: Path) -> None:
    tools = load(repo(tmp_path, MODULE, ["search_flights", "book", "CancelBooking"]))
    assert [f.name for f in tools.functions] == ["search_flights", "book", "CancelBooking"]
    assert set(tools.formats.values()) == {ToolFormat.PYTHON}
    search = tools.by_name()["search_flights"]
    assert search.description == "Search flights between two airports."
    assert search.parameters["required"] == ["origin", "destination"]
    props = search.parameters["properties"]
    assert props["destination"]["description"] == "IATA code of the arrival airport."
    assert props["cabin"] == {
        "type": "string",
        "enum": ["economy", "business"],
        "default": "economy",
    }
    book = tools.by_name()["book"].parameters
    assert book["required"] == ["flight_id"]
    assert book["properties"]["seats"]["nullable"] is True
    assert book["properties"]["seats"]["description"] == "Seat numbers, if chosen."
    cancel = tools.by_name()["CancelBooking"]
    assert cancel.description == "Cancel a booking by its reference."
    assert cancel.parameters["required"] == ["reference"]


def test_a_tool_points_at_its_docstring_in_the_module(tmp_path: Path) -> None:
    tools = load(repo(tmp_path, MODULE, ["search_flights"]))
    source = tools.by_name()["search_flights"].source
    assert source is not None and source.file == "app/tools.py"
    assert MODULE.splitlines()[source.line - 1].strip() == '"""Search flights between two airports.'  # type: ignore[operator]


def test_a_missing_name_is_an_error_at_the_config_entry(tmp_path: Path) -> None:
    with pytest.raises(ToolValidationError) as err:
        load(repo(tmp_path, MODULE, ["search_flights", "nope"]))
    [issue] = err.value.issues
    assert issue.line == 2 and "nope: app.tools has no function or model nope" in issue.message


def test_the_module_is_imported_in_the_sandbox_without_the_environment(tmp_path: Path) -> None:
    module = MODULE + textwrap.dedent(
        """
        import json as _json
        LEAK = _json.dumps(dict(os.environ))
        def leak() -> str:
            '''Nothing.'''
            return LEAK
        if "BFCL_PY_TEST_API_KEY" in os.environ:
            raise RuntimeError("the key reached the module")
        """
    )
    os.environ["BFCL_PY_TEST_API_KEY"] = "sk-python-secret"
    try:
        tools = load(repo(tmp_path, module, ["leak"]))
    finally:
        del os.environ["BFCL_PY_TEST_API_KEY"]
    assert [f.name for f in tools.functions] == ["leak"]


def test_a_module_that_starts_a_process_on_import_is_stopped(tmp_path: Path) -> None:
    module = "import subprocess\nsubprocess.run(['true'])\ndef f() -> None:\n    '''F.'''\n"
    with pytest.raises(ToolValidationError) as err:
        load(repo(tmp_path, module, ["f"]))
    assert "importing app.tools failed" in err.value.issues[0].message


@pytest.mark.parametrize(
    ("docstring", "summary", "args"),
    [
        ("Find.\n\nArgs:\n    q: The query.\n", "Find.", {"q": "The query."}),
        ("Find.\n\n:param q: The query.\n:returns: x", "Find.", {"q": "The query."}),
        (
            "Find.\n\nParameters\n----------\nq : str\n    The query.\n",
            "Find.",
            {"q": "The query."},
        ),
    ],
)
def test_docstrings_in_google_sphinx_and_numpy_style(
    docstring: str, summary: str, args: dict[str, str]
) -> None:
    assert parse_docstring(docstring) == (summary, args)


def test_validate_reads_a_python_source_as_installed(tmp_path: Path) -> None:
    repo(tmp_path, MODULE, ["search_flights", "book"])
    done = subprocess.run(
        [str(Path(sys.executable).with_name("bfcl-action")), "validate"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path)},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 tools (python 2)" in done.stdout
