"""`.bfcl.yml`: the one configuration file of a repository that uses bfcl-action.

Loaded with ruamel.yaml (so every error has a line and column) into `BfclConfig`, a pydantic
model that forbids unknown keys: a typo is reported, not silently ignored. Every error of the
file is reported at once. The key reference is docs/own-tools.md.
"""

from __future__ import annotations

import contextlib
import re
from pathlib import Path
from typing import Annotated, Any, Literal, get_args, get_origin
from urllib.parse import urlsplit

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from rapidfuzz import process

from bfcl_action.core.categories import CATEGORIES, Group, did_you_mean
from bfcl_action.core.cost import Price
from bfcl_action.core.errors import ConfigError, InputError
from bfcl_action.core.records import Mode, SourceLocation
from bfcl_action.safety.budget import read_text
from bfcl_action.safety.credentials import key_variable_problem
from bfcl_action.safety.redact import shorten
from bfcl_action.settings.thresholds import STRICT_KEYS, CategoryKey, Thresholds
from bfcl_action.tools.servers import ToolEntry
from bfcl_action.tools.source import Document, ParseError, parse_yaml
from bfcl_action.tools.validate import ToolLimits

CONFIG_NAMES = (".bfcl.yml", ".bfcl.yaml")
DEFAULT_DATASET = "bfcl@2026.3.23"
DEFAULT_LIVE_DATASET = "live@latest"
DEFAULT_POOLS = [DEFAULT_DATASET, DEFAULT_LIVE_DATASET]


def _as_list(value: Any) -> Any:
    return [value] if isinstance(value, str) else value


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SuitesConfig(_Strict):
    """Which categories to evaluate."""

    own: list[str] = Field(default_factory=lambda: ["own"])
    """Own categories (`own_simple`, ..., `own_irrelevance`, `own_distractors`) or `own`."""
    official: list[str] = Field(default_factory=list)
    """Official BFCL categories or groups (`non_live`, `live`, `hallucination`, `multi_turn`),
    from `dataset`. Multi-turn runs only when named (never through `all`) and needs the
    official environments installed (docs/multi-turn.md)."""
    live: list[str] = Field(default_factory=list)
    """Categories of the weekly Live set (`live_simple`, ...; `all`), from `live_dataset`."""
    dataset: str = DEFAULT_DATASET
    live_dataset: str = DEFAULT_LIVE_DATASET

    _norm_own = field_validator("own", "official", "live", mode="before")(_as_list)

    @field_validator("own")
    @classmethod
    def _own_categories(cls, value: list[str]) -> list[str]:
        own = [n for n, c in CATEGORIES.items() if c.group is Group.OWN]
        for item in value:
            if item != "own" and item not in own:
                raise ValueError(
                    f"{item!r} is not an own category{did_you_mean(item, ['own', *own])} "
                    "(expected 'own' or one of " + ", ".join(own) + ")"
                )
        return value

    @field_validator("official")
    @classmethod
    def _official_categories(cls, value: list[str]) -> list[str]:
        groups = {
            Group.NON_LIVE.value,
            Group.LIVE.value,
            Group.HALLUCINATION.value,
            Group.MULTI_TURN.value,
            "all",
        }
        for item in value:
            cat = CATEGORIES.get(item)
            if item not in groups and (cat is None or not cat.official):
                names = [*groups, *(n for n, c in CATEGORIES.items() if c.official)]
                raise ValueError(
                    f"{item!r} is not an official BFCL category or group{did_you_mean(item, names)}"
                )
        return value

    @field_validator("live")
    @classmethod
    def _live_categories(cls, value: list[str]) -> list[str]:
        for item in value:
            cat = CATEGORIES.get(item)
            if item != "all" and (cat is None or not cat.live):
                names = ["all", *(n for n, c in CATEGORIES.items() if c.live)]
                raise ValueError(
                    f"{item!r} is not a Live category (live_simple, ...) or 'all'"
                    f"{did_you_mean(item, names)}"
                )
        return value

    def own_categories(self) -> list[str]:
        """The own categories selected, group `own` expanded."""
        own = [n for n, c in CATEGORIES.items() if c.group is Group.OWN]
        if "own" in self.own:
            return own
        return [n for n in own if n in self.own]


