"""Every setting of a run and a comparison: `.bfcl.yml` (`config`) and its JSON Schema,
one precedence from defaults to flags and Action inputs (`resolve`), the thresholds a
comparison fails on, and which cases a run selects.
"""
