"""`bfcl-action categories`: every name `--categories`, `suites:` and the Action accept.

Categories with the group they count in, how they are checked and where their data comes
from, then the groups and what each selects. `--json` prints the same for scripts.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from bfcl_action.core.categories import CATEGORIES, SELECTION_GROUPS, group_members


def register(sub: Any) -> None:
    parser = sub.add_parser(
        "categories",
        help="list every valid category and group name",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.json:
        payload = {
            "categories": {
                name: {
                    "group": c.group.value,
                    "checker": c.checker.value,
                    "language": c.language.value,
                    "official": c.official,
                }
                for name, c in CATEGORIES.items()
            },
            "groups": {
                name: {"selects": group_members(name), "description": text}
                for name, text in SELECTION_GROUPS.items()
            },
        }
        print(json.dumps(payload, indent=2))
        return 0
    width = max(len(n) for n in [*CATEGORIES, *SELECTION_GROUPS]) + 2
    print("Categories (group, checker, language; * = official BFCL data):")
    for name, c in CATEGORIES.items():
        mark = "*" if c.official else " "
        print(f"  {name:<{width}}{mark} {c.group.value}, {c.checker.value}, {c.language.value}")
    print(f"  {'own_distractors_k<N>':<{width}}  one distractor suite (k = N)")
    print("\nGroups:")
    for name, text in SELECTION_GROUPS.items():
        print(f"  {name:<{width}}  {text}")
    return 0
