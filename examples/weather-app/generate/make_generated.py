"""Draft the example's generated cases with a scripted model, as a user would with a real one.

Starts the package's local OpenAI-compatible server (`bfcl_action.runner.serve`, what
`bfcl-action serve-replay --script script.json` serves) answering from script.json (a
proposer with good and bad drafts, a verify model that disagrees twice), then runs
`bfcl-action generate` on the app's generate.bfcl.yml with a fresh cache:

    python examples/weather-app/generate/make_generated.py            # rewrites generated.yml
    python examples/weather-app/generate/make_generated.py --dir COPY --run

`--dir` works on a copy of the weather app (as `nox -s demo` does); `--run` also evaluates
the generated cases (`bfcl-action run`) against the server. Without this script:
`bfcl-action serve-replay --script generate/script.json` and `generate --base-url ...`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from bfcl_action.cli import main as cli
from bfcl_action.runner.serve import LocalServer, scripted

HERE = Path(__file__).resolve().parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--dir", type=Path, default=HERE.parent, help="the weather app")
    parser.add_argument("--run", action="store_true", help="also evaluate the generated cases")
    args = parser.parse_args()
    os.environ.setdefault("OPENAI_API_KEY", "sk-local-scripted")
    config = str(args.dir / "generate.bfcl.yml")
    with LocalServer() as server, tempfile.TemporaryDirectory() as cache:
        server.responder = scripted(json.loads((HERE / "script.json").read_text("utf-8")))
        started = time.perf_counter()
        code = cli(
            [
                "generate",
                "--config",
                config,
                "--base-url",
                server.base_url,
                "--per-tool",
                "3",
                "--cache",
                cache,
                "--quiet",
                "--tools",
                "get_pollen_count,convert_temperature,get_sunrise_sunset",
                "--output",
                "generate/generated.yml",
            ]
        )
        took = time.perf_counter() - started
        print(f"make_generated: {server.count} requests, {took:.2f} s (imports included)")
        if code or not args.run:
            return code
        return cli(
            [
                "run",
                "--config",
                config,
                "--base-url",
                server.base_url,
                "--no-cache",
                "--quiet",
                "--output",
                str(Path(cache) / "run.json"),
            ]
        )


if __name__ == "__main__":
    sys.exit(main())
