"""The curation settings: limits, accepted licenses and near-duplicate thresholds.

They live in `data/live/curation.yml` so a release records the exact thresholds that built
it; a missing file means the defaults below.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from bfcl_action.core.errors import ConfigError
from curation.models import ACCEPTED_LICENSES
from curation.neardup import NearDupSettings


class Limits(BaseModel):
    """Sizes past which a contribution is rejected rather than trimmed."""

    model_config = ConfigDict(extra="forbid")

    max_question_chars: int = 20_000
    max_functions: int = 64
    max_description_chars: int = 4_000
    max_item_bytes: int = 200_000
    max_schema_depth: int = 8
    max_schema_nodes: int = 2_000
    max_calls: int = 16
    max_per_contributor: int = 500
    """Items one contributor may add to one release; the rest wait for the next."""
    max_per_function_cluster: int = Field(5, ge=1)
    """New entries one function cluster (near-identical function docs) may add to one
    release; the surplus is deferred to later releases (`data/live/deferred.jsonl`), not
    dropped, so one templated tool cannot flood a release. BFCL imports are exempt."""


class NearDupConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    num_perm: int = Field(128, ge=16, le=4096)
    function_threshold: float = Field(0.8, gt=0.0, lt=1.0)
    question_threshold: float = Field(92.0, ge=0.0, le=100.0)
    shingle_words: int = Field(3, ge=1)
    seed: int = 1
    reworded_threshold: float = Field(0.75, gt=0.0, le=1.0)

    @model_validator(mode="after")
    def _lsh_can_be_built(self) -> NearDupConfig:
        """datasketch needs at least two LSH bands; a threshold close to 1 leaves fewer
        (0.99 with 128 permutations), which used to pass here and crash the build. Without
        the `curate` extra (`bfcl-action contribute`) there is no LSH to build, so no check."""
        try:
            from datasketch import MinHashLSH
        except ModuleNotFoundError:
            return self

        try:
            MinHashLSH(threshold=self.function_threshold, num_perm=self.num_perm)
        except ValueError:
            usable = max(
                (t / 100 for t in range(1, 100) if _lsh_ok(t / 100, self.num_perm)), default=0.0
            )
            raise ValueError(
                f"function_threshold {self.function_threshold} is too close to 1 for "
                f"num_perm {self.num_perm} (fewer than 2 LSH bands); use at most {usable} "
                "or raise num_perm"
            ) from None
        return self

    def settings(self) -> NearDupSettings:
        return NearDupSettings(**self.model_dump())


class CurationSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    licenses: list[str] = Field(default_factory=lambda: list(ACCEPTED_LICENSES))
    limits: Limits = Field(default_factory=Limits)
    near_duplicates: NearDupConfig = Field(default_factory=NearDupConfig)


def _lsh_ok(threshold: float, num_perm: int) -> bool:
    from datasketch import MinHashLSH

    try:
        MinHashLSH(threshold=threshold, num_perm=num_perm)
    except ValueError:
        return False
    return True


def load_settings(path: Path) -> CurationSettings:
    """Read `curation.yml`; every problem names the file, line and key."""
    if not path.exists():
        return CurationSettings()
    yaml = YAML(typ="rt")
    try:
        data = yaml.load(path.read_text(encoding="utf-8")) or {}
    except YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise ConfigError(
            f"not valid YAML: {getattr(exc, 'problem', exc)}",
            file=str(path),
            line=mark.line + 1 if mark else None,
        ) from None
    try:
        return CurationSettings.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(p) for p in err["loc"])
        line = _line_of(data, err["loc"])
        raise ConfigError(err["msg"], file=str(path), line=line, field=loc) from None


def _line_of(data: object, loc: tuple[int | str, ...]) -> int | None:
    node = data
    line: int | None = None
    for key in loc:
        lc = getattr(node, "lc", None)
        if lc is None:
            break
        try:
            if isinstance(key, str):
                line = lc.key(key)[0] + 1
                node = node[key]  # type: ignore[index]
            else:
                line = lc.item(key)[0] + 1
                node = node[key]  # type: ignore[index]
        except (KeyError, IndexError, TypeError):
            break
    return line