class IrrelevanceSuite(_Strict):
    """`own_irrelevance` from pools: unrelated questions asked with your tools."""

    enabled: bool = True
    count: int = Field(default=50, ge=0)
    """How many pool questions to sample (fewer if the filtered pool is smaller)."""
    pools: list[str] = Field(default_factory=lambda: list(DEFAULT_POOLS))
    """Dataset specs (`bfcl@...`, `live@...`) or BFCL JSONL files relative to .bfcl.yml."""
    max_similarity: float = Field(default=90.0, ge=0, le=100)
    """A question sharing a word this similar (0-100, rapidfuzz ratio) with a tool's name or
    description is dropped: it might be answerable with your tools."""
    exclude_ids: list[str] = Field(default_factory=list)


class DistractorSuite(_Strict):
    """`own_distractors`: each own simple case re-asked with k extra pool functions."""

    enabled: bool = True
    k: list[int] = Field(default_factory=lambda: [0, 4, 16, 32])
    pools: list[str] = Field(default_factory=lambda: list(DEFAULT_POOLS))
    max_similarity: float = Field(default=85.0, ge=0, le=100)
    """Pool functions at least this close to one of your tools are never used as distractors."""

    @field_validator("k")
    @classmethod
    def _k(cls, value: list[int]) -> list[int]:
        if any(k < 0 for k in value):
            raise ValueError("k values must be >= 0")
        return sorted(set(value))


class DerivedConfig(_Strict):
    irrelevance: IrrelevanceSuite = Field(default_factory=IrrelevanceSuite)
    distractors: DistractorSuite = Field(default_factory=DistractorSuite)


class ModelSettings(_Strict):
    """The `model:` section: how the model is called. Every key is optional; an unset key
    takes the value of `bfcl_action.settings.resolve.DEFAULTS` and command-line options / Action
    inputs win over the file (`bfcl_action.settings.resolve.resolve_run_settings`)."""

    name: str | None = None
    """Model id for the OpenAI-compatible endpoint, or `replay:PATH` (a BFCL result file)."""
    mode: Mode | None = None
    base_url: str | None = None
    api_key_env: str | None = None
    """Name of the environment variable holding the API key (never the key itself)."""
    temperature: float | Literal["omit"] | None = None
    """`omit` sends none: reasoning models (o-series, gpt-5) accept only their default."""
    top_p: float | None = Field(default=None, gt=0, le=1)
    max_tokens: int | None = Field(default=None, gt=0)
    seed: int | None = None
    samples: int | None = Field(default=None, ge=1)
    concurrency: int | None = Field(default=None, ge=1)
    timeout_s: float | None = Field(default=None, gt=0)
    retries: int | None = Field(default=None, ge=0)

    @field_validator("base_url")
    @classmethod
    def _base_url(cls, value: str | None) -> str | None:
        if value is None:
            return value
        parts = urlsplit(value.strip())
        if parts.scheme not in {"http", "https"} or not parts.hostname:
            raise ValueError(
                "expected an http:// or https:// URL naming a host (e.g. http://127.0.0.1:8000/v1)"
            )
        return value

    @field_validator("api_key_env")
    @classmethod
    def _api_key_env(cls, value: str | None, info: ValidationInfo) -> str | None:
        from_file = not (info.context or {}).get("key_variables_from_workflow", False)
        problem = key_variable_problem(value, from_file=from_file) if value is not None else None
        if problem:
            raise ValueError(problem)
        return value

    @field_validator("temperature", mode="before")
    @classmethod
    def _temperature(cls, value: Any) -> Any:
        if value == "omit" or value is None:
            return value
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            raise ValueError(
                "expected a number >= 0, or `omit` to send none (models that accept only "
                f"their default) (found {value!r:.60})"
            )
        return float(value)


LABEL = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,79}")
"""A matrix entry's label: it names the model in the comment, its digest in the check run
and (scheduled runs) its own check run `<check-name>/<label>` and history file."""


