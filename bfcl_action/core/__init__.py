"""The core vocabulary every stage shares: records (`FunctionDoc`, `TestCase`, `Call`,
`CaseResult`, `RunReport`), the one exception hierarchy, the category table, fingerprints and
what a run cost. It imports nothing else of the package (docs/design.md, "Packages and
layers").
"""
