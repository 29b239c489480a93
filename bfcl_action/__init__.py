"""bfcl-action: BFCL-compatible function-calling evaluation as a CI check."""

__version__ = "0.1.0"
