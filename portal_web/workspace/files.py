"""The Workspace's folders and file kinds, with no web code.

Paths from a request are resolved inside their folder only (no ``..``, no absolute paths,
no hidden names, no symlinks out), so the Workspace can never show or write a file outside
the episode's run directory.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path

# area name in URLs -> (run-dir folder, title, writable)
AREAS: dict[str, tuple[str, str, bool]] = {
    "documents": ("input", "Documents", False),
    "output": ("output", "Output", True),
    "downloads": ("downloads", "Downloads", False),
}
TEXT_SUFFIXES = {".txt", ".md", ".json", ".xml", ".hl7", ".x12", ".edi", ".log", ".yaml"}
IMAGE_SUFFIXES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg",
                  ".gif": "image/gif"}
EDITABLE_SUFFIXES = (".csv", ".txt")
NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9 ._()+-]{0,119}")  # the whole name: fullmatch
MAX_UPLOAD_BYTES = 25 * 1024 * 1024
PARTIAL_SUFFIXES = (".crdownload", ".partial", ".tmp")


class WorkspaceError(ValueError):
    """A request names a file or folder the Workspace cannot serve; ``status`` is HTTP."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class FileEntry:
    area: str
    name: str
    size: int
    kind: str

    @property
    def size_label(self) -> str:
        if self.size < 1024:
            return f"{self.size} B"
        if self.size < 1024 * 1024:
            return f"{self.size / 1024:.1f} KB"
        return f"{self.size / 1024 / 1024:.1f} MB"


def kind_of(name: str) -> str:
    """What the viewer does with a file: text, csv, image, pdf, ics or other."""
    suffix = Path(name).suffix.lower()
    if suffix == ".csv":
        return "csv"
    if suffix == ".pdf":
        return "pdf"
    if suffix == ".ics":
        return "ics"
    if suffix in IMAGE_SUFFIXES:
        return "image"
    if suffix in TEXT_SUFFIXES:
        return "text"
    return "other"


def media_type(name: str) -> str:
    suffix = Path(name).suffix.lower()
    if suffix in IMAGE_SUFFIXES:
        return IMAGE_SUFFIXES[suffix]
    return {"pdf": "application/pdf", "csv": "text/csv; charset=utf-8",
            "ics": "text/calendar; charset=utf-8",
            "text": "text/plain; charset=utf-8"}.get(kind_of(name), "application/octet-stream")


class WorkspaceFiles:
    """The three folders of one run directory."""

    def __init__(self, run_dir: Path):
        self.run_dir = Path(run_dir)

    def folder(self, area: str) -> Path:
        if area not in AREAS:
            raise WorkspaceError(f"There is no folder {area!r}; folders: "
                                 f"{', '.join(t for _, t, _ in AREAS.values())}.", 404)
        path = self.run_dir / AREAS[area][0]
        path.mkdir(parents=True, exist_ok=True)
        return path

    def writable(self, area: str) -> bool:
        return AREAS[area][2] if area in AREAS else False

    def listing(self, area: str) -> list[FileEntry]:
        folder = self.folder(area)
        entries = []
        for path in sorted(folder.iterdir(), key=lambda p: p.name.lower()):
            if (path.name.startswith(".") or not path.is_file() or path.is_symlink()
                    or path.name.endswith(PARTIAL_SUFFIXES)):
                continue
            entries.append(FileEntry(area, path.name, path.stat().st_size, kind_of(path.name)))
        return entries

    def path(self, area: str, name: str, *, must_exist: bool = True) -> Path:
        """The file ``name`` of ``area``, refusing anything that would leave the folder."""
        check_name(name)
        folder = self.folder(area)
        path = folder / name
        if path.is_symlink() or (path.exists() and path.resolve().parent != folder.resolve()):
            raise WorkspaceError(f"{name} is not a file of {AREAS[area][1]}.", 404)
        if must_exist and not path.is_file():
            raise WorkspaceError(f"There is no file {name!r} in {AREAS[area][1]}.", 404)
        return path

    def write(self, area: str, name: str, data: bytes, *, allow_replace: bool = True) -> Path:
        if not self.writable(area):
            raise WorkspaceError(f"{AREAS[area][1]} is read-only; save your work in Output.",
                                 403)
        path = self.path(area, name, must_exist=False)
        if path.exists() and not allow_replace:
            raise WorkspaceError(f"{name} already exists in {AREAS[area][1]}; choose another "
                                 "name or open the file to edit it.", 409)
        tmp = path.with_name(f".{path.name}.saving")
        tmp.write_bytes(data)
        tmp.replace(path)
        return path

    def delete(self, area: str, name: str) -> None:
        if not self.writable(area):
            raise WorkspaceError(f"{AREAS[area][1]} is read-only.", 403)
        self.path(area, name).unlink()


