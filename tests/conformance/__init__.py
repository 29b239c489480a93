"""Agreement with the official bfcl-eval checker (run with `nox -s conformance`)."""
