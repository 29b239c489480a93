"""Stages 1-6 over a batch of items: pure, deterministic, and accountable.

`curate` takes new items (already parsed by intake), the previous release's items, the
published references and the registry, and returns the next release's items plus a funnel
that says, per stage, how many entered, how many were kept, and why each drop happened.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from curation.canonical import (
    answer_key,
    canonical_functions,
    canonical_hash,
    function_text,
    interface_hash,
    prompt_hash,
    question_text,
    similarity_text,
)
from curation.categorize import categorize
from curation.dedup import (
    ContaminationIndex,
    Fingerprint,
    Reference,
    near_duplicate_groups,
)
from curation.ids import Registry, assign_ids, bfcl_id, migrate_ids, withdraw
from curation.models import Drop, Item, StageCount
from curation.neardup import Signer, cluster_texts
from curation.scrub import scrub_item
from curation.settings import CurationSettings
from curation.validate import (
    Rejection,
    check_answer_passes,
    check_license,
    check_names,
    check_sizes,
    prune_answer_options,
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
    withdrawn: dict[str, str] = field(default_factory=dict)
    """Ids tombstoned by this build (explicit withdrawals and re-curation), with the reason."""
    superseded: dict[str, str] = field(default_factory=dict)
    """Old id -> the corrected entry's new id."""
    deferred: list[Item] = field(default_factory=list)
    """Entries over the flood cap, held for a later release (the queue `build` keeps)."""


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


Stage = tuple[list[Item], list[Drop]]
"""What a stage returns: the items it kept and a drop (with a reason) for every other."""


def _drop(stage: str, reason: str, item: Item, detail: str) -> Drop:
    return Drop(stage=stage, reason=reason, origin=item.origin, detail=detail)


def _where(item: Item) -> str:
    return f"{item.origin.kind}:{item.origin.ref}"


def validate_items(items: Sequence[Item], settings: CurationSettings) -> Stage:
    """Stage 1; also fixes each kept item's category, which the answer check needs."""
    kept, drops = [], []
    for original in items:
        item = original.model_copy()
        try:
            check_sizes(item, settings)
            check_license(item, settings)
            check_names(item)
            item.category = categorize(item)
            notes = prune_answer_options(item)
            if notes:
                item.edits = [*item.edits, *notes]
            check_answer_passes(item, item.category)
        except Rejection as r:
            drops.append(_drop("validate", r.reason, item, r.detail))
            continue
        except Exception as exc:  # isolation: one item, one drop
            drops.append(_internal("validate", item, exc))
            continue
        kept.append(item)
    return kept, drops


def _internal(stage: str, item: Item, exc: BaseException) -> Drop:
    """An unexpected failure on one item: that item is rejected, the build goes on."""
    return _drop(stage, "internal_error", item, f"{type(exc).__name__}: {str(exc)[:200]}")


def scrub_items(
    items: Sequence[Item], settings: CurationSettings
) -> tuple[list[Item], list[Drop], Counter[str]]:
    """Stage 2; also counts what was replaced, by kind. A scrubbed item is validated again:
    a placeholder must leave a test that can still be passed."""
    kept, drops = [], []
    scrubbed: Counter[str] = Counter()
    for item in items:
        try:
            res = scrub_item(item)
            if res.item is not None and res.item is not item:
                check_names(res.item)
                prune_answer_options(res.item)
                check_answer_passes(res.item, res.item.category)
        except Rejection as r:
            drops.append(_drop("scrub", "scrub_invalidated", item, f"{r.reason}: {r.detail}"))
            continue
        except Exception as exc:  # isolation: one item, one drop
            drops.append(_internal("scrub", item, exc))
            continue
        if res.item is None:
            drops.append(_drop("scrub", res.rejected or "scrub", item, res.detail))
            continue
        scrubbed.update(res.replaced)
        kept.append(res.item)
    return kept, drops, scrubbed


def _expects_call(item: Item) -> bool:
    return item.category != "live_irrelevance"


