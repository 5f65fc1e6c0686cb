"""One digest over a run directory's table contents and input files.

Used to prove seeding is deterministic (same digest twice, on any machine) and that reset
restores a run exactly. Rows are read through each system's models in primary-key order and
serialized canonically, so the digest does not depend on SQLite page layout.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from sqlalchemy import select

from sandbox.stores import open_store
from sandbox.stores.audit import canonical_json, row_image


def store_digest(path: Path) -> str:
    system = path.stem
    store = open_store(system, path, readonly=True)
    digest = hashlib.sha256()
    try:
        with store._read_engine.connect() as conn:
            for table in sorted(store.metadata.tables.values(), key=lambda t: t.name):
                digest.update(f"table {table.name}\n".encode())
                order = list(table.primary_key.columns) or list(table.columns)
                for row in conn.execute(select(table).order_by(*order)).mappings():
                    digest.update(canonical_json(row_image(table, dict(row))).encode())
                    digest.update(b"\n")
    finally:
        store.dispose()
    return digest.hexdigest()


def file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def fingerprint(run_dir: Path, stores_subdir: str = "stores") -> tuple[str, list[tuple[str, str]]]:
    """(overall digest, [(part, digest)]) over stores and input files."""
    run_dir = Path(run_dir)
    parts: list[tuple[str, str]] = []
    for path in sorted((run_dir / stores_subdir).glob("*.sqlite")):
        parts.append((f"{stores_subdir}/{path.name}", store_digest(path)))
    input_dir = run_dir / "input"
    if input_dir.is_dir():
        for path in sorted(p for p in input_dir.rglob("*") if p.is_file()):
            parts.append((f"input/{path.relative_to(input_dir)}", file_digest(path)))
    overall = hashlib.sha256("".join(f"{n} {d}\n" for n, d in parts).encode()).hexdigest()
    return overall, parts
