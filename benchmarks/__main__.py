"""Run every benchmark module's `main()` (or only those named on the command line)."""

from __future__ import annotations

import importlib
import pkgutil
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    here = Path(__file__).resolve().parent
    names = argv or sorted(m.name for m in pkgutil.iter_modules([str(here)]) if m.name[0] != "_")
    for name in names:
        print(f"== benchmarks.{name}", flush=True)
        importlib.import_module(f"benchmarks.{name}").main()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
