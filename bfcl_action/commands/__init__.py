"""Subcommands of `bfcl-action`; see `bfcl_action.cli`."""
