"""Benchmarks: each module has `main() -> dict` that measures, writes bench-results/<area>.json
and prints its figures. `python -m benchmarks` (what `nox -s bench` runs) runs them all."""
