"""The package as a user installs it: one wheel, one venv, console scripts in a clean env.

`install(workdir)` builds the wheel of this checkout (`uv build`) and installs it
non-editable, with `requirements.lock`, into a fresh venv, as the Action and `pip install`
do: nothing of the source tree (`data/` beside the code, `tests/`) is importable from there.
`Installed.run` starts a console script in a subprocess with an `env -i`-like environment
(the venv's `bin` first on PATH, HOME and the XDG caches in temp directories, `LANG`), plus
only the variables the test names, the way a user exports them. `ActionYml` runs the
composite action's own `run:` lines with the `env:` each step is given.

Every run's output is checked by `assert_clean`: no traceback and no "skipped" warning that
the test did not expect.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

ROOT = Path(__file__).resolve().parents[2]
TRACEBACK = "Traceback (most recent call last)"


@dataclass
class Run:
    """One finished command: what the user sees."""

    args: list[str]
    code: int
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        return self.stdout + self.stderr

    def __str__(self) -> str:
        return f"$ {' '.join(self.args)}\nexit {self.code}\n{self.stdout}\n{self.stderr}"


def assert_clean(run: Run, *, skipped_ok: bool = False) -> None:
    """No traceback in any output, and no "skipped" line unless the test asked for one."""
    assert TRACEBACK not in run.output, str(run)
    if not skipped_ok:
        assert "skipped" not in run.output.lower(), str(run)


def uv() -> list[str]:
    """The uv the test session has: on PATH, else the module of this interpreter."""
    found = shutil.which("uv")
    return [found] if found else [sys.executable, "-m", "uv"]


@dataclass
class Installed:
    """A venv holding the built wheel and the locked dependencies."""

    venv: Path
    wheel: Path
    home: Path

    @property
    def bin(self) -> Path:
        return self.venv / "bin"

    @property
    def python(self) -> Path:
        return self.bin / "python"

    def environment(self, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        """What `env -i` plus a user's exports give: no PYTHONPATH, no variable of the test
        process, caches and config under this install's own HOME."""
        env = {
            "PATH": f"{self.bin}{os.pathsep}/usr/bin{os.pathsep}/bin",
            "HOME": str(self.home),
            "XDG_CACHE_HOME": str(self.home / ".cache"),
            "XDG_CONFIG_HOME": str(self.home / ".config"),
            "XDG_DATA_HOME": str(self.home / ".local" / "share"),
            "LANG": "C.UTF-8",
            "TMPDIR": str(self.home / "tmp"),
        }
        env.update(extra or {})
        return env

    def run(
        self,
        *args: str,
        cwd: Path,
        env: Mapping[str, str] | None = None,
        stdin: str | None = None,
        timeout: float = 90,
        check_clean: bool = True,
        skipped_ok: bool = False,
    ) -> Run:
        """Run `args` (a console script name first) as a user would, from `cwd`."""
        command = [str(self.bin / args[0]) if (self.bin / args[0]).exists() else args[0]]
        proc = subprocess.run(
            [*command, *args[1:]],
            cwd=cwd,
            env=self.environment(env),
            input=stdin,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        run = Run(list(args), proc.returncode, proc.stdout, proc.stderr)
        if check_clean:
            assert_clean(run, skipped_ok=skipped_ok)
        return run


@contextlib.contextmanager
def serving(installed: Installed, *args: str, cwd: Path) -> Iterator[str]:
    """`bfcl-action serve-replay ARGS` running in the background; yields its base URL and
    stops it with Ctrl-C (SIGINT) as a user does, checking it says so cleanly."""
    proc = subprocess.Popen(
        [str(installed.bin / "bfcl-action"), "serve-replay", *args],
        cwd=cwd,
        env=installed.environment(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        if not url.startswith("http://127.0.0.1:"):
            proc.kill()
            out, err = proc.communicate(timeout=10)
            raise AssertionError(f"serve-replay did not start: {url}{out}{err}")
        yield url
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=20)
    run = Run(["serve-replay", *args], proc.returncode, out, err)
    assert_clean(run)
    assert proc.returncode == 0 and "stopped" in err, str(run)


def install(workdir: Path) -> Installed:
    """Build the wheel of this checkout and install it non-editable with the lock file."""
    dist, venv, home = workdir / "dist", workdir / "venv", workdir / "home"
    (home / "tmp").mkdir(parents=True, exist_ok=True)
    quiet = {"capture_output": True, "text": True, "check": True, "timeout": 300}
    try:
        subprocess.run([*uv(), "build", "--wheel", "-q", "-o", str(dist), str(ROOT)], **quiet)
        [wheel] = dist.glob("bfcl_action-*.whl")
        # seeded with pip, as a user's venv is (Live data wheels are fetched with it)
        subprocess.run([*uv(), "venv", "-q", "--seed", str(venv)], **quiet)
        python = str(venv / "bin" / "python")
        lock = str(ROOT / "requirements.lock")
        subprocess.run([*uv(), "pip", "install", "-q", "--python", python, "-r", lock], **quiet)
        subprocess.run(
            [*uv(), "pip", "install", "-q", "--python", python, "--no-deps", str(wheel)], **quiet
        )
    except subprocess.CalledProcessError as exc:
        raise AssertionError(f"the wheel does not install: {exc.cmd}\n{exc.stderr}") from None
    return Installed(venv=venv, wheel=wheel, home=home)


# ------------------------------------------------------------------------- action.yml

_EXPRESSION = re.compile(r"\$\{\{\s*([^}]+?)\s*\}\}")


def action_yml() -> dict[str, Any]:
    data = YAML(typ="safe").load((ROOT / "action.yml").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


@dataclass
class ActionYml:
    """The composite action's `run:` steps, each run by bash with the env its step gives.

    Expressions are resolved from `inputs` (action.yml's defaults, then the workflow's
    `with:`), `github.action_path` (this checkout), `runner.temp` and the outputs of the
    earlier steps. Steps that `uses:` another action (the caches) are not run. The install
    step is the session's own install (`install`): the action's step fetches uv from the
    package index, which tests never reach; `install_commands` keeps the two in step.
    """

    installed: Installed
    runner_temp: Path
    token: str = "write-token"
    steps: list[dict[str, Any]] = field(default_factory=lambda: action_yml()["runs"]["steps"])
    outputs: dict[str, dict[str, str]] = field(default_factory=dict)
    """Each step's outputs after `run`, by step id."""

    def inputs(self, given: Mapping[str, str]) -> dict[str, str]:
        declared = action_yml()["inputs"]
        unknown = set(given) - set(declared)
        assert not unknown, f"not inputs of action.yml: {sorted(unknown)}"
        out = {name: str(spec.get("default", "")) for name, spec in declared.items()}
        out["github-token"] = self.token
        out.update(given)
        return out

    def run(
        self,
        cwd: Path,
        runner_env: Mapping[str, str],
        *,
        skipped_ok: bool = False,
        **given: str,
    ) -> Run:
        """Every `run:` step in order (until one fails); the last step's run is returned."""
        inputs = self.inputs({k.replace("_", "-"): v for k, v in given.items()})
        outputs: dict[str, dict[str, str]] = {"install": {"python": str(self.installed.python)}}
        last: Run | None = None
        for step in self.steps:
            if "run" not in step or step.get("id") == "install":
                continue
            context = self._context(inputs, outputs)
            if "if" in step and not _truthy(step["if"], context):
                continue
            out_file = self.runner_temp / f"step-{step.get('id', 'x')}.out"
            out_file.write_text("")
            env = {
                **runner_env,
                "GITHUB_OUTPUT": str(out_file),
                **{k: _resolve(str(v), context) for k, v in (step.get("env") or {}).items()},
            }
            proc = subprocess.run(
                ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
                cwd=cwd,
                env=self.installed.environment(env),
                capture_output=True,
                text=True,
                timeout=120,
            )
            last = Run(
                [f"action.yml step {step.get('name')}"], proc.returncode, proc.stdout, proc.stderr
            )
            assert_clean(last, skipped_ok=skipped_ok)
            if "id" in step:
                outputs[step["id"]] = parse_outputs(out_file.read_text(encoding="utf-8"))
            if proc.returncode != 0:
                break
        assert last is not None
        self.outputs = outputs
        return last

    def _context(
        self, inputs: Mapping[str, str], outputs: Mapping[str, Mapping[str, str]]
    ) -> dict[str, str]:
        context = {f"inputs.{k}": v for k, v in inputs.items()}
        context["github.action_path"] = str(ROOT)
        context["runner.temp"] = str(self.runner_temp)
        context["runner.os"] = "Linux"
        context["runner.arch"] = "X64"
        for step_id, values in outputs.items():
            context.update({f"steps.{step_id}.outputs.{k}": v for k, v in values.items()})
        return context


def _resolve(text: str, context: Mapping[str, str]) -> str:
    def one(match: re.Match[str]) -> str:
        name = match.group(1)
        assert name in context, f"action.yml names {name!r}, which the test does not provide"
        return context[name]

    return _EXPRESSION.sub(one, text)


def _truthy(condition: str, context: Mapping[str, str]) -> bool:
    """The `if:` forms action.yml uses: `a == 'x' && b == ''`, with `always() &&` first."""
    terms = [t.strip() for t in condition.replace("always() &&", "").split("&&")]
    for term in terms:
        left, op, right = term.partition("==")
        assert op, f"unsupported if: {condition!r}"
        name, want = left.strip(), right.strip().strip("'")
        assert name in context, f"action.yml tests {name!r}, which the test does not provide"
        if context[name] != want:
            return False
    return True


def parse_outputs(text: str) -> dict[str, str]:
    """GITHUB_OUTPUT's two forms: `name=value` lines and `name<<DELIM` ... `DELIM` blocks."""
    out: dict[str, str] = {}
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, _, delim = line.partition("<<")
            end = lines.index(delim, i + 1)
            out[name] = "\n".join(lines[i + 1 : end])
            i = end + 1
            continue
        name, _, value = line.partition("=")
        out[name] = value
        i += 1
    return out


def install_commands() -> list[str]:
    """The install step's uv commands (what `install` must keep doing the same way)."""
    [step] = [s for s in action_yml()["runs"]["steps"] if s.get("id") == "install"]
    return [line.strip() for line in str(step["run"]).splitlines() if '"$UV"' in line]


def prefill_bfcl_cache(cache: Path, work: Path) -> None:
    """A data cache as a user has it after the first fetch of the pinned BFCL release,
    holding the small stand-in release (`tests.support.bfcl_wheel`): the installed command
    reads it without the network (a release in the cache is trusted by its manifest)."""
    from bfcl_action.dataset import official
    from tests.support.bfcl_wheel import VERSION, build_wheel, release_for

    wheel = build_wheel(work)
    extracted = official.ensure_extracted(release_for(wheel), wheel=wheel, cache=cache)
    official.ensure_memory_prereqs(release_for(wheel), wheel=wheel, cache=cache)
    extracted.rename(official.release_dir(official.get_release(VERSION), cache))


def git(cwd: Path, *args: str) -> str:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(cwd),
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    proc = subprocess.run(
        ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True, timeout=30
    )
    return proc.stdout.strip()
