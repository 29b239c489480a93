"""Run every benchmark module's `main()` (what `nox -s bench` runs)."""

from __future__ import annotations

import importlib
import pkgutil
import sys
from pathlib import Path


def main() -> int:
    here = Path(__file__).parent
    only = set(sys.argv[1:])
    for module in sorted(m.name for m in pkgutil.iter_modules([str(here)])):
        if module.startswith("_") or (only and module not in only):
            continue
        print(f"== {module}")
        importlib.import_module(f"benchmarks.{module}").main()
    return 0


if __name__ == "__main__":
    sys.exit(main())
