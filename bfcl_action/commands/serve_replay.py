"""`bfcl-action serve-replay`: a trial model on 127.0.0.1, no key and no network needed.

Serves an OpenAI-compatible endpoint that answers from recorded answers or a script, so
`generate`, `run` and the Action's flow can be tried before anyone has a key:

    bfcl-action serve-replay --replay replay/head      # answers a run recorded earlier
    bfcl-action serve-replay --script script.json      # answers written by hand
    OPENAI_BASE_URL=http://127.0.0.1:PORT/v1 bfcl-action run     # in another shell

`--replay` takes what `--model replay:PATH` takes (BFCL result files, a directory of them,
a run report); the cases of `.bfcl.yml` (searched upward, or `--config`) tell which request
is which case. A script is JSON: `answers` maps a question to a reply
(`{"tool_calls": [{"name": ..., "arguments": {...}}]}` or `{"content": ...}`); `propose`
and `verify` script `bfcl-action generate` (docs/generate.md). Anything else gets a prose
answer (no call). The first line printed is the base URL; it serves until interrupted.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
from pathlib import Path
from typing import Any

from bfcl_action.core.errors import ConfigError, InputError


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "serve-replay",
        help="a trial model: recorded or scripted answers as an OpenAI-compatible endpoint",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--replay", metavar="PATH", help="recorded answers (as `replay:PATH`)")
    what.add_argument("--script", type=Path, metavar="FILE.json", help="scripted answers")
    parser.add_argument(
        "--config", type=Path, help=".bfcl.yml whose cases the replay answers (default: search)"
    )
    parser.add_argument(
        "--port", type=int, default=0, help="port on 127.0.0.1 (default: a free one)"
    )
    parser.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from bfcl_action.runner.serve import LocalServer, recorded, script_problems, scripted

    server = LocalServer(port=args.port)
    if args.script is not None:
        script = _read_script(args.script)
        problems = script_problems(script)
        if problems or not isinstance(script, dict):
            raise InputError("; ".join(problems), file=str(args.script))
        server.responder = scripted(script)
        what = f"the script {args.script}"
    else:
        from bfcl_action.cases.suites import build_cases
        from bfcl_action.commands.impact import _config
        from bfcl_action.runner.replay import load_recorded_answers

        config, config_dir = _config(args.config)
        answers, _ = load_recorded_answers(args.replay)
        cases = build_cases(config, base_dir=config_dir, external=False)
        server.responder = recorded(answers, cases)
        matched = sum(1 for c in cases if c.id in answers)
        what = f"{matched} recorded answers of {len(cases)} cases ({args.replay})"
        if not matched:
            raise ConfigError(
                f"none of the {len(answers)} recorded answers is for a case of "
                f"{config.source_file}",
                field="replay",
            )
    try:
        server.start()
    except OSError as exc:
        raise ConfigError(f"cannot listen on 127.0.0.1:{args.port}: {exc.strerror}") from None
    print(server.base_url, flush=True)
    print(
        f"serving {what}; set OPENAI_BASE_URL={server.base_url} (no key needed) and run "
        "bfcl-action in another shell; Ctrl-C stops",
        file=sys.stderr,
        flush=True,
    )
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    print("bfcl-action serve-replay: stopped", file=sys.stderr)
    return 0


def _read_script(path: Path) -> object:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"cannot read the script: {exc.strerror}", file=str(path)) from None
    except json.JSONDecodeError as exc:
        raise InputError(f"not valid JSON: {exc.msg}", file=str(path), line=exc.lineno) from None
