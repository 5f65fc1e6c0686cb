"""Seeding is deterministic for every task and variant, and reset restores it exactly."""

import json
import sqlite3

import pytest

from sandbox.catalog import load_catalog
from sandbox.extract import ExtractError, extract_run
from sandbox.fingerprint import fingerprint
from sandbox.seeding import SeedError, restore, seed_task
from sandbox.stores import open_store

CATALOG = load_catalog()


def _first_task_with_store():
    for spec in CATALOG:
        if any(s != "workspace" for s in spec.systems):
            return spec
    pytest.fail("no task uses a store")


def test_variants_differ_from_the_default(tmp_path):
    twins = [(spec, v) for spec in CATALOG for v in spec.variants]
    assert twins, "the seeds name twin fixtures (pa-04, ord-03)"
    for spec, variant in twins:
        default, _ = fingerprint(seed_task(spec, None, tmp_path / f"{spec.alias}-d"))
        twin, _ = fingerprint(seed_task(spec, variant, tmp_path / f"{spec.alias}-{variant}"))
        assert default != twin, f"{spec.alias} variant {variant} seeds the same world"


def _a_table_with_rows(run):
    """(store path, table, model) of the first store (by name) holding a table with seeded
    rows that no other table refers to (a row can go without touching another)."""
    for live in sorted((run / "stores").glob("*.sqlite")):
        mappers = {m.local_table: m.class_ for m in _mappers(live.stem)}
        tables = [t for t in mappers if t.name != "audit_log"]
        referred = {fk.column.table for t in tables for fk in t.foreign_keys}
        with sqlite3.connect(live) as db:
            for table in sorted(tables, key=lambda t: t.name):
                count = db.execute(f'select count(*) from "{table.name}"').fetchone()[0]
                if count and table not in referred:
                    return live, table, mappers[table]
    pytest.fail(f"no store of {run} has a table with rows")


def test_reset_restores_the_fingerprint_exactly(tmp_path):
    spec = _first_task_with_store()
    run = seed_task(spec, None, tmp_path / "run")
    seeded, _ = fingerprint(run)
    live, table, model = _a_table_with_rows(run)
    # an app holds a connection open across the reset
    holder = sqlite3.connect(live)
    holder.execute("select count(*) from audit_log").fetchone()
    before = holder.execute(f'select count(*) from "{table.name}"').fetchone()[0]
    store = open_store(live.stem, live, clock=None)
    from sandbox.clock import SandboxClock
    store.clock = SandboxClock()
    with store.writer() as session:
        session.delete(session.query(model).first())
    store.dispose()
    # the change happened: one row fewer, another fingerprint
    assert holder.execute(f'select count(*) from "{table.name}"').fetchone()[0] == before - 1
    assert fingerprint(run)[0] != seeded
    restore(run)
    assert fingerprint(run)[0] == seeded
    assert holder.execute(f'select count(*) from "{table.name}"').fetchone()[0] == before
    assert holder.execute("select count(*) from audit_log").fetchone()[0] > 0
    holder.close()


def _mappers(system):
    import importlib

    from sandbox.stores.base import SYSTEM_MODULES
    return importlib.import_module(SYSTEM_MODULES[system]).Base.registry.mappers


def test_seeding_refuses_a_used_directory_and_unknown_variant(tmp_path):
    spec = _first_task_with_store()
    seed_task(spec, None, tmp_path / "run")
    with pytest.raises(SeedError, match="already holds stores"):
        seed_task(spec, None, tmp_path / "run")
    with pytest.raises(SeedError, match="no variant 'nope'"):
        seed_task(spec, "nope", tmp_path / "other")


def test_extract_is_a_consistent_copy(tmp_path):
    spec = _first_task_with_store()
    run = seed_task(spec, None, tmp_path / "run")
    (run / "output" / "answer.csv").write_text("a,b\n")
    out = extract_run(run, tmp_path / "x")
    assert fingerprint(out)[0] == fingerprint(run)[0]
    manifest = json.loads((out / "extract.json").read_text())
    assert "output/answer.csv" in manifest["files"]
    assert (out / "seed").is_dir() and (out / "run.json").is_file()
    with pytest.raises(ExtractError, match="not empty"):
        extract_run(run, out)
    with pytest.raises(ExtractError, match="not a run directory"):
        extract_run(tmp_path / "nowhere", tmp_path / "y")


def test_the_world_cache_gives_what_loading_gives(tmp_path, monkeypatch):
    from sandbox.clock import SandboxClock
    from sandbox.fingerprint import store_digest
    from sandbox.paths import WORLD_DIR
    from sandbox.seeding import load_rows
    from sandbox.stores import Store

    monkeypatch.setenv("EHR_SANDBOX_CACHE", str(tmp_path / "cache"))
    spec = _first_task_with_store()
    cold = seed_task(spec, None, tmp_path / "cold")  # builds the cache
    warm = seed_task(spec, None, tmp_path / "warm")  # copies from it
    assert list((tmp_path / "cache" / "world").glob("*.sqlite"))
    system = next(s for s in spec.systems if s != "workspace")
    (tmp_path / "direct").mkdir()
    direct = tmp_path / "direct" / f"{system}.sqlite"
    store = Store(system, direct, SandboxClock(start=spec.clock)).create()
    load_rows(store, WORLD_DIR / f"{system}.yaml")
    if spec.seed.get(system):
        load_rows(store, spec.folder / spec.seed[system], spec.folder)
    store.dispose()
    name = f"{system}.sqlite"
    assert store_digest(cold / "stores" / name) == store_digest(warm / "stores" / name)
    assert store_digest(direct) == store_digest(warm / "stores" / name)


def test_the_world_cache_key_follows_the_loaded_schema():
    """A process whose models differ from another's (loaded before a schema change) must not
    share its cache entry: the key comes from the tables this process would create."""
    from sqlalchemy import Column, Integer

    from sandbox import seeding
    from sandbox.clock import SandboxClock
    from sandbox.paths import WORLD_DIR
    from sandbox.stores import metadata_for

    clock = SandboxClock()
    world = WORLD_DIR / "acme.yaml"
    before = seeding._world_key("acme", world, clock)
    table = metadata_for("acme").tables["dme_orders"]
    extra = Column("schema_probe", Integer)
    table.append_column(extra)
    try:
        assert seeding._world_key("acme", world, clock) != before
    finally:
        table._columns.remove(extra)
    assert seeding._world_key("acme", world, clock) == before


def test_input_files_are_dated_at_the_sandbox_clock_and_reset_keeps_the_date(tmp_path):
    """A file chooser lists the inputs' modification times: they are the sandbox's start,
    not the machine's time of seeding, and a reset that puts a file back keeps it."""
    from episodes.run_files import prepare_run_dir, reset_files_and_stores
    from sandbox.clock import SandboxClock

    spec = next(s for s in CATALOG if s.inputs)
    run = tmp_path / "run"
    prepare_run_dir(spec, "default", run, "e1")
    start = SandboxClock(start=spec.clock).now().timestamp()
    files = [p for p in (run / "input").rglob("*") if p.is_file()]
    assert files
    assert {p.stat().st_mtime for p in files} == {start}
    files[0].write_bytes(b"changed")
    reset_files_and_stores(spec, "default", run)
    assert files[0].stat().st_mtime == start