class MatrixModel(ModelSettings):
    """One entry of `models:` (docs/model-matrix.md): a model evaluated on the same cases as
    the others. Its keys win over `model:` and over the Action's / command line's model
    options; everything it leaves unset comes from there."""

    name: str  # required here, optional in `model:`
    label: str | None = None
    """How the comment, the digest and the check run name this entry (default: `name`).
    Two entries may share a model name (e.g. `fc` and `prompt`) but not a label."""
    informational: bool = False
    """Reported, never fails the check (a candidate you are only watching)."""

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("a model name is required")
        return value

    @field_validator("label")
    @classmethod
    def _label(cls, value: str | None) -> str | None:
        if value is not None and not LABEL.fullmatch(value):
            raise ValueError(
                "expected 1-80 characters: letters, digits and . _ : / @ + - "
                f"(starting with a letter or digit), found {value!r:.90}"
            )
        return value

    def over(self, shared: ModelSettings) -> ModelSettings:
        """This entry's `model:` section: `shared` (the file's `model:`) with the entry's
        own keys on top (what `impact` predicts the entry sends)."""
        own = self.model_dump(exclude_none=True, include=set(ModelSettings.model_fields))
        return ModelSettings.model_validate(
            {**shared.model_dump(exclude_none=True), **own},
            context={"key_variables_from_workflow": True},  # both parts were checked already
        )

    @property
    def key(self) -> str:
        """The entry's label, else its model name (made label-safe)."""
        if self.label:
            return self.label
        cleaned = re.sub(r"[^A-Za-z0-9._:/@+-]", "-", self.name).strip("-") or "model"
        return cleaned if cleaned[0].isalnum() else "m" + cleaned[:79]


def check_matrix(models: list[MatrixModel]) -> list[MatrixModel]:
    """Labels are unique (they pair each model with its own baseline)."""
    seen: dict[str, int] = {}
    for index, entry in enumerate(models):
        if entry.key in seen:
            raise ValueError(
                f"entries {seen[entry.key]} and {index} are both labelled {entry.key!r}: give "
                "one a `label:` (e.g. `label: {0}-prompt`)".format(entry.key)
            )
        seen[entry.key] = index
    return models


_INPUT_KEYS = {
    "label": "label",
    "base-url": "base_url",
    "mode": "mode",
    "api-key-env": "api_key_env",
    "temperature": "temperature",
    "top-p": "top_p",
    "max-tokens": "max_tokens",
    "seed": "seed",
    "samples": "samples",
    "concurrency": "concurrency",
    "timeout": "timeout_s",
    "retries": "retries",
    "informational": "informational",
}
"""`models` input key -> `MatrixModel` field (the input spells keys as the Action does)."""


def parse_models_input(text: str, source: str = "the `models` input") -> list[MatrixModel]:
    """The Action's multi-line `models` input: one model per line, `NAME [KEY=VALUE ...]`
    (`#` starts a comment), e.g. `llama-3.1-70b base-url=https://host/v1 mode=prompt
    api-key-env=TOGETHER_API_KEY informational=true`. Errors name the line and the key."""
    entries: list[MatrixModel] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = re.sub(r"(^|\s)#.*$", "", raw).strip()
        if not line:
            continue
        name, *pairs = line.split()
        values: dict[str, Any] = {"name": name}
        for pair in pairs:
            key, sep, value = pair.partition("=")
            if not sep or key not in _INPUT_KEYS:
                near = process.extractOne(key, list(_INPUT_KEYS)) if key else None
                hint = f"; did you mean {near[0]!r}?" if near and near[1] >= 70 else ""
                raise ConfigError(
                    f"expected KEY=VALUE with KEY one of {', '.join(_INPUT_KEYS)}, found "
                    f"{pair!r:.60}{hint}",
                    file=source,
                    line=number,
                    field="models",
                )
            if key == "temperature" and value != "omit":
                with contextlib.suppress(ValueError):
                    values["temperature"] = float(value)
                    continue
            values[_INPUT_KEYS[key]] = value
        try:
            entries.append(
                MatrixModel.model_validate(values, context={"key_variables_from_workflow": True})
            )
        except ValidationError as exc:
            first = exc.errors()[0]
            key = next((k for k, v in _INPUT_KEYS.items() if v == first["loc"][0]), "name")
            message = str(first["msg"]).removeprefix("Value error, ")
            raise ConfigError(message, file=source, line=number, field=f"models: {key}") from None
    try:
        return check_matrix(entries)
    except ValueError as exc:
        raise ConfigError(str(exc), file=source, field="models") from None


