"""Stages 1-6 over a batch of items: pure, deterministic, and accountable.

`curate` takes new items (already parsed by intake), the previous release's items, the
published references and the registry, and returns the next release's items plus a funnel
that says, per stage, how many entered, how many were kept, and why each drop happened.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from curation.canonical import canonical_hash, function_text, interface_hash, question_text
from curation.categorize import categorize
from curation.dedup import (
    ContaminationIndex,
    Fingerprint,
    Reference,
    near_duplicate_groups,
)
from curation.ids import Registry, assign_ids
from curation.models import Drop, Item, StageCount
from curation.neardup import Signer
from curation.scrub import scrub_item
from curation.settings import CurationSettings
from curation.validate import (
    Rejection,
    check_answer_passes,
    check_answer_types,
    check_license,
    check_names,
    check_sizes,
)


@dataclass
class CurationResult:
    items: list[Item]
    """Every item of the next release (previous active ones and the new), with ids."""
    added: list[Item]
    drops: list[Drop]
    funnel: list[StageCount]
    registry: Registry
    scrubbed: Counter[str] = field(default_factory=Counter)


class _Funnel:
    def __init__(self) -> None:
        self.stages: list[StageCount] = []
        self.drops: list[Drop] = []

    def stage(
        self,
        name: str,
        entered: int,
        kept: int,
        drops: list[Drop],
        changed: Counter[str] | None = None,
    ) -> None:
        self.drops.extend(drops)
        self.stages.append(
            StageCount(
                stage=name,
                entered=entered,
                kept=kept,
                dropped=dict(sorted(Counter(d.reason for d in drops).items())),
                changed=dict(sorted((changed or Counter()).items())),
            )
        )


def _validate(items: list[Item], settings: CurationSettings) -> tuple[list[Item], list[Drop]]:
    kept, drops = [], []
    for item in items:
        try:
            check_sizes(item, settings)
            check_license(item, settings)
            check_names(item)
            item.category = categorize(item)
            check_answer_types(item)
            check_answer_passes(item, item.category)
        except Rejection as r:
            drops.append(
                Drop(stage="validate", reason=r.reason, origin=item.origin, detail=r.detail)
            )
            continue
        kept.append(item)
    return kept, drops


def _where(item: Item) -> str:
    return f"{item.origin.kind}:{item.origin.ref}"


def _fingerprint(item: Item) -> Fingerprint:
    return Fingerprint(
        canonical_hash=item.canonical_hash,
        function_text=function_text(item.functions),
        question_text=question_text(item),
    )


def curate(
    new: Sequence[Item],
    *,
    previous: Sequence[Item],
    references: Sequence[Reference],
    registry: Registry,
    settings: CurationSettings,
    version: str,
    intake_drops: Sequence[Drop] = (),
) -> CurationResult:
    funnel = _Funnel()
    signer = Signer(settings.near_duplicates.settings())
    received = len(new) + len(intake_drops)
    funnel.stage("intake", received, len(new), list(intake_drops))

    # 1. validate
    items, drops = _validate([i.model_copy() for i in new], settings)
    funnel.stage("validate", len(new), len(items), drops)

    # 2. scrub
    scrubbed: Counter[str] = Counter()
    kept, drops = [], []
    for item in items:
        res = scrub_item(item)
        if res.item is None:
            drops.append(
                Drop(
                    stage="scrub",
                    reason=res.rejected or "scrub",
                    origin=item.origin,
                    detail="contains a private key",
                )
            )
            continue
        scrubbed.update(res.replaced)
        kept.append(res.item)
    funnel.stage("scrub", len(items), len(kept), drops, scrubbed)
    items = kept

    # 3. canonicalize, exact duplicates (within the batch, with the previous release, withdrawn)
    for item in items:
        item.canonical_hash = canonical_hash(item)
        item.interface_hash = interface_hash(item.functions)
    released = {i.canonical_hash: i for i in previous}
    withdrawn = {e.canonical_hash: e for e in registry.entries if e.status == "tombstone"}
    seen: dict[str, Item] = {}
    kept, drops = [], []
    for item in sorted(items, key=lambda i: (i.canonical_hash, i.origin.kind, i.origin.ref)):
        if item.canonical_hash in withdrawn:
            drops.append(
                Drop(
                    stage="exact_dedup",
                    reason="withdrawn",
                    origin=item.origin,
                    detail=f"same as withdrawn {withdrawn[item.canonical_hash].id}",
                )
            )
        elif item.canonical_hash in released:
            drops.append(
                Drop(
                    stage="exact_dedup",
                    reason="already_released",
                    origin=item.origin,
                    detail=f"same as {released[item.canonical_hash].id}",
                )
            )
        elif item.canonical_hash in seen:
            drops.append(
                Drop(
                    stage="exact_dedup",
                    reason="exact_duplicate",
                    origin=item.origin,
                    detail=f"same as {_where(seen[item.canonical_hash])}",
                )
            )
        else:
            seen[item.canonical_hash] = item
            kept.append(item)
    funnel.stage("exact_dedup", len(items), len(kept), drops)
    items = kept

    # 4. contamination: official sets and earlier releases
    prints = {i.canonical_hash: _fingerprint(i) for i in items}
    release_refs = [
        Reference(
            ref=i.id,
            function_text=function_text(i.functions),
            question_text=question_text(i),
            canonical_hash=i.canonical_hash,
            source="release",
        )
        for i in previous
    ]
    index = ContaminationIndex([*references, *release_refs], signer)
    kept, drops = [], []
    for item in items:
        skip = frozenset({"bfcl-live"}) if item.origin.kind == "bfcl" else frozenset()
        hit = index.match(prints[item.canonical_hash], skip_sources=skip)
        if hit is None:
            kept.append(item)
            continue
        reason = "near_duplicate_of_release" if hit.source == "release" else "contamination"
        drops.append(
            Drop(
                stage="contamination",
                reason=reason,
                origin=item.origin,
                detail=f"repeats {hit.source} {hit.ref}",
            )
        )
    funnel.stage("contamination", len(items), len(kept), drops)
    items = kept

    # 5. near-duplicates within the batch, per category: a question that expects a call and a
    # near-identical one that expects none test different things
    by_category: defaultdict[str, list[Item]] = defaultdict(list)
    for item in items:
        by_category[item.category].append(item)
    groups = [
        [members[g] for g in group]
        for _, members in sorted(by_category.items())
        for group in near_duplicate_groups([prints[i.canonical_hash] for i in members], signer)
    ]
    kept, drops = [], []
    for group in groups:
        members = sorted(group, key=lambda i: i.canonical_hash)
        keep = members[0]
        kept.append(keep)
        for other in members[1:]:
            drops.append(
                Drop(
                    stage="near_dedup",
                    reason="near_duplicate",
                    origin=other.origin,
                    detail=f"merged into {keep.origin.kind}:{keep.origin.ref}",
                )
            )
    kept.sort(key=lambda i: i.canonical_hash)
    funnel.stage("near_dedup", len(items), len(kept), drops)
    items = kept

    # flood control: at most max_per_contributor new items per contributor and release
    cap = settings.limits.max_per_contributor
    per: defaultdict[str, int] = defaultdict(int)
    kept, drops = [], []
    for item in items:
        per[item.contributor] += 1
        if per[item.contributor] > cap and item.origin.kind != "bfcl":
            drops.append(
                Drop(
                    stage="contributor_cap",
                    reason="contributor_cap",
                    origin=item.origin,
                    detail=f"more than {cap} new items from one contributor in one release",
                )
            )
        else:
            kept.append(item)
    funnel.stage("contributor_cap", len(items), len(kept), drops)
    items = kept

    # 6. stable ids
    ids, new_registry = assign_ids(
        [(i.category, i.canonical_hash) for i in items], registry, version
    )
    for item, new_id in zip(items, ids, strict=True):
        item.id = new_id
    active = {e.id for e in new_registry.entries if e.status == "active"}
    carried = [i for i in previous if i.id in active]
    funnel.stage("release", len(carried) + len(items), len(carried) + len(items), [])
    return CurationResult(
        items=sorted([*carried, *items], key=lambda i: i.id),
        added=items,
        drops=funnel.drops,
        funnel=funnel.stages,
        registry=new_registry,
        scrubbed=scrubbed,
    )
