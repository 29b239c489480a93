"""The model matrix: `models:` and the `models` input, settings per entry, one digest per
model, each model paired with its own baseline, the matrix comment."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bfcl_action.compare.matrix import MatrixComparison, MatrixEntry, pick_baseline
from bfcl_action.compare.runs import Verdict, compare_runs
from bfcl_action.core.errors import ConfigError
from bfcl_action.core.records import Mode
from bfcl_action.report.matrix import render_matrix_comment
from bfcl_action.results.digest import digest_of, make_digest, parse_digest, parse_digests
from bfcl_action.runner.evaluation import labelled_paths
from bfcl_action.settings.config import parse_config, parse_models_input
from bfcl_action.settings.resolve import RunOverrides, resolve_model_runs
from bfcl_action.settings.thresholds import Thresholds
from tests.support.reports import make_report

MATRIX = """\
model:
  temperature: 0
  concurrency: 4
models:
  - name: gpt-4o-mini
  - name: gpt-4.1
    label: big
    informational: true
  - name: llama-3.1-70b
    base_url: https://api.together.xyz/v1
    mode: prompt
    api_key_env: BFCL_KEY_TOGETHER
    temperature: 0.2
"""


# ------------------------------------------------------------------------------ config
def test_models_section_parses_with_labels_and_shared_model_keys() -> None:
    config = parse_config(MATRIX)
    assert [m.key for m in config.models] == ["gpt-4o-mini", "big", "llama-3.1-70b"]
    assert config.models[1].informational
    assert config.models[2].mode is Mode.PROMPT


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "models:\n  - name: a\n    temprature: 1\n",
            ".bfcl.yml:3:5: models.0.temprature: unknown key; did you mean 'temperature'?",
        ),
        ("models:\n  - name: a\n  - name: a\n", "models: entries 0 and 1 are both labelled 'a'"),
        (
            "model:\n  api_key_env: GITHUB_TOKEN\n",
            ".bfcl.yml:2:16: model.api_key_env: GITHUB_TOKEN is the runner's or the Action's own",
        ),
        ("models:\n  - mode: fc\n", ".bfcl.yml:2:5: models.0.name: Field required"),
        (
            "models:\n  - name: a\n    label: 'two words'\n",
            ".bfcl.yml:3:12: models.0.label: expected 1-80 characters",
        ),
    ],
)
def test_models_section_errors_name_line_and_field(text: str, expected: str) -> None:
    with pytest.raises(ConfigError) as err:
        parse_config(text)
    assert expected in str(err.value)


def test_models_input_one_model_per_line() -> None:
    entries = parse_models_input(
        "# candidates\n"
        "gpt-4o-mini\n"
        "\n"
        "gpt-4.1 label=big informational=true   # only watched\n"
        "llama base-url=http://127.0.0.1:9/v1 mode=prompt api-key-env=TOGETHER_API_KEY "
        "temperature=0\n"
    )
    assert [e.key for e in entries] == ["gpt-4o-mini", "big", "llama"]
    assert entries[1].informational and not entries[0].informational
    assert entries[2].temperature == 0.0 and entries[2].api_key_env == "TOGETHER_API_KEY"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a\nb temprature=1", "the `models` input:2: models: expected KEY=VALUE"),
        ("a\nb temprature=1", "did you mean 'temperature'?"),
        ("a\nb mode=xml", "the `models` input:2: models: mode: Input should be 'fc' or 'prompt'"),
        ("a\na", "entries 0 and 1 are both labelled 'a'"),
        ("a temperature=hot", "the `models` input:1: models: temperature: expected a number"),
        ("a api-key-env=INPUT_GITHUB_TOKEN", "INPUT_GITHUB_TOKEN is the runner's or the Action's"),
        ("a api-key-env=github_token", "github_token is the runner's or the Action's own"),
        ("a api-key-env=MY-KEY", "expected an environment variable name"),
    ],
)
def test_models_input_errors_name_the_line_and_key(text: str, expected: str) -> None:
    with pytest.raises(ConfigError) as err:
        parse_models_input(text)
    assert expected in str(err.value)


# ------------------------------------------------------------------------------ settings
def test_each_entry_wins_over_model_section_and_front_end_options() -> None:
    config = parse_config(MATRIX)
    runs = resolve_model_runs(
        RunOverrides(base_url="http://127.0.0.1:8000/v1", sample=20, concurrency=2),
        config,
        config.models,
        environ={},
    )
    mini, big, llama = runs
    assert mini.settings.model == "gpt-4o-mini"
    assert mini.settings.temperature == 0  # model: shared
    assert mini.settings.base_url == "http://127.0.0.1:8000/v1"  # the option, for all
    assert llama.settings.base_url == "https://api.together.xyz/v1"  # the entry's own
    assert llama.settings.temperature == 0.2 and llama.settings.mode is Mode.PROMPT
    assert llama.key_variable == "BFCL_KEY_TOGETHER" and mini.key_variable is None
    assert {r.settings.sample for r in runs} == {20}  # what chooses cases is shared
    assert big.informational and big.label == "big"


def test_report_paths_per_label_never_collide() -> None:
    paths = labelled_paths(Path("out/run.json"), ["mini", "meta/llama:70b"])
    assert paths == {
        "mini": Path("out/run.mini.json"),
        "meta/llama:70b": Path("out/run.meta_llama_70b.json"),
    }
    with pytest.raises(ConfigError, match=r"would both write run\.a_b\.json"):
        labelled_paths(Path("run.json"), ["a/b", "a:b"])


# ------------------------------------------------------------------------------ digests
def test_a_check_run_carries_one_digest_per_model_and_each_finds_its_own() -> None:
    mini = make_report({"own_simple": "1111"}, model="gpt-4o-mini")
    mini.label = "mini"
    big = make_report({"own_simple": "1100"}, model="gpt-4.1")
    big.label = "big"
    text = "summary\n\n" + make_digest(mini) + "\n\n" + make_digest(big)
    digests = parse_digests(text)
    assert [d.label for d in digests] == ["mini", "big"]
    base, which = pick_baseline(digests, "big", "gpt-4.1")
    assert base is not None and base.suites["own_simple"].outcomes == "1100"
    assert which == "its big run"
    assert pick_baseline(digests, "new-model", "x")[0] is None


def test_a_single_model_baseline_serves_the_same_model_in_a_new_matrix() -> None:
    old = digest_of(make_report({"own_simple": "1111"}, model="gpt-4o-mini"))
    assert old.label == ""
    assert pick_baseline([old], "mini", "gpt-4o-mini")[0] is old
    assert pick_baseline([old], "big", "gpt-4.1")[0] is None


def test_single_model_digest_bytes_do_not_change() -> None:
    report = make_report({"own_simple": "10"})
    text = make_digest(report)
    assert parse_digest(text).label == ""
    report.label = "x"
    assert make_digest(report) != text and parse_digest(make_digest(report)).label == "x"


# ------------------------------------------------------------------------------ verdict
def _entry(label: str, base: str, head: str, *, informational: bool = False) -> MatrixEntry:
    before = make_report({"own_simple": base}, model=label)
    after = make_report({"own_simple": head}, model=label)
    thresholds = Thresholds(informational=informational)
    return MatrixEntry(
        label=label,
        model=label,
        mode="fc",
        informational=informational,
        comparison=compare_runs(before, after, thresholds),
    )


def test_only_a_gating_model_fails_the_matrix() -> None:
    steady = _entry("steady", "1" * 40, "1" * 40)
    broken = _entry("broken", "1" * 40, "1" * 20 + "0" * 20)
    watched = _entry("watched", "1" * 40, "0" * 40, informational=True)
    assert MatrixComparison(entries=[steady, watched]).verdict is Verdict.UNCHANGED
    assert not MatrixComparison(entries=[steady, watched]).fails
    both = MatrixComparison(entries=[steady, broken, watched])
    assert both.verdict is Verdict.REGRESSION and both.fails and both.exit_code == 1


def test_matrix_comment_names_the_regressed_model_and_keeps_both_rows() -> None:
    from bfcl_action.compare.model_choice import choose_models

    steady = _entry("steady", "1" * 40, "1" * 40)
    broken = _entry("broken", "1" * 40, "1" * 20 + "0" * 20)
    heads = [
        make_report({"own_simple": "1" * 40}),
        make_report({"own_simple": "1" * 20 + "0" * 20}),
    ]
    for report, label in zip(heads, ("steady", "broken"), strict=True):
        report.label = label
    for i, result in enumerate(heads[0].results):
        result.latency_s = 0.5 if i < 30 else 1.25  # p50 0.5 s, p95 1.25 s
    body = render_matrix_comment(
        MatrixComparison(entries=[steady, broken]), choice=choose_models(heads)
    )
    assert body.startswith("### ❌ BFCL function-calling check: regression in `broken`")
    rows = [line for line in body.splitlines() if line.startswith("| `")]
    assert rows[0].startswith("| `steady` | ➖ unchanged | 100.0% | ±0.0 |")
    assert "0.50 / 1.25 s" in rows[0]
    assert rows[1].startswith("| `broken` | ❌ regression | 50.0% | −50.0 |")
    suite_row = next(line for line in body.splitlines() if line.startswith("| `own_simple` |"))
    assert "100.0% (±0.0" in suite_row and "50.0% (**−50.0, p" in suite_row and "❌" in suite_row
    assert "<details open><summary>❌ <code>broken</code>: regression, 100.0% → 50.0%" in body
    assert "<details><summary>➖ <code>steady</code>: unchanged, 100.0% → 100.0%" in body


def test_matrix_comment_fits_the_limit_with_many_models_and_suites() -> None:
    entries = []
    for i in range(6):
        base = make_report({f"own_distractors_k{k}": "1" * 30 for k in range(40)}, model=f"m{i}")
        head = make_report({f"own_distractors_k{k}": "0" * 30 for k in range(40)}, model=f"m{i}")
        entries.append(
            MatrixEntry(
                label=f"m{i}", model=f"m{i}", mode="fc", comparison=compare_runs(base, head)
            )
        )
    body = render_matrix_comment(MatrixComparison(entries=entries), max_chars=20_000)
    assert len(body) <= 20_000
    assert all(f"| `m{i}` |" in body for i in range(6))  # the model rows are never cut
    assert "✂️" in body  # each model's details were cut, with a note


def test_hostile_labels_are_escaped() -> None:
    entry = _entry("x", "11", "11")
    hostile = entry.model_copy(update={"label": "a|b`@team<img src=x>", "model": "m"})
    body = render_matrix_comment(MatrixComparison(entries=[hostile, entry]))
    outside_code = re.sub(r"(`+)(?:(?!\1).)+\1", "", body)  # code spans show text as is
    assert "<img" not in outside_code and "@team" not in outside_code
    assert "<code>a|b`@\u200dteam&lt;img src=x&gt;</code>" in body  # the details' summary
    row = next(line for line in body.splitlines() if line.startswith("| ``a\\|b"))
    assert row.count(" | ") == 7  # the escaped `|` keeps the row's eight cells


# ------------------------------------------------------------------------------ the CLI
def _example_with_matrix(tmp_path: Path, models: str) -> Path:
    import shutil

    from tests.support.example_app import EXAMPLE

    workdir = tmp_path / "app"
    shutil.copytree(EXAMPLE, workdir, ignore=shutil.ignore_patterns("replay"))
    config = workdir / ".bfcl.yml"
    config.write_text(config.read_text() + "\n" + models)
    return config


def test_run_evaluates_every_model_of_the_matrix_on_the_same_cases(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from bfcl_action import cli
    from bfcl_action.cases.suites import build_cases
    from bfcl_action.results.run_reports import load_report
    from bfcl_action.settings.config import load_config
    from tests.support.example_app import expected_calls
    from tests.support.openai_server import OpenAIServer

    with OpenAIServer() as server:
        config = _example_with_matrix(
            tmp_path,
            "models:\n"
            f"  - {{name: right, base_url: '{server.base_url}'}}\n"
            f"  - {{name: silent, base_url: '{server.base_url}', label: quiet}}\n",
        )
        calls = expected_calls(build_cases(load_config(config), base_dir=config.parent))

        def respond(body: dict[str, object]) -> dict[str, object]:
            messages = body["messages"]
            assert isinstance(messages, list)
            question = str(messages[-1].get("content") or "")
            if body["model"] == "silent" or question not in calls:
                return {"content": "No tool needed."}
            return {"tool_calls": calls[question]}

        server.responder = respond
        out = tmp_path / "out" / "run.json"
        code = cli.main(
            [
                "run",
                "--config",
                str(config),
                "--categories",
                "own_simple,own_multiple",
                "--output",
                str(out),
                "--no-cache",
                "--quiet",
            ]
        )
        printed = capsys.readouterr()
        assert code == 0, printed.err
        right, quiet = (
            load_report(out.with_name("run.right.json")),
            load_report(out.with_name("run.quiet.json")),
        )
        assert (right.label, quiet.label) == ("right", "quiet")
        assert {r.id for r in right.results} == {r.id for r in quiet.results}
        assert right.summary["overall"] > quiet.summary["overall"]
        assert {b["model"] for b in server.requests} == {"right", "silent"}
        assert "== right (right, fc)" in printed.out and "== quiet (silent, fc)" in printed.out
        assert "right is best on your cases" in printed.out

        only = cli.main(
            [
                "run",
                "--config",
                str(config),
                "--categories",
                "own_simple",
                "--models",
                "quiet",
                "--output",
                str(tmp_path / "one.json"),
                "--no-cache",
                "--quiet",
            ]
        )
        assert only == 0 and (tmp_path / "one.quiet.json").is_file()
        assert not (tmp_path / "one.right.json").exists()

        single = cli.main(
            [
                "run",
                "--config",
                str(config),
                "--categories",
                "own_simple",
                "--model",
                "right",
                "--base-url",
                server.base_url,
                "--output",
                str(tmp_path / "single.json"),
                "--no-cache",
                "--quiet",
            ]
        )
        assert single == 0 and (tmp_path / "single.json").is_file()
        assert "evaluating it alone, not the 2 models of `models:`" in capsys.readouterr().err


def test_run_models_names_an_unknown_label(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from bfcl_action import cli

    config = _example_with_matrix(tmp_path, "models:\n  - name: gpt-4o-mini\n    label: mini\n")
    assert cli.main(["run", "--config", str(config), "--models", "mnii", "--dry-run"]) == 2
    err = capsys.readouterr().err
    assert "no `models:` entry is labelled 'mnii'" in err and "did you mean 'mini'" in err


def test_impact_predicts_the_requests_of_every_model(tmp_path: Path) -> None:
    import shutil

    from tests.support.action import git
    from tests.support.example_app import EXAMPLE, predicted_impact

    def repo(name: str, matrix: str) -> Path:
        config = _example_with_matrix(tmp_path / name, matrix)
        workdir = config.parent
        for tool_file in (workdir / "baseline" / "tools").iterdir():
            shutil.copy(tool_file, workdir / "tools" / tool_file.name)
        git(workdir, "init", "-q")
        git(workdir, "add", "-A")
        git(workdir, "commit", "-q", "-m", "main")
        for tool_file in (EXAMPLE / "tools").iterdir():  # the PR rewords get_forecast
            shutil.copy(tool_file, workdir / "tools" / tool_file.name)
        return workdir

    single = predicted_impact(repo("single", ""), "HEAD")
    both = "models:\n  - name: a\n  - name: b\n    temperature: 0.5\n"
    matrix = predicted_impact(repo("matrix", both), "HEAD")
    assert matrix["impacted"] == single["impacted"]
    assert matrix["models"] == {"a": single["requests"], "b": single["requests"]}
    assert matrix["requests"] == 2 * single["requests"]  # two models, two sets of requests
    added = repo("added", both)
    config = added / ".bfcl.yml"
    config.write_text(config.read_text() + "  - name: c\n")
    grown = predicted_impact(added, "HEAD")
    assert (
        grown["models"]["c"] == len(set(grown["impacted"])) - 0
        or grown["models"]["c"] > single["requests"]
    )


def test_a_batch_matrix_submits_every_models_batch_before_waiting(tmp_path: Path) -> None:
    """With `batch`, each model's batch is created before the first one is waited for, so
    the models' batches run at the same time; the answers equal a real-time matrix's."""
    from bfcl_action.runner.evaluation import evaluate_models
    from tests.support.openai_batches import BatchPlan
    from tests.support.openai_server import OpenAIServer

    config_path = _example_with_matrix(tmp_path, "models:\n  - name: a\n  - name: b\n")
    from bfcl_action.settings.config import load_config

    config = load_config(config_path)

    def matrix(server: OpenAIServer, *, batch: bool, cache: Path) -> list[tuple[str, bool]]:
        runs = resolve_model_runs(
            RunOverrides(
                config=config_path,
                base_url=server.base_url,
                categories=("own_simple",),
                batch=batch or None,
                cache_dir=cache,
            ),
            config,
            config.models,
            environ={},
        )
        runs = [
            r.model_copy(update={"settings": r.settings.model_copy(update={"batch_wait_s": 30.0})})
            for r in runs
        ]
        reports, _ = evaluate_models(runs, config, api_keys={})
        return [(f"{r.label}:{x.id}", x.valid) for r in reports for x in r.results]

    with OpenAIServer() as server:
        realtime = matrix(server, batch=False, cache=tmp_path / "rt")
        server.batches.plan.extend([BatchPlan(polls=2), BatchPlan(polls=2)])
        batched = matrix(server, batch=True, cache=tmp_path / "batch")
        events = list(server.batches.events)
    assert batched == realtime
    created = [e for e in events if e[0] == "created"]
    assert len(created) == 2
    first_final = next(i for i, e in enumerate(events) if e[0] == "final")
    assert all(events.index(c) < first_final for c in created)  # both submitted, then waited


def test_the_matrix_recipe_in_the_docs_parses() -> None:
    doc = (Path(__file__).parents[2] / "docs" / "model-matrix.md").read_text()
    blocks = re.findall(r"```yaml\n(.*?)```", doc, flags=re.S)
    config = parse_config(blocks[0], "docs/model-matrix.md")
    assert [m.key for m in config.models] == ["mini", "gpt-4.1", "llama"]
    listed = blocks[2].split("models: |\n", 1)[1]
    entries = parse_models_input(listed)
    assert [e.key for e in entries] == [m.key for m in config.models]
    # the input and the file spell the same matrix
    assert [e.model_dump(exclude_none=True) for e in entries] == [
        m.model_dump(exclude_none=True) for m in config.models
    ]


def test_validate_names_the_matrix_and_a_tool_file_that_defines_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from bfcl_action import cli
    from tests.support.action import TOOLS

    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "a.json").write_text(TOOLS)
    (tmp_path / "tools" / "empty.json").write_text("[]")
    config = tmp_path / ".bfcl.yml"
    config.write_text(
        "tools: [tools/*.json]\nmodels:\n  - name: gpt-4.1-mini\n    label: mini\n"
        "  - name: llama\n    base_url: https://api.together.xyz/v1\n    mode: prompt\n"
    )
    assert cli.main(["validate", "--config", str(config)]) == 0
    out = capsys.readouterr().out
    assert "tools/empty.json: warning: defines no tool" in out
    assert "2 models: mini (gpt-4.1-mini, fc), llama (prompt, api.together.xyz)" in out
    (tmp_path / "tools" / "a.json").write_text("[]")
    assert cli.main(["validate", "--config", str(config)]) == 2
    assert (
        "tools: error: the globs match 2 file(s), but they define no tool"
        in capsys.readouterr().out
    )


def test_a_base_url_that_is_no_http_url_is_named_at_its_line() -> None:
    with pytest.raises(ConfigError, match=r"\.bfcl\.yml:3:15: models\.0\.base_url: expected an"):
        parse_config("models:\n  - name: a\n    base_url: ftp://host/v1\n")
