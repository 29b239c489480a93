"""A run against its baseline (`runs`), a model matrix (`matrix`), which model to ship
(`model_choice`), with the statistics they use (`stats`), the cases a change can affect
(`impact`), per-tool diagnostics, the scheduled runs' history and metrics, and the git edge
that reads files at a ref (`git_files`).
"""