def hold_contradictions(items: Sequence[Item], previous: Sequence[Item]) -> Stage:
    """Items shown the same question and tools where one expects a call and another expects
    none cannot both be right: the new ones among them are held for a maintainer's review
    (a released one is never silently rewritten; withdraw it explicitly)."""
    expects: defaultdict[str, set[bool]] = defaultdict(set)
    for item in [*previous, *items]:
        expects[prompt_hash(item)].add(_expects_call(item))
    kept, drops = [], []
    for item in items:
        if len(expects[prompt_hash(item)]) > 1:
            detail = (
                "the same question and tools appear expecting a call and expecting none; "
                "held for review"
            )
            drops.append(_drop("consistency", "contradictory_pair", item, detail))
        else:
            kept.append(item)
    return kept, drops


def exact_dedup(items: Sequence[Item], previous: Sequence[Item], registry: Registry) -> Stage:
    """Stage 3: hashes every item, then keeps one per canonical hash that was neither
    released nor withdrawn before. Sorting by hash makes the survivor input-order-free."""
    for item in items:
        item.canonical_hash = canonical_hash(item)
        item.interface_hash = interface_hash(item.functions)
    released = {i.canonical_hash: i.id for i in previous}
    withdrawn = {e.canonical_hash: e.id for e in registry.entries if e.status == "tombstone"}
    seen: dict[str, Item] = {}
    kept, drops = [], []
    for item in sorted(items, key=lambda i: (i.canonical_hash, i.origin.kind, i.origin.ref)):
        digest = item.canonical_hash
        if digest in withdrawn:
            drops.append(
                _drop("exact_dedup", "withdrawn", item, f"same as withdrawn {withdrawn[digest]}")
            )
        elif digest in released:
            drops.append(
                _drop("exact_dedup", "already_released", item, f"same as {released[digest]}")
            )
        elif digest in seen:
            drops.append(
                _drop("exact_dedup", "exact_duplicate", item, f"same as {_where(seen[digest])}")
            )
        else:
            seen[digest] = item
            kept.append(item)
    return kept, drops


def _fingerprint(item: Item) -> Fingerprint:
    return Fingerprint(
        canonical_hash=item.canonical_hash,
        function_text=function_text(item.functions),
        question_text=similarity_text(item),
        answer_key=answer_key(item),
        expects_call=bool(item.possible_answer),
    )


def _reference(item: Item, source: str) -> Reference:
    return Reference(
        ref=item.id,
        function_text=function_text(item.functions),
        question_text=similarity_text(item),
        canonical_hash=item.canonical_hash,
        source=source,
        answer_key=answer_key(item),
        expects_call=bool(item.possible_answer),
    )


def drop_contaminated(
    items: Sequence[Item],
    prints: dict[str, Fingerprint],
    references: Sequence[Reference],
    previous: Sequence[Item],
    signer: Signer,
    withdrawn: Sequence[Item] = (),
) -> Stage:
    """Stage 4: nothing that repeats an official entry, an earlier release, or a withdrawn
    entry (a one-word variant of a withdrawn item stays out too). BFCL's own Live entries,
    when imported, are not checked against themselves: they are labelled imported and never
    enter the `fresh` configuration."""
    # a re-imported entry is not checked against its own released version: re-curation
    # (`recurate`) decides whether it supersedes it
    batch_origins = {_origin_key(i) for i in items}
    release_refs = [
        _reference(i, "release") for i in previous if _origin_key(i) not in batch_origins
    ]
    release_refs += [_reference(i, "withdrawn") for i in withdrawn]
    index = ContaminationIndex([*references, *release_refs], signer)
    kept, drops = [], []
    for item in items:
        skip = frozenset({"bfcl-live"}) if item.origin.kind == "bfcl" else frozenset()
        hit = index.match(prints[item.canonical_hash], skip_sources=skip)
        if hit is None:
            kept.append(item)
            continue
        reason = {
            "release": "near_duplicate_of_release",
            "withdrawn": "withdrawn_variant",
        }.get(hit.source, "contamination")
        drops.append(_drop("contamination", reason, item, f"repeats {hit.source} {hit.ref}"))
    return kept, drops


def merge_near_duplicates(
    items: Sequence[Item], prints: dict[str, Fingerprint], signer: Signer
) -> Stage:
    """Stage 5, per category: a question that expects a call and a near-identical one that
    expects none test different things. The member with the smallest hash is kept."""
    by_category: defaultdict[str, list[Item]] = defaultdict(list)
    for item in items:
        by_category[item.category].append(item)
    kept, drops = [], []
    for _, members in sorted(by_category.items()):
        groups = near_duplicate_groups([prints[i.canonical_hash] for i in members], signer)
        for group in groups:
            ordered = sorted((members[g] for g in group), key=lambda i: i.canonical_hash)
            kept.append(ordered[0])
            for other in ordered[1:]:
                drops.append(
                    _drop(
                        "near_dedup", "near_duplicate", other, f"merged into {_where(ordered[0])}"
                    )
                )
    kept.sort(key=lambda i: i.canonical_hash)
    return kept, drops


