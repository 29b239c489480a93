"""What a run produced, as numbers and files: per-suite scores (`scoring`), BFCL's result
and score files (`results_io`), run reports on disk (`run_reports`), the compact digest a
check run carries (`digest`), and the leaderboard's own tables (`leaderboard`).
"""
