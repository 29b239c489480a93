"""The GitHub edge of bfcl-action: context from the environment, PR comment, check run,
statuses, outputs and job summary. Everything here does I/O; the evaluation it reports on
arrives as a `RunReport` and rendered text (see `bfcl_action.github.engine`)."""