def cap_contributors(items: Sequence[Item], cap: int) -> Stage:
    """Flood control: at most `cap` new items per contributor and release (imports exempt)."""
    per: defaultdict[str, int] = defaultdict(int)
    kept, drops = [], []
    for item in items:
        per[item.contributor] += 1
        if per[item.contributor] > cap and item.origin.kind != "bfcl":
            detail = f"more than {cap} new items from one contributor in one release"
            drops.append(_drop("contributor_cap", "contributor_cap", item, detail))
        else:
            kept.append(item)
    return kept, drops


_QUALITY_STAGES = frozenset({"validate", "scrub", "consistency"})


DEFERRED = "deferred_to_later_release"
"""The drop reason of an entry over the flood cap: it is queued, not lost."""


def cap_function_clusters(
    items: Sequence[Item], signer: Signer, cap: int, *, queued: frozenset[str] = frozenset()
) -> Stage:
    """Flood control: at most `cap` new entries per function cluster (near-identical
    function docs, the near-duplicate stage's clustering) in one release. Entries queued by
    an earlier build go first, then the smallest canonical hash, so the choice does not
    depend on input order. BFCL imports are exempt (they were published as a set)."""
    capped = [i for i in items if i.origin.kind != "bfcl"]
    kept = [i for i in items if i.origin.kind == "bfcl"]
    drops: list[Drop] = []
    for cluster in cluster_texts([function_text(i.functions) for i in capped], signer):
        members = sorted(
            (capped[c] for c in cluster),
            key=lambda i: (_origin_key(i) not in queued, i.canonical_hash),
        )
        kept.extend(members[:cap])
        names = ", ".join(sorted({f.name for f in members[0].functions}))
        for item in members[cap:]:
            detail = (
                f"function cluster {names}: {len(members)} new entries, {cap} per release; "
                "deferred to a later release"
            )
            drops.append(_drop("flood_cap", DEFERRED, item, detail))
    kept.sort(key=lambda i: i.canonical_hash)
    return kept, drops


def _origin_key(item: Item) -> str:
    return f"{item.origin.kind}:{item.origin.ref}"


def _change_summary(old: Item, new: Item) -> str:
    """Why a re-curated entry differs from its released version, for the changelog."""
    parts = []
    if question_text(old) != question_text(new):
        parts.append("question changed")
    if canonical_functions(old.functions) != canonical_functions(new.functions):
        parts.append("function docs changed")
    if old.possible_answer != new.possible_answer:
        parts.append("answer changed")
    if old.category != new.category:
        parts.append(f"category {old.category} -> {new.category}")
    notes = [e for e in new.edits if e not in old.edits]
    old_scrubs = [e for e in old.edits if e.startswith("scrubbed") and e not in new.edits]
    if old_scrubs and ("question changed" in parts or "function docs changed" in parts):
        notes.append(f"the earlier scrub ({', '.join(old_scrubs)}) rewrote text it must not")
    what = ", ".join(parts) or "canonical form changed"
    return f"{what} ({'; '.join(notes)})" if notes else what


def recurate(
    previous: Sequence[Item], added: Sequence[Item], drops: Sequence[Drop]
) -> tuple[dict[str, str], dict[str, str]]:
    """What a re-import of released entries says about them: an entry whose source now
    curates to a different item is superseded by it (a corrected scrub, a pruned answer);
    one whose source is now rejected for a quality reason is withdrawn with that reason.
    Returns (withdrawn id -> reason, superseded id -> new id)."""
    by_origin = {_origin_key(i): i for i in previous}
    withdrawn: dict[str, str] = {}
    superseded: dict[str, str] = {}
    for item in added:
        old = by_origin.get(_origin_key(item))
        if old is not None and old.canonical_hash != item.canonical_hash:
            withdrawn[old.id] = f"superseded by {item.id}: {_change_summary(old, item)}"
            superseded[old.id] = item.id
    for drop in drops:
        old = by_origin.get(f"{drop.origin.kind}:{drop.origin.ref}")
        if old is not None and drop.stage in _QUALITY_STAGES and old.id not in withdrawn:
            withdrawn[old.id] = f"{drop.reason}: {drop.detail}"
    return withdrawn, superseded


