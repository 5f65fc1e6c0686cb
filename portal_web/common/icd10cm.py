"""ICD-10-CM lookups for the portals: valid, billable, description, the dotted form.

The codes are ``simple-icd-10-cm``'s (the 2026 release). Importing that library parses its
10 MB tabular XML (2.3 CPU-s): a portal that validated its first diagnosis code stalled
for 3 s on an idle machine and for over 15 s with six episodes at once. What the portals
ask of it (each code's dotted name, description and whether it is a leaf) is read from
the library once per machine and kept in the sandbox cache as one ``marshal`` file keyed
by the library's version and data files; a portal loads that in milliseconds, the first
time it needs a code. The answers are the library's own (same codes, same order, same
descriptions), so nothing here decides what a code is.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib.metadata
import importlib.util
import marshal
import os
from dataclasses import dataclass
from pathlib import Path

from sandbox.paths import cache_dir

FORMAT = 1  # bump when the file's layout changes


@dataclass(frozen=True)
class Codes:
    """Every ICD-10-CM item (chapters, blocks, categories, subcategories) in tree order."""

    names: tuple[str, ...]  # dotted where the code has a dot ('E11.9', 'E11', 'E08-E13')
    descriptions: tuple[str, ...]
    leaves: bytes  # 1 where the item has no children (a billable code)
    index: dict[str, int]  # name -> position

    def position(self, code: str) -> int | None:
        """Where ``code`` is, with or without its dot (the library's way), else None."""
        found = self.index.get(code)
        if found is None and len(code) >= 4:
            found = self.index.get(f"{code[:3]}.{code[3:]}")
        return found


def is_valid(code: str) -> bool:
    """Whether ``code`` (with or without its dot) is an ICD-10-CM item."""
    return codes().position(code) is not None


def description(code: str) -> str | None:
    """The item's description, or None if there is no such item."""
    at = codes().position(code)
    return None if at is None else codes().descriptions[at]


def is_leaf(code: str) -> bool:
    """Whether ``code`` is a billable (leaf) code; False for what does not exist."""
    at = codes().position(code)
    return at is not None and bool(codes().leaves[at])


def add_dot(code: str) -> str | None:
    """The item's name with its dot (``E119`` -> ``E11.9``), or None if there is none."""
    at = codes().position(code)
    return None if at is None else codes().names[at]


def billable() -> list[tuple[str, str]]:
    """(code, description) of every billable code, in the release's order."""
    c = codes()
    rows = zip(c.names, c.descriptions, c.leaves, strict=True)
    return [(name, text) for name, text, leaf in rows if leaf]


@functools.cache
def codes() -> Codes:
    """The codes of this process: from the cache file, made first if it is missing."""
    path = cache_file()
    data = _read(path)
    if data is None:
        data = _from_library()
        _write(path, data)
    names, descriptions, leaves = data
    return Codes(names, descriptions, leaves, {n: i for i, n in enumerate(names)})


def cache_file() -> Path:
    """The cache file for the installed library (its version and data files in the key)."""
    spec = importlib.util.find_spec("simple_icd_10_cm")
    if spec is None or spec.origin is None:
        raise ImportError("simple-icd-10-cm is not installed (installer/bootstrap.sh "
                          "installs it)")
    digest = hashlib.sha256(f"{FORMAT} {importlib.metadata.version('simple_icd_10_cm')}"
                            .encode())
    data_dir = Path(spec.origin).parent / "data"
    for f in sorted(data_dir.glob("*")):
        if f.is_file():
            st = f.stat()
            digest.update(f"{f.name} {st.st_size} {st.st_mtime_ns}".encode())
    return cache_dir() / "icd10cm" / f"codes-{digest.hexdigest()[:24]}.marshal"


def _from_library() -> tuple[tuple[str, ...], tuple[str, ...], bytes]:
    import simple_icd_10_cm as cm

    names = tuple(cm.get_all_codes(with_dots=True))
    return (names, tuple(cm.get_description(n) for n in names),
            bytes(1 if cm.is_leaf(n) else 0 for n in names))


def _read(path: Path) -> tuple[tuple[str, ...], tuple[str, ...], bytes] | None:
    try:
        data = marshal.loads(path.read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        return None  # missing, or not a whole file of ours: made again
    if (isinstance(data, tuple) and len(data) == 3 and isinstance(data[2], bytes)
            and len(data[0]) == len(data[1]) == len(data[2])):
        return data
    return None


def _write(path: Path, data: tuple) -> None:
    """Write the file whole or not at all (several episodes may make it at once); a cache
    that cannot be written only costs the next process the library's load again."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.partial")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_bytes(marshal.dumps(data))
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
