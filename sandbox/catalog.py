"""The task catalog: one folder per task under ``fixtures/tasks/<seed id>/``.

``task.yaml`` is loaded into a typed :class:`TaskSpec` that rejects unknown keys; an error
names the file, the key and its line. Adding a task never edits a central list: the catalog
is whatever folders exist (plus any ``--tasks-dir`` given).
"""

from __future__ import annotations

import difflib
import re
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from sandbox import yamltext
from sandbox.clock import DEFAULT_START, parse_sandbox_time
from sandbox.errors import SandboxError
from sandbox.paths import TASKS_DIR

SYSTEM_NAMES = ("ehr", "hyperspace", "powerchart", "acme", "epa", "fax", "regulator", "workspace")
CHANNEL_RULES = ("browser", "desktop", "api")
ID_PATTERN = re.compile(r"^(R09\.03\.01\.0[24]|DEMO)-T\d\d$")
ALIAS_PATTERN = re.compile(r"^(pa|ord|demo)-\d\d$")


class CatalogError(SandboxError, ValueError):
    """A task file is invalid or a task cannot be found."""


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class CreditItem(Strict):
    """One partial-credit item, named and weighted exactly as in the seed."""

    name: str
    percent: int = Field(ge=1, le=100)

    @property
    def weight(self) -> float:
        return self.percent / 100


class InputFile(Strict):
    """A file the task puts in the agent's ``input/`` folder.

    ``kind`` picks the generator (``sandbox.inputs``): ``text`` (``content`` or ``source``),
    ``csv`` (``rows``), ``ics`` (``events``), ``pdf`` (``pages`` of paragraphs, optional
    ``fields`` for a fillable form), ``png`` (``lines`` drawn as a label/photo),
    ``json`` (``data``), ``copy`` (``source``: a file in the task folder).
    """

    path: str
    kind: Literal["text", "csv", "ics", "pdf", "png", "json", "copy"]
    description: str = ""
    content: str | None = None
    source: str | None = None
    rows: list[list[Any]] | None = None
    events: list[dict[str, Any]] | None = None
    pages: list[dict[str, Any]] | None = None
    fields: list[dict[str, Any]] | None = None
    lines: list[dict[str, Any]] | None = None
    data: dict[str, Any] | list[Any] | None = None
    options: dict[str, Any] = Field(default_factory=dict)

    @field_validator("path")
    @classmethod
    def _relative(cls, value: str) -> str:
        if value.startswith("/") or ".." in Path(value).parts:
            raise ValueError("must be a path inside input/, without '..'")
        return value


class Variant(Strict):
    """A twin fixture: same task, different seeded facts (and so a different gold outcome)."""

    description: str
    seed: dict[str, str] = Field(default_factory=dict)  # system -> seed yaml (task folder)
    inputs: list[InputFile] = Field(default_factory=list)  # replace inputs of the same path


class Tags(Strict):
    gui_need: str
    gui_need_ordinary: str
    primitives: list[str]
    conditions: list[str] = Field(default_factory=list)
    work_product: str
    platforms: list[str] = Field(default_factory=list)
    applications: list[str] = Field(default_factory=list)
    interfaces: list[str] = Field(default_factory=list)


class TaskSpec(Strict):
    id: str
    alias: str
    title: str
    family: Literal["prior-auth", "orders", "demo"]  # demo: fixtures/demo, not one of the 40
    seed_instruction: str
    instruction: str
    proposed_verifier: str
    systems: list[str]
    channel: Literal["browser", "desktop", "api"]
    clock: datetime = DEFAULT_START
    seed: dict[str, str] = Field(default_factory=dict)
    inputs: list[InputFile] = Field(default_factory=list)
    outputs: list[str] = Field(default_factory=list)
    variants: dict[str, Variant] = Field(default_factory=dict)
    credit: list[CreditItem]
    # variant -> the score of a seeded run nobody touched (what the ``none`` agent earns)
    untouched: dict[str, float] = Field(default_factory=dict)
    difficulty: int = Field(ge=1, le=5)
    tags: Tags
    may_touch: dict[str, list[str]] = Field(default_factory=dict)  # system -> tables
    notes: str = ""

    # set by the loader, not by the file
    folder: Path | None = Field(default=None, exclude=True)

    @field_validator("id")
    @classmethod
    def _id(cls, value: str) -> str:
        if not ID_PATTERN.match(value):
            raise ValueError("must be a seed id like R09.03.01.04-T01")
        return value

    @field_validator("alias")
    @classmethod
    def _alias(cls, value: str) -> str:
        if not ALIAS_PATTERN.match(value):
            raise ValueError("must look like pa-01 or ord-01")
        return value

    @field_validator("clock", mode="before")
    @classmethod
    def _clock(cls, value: Any) -> datetime:
        return parse_sandbox_time(value if isinstance(value, datetime) else str(value))

    @field_validator("systems")
    @classmethod
    def _systems(cls, value: list[str]) -> list[str]:
        bad = [s for s in value if s not in SYSTEM_NAMES]
        if bad:
            raise ValueError(f"unknown systems {bad}; known: {', '.join(SYSTEM_NAMES)}")
        return value

    @model_validator(mode="after")
    def _consistent(self) -> TaskSpec:
        total = sum(item.percent for item in self.credit)
        if total != 100:
            raise ValueError(f"credit percents sum to {total}, not 100")
        family, number = self.id.rsplit("-T", 1)
        prefix, want_family = {"DEMO": ("demo", "demo")}.get(
            family, ("pa", "prior-auth") if family.endswith("04") else ("ord", "orders"))
        want_alias = f"{prefix}-{number}"
        if self.alias != want_alias:
            raise ValueError(f"alias {self.alias!r} does not match id {self.id} (want {want_alias})")
        if self.family != want_family:
            raise ValueError(f"family must be {want_family!r} for {self.id}")
        for system in self.seed:
            if system not in self.systems:
                raise ValueError(f"seed names system {system!r} that is not in systems")
        for variant, score in self.untouched.items():
            if variant not in self.variant_names:
                raise ValueError(f"untouched names variant {variant!r}; the task has "
                                 f"{', '.join(self.variant_names)}")
            if not 0.0 <= score <= 1.0:
                raise ValueError(f"untouched score of {variant} must lie in [0, 1], not {score}")
        return self

    @property
    def variant_names(self) -> list[str]:
        return ["default", *sorted(self.variants)]

    def summary(self) -> dict[str, Any]:
        """The JSON entry of ``ehr-sandbox tasks --json``."""
        return {
            "id": self.id,
            "alias": self.alias,
            "title": self.title,
            "family": self.family,
            "systems": list(self.systems),
            "difficulty": self.difficulty,
            "variants": self.variant_names,
            "channel": self.channel,
            "credit": [
                {"name": c.name, "weight": float(Decimal(c.percent) / 100), "percent": c.percent}
                for c in self.credit
            ],
        }


