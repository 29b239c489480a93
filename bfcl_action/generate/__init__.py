"""Draft own test cases with a model and keep only the verified ones (`bfcl-action generate`).

The recipe is APIGen's: a model proposes requests with their expected calls, then checks
that need no judgement (format, grounding) and one that needs a second opinion (agreement of
a verify model, judged by our own checker) keep only the entries that hold up. Stages:

propose (`prompt`, `proposals`) -> hostile text and format (`checks`) -> grounding
(`grounding`) -> near-duplicates (`diversity`) -> agreement (`pipeline`) -> balance
(`diversity`) -> cases and review files (`writer`). Model calls go through `model` only.
Docs: docs/generate.md.
"""
