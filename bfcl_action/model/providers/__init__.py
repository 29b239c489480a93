"""Model providers, one module each. A provider module defines `NAME` and `create(options)`
returning an object with `model`, `endpoint`, `identity()`, `complete(request)` and
`aclose()` (see `bfcl_action.model.registry.Provider`); dropping a module here registers it.
"""