class BfclConfig(_Strict):
    """The whole `.bfcl.yml`; every key has a default, so an empty file is valid."""

    version: int = 1
    tools: list[ToolEntry] = Field(default_factory=list)
    """Globs of tool files, relative to the config file, and tool servers
    (`- mcp: {command: [...]}`, `bfcl_action.tools.servers`)."""
    tools_exclude: list[str] = Field(default_factory=list)
    tool_limits: ToolLimits = Field(default_factory=ToolLimits)
    cases: list[str] = Field(default_factory=list)
    """Globs of own case files (YAML), relative to the config file."""
    multi_turn: list[str] = Field(default_factory=list)
    """Globs of own multi-turn case files (JSON Lines, docs/multi-turn.md), relative to the
    config file; their environments are imported from the case file's directory."""
    environments: dict[str, str] = Field(default_factory=dict)
    """Environment name -> `module:Class` for multi-turn cases that do not name their own."""
    suites: SuitesConfig = Field(default_factory=SuitesConfig)
    derived: DerivedConfig = Field(default_factory=DerivedConfig)
    seed: int = 0
    """Fixes every sample (derived suites, `--sample`)."""
    model: ModelSettings = Field(default_factory=ModelSettings)
    models: list[MatrixModel] = Field(default_factory=list)
    """A model matrix (docs/model-matrix.md): every entry is evaluated on the same cases and
    compared with its own baseline; `model:` holds what the entries share."""
    thresholds: Thresholds = Field(default_factory=Thresholds)
    weights: dict[CategoryKey, Annotated[float, Field(ge=0)]] = Field(default_factory=dict)
    """Per-category (or suite) weight in the overall own score; default 1."""
    pricing: dict[str, Price] = Field(default_factory=dict)
    """Model name (or glob) -> US dollars per million tokens (docs/cost.md)."""

    _doc: Document | None = PrivateAttr(default=None)
    _norm = field_validator("tools", "tools_exclude", "cases", "multi_turn", mode="before")(
        _as_list
    )

    @field_validator("models")
    @classmethod
    def _models(cls, value: list[MatrixModel]) -> list[MatrixModel]:
        return check_matrix(value)

    @model_validator(mode="after")
    def _tool_profile(self) -> BfclConfig:
        """`tool_limits.provider` unset follows the endpoints in this file: OpenAI's limits if
        any model is sent to OpenAI's API, else the generic profile (a `--base-url` or
        `OPENAI_BASE_URL` given outside the file does not move it: set the key then)."""
        if self.tool_limits.provider is None:
            urls = [m.over(self.model).base_url for m in self.models] or [self.model.base_url]
            profiles = {self.tool_limits.for_endpoint(u).provider for u in urls}
            provider = "openai" if "openai" in profiles else "generic"
            self.tool_limits = self.tool_limits.model_copy(update={"provider": provider})
        return self

    @field_validator("version")
    @classmethod
    def _version(cls, value: int) -> int:
        if value != 1:
            raise ValueError(f"unsupported config version {value}; expected 1")
        return value

    def where(self, *path: str | int) -> SourceLocation | None:
        """Where a key of the file is (for errors about values found valid here but unusable
        later, such as a tools glob that matches nothing)."""
        if self._doc is None:
            return None
        pos = self._doc.where(tuple(path))
        line, col = pos if pos else (None, None)
        return SourceLocation(file=self._doc.file, line=line, column=col)

    def origins(self, key: str) -> list[SourceLocation]:
        """Where each item of a list setting (`tools`, `cases`) was written."""
        items = getattr(self, key)
        out = []
        for i in range(len(items)):
            out.append(self.where(key, i) or SourceLocation(file=self.source_file))
        return out

    @property
    def tool_globs(self) -> list[str]:
        """The `tools:` entries that are globs of tool files (not servers)."""
        return [e for e in self.tools if isinstance(e, str)]

    @property
    def source_file(self) -> str:
        return self._doc.file if self._doc else CONFIG_NAMES[0]


