"""A small reader of the seed task proposals in ``fixtures/seeds/*.txt``.

The two seed documents are page text copied from two renderings of the same catalogue: one
puts each metadata field on a ``Label: value`` line, the other glues labels and values
together (``type· Text & formsclick· Point & click- Work product``). Tests compare every
``task.yaml`` with these words, so the reader is strict: a block it cannot read fails with
the task id and what was unexpected, rather than yielding a half-parsed task.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

TASK_HEADER = re.compile(r"^(R09\.03\.01\.0[24]-T\d\d) (.+)$", re.MULTILINE)
END_OF_TASKS = "Mapped research references"
META_LABELS = (
    "Platforms",
    "Applications",
    "Interfaces",
    "GUI need · task setting",
    "GUI need · ordinary access",
    "Interaction primitives",
    "Work product",
    "Conditions",
    "Proposed difficulty",
)
# code -> the words the seeds print after "code ·"; used to split the glued rendering.
CODE_WORDS = {
    "primitives": {
        "type": "Text & forms", "click": "Point & click", "multi": "Cross-app",
        "nav": "Pan/zoom/scroll", "vis": "Visual judgment", "drag": "Drag & drop",
        "code": "Code & commands",
    },
    "conditions": {
        "multiapp": "Multi-app", "clarify": "Ask when unclear", "hidden": "Hidden/stale state",
        "interrupt": "Interruptions", "long": "Long-horizon", "licensed": "Licensed pro app",
        "risk": "Irreversible/risky",
    },
    "platforms": {"web": "Any OS (web)", "win": "Windows", "lin": "Linux", "mac": "macOS"},
    "interfaces": {"brow": "Browser", "desk": "Desktop GUI", "api": "API/SDK"},
}


class SeedTextError(ValueError):
    """A seed document does not have the shape this reader knows."""


@dataclass(frozen=True)
class SeedCredit:
    name: str
    percent: int


@dataclass(frozen=True)
class SeedTask:
    """One task proposal, with its words kept verbatim and its tags reduced to codes."""

    id: str
    title: str
    instruction: str
    verifier: str
    credit: tuple[SeedCredit, ...]
    difficulty: int
    gui_need: str
    gui_need_ordinary: str
    work_product: str
    primitives: tuple[str, ...]
    conditions: tuple[str, ...]
    platforms: tuple[str, ...]
    interfaces: tuple[str, ...]
    applications: tuple[str, ...]


def load_seeds(seeds_dir: Path) -> dict[str, SeedTask]:
    """Every task of every ``*.txt`` seed document in ``seeds_dir``, by seed id."""
    files = sorted(Path(seeds_dir).glob("*.txt"))
    if not files:
        raise SeedTextError(
            f"no seed documents (*.txt) in {seeds_dir}: the task proposals are kept in "
            "fixtures/seeds/ (sandbox.paths.SEEDS_DIR)"
        )
    tasks: dict[str, SeedTask] = {}
    for path in files:
        for task in parse_seed_document(path.read_text(encoding="utf-8")):
            if task.id in tasks:
                raise SeedTextError(f"{path.name}: task {task.id} appears twice")
            tasks[task.id] = task
    return tasks


def parse_seed_document(text: str) -> list[SeedTask]:
    """The tasks of one seed document, in document order."""
    headers = list(TASK_HEADER.finditer(text))
    tasks = []
    for i, match in enumerate(headers):
        end = headers[i + 1].start() if i + 1 < len(headers) else len(text)
        body = text[match.end():end].split(END_OF_TASKS, 1)[0]
        try:
            tasks.append(_parse_task(match.group(1), match.group(2).strip(), body))
        except SeedTextError as exc:
            raise SeedTextError(f"{match.group(1)}: {exc}") from exc
    return tasks


def _section(body: str, heading: str, until: str | None) -> str:
    """The non-empty lines between a heading line and the next heading (or the end)."""
    lines = body.splitlines()
    try:
        start = next(i for i, line in enumerate(lines) if line.strip() == heading) + 1
    except StopIteration:
        raise SeedTextError(f"no {heading!r} heading") from None
    stop = len(lines)
    if until is not None:
        stop = next(
            (i for i in range(start, len(lines)) if lines[i].strip() == until), len(lines)
        )
    return "\n".join(line.strip() for line in lines[start:stop] if line.strip())


def _parse_task(task_id: str, title: str, body: str) -> SeedTask:
    head = _section(body, "Original instruction", "Proposed verifier")
    # the instruction ends where the first metadata label starts ("Platforms:" / "- Platforms")
    meta_start = re.search(r"^(?:- )?Platforms\b", head, re.MULTILINE)
    if meta_start is None:
        raise SeedTextError("no 'Platforms' field after the instruction")
    instruction = head[: meta_start.start()].strip()
    meta = _metadata(head[meta_start.start():])
    credit_text = _section(body, "Proposed partial credit", None)
    difficulty = re.fullmatch(r"(\d) / 5", meta["Proposed difficulty"])
    if difficulty is None:
        raise SeedTextError(f"difficulty {meta['Proposed difficulty']!r} is not 'N / 5'")
    conditions = meta["Conditions"]
    return SeedTask(
        id=task_id,
        title=title,
        instruction=instruction,
        verifier=_section(body, "Proposed verifier", "Proposed partial credit"),
        credit=_credit(credit_text),
        difficulty=int(difficulty.group(1)),
        gui_need=_leading_code(meta["GUI need · task setting"]),
        gui_need_ordinary=_leading_code(meta["GUI need · ordinary access"]),
        work_product=_leading_code(meta["Work product"]),
        primitives=_codes(meta["Interaction primitives"], "primitives"),
        conditions=() if conditions == "None declared" else _codes(conditions, "conditions"),
        platforms=_codes(meta["Platforms"], "platforms"),
        interfaces=_codes(meta["Interfaces"], "interfaces"),
        applications=tuple(a.strip() for a in meta["Applications"].split("·")),
    )


def _metadata(text: str) -> dict[str, str]:
    """Label -> value, for both renderings (``Label: value`` lines or glued ``- Label``)."""
    positions = []
    cursor = 0
    for label in META_LABELS:
        found = re.compile(r"(?:- ?)?" + re.escape(label) + r":?").search(text, cursor)
        if found is None:
            raise SeedTextError(f"no {label!r} field")
        positions.append((label, found.start(), found.end()))
        cursor = found.end()
    values = {}
    for i, (label, _start, value_start) in enumerate(positions):
        value_end = positions[i + 1][1] if i + 1 < len(positions) else len(text)
        lines = text[value_start:value_end].splitlines()
        parts = [re.sub(r"^- ?", "", line.strip()) for line in lines]
        values[label] = " ".join(p for p in parts if p).strip()
    return values


def _leading_code(value: str) -> str:
    code = re.match(r"([A-Z]+\d*)\s?·", value)
    if code is None:
        raise SeedTextError(f"no code in {value!r}")
    return code.group(1)


def _codes(value: str, kind: str) -> tuple[str, ...]:
    """Codes of a ``code · Words code · Words`` list, with or without spaces between pairs."""
    pairs = CODE_WORDS[kind]
    pair = re.compile(
        "|".join(rf"({re.escape(code)}) ?· ?{re.escape(words)}" for code, words in pairs.items())
    )
    codes = []
    pos = 0
    while pos < len(value):
        if value[pos] == " ":
            pos += 1
            continue
        found = pair.match(value, pos)
        if found is None:
            raise SeedTextError(f"unknown {kind} entry at {value[pos:]!r}")
        codes.append(next(g for g in found.groups() if g is not None))
        pos = found.end()
    return tuple(codes)


def _credit(text: str) -> tuple[SeedCredit, ...]:
    items = []
    for part in text.split(";"):
        found = re.fullmatch(r"(\d+)% (.+)", part.strip())
        if found is None:
            raise SeedTextError(f"partial-credit part {part.strip()!r} is not 'NN% name'")
        items.append(SeedCredit(name=found.group(2), percent=int(found.group(1))))
    return tuple(items)
