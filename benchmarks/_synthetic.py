"""Synthetic Live contributions with planted exact duplicates, near-duplicates and secrets,
so the curation benchmark can measure speed and near-duplicate recall/precision."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from typing import Any

_WORDS = [
    "account",
    "address",
    "alert",
    "amount",
    "analysis",
    "api",
    "archive",
    "asset",
    "audit",
    "backup",
    "balance",
    "batch",
    "bill",
    "booking",
    "budget",
    "cache",
    "calendar",
    "campaign",
    "card",
    "cart",
    "catalog",
    "channel",
    "chart",
    "check",
    "city",
    "claim",
    "client",
    "cluster",
    "code",
    "comment",
    "config",
    "contact",
    "contract",
    "coupon",
    "course",
    "credit",
    "currency",
    "customer",
    "dashboard",
    "data",
    "database",
    "deal",
    "delivery",
    "device",
    "discount",
    "document",
    "domain",
    "draft",
    "driver",
    "email",
    "employee",
    "event",
    "expense",
    "feed",
    "file",
    "filter",
    "flight",
    "folder",
    "form",
    "forecast",
    "fund",
    "game",
    "grade",
    "group",
    "guest",
    "hotel",
    "image",
    "index",
    "invoice",
    "issue",
    "item",
    "job",
    "journal",
    "key",
    "label",
    "lead",
    "lesson",
    "license",
    "list",
    "loan",
    "location",
    "log",
    "market",
    "match",
    "media",
    "meeting",
    "member",
    "message",
    "metric",
    "model",
    "movie",
    "note",
    "order",
    "package",
    "page",
    "partner",
    "patient",
    "payment",
    "photo",
    "plan",
    "player",
    "playlist",
    "policy",
    "portfolio",
    "post",
    "price",
    "product",
    "profile",
    "project",
    "promotion",
    "property",
    "query",
    "quote",
    "rate",
    "receipt",
    "recipe",
    "record",
    "region",
    "release",
    "report",
    "request",
    "reservation",
    "resource",
    "review",
    "reward",
    "ride",
    "room",
    "route",
    "rule",
    "sale",
    "schedule",
    "score",
    "search",
    "seat",
    "segment",
    "sensor",
    "server",
    "service",
    "session",
    "share",
    "shift",
    "shipment",
    "signal",
    "site",
    "skill",
    "slot",
    "song",
    "source",
    "station",
    "stock",
    "store",
    "stream",
    "student",
    "subscription",
    "survey",
    "task",
    "team",
    "template",
    "ticket",
    "timer",
    "token",
    "topic",
    "track",
    "trade",
    "transaction",
    "trip",
    "user",
    "vehicle",
    "vendor",
    "video",
    "wallet",
    "warehouse",
    "weather",
    "webhook",
    "widget",
    "workflow",
    "zone",
]
_VERBS = [
    "get",
    "list",
    "create",
    "update",
    "delete",
    "find",
    "fetch",
    "compute",
    "book",
    "cancel",
    "send",
    "schedule",
    "track",
]
_ADJ = [
    "current",
    "detailed",
    "recent",
    "pending",
    "active",
    "archived",
    "public",
    "private",
    "shared",
    "primary",
    "remote",
    "local",
    "daily",
    "weekly",
    "monthly",
    "total",
    "average",
    "maximum",
    "minimum",
    "latest",
    "default",
    "custom",
    "verified",
]


@dataclass
class Planted:
    exact: list[tuple[int, int]] = field(default_factory=list)
    near: list[tuple[int, int]] = field(default_factory=list)
    secrets: list[int] = field(default_factory=list)


def _sentence(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(_ADJ + _WORDS) for _ in range(n))


def _base(rng: random.Random, k: int) -> dict[str, Any]:
    verb, noun, noun2 = rng.choice(_VERBS), rng.choice(_WORDS), rng.choice(_WORDS)
    name = f"{verb}_{noun}_{noun2}_{k}"
    params = {}
    args = {}
    for p in rng.sample(_WORDS, rng.randint(2, 4)):
        kind = rng.choice(["string", "integer", "boolean"])
        params[p] = {"type": kind, "description": f"The {p} {_sentence(rng, 8)}"}
        args[p] = (
            f"{rng.choice(_WORDS)}-{rng.randint(1, 9999)}"
            if kind == "string"
            else rng.randint(1, 500)
            if kind == "integer"
            else rng.choice([True, False])
        )
    described = ", ".join(f"{p} {v}" for p, v in args.items())
    return {
        "question": f"Could you {verb} the {noun} {noun2} for {described}? {_sentence(rng, 6)}",
        "functions": [
            {
                "name": name,
                "description": f"{verb.capitalize()} the {noun} {noun2}. {_sentence(rng, 30)}",
                "parameters": {"type": "dict", "properties": params, "required": list(params)},
            }
        ],
        "ground_truth": [{name: {p: [v] for p, v in args.items()}}],
        "contributor": f"user{rng.randint(1, 2000)}",
        "license": "Apache-2.0",
    }


def _near_copy(rng: random.Random, entry: dict[str, Any]) -> dict[str, Any]:
    """One small edit in the description and one in the question: still the same test."""
    copy = json.loads(json.dumps(entry))
    doc = copy["functions"][0]
    words = doc["description"].split()
    words[rng.randrange(len(words))] = rng.choice(_ADJ)
    doc["description"] = " ".join(words).upper() if rng.random() < 0.2 else " ".join(words)
    copy["question"] = rng.choice(["Please, ", "Hi! ", ""]) + copy["question"].rstrip("?") + "."
    copy["contributor"] = f"user{rng.randint(1, 2000)}"
    return copy


def generate(
    n: int,
    *,
    seed: int = 7,
    dup_rate: float = 0.05,
    near_rate: float = 0.05,
    secret_rate: float = 0.02,
) -> tuple[list[dict[str, Any]], Planted]:
    rng = random.Random(seed)  # noqa: S311 (reproducible test data, not secrets)
    planted = Planted()
    out: list[dict[str, Any]] = []
    while len(out) < n:
        r = rng.random()
        if out and r < dup_rate:
            src = rng.randrange(len(out))
            out.append(json.loads(json.dumps(out[src])))
            planted.exact.append((src, len(out) - 1))
        elif out and r < dup_rate + near_rate:
            src = rng.randrange(len(out))
            out.append(_near_copy(rng, out[src]))
            planted.near.append((src, len(out) - 1))
        else:
            entry = _base(rng, len(out))
            if rng.random() < secret_rate:
                entry["question"] += f" Contact me at person{len(out)}@mail.test.org"
                planted.secrets.append(len(out))
            out.append(entry)
    return out, planted