def _fields_at(model: type[BaseModel], loc: tuple[Any, ...]) -> list[str] | None:
    """Known keys of the nested model at `loc` (for 'did you mean' on unknown keys)."""
    current: Any = model
    for part in loc:
        if isinstance(part, int):  # an item of a list, whose type was taken below
            continue
        if not (isinstance(current, type) and issubclass(current, BaseModel)):
            return None
        info = current.model_fields.get(str(part))
        if info is None:
            return None
        current = info.annotation
        args = get_args(current)
        if get_origin(current) is dict and len(args) == 2:
            current = args[1]
        elif get_origin(current) is list and len(args) == 1:
            current = args[0]
    if isinstance(current, type) and issubclass(current, BaseModel):
        return list(current.model_fields)
    return None


def _render_error(err: Any, doc: Document) -> tuple[int, int, str]:
    loc = tuple(err["loc"])
    is_key = bool(loc) and loc[-1] == "[key]"
    if is_key:
        loc = loc[:-1]
    field = ".".join(str(p) for p in loc) or "(file)"
    kind = err["type"]
    if is_key:
        message = str(err["msg"]).removeprefix("Value error, ")
        pos = doc.where(loc, key=True)
    elif kind == "extra_forbidden":
        known = _fields_at(BfclConfig, loc[:-1]) or []
        near = process.extractOne(str(loc[-1]), known) if known else None
        hint = f"; did you mean {near[0]!r}?" if near and near[1] >= 70 else ""
        message = f"unknown key{hint} (expected one of: {', '.join(known)})"
        pos = doc.where(loc, key=True)
    else:
        message = str(err["msg"]).removeprefix("Value error, ")
        if kind != "value_error" and "input" in err:
            found = err["input"]
            text = repr(found)
            message += f" (found {shorten(text, 60, '...')})"
        pos = doc.where(loc)
    line, col = pos or (0, 0)
    where = doc.file + (f":{line}:{col}" if line else "")
    return line, col, f"{where}: {field}: {message}"


def parse_config(text: str, file: str = ".bfcl.yml") -> BfclConfig:
    """Parse config text; raises `ConfigError` listing every problem with its line."""
    try:
        doc = parse_yaml(text, file)
    except ParseError as exc:
        raise ConfigError(exc.message, file=file, line=exc.line, column=exc.column) from None
    data = doc.data if doc.data is not None else {}
    if not isinstance(data, dict):
        raise ConfigError("expected a mapping of settings", file=file, line=1, column=1)
    try:
        config = BfclConfig.model_validate(data, context={STRICT_KEYS: True})
    except ValidationError as exc:
        lines = [text for _, _, text in sorted(_render_error(err, doc) for err in exc.errors())]
        count = len(lines)
        head = f"{count} error{'s' if count != 1 else ''} in {file}"
        raise ConfigError(head + ":\n" + "\n".join(f"  {ln}" for ln in lines)) from None
    config._doc = doc
    return config


def load_config(path: Path, display: str | None = None) -> BfclConfig:
    """Read `.bfcl.yml`; a missing file is an error naming the path."""
    name = display or str(path)
    try:
        text = read_text(path, display=name)
    except InputError as exc:
        raise ConfigError(f"cannot read config: {exc.message}", file=name) from None
    return parse_config(text, name)


def find_config(start: Path) -> Path | None:
    """The `.bfcl.yml` in `start` or its nearest parent directory."""
    for directory in [start, *start.parents]:
        for name in CONFIG_NAMES:
            candidate = directory / name
            if candidate.is_file():
                return candidate
    return None
