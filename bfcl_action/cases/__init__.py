"""The cases a run asks: own cases written next to the tools (`own`), authored answers made
BFCL possible answers (`authoring`), derived suites and every suite a `.bfcl.yml` names
(`suites`), and the relevance signals the irrelevance suite draws by.
"""