def check_name(name: str) -> str:
    """A plain file name: letters, digits, space and ``._()+-``; no folders, not hidden."""
    if not NAME_RE.fullmatch(name or "") or ".." in name:
        raise WorkspaceError(
            f"{name!r} is not a valid file name: use letters, digits, spaces and . _ - ( ) +, "
            "start with a letter or digit, at most 120 characters, no folders.")
    return name


# -- reading -----------------------------------------------------------------------------
def read_text(path: Path) -> str:
    return path.read_bytes().decode("utf-8", errors="replace")


def read_csv_rows(path: Path) -> list[list[str]]:
    return parse_csv(read_text(path))


def parse_csv(text: str) -> list[list[str]]:
    return [row for row in csv.reader(io.StringIO(text))]


def format_csv(rows: list[list[str]]) -> str:
    """CSV text of the grid, without trailing empty rows and columns."""
    rows = [list(r) for r in rows]
    while rows and not any(cell.strip() for cell in rows[-1]):
        rows.pop()
    width = max((max((i + 1 for i, c in enumerate(r) if c.strip()), default=0) for r in rows),
                default=0)
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    for row in rows:
        writer.writerow((row + [""] * width)[:width])
    return buf.getvalue()


@dataclass(frozen=True)
class CalendarEvent:
    summary: str
    start: datetime | date | None
    end: datetime | date | None
    location: str
    description: str

    @property
    def when(self) -> str:
        def label(value: datetime | date | None) -> str:
            if isinstance(value, datetime):
                return value.strftime("%a %m/%d/%Y %I:%M %p")
            if isinstance(value, date):
                return value.strftime("%a %m/%d/%Y")
            return "?"

        start, end = label(self.start), label(self.end)
        if isinstance(self.start, datetime) and isinstance(self.end, datetime) \
                and self.start.date() == self.end.date():
            end = self.end.strftime("%I:%M %p")
        return f"{start} – {end}"


def read_calendar(path: Path) -> tuple[str, list[CalendarEvent]]:
    """The calendar's name and its events in start order."""
    from icalendar import Calendar

    try:
        cal = Calendar.from_ical(path.read_bytes())
    except ValueError as exc:
        raise WorkspaceError(f"{path.name} is not a readable calendar ({exc}).", 422) from exc
    events = []
    for comp in cal.walk("VEVENT"):
        start = comp.get("dtstart")
        end = comp.get("dtend")
        events.append(CalendarEvent(
            summary=str(comp.get("summary", "(no title)")),
            start=_naive(start.dt) if start is not None else None,
            end=_naive(end.dt) if end is not None else None,
            location=str(comp.get("location", "")),
            description=str(comp.get("description", "")),
        ))
    events.sort(key=lambda e: (_sort_key(e.start), e.summary))
    return str(cal.get("x-wr-calname", path.stem)), events


def _naive(value):
    """Show times in the sandbox's zone, as a calendar app set to it would."""
    if isinstance(value, datetime) and value.tzinfo is not None:
        from sandbox.clock import SANDBOX_TZ

        return value.astimezone(SANDBOX_TZ).replace(tzinfo=None)
    return value


def _sort_key(value) -> datetime:
    if isinstance(value, datetime):
        return value
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day)
    return datetime.max