def curate(
    new: Sequence[Item],
    *,
    previous: Sequence[Item],
    references: Sequence[Reference],
    registry: Registry,
    settings: CurationSettings,
    version: str,
    intake_drops: Sequence[Drop] = (),
    withdrawn_items: Sequence[Item] = (),
    queued: Sequence[Item] = (),
) -> CurationResult:
    """The next release from `new` items and the `queued` ones an earlier build deferred
    (they go first under the flood cap)."""
    funnel = _Funnel()
    signer = Signer(settings.near_duplicates.settings())
    registry = migrate_ids(registry)
    previous = [p.model_copy(update={"id": bfcl_id(p.id)}) for p in previous]
    queued_keys = frozenset(_origin_key(i) for i in queued)
    new = [*queued, *new]
    funnel.stage("intake", len(new) + len(intake_drops), len(new), list(intake_drops))

    items, drops = validate_items(new, settings)
    funnel.stage("validate", len(new), len(items), drops)

    entered = len(items)
    items, drops, scrubbed = scrub_items(items, settings)
    funnel.stage("scrub", entered, len(items), drops, scrubbed)

    entered = len(items)
    items, drops = hold_contradictions(items, previous)
    funnel.stage("consistency", entered, len(items), drops)

    entered = len(items)
    batch = list(items)
    items, drops = exact_dedup(items, previous, registry)
    funnel.stage("exact_dedup", entered, len(items), drops)
    fresh_twin = {i.canonical_hash: i for i in sorted(batch, key=_origin_key, reverse=True)}

    prints = {i.canonical_hash: _fingerprint(i) for i in items}
    entered = len(items)
    items, drops = drop_contaminated(
        items, prints, references, previous, signer, withdrawn=withdrawn_items
    )
    funnel.stage("contamination", entered, len(items), drops)

    entered = len(items)
    items, drops = merge_near_duplicates(items, prints, signer)
    funnel.stage("near_dedup", entered, len(items), drops)

    entered = len(items)
    items, drops = cap_contributors(items, settings.limits.max_per_contributor)
    funnel.stage("contributor_cap", entered, len(items), drops)

    entered = len(items)
    by_hash = {i.canonical_hash: i for i in items}
    items, drops = cap_function_clusters(
        items, signer, settings.limits.max_per_function_cluster, queued=queued_keys
    )
    funnel.stage("flood_cap", entered, len(items), drops)
    kept_hashes = {i.canonical_hash for i in items}
    deferred = sorted(
        (i for h, i in by_hash.items() if h not in kept_hashes), key=lambda i: i.canonical_hash
    )

    # 6. stable ids
    ids, new_registry = assign_ids(
        [(i.category, i.canonical_hash) for i in items], registry, version
    )
    for item, new_id in zip(items, ids, strict=True):
        item.id = new_id
    withdrawn, superseded = recurate(previous, items, funnel.drops)
    if withdrawn:
        new_registry = withdraw(new_registry, withdrawn, superseded)
    active = {e.id for e in new_registry.entries if e.status == "active"}
    carried = [_refreshed(i, fresh_twin) for i in previous if i.id in active]
    funnel.stage("release", len(carried) + len(items), len(carried) + len(items), [])
    return CurationResult(
        items=sorted([*carried, *items], key=lambda i: i.id),
        added=items,
        drops=funnel.drops,
        funnel=funnel.stages,
        registry=new_registry,
        scrubbed=scrubbed,
        withdrawn=withdrawn,
        superseded=superseded,
        deferred=deferred,
    )


def _refreshed(item: Item, fresh: dict[str, Item]) -> Item:
    """A carried entry with who, where from and under which license taken from its re-import
    (none of them is part of the test's identity)."""
    twin = fresh.get(item.canonical_hash)
    if twin is None:
        return item
    return item.model_copy(
        update={
            "contributor": twin.contributor,
            "license": twin.license,
            "source": twin.source,
            "origin": twin.origin,
            "publish_handle": twin.publish_handle,
        }
    )
