"""Seeding: build a task's stores and input files into a run directory, deterministically.

A run directory (and an extract, which has the same layout) holds::

    run.json        task, alias, variant, episode id, engine version
    clock.json      the episode's sandbox clock (frozen at the task's start until run)
    stores/<system>.sqlite   live stores, each with its own audit_log
    seed/<system>.sqlite     the seeded snapshot: reset restores it, footprint diffs it
    input/          the task's input files (the agent's Documents)
    output/         files the agent writes through the Workspace
    downloads/      the browser's downloads
    fax_sink/       PDFs received by the fax sink

Rows come from ``fixtures/world/<system>.yaml`` (the shared synthetic world) and then the
task's (or its variant's) ``seed/<system>.yaml``: mappings ``table: [ {column: value} ]``
inserted in file order through the ORM, so the audit chain records them with channel
``seed`` at the frozen sandbox start time.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import sqlite3
from pathlib import Path
from typing import Any

import yaml
from sqlalchemy import Date, DateTime, LargeBinary, Time
from sqlalchemy import inspect as sa_inspect
from sqlalchemy.dialects.sqlite import dialect as sqlite_dialect
from sqlalchemy.orm import Mapper
from sqlalchemy.schema import CreateTable

from sandbox import __version__, yamltext
from sandbox.catalog import InputFile, TaskSpec
from sandbox.clock import SandboxClock
from sandbox.errors import SandboxError
from sandbox.inputs import render_blob, write_inputs
from sandbox.paths import WORLD_DIR, cache_dir
from sandbox.stores import SEED_CONTEXT, SYSTEMS, Store, metadata_for, model_for

RUN_SUBDIRS = ("stores", "seed", "input", "output", "downloads", "fax_sink")


class SeedError(SandboxError, ValueError):
    """Seed data is invalid; the message names the file, table and row."""


def task_store_systems(spec: TaskSpec) -> list[str]:
    """The stores a task uses, in the canonical system order."""
    return [s for s in SYSTEMS if s in spec.systems]


# -- rows --------------------------------------------------------------------------------
def _coerce(column, value: Any, where: str, task_dir: Path | None) -> Any:
    if value is None:
        return None
    kind = column.type
    try:
        if isinstance(kind, DateTime) and isinstance(value, str):
            return dt.datetime.fromisoformat(value)
        if isinstance(kind, DateTime) and type(value) is dt.date:
            return dt.datetime.combine(value, dt.time())
        if isinstance(kind, Date) and isinstance(value, str):
            return dt.date.fromisoformat(value)
        if isinstance(kind, Date) and isinstance(value, dt.datetime):
            return value.date()
        if isinstance(kind, Time) and isinstance(value, str):
            return dt.time.fromisoformat(value)
        if isinstance(kind, Time) and isinstance(value, int):  # YAML reads 08:00 as 480
            return dt.time(value // 60, value % 60)
        if isinstance(kind, LargeBinary):
            if isinstance(value, dict) and "generate" in value:
                return render_blob(value, task_dir, f"{where}.{column.name}")
            if isinstance(value, str):
                return value.encode()
    except ValueError as exc:
        raise SeedError(f"{where}: column {column.name}: {exc}") from exc
    return value


def load_rows(store: Store, path: Path, task_dir: Path | None = None) -> int:
    """Insert the rows of one seed YAML file into ``store``; returns the row count."""
    path = Path(path)
    try:
        data = yamltext.safe_load(path.read_text()) or {}
    except yaml.YAMLError as exc:
        raise SeedError(f"{path}: not valid YAML: {exc}") from exc
    if not isinstance(data, dict):
        raise SeedError(f"{path}: must map table names to lists of rows")
    count = 0
    with store.writer(SEED_CONTEXT) as session:
        for table_name, rows in data.items():
            try:
                model = model_for(store.system, table_name)
            except Exception as exc:
                raise SeedError(f"{path}: {exc}") from exc
            mapper: Mapper[Any] = sa_inspect(model)
            table = mapper.local_table
            columns = {c.name: c for c in table.columns}
            attr_of = {prop.columns[0].name: prop.key for prop in mapper.column_attrs}
            for i, row in enumerate(rows or []):
                where = f"{path.name}: {table_name}[{i}]"
                if not isinstance(row, dict):
                    raise SeedError(f"{where}: a row must be a mapping of column: value")
                unknown = set(row) - set(columns)
                if unknown:
                    raise SeedError(f"{where}: unknown columns {sorted(unknown)}; "
                                    f"{table_name} has {sorted(columns)}")
                values = {attr_of[name]: _coerce(columns[name], value, where, task_dir)
                          for name, value in row.items()}
                session.add(model(**values))
                count += 1
            session.flush()
    return count


# -- seeding a task ----------------------------------------------------------------------
def seed_files(spec: TaskSpec, variant: str, system: str) -> list[Path]:
    """World file, then the task's (or the variant's replacement) seed file for a system."""
    files = []
    world = WORLD_DIR / f"{system}.yaml"
    if world.exists():
        files.append(world)
    seed = spec.seed.get(system)
    if variant != "default":
        seed = spec.variants[variant].seed.get(system, seed)
    if seed is not None:
        if spec.folder is None:
            raise SeedError(f"{spec.id}: spec has no folder to resolve {seed}")
        path = spec.folder / seed
        if not path.exists():
            raise SeedError(f"{spec.id}: seed file {path} does not exist")
        files.append(path)
    return files


def task_inputs(spec: TaskSpec, variant: str) -> list[InputFile]:
    inputs = {i.path: i for i in spec.inputs}
    if variant != "default":
        for replacement in spec.variants[variant].inputs:
            inputs[replacement.path] = replacement
    return list(inputs.values())


def check_variant(spec: TaskSpec, variant: str | None) -> str:
    variant = variant or "default"
    if variant not in spec.variant_names:
        raise SeedError(f"task {spec.alias} has no variant {variant!r}; "
                        f"variants: {', '.join(spec.variant_names)}")
    return variant


def seed_task(spec: TaskSpec, variant: str | None, out_dir: Path, *,
              episode_id: str = "seed") -> Path:
    """Create a fresh run directory for a task (the directory must not hold stores yet)."""
    variant = check_variant(spec, variant)
    out_dir = Path(out_dir)
    if (out_dir / "stores").exists() and any((out_dir / "stores").iterdir()):
        raise SeedError(f"{out_dir} already holds stores; choose an empty --out directory")
    for sub in RUN_SUBDIRS:
        (out_dir / sub).mkdir(parents=True, exist_ok=True)
    clock = SandboxClock(start=spec.clock)
    clock.save(out_dir / "clock.json")
    for system in task_store_systems(spec):
        path = out_dir / "stores" / f"{system}.sqlite"
        files = seed_files(spec, variant, system)
        world = [f for f in files if f.parent == WORLD_DIR]
        if world:
            copy_world(system, world[0], clock, path)
            store = Store(system, path, clock)
        else:
            store = Store(system, path, clock).create()
        try:
            for seed_file in files:
                if seed_file not in world:
                    load_rows(store, seed_file, spec.folder)
        finally:
            store.dispose()
        checkpoint(path)
    write_inputs(task_inputs(spec, variant), spec.folder, out_dir / "input",
                 modified=clock.now())
    snapshot(out_dir)
    run = {"task": spec.id, "alias": spec.alias, "variant": variant,
           "episode_id": episode_id, "engine_version": __version__}
    (out_dir / "run.json").write_text(json.dumps(run, indent=2) + "\n")
    return out_dir


def _world_key(system: str, world_file: Path, clock: SandboxClock) -> str:
    """What a seeded world store depends on: its rows, the schema, the seed time.

    The schema is the DDL of the models this process has loaded (not the source files on
    disk): a process started before a schema change must not fill the cache of the new
    schema with tables of the old one.
    """
    digest = hashlib.sha256()
    digest.update(world_file.read_bytes())
    digest.update(clock.now().isoformat().encode())
    digest.update(__version__.encode())
    dialect = sqlite_dialect()
    for table in sorted(metadata_for(system).tables.values(), key=lambda t: t.name):
        digest.update(str(CreateTable(table).compile(dialect=dialect)).encode())
    digest.update(Path(__file__).read_bytes())
    digest.update(Path(__file__).with_name("inputs.py").read_bytes())
    return f"{system}-{digest.hexdigest()[:24]}"


def world_cache_dir() -> Path:
    return cache_dir() / "world"


def copy_world(system: str, world_file: Path, clock: SandboxClock, dst: Path) -> None:
    """Put the seeded world of ``system`` at ``dst``, building it once per content key.

    Loading the world is the bulk of seeding; it is the same for every task with the same
    start time, so it is built once into a cache and copied. The copy is byte-for-byte what
    loading would produce, so fingerprints do not depend on the cache.
    """
    cache = world_cache_dir()
    cached = cache / f"{_world_key(system, world_file, clock)}.sqlite"
    if not cached.exists():
        cache.mkdir(parents=True, exist_ok=True)
        tmp = cache / f".{cached.name}.{os.getpid()}.partial"
        store = Store(system, tmp, clock).create()
        try:
            load_rows(store, world_file, None)
        finally:
            store.dispose()
        checkpoint(tmp)
        for suffix in ("-wal", "-shm"):
            Path(f"{tmp}{suffix}").unlink(missing_ok=True)
        os.replace(tmp, cached)
    backup_store(cached, dst)
    conn = sqlite3.connect(dst)
    try:
        conn.execute("PRAGMA journal_mode=WAL")
    finally:
        conn.close()


def checkpoint(path: Path) -> None:
    """Fold the WAL into the main file so the store is one self-contained file."""
    conn = sqlite3.connect(path)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()


def backup_store(src: Path, dst: Path) -> None:
    """A consistent copy of a live store (SQLite online backup; safe while apps write)."""
    dst.parent.mkdir(parents=True, exist_ok=True)
    tmp = dst.with_suffix(".partial")
    if tmp.exists():
        tmp.unlink()
    source = sqlite3.connect(f"file:{src}?mode=ro", uri=True)
    target = sqlite3.connect(tmp)
    try:
        source.backup(target)
        target.execute("PRAGMA journal_mode=DELETE")
    finally:
        target.close()
        source.close()
    tmp.replace(dst)


def snapshot(run_dir: Path) -> None:
    """Copy every store to ``seed/`` (the state reset returns to)."""
    for store in sorted((run_dir / "stores").glob("*.sqlite")):
        backup_store(store, run_dir / "seed" / store.name)


def restore(run_dir: Path) -> None:
    """Put the seeded snapshot back into the live stores, in place.

    Uses SQLite's backup API into the live file, so apps that keep connections open see
    the restored state on their next transaction; nothing needs restarting.
    """
    for seeded in sorted((run_dir / "seed").glob("*.sqlite")):
        live = run_dir / "stores" / seeded.name
        source = sqlite3.connect(f"file:{seeded}?mode=ro", uri=True)
        target = sqlite3.connect(live, timeout=30)
        try:
            source.backup(target)
        finally:
            target.close()
            source.close()