# -- loading with line numbers -----------------------------------------------------------
def _line_of(node: yaml.Node | None, loc: tuple[Any, ...]) -> int | None:
    """Follow a pydantic error location through the YAML node tree to a line number."""
    line = node.start_mark.line + 1 if node is not None else None
    for part in loc:
        if isinstance(node, yaml.MappingNode):
            for key_node, value_node in node.value:
                if key_node.value == part:
                    line = key_node.start_mark.line + 1
                    node = value_node
                    break
            else:
                return line
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int):
            if part < len(node.value):
                node = node.value[part]
                line = node.start_mark.line + 1
            else:
                return line
        else:
            return line
    return line


def load_task(path: Path) -> TaskSpec:
    """Load one ``task.yaml``; errors name the file, the key and its line."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise CatalogError(f"{path}: cannot read ({exc.strerror})") from exc
    try:
        data = yamltext.safe_load(text)
    except yaml.YAMLError as exc:
        raise CatalogError(f"{path}: not valid YAML: {exc}") from exc
    if not isinstance(data, dict):
        raise CatalogError(f"{path}: must be a mapping of task fields")
    try:
        spec = TaskSpec.model_validate(data)
    except ValidationError as exc:
        node = yamltext.compose(text)  # the node tree only to say on which line
        messages = []
        for err in exc.errors():
            loc = tuple(err["loc"])
            key = ".".join(str(p) for p in loc) or "(top level)"
            line = _line_of(node, loc)
            what = "unknown key" if err["type"] == "extra_forbidden" else err["msg"]
            messages.append(f"{path}:{line}: {key}: {what}")
        raise CatalogError("\n".join(messages)) from exc
    if path.parent.name != spec.id:
        raise CatalogError(f"{path}: folder name must be the task id {spec.id}")
    return spec.model_copy(update={"folder": path.parent})


class Catalog:
    """Every task found in one or more task directories."""

    def __init__(self, dirs: list[Path] | None = None):
        self.dirs = [Path(d) for d in (dirs or [TASKS_DIR])]
        self._tasks: dict[str, TaskSpec] = {}
        for base in self.dirs:
            if not base.is_dir():
                raise CatalogError(f"no task directory at {base}")
            for task_yaml in sorted(base.glob("*/task.yaml")):
                spec = load_task(task_yaml)
                if spec.id in self._tasks:
                    raise CatalogError(f"{task_yaml}: task {spec.id} is defined twice")
                self._tasks[spec.id] = spec

    def __iter__(self):
        return iter(sorted(self._tasks.values(), key=_order))

    def __len__(self) -> int:
        return len(self._tasks)

    def get(self, key: str) -> TaskSpec:
        """A task by seed id or alias; unknown keys get close matches."""
        if key in self._tasks:
            return self._tasks[key]
        for spec in self._tasks.values():
            if spec.alias == key.lower():
                return spec
        names = list(self._tasks) + [s.alias for s in self._tasks.values()]
        close = []
        loose = re.match(r"^\s*(pa|ord)\W*0*(\d{1,2})\s*$", key, re.IGNORECASE)
        if loose:
            guess = f"{loose.group(1).lower()}-{int(loose.group(2)):02d}"
            if guess in names:
                close.append(guess)
        close += [n for n in difflib.get_close_matches(key, names, n=3, cutoff=0.5)
                  if n not in close]
        close = close[:3]
        hint = f"; did you mean {', '.join(close)}?" if close else "; run 'ehr-sandbox tasks'"
        raise CatalogError(f"unknown task {key!r}{hint}")

    def select(self, expr: str) -> list[TaskSpec]:
        """``all``, ``ord``, ``pa``, or comma-separated ids/aliases."""
        if expr == "all":
            return list(self)
        if expr in ("ord", "orders"):
            return [s for s in self if s.family == "orders"]
        if expr in ("pa", "prior-auth"):
            return [s for s in self if s.family == "prior-auth"]
        return [self.get(part.strip()) for part in expr.split(",") if part.strip()]


def _order(spec: TaskSpec) -> tuple[bool, str]:
    return (spec.family != "prior-auth", spec.id)


def load_catalog(extra_dirs: list[Path] | None = None) -> Catalog:
    return Catalog([TASKS_DIR, *(extra_dirs or [])])
