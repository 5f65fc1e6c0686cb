"""The hyperspace and powerchart stores: schema, shared world, and the desktop tasks' seeds.

Each test builds real stores in a temporary folder and loads the YAML through the seeder, so
a seed row that names a missing column, breaks a foreign key or disagrees with the roster
fails here rather than in an episode.
"""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

import pytest
import yaml
from sqlalchemy import select

from sandbox.catalog import load_catalog
from sandbox.clock import SandboxClock
from sandbox.paths import TASKS_DIR, WORLD_DIR
from sandbox.seeding import load_rows, seed_task
from sandbox.stores import Store, metadata_for, model_for, open_store
from sandbox.stores.audit import AUDIT_TABLE
from sandbox.stores.inpatient import password_digest, sha256_hex

DESKTOP = ("hyperspace", "powerchart")
ROSTER = yaml.safe_load((WORLD_DIR / "roster.yaml").read_text())

# task id -> the desktop system its seed fills
DESKTOP_TASKS = {
    "R09.03.01.02-T06": "hyperspace",
    "R09.03.01.02-T07": "powerchart",
    "R09.03.01.02-T10": "hyperspace",
    "R09.03.01.02-T12": "powerchart",
    "R09.03.01.02-T15": "hyperspace",
    "R09.03.01.02-T17": "powerchart",
    "R09.03.01.02-T20": "hyperspace",
}


def _world_store(system: str, tmp_path: Path) -> Store:
    store = Store(system, tmp_path / f"{system}.sqlite", SandboxClock()).create()
    load_rows(store, WORLD_DIR / f"{system}.yaml")
    return store


@pytest.fixture(scope="module")
def worlds(tmp_path_factory) -> dict[str, Store]:
    base = tmp_path_factory.mktemp("desktop_world")
    stores = {system: _world_store(system, base) for system in DESKTOP}
    yield stores
    for store in stores.values():
        store.dispose()


def _rows(store: Store, table: str) -> list:
    model = model_for(store.system, table)
    with store.reader() as session:
        return list(session.scalars(select(model).order_by(model.id)))


# -- schema ------------------------------------------------------------------------------
@pytest.mark.parametrize("system", DESKTOP)
def test_every_table_has_a_primary_key(system: str) -> None:
    for table in metadata_for(system).sorted_tables:
        assert table.primary_key.columns, f"{system}.{table.name} has no primary key"


@pytest.mark.parametrize("system", DESKTOP)
def test_defaults_are_python_side(system: str) -> None:
    """The audit sees only values Python knows: no server-side defaults anywhere."""
    for table in metadata_for(system).sorted_tables:
        for column in table.columns:
            assert column.server_default is None, f"{table.name}.{column.name}"


def test_both_stores_share_the_tables_and_powerchart_adds_the_fin() -> None:
    hyper, power = metadata_for("hyperspace"), metadata_for("powerchart")
    assert set(hyper.tables) == set(power.tables)
    for name, table in hyper.tables.items():
        extra = {c.name for c in power.tables[name].columns} - {c.name for c in table.columns}
        assert extra == ({"fin"} if name in ("patients", "encounters") else set()), name


def test_coded_values_are_refused_when_unknown() -> None:
    order = model_for("powerchart", "orders")
    with pytest.raises(ValueError, match="order status 'sent'"):
        order(status="sent")
    item = model_for("powerchart", "med_rec_items")
    with pytest.raises(ValueError, match="med rec action"):
        item(action="pause")
    assert item(action="hold").action == "hold"


def test_note_and_document_hashes_follow_their_content(tmp_path: Path) -> None:
    store = Store("hyperspace", tmp_path / "h.sqlite", SandboxClock()).create()
    patient, note, document = (model_for("hyperspace", t) for t in
                               ("patients", "notes", "documents"))
    with store.writer() as session:
        session.add(patient(id=1, mrn="E1", last_name="A", first_name="B",
                            dob=date(1950, 1, 1), sex="Female"))
        session.flush()
        session.add(note(id=1, patient_id=1, note_type="Progress Notes",
                         service_date=date(2026, 10, 10), text="left knee"))
        session.add(document(id=1, filename="a.pdf", content=b"%PDF-1.4"))
    with store.writer() as session:
        session.get(note, 1).text = "right knee"
    with store.reader() as session:
        assert session.get(note, 1).text_sha256 == sha256_hex("right knee")
        assert session.get(document, 1).sha256 == sha256_hex(b"%PDF-1.4")
        assert session.get(document, 1).status == "unfiled"
    assert store.verify_audit().ok
    store.dispose()


# -- world -------------------------------------------------------------------------------
@pytest.mark.parametrize("system", DESKTOP)
def test_world_loads_and_its_audit_verifies(worlds: dict[str, Store], system: str) -> None:
    report = worlds[system].verify_audit()
    assert report.ok, [str(p) for p in report.problems]
    assert report.rows_checked > 200


@pytest.mark.parametrize("system", DESKTOP)
def test_world_ids_stay_below_the_task_range(system: str) -> None:
    data = yaml.safe_load((WORLD_DIR / f"{system}.yaml").read_text())
    for table, rows in data.items():
        for row in rows:
            assert 0 < row["id"] < 1000, f"{system}.{table} id {row['id']}"


@pytest.mark.parametrize("system", DESKTOP)
def test_patients_agree_with_the_roster(worlds: dict[str, Store], system: str) -> None:
    key = f"{system}_mrn"
    expected = {p[key]: p for p in ROSTER["patients"] if key in p}
    stored = {p.mrn: p for p in _rows(worlds[system], "patients")}
    assert set(stored) == set(expected)
    for mrn, person in expected.items():
        row = stored[mrn]
        assert (row.last_name, row.first_name, row.sex) == (
            person["lname"], person["fname"], person["sex"]), mrn
        assert row.dob == person["dob"], mrn
        assert row.weight_kg == person["weight_kg"], mrn
        assert row.weight_date is not None, mrn
        if system == "powerchart":
            assert row.fin == person["fin"], mrn
    if system == "powerchart":
        fins = {e.fin: e.patient_id for e in _rows(worlds[system], "encounters")}
        for row in stored.values():
            assert fins.get(row.fin) == row.id, f"no current encounter with FIN {row.fin}"


@pytest.mark.parametrize("system", DESKTOP)
def test_charted_weight_is_the_latest_flowsheet_weight(worlds: dict[str, Store],
                                                      system: str) -> None:
    latest: dict[int, tuple] = {}
    for vital in _rows(worlds[system], "vital_signs"):
        if vital.weight_kg is not None:
            if vital.patient_id not in latest or vital.taken_at > latest[vital.patient_id][0]:
                latest[vital.patient_id] = (vital.taken_at, vital.weight_kg)
    for patient in _rows(worlds[system], "patients"):
        assert latest.get(patient.id) == (patient.weight_date, patient.weight_kg), patient.mrn


@pytest.mark.parametrize("system", DESKTOP)
def test_training_login_matches_roster_and_documented_password(worlds: dict[str, Store],
                                                              system: str) -> None:
    wanted = ROSTER["desktop_users"][system]
    text = (WORLD_DIR / f"{system}.yaml").read_text()
    found = re.search(r"username (\S+)\s+password (\S+)", text)
    assert found, "the world file must document the training log-in in a comment"
    username, password = found.groups()
    users = {u.username: u for u in _rows(worlds[system], "users")}
    assert username == wanted["username"] and username in users
    assert users[username].display_name == wanted["name"]
    assert users[username].password_sha256 == password_digest(username, password)


@pytest.mark.parametrize("system", DESKTOP)
def test_providers_carry_roster_npis(worlds: dict[str, Store], system: str) -> None:
    roster_npis = {p["npi"] for p in ROSTER["providers"]}
    for provider in _rows(worlds[system], "providers"):
        assert provider.npi is None or provider.npi in roster_npis, provider.name


@pytest.mark.parametrize("system", DESKTOP)
def test_sentences_and_set_items_use_known_codes(worlds: dict[str, Store], system: str) -> None:
    store = worlds[system]
    frequencies = {f.code for f in _rows(store, "frequencies")}
    routes = {r.code for r in _rows(store, "routes")}
    for table in ("order_sentences", "order_set_items"):
        for row in _rows(store, table):
            assert row.frequency is None or row.frequency in frequencies, (table, row.id)
            assert row.route is None or row.route in routes, (table, row.id)
    for orderable in _rows(store, "orderables"):
        assert orderable.default_frequency in frequencies | {None}, orderable.name
        assert orderable.default_route in routes | {None}, orderable.name


@pytest.mark.parametrize("system", DESKTOP)
def test_pneumonia_order_set_offers_the_task_orders_and_wrong_defaults(
        worlds: dict[str, Store], system: str) -> None:
    store = worlds[system]
    sets = {s.name: s.id for s in _rows(store, "order_sets")}
    cap = sets["Community-Acquired Pneumonia Admission"]
    sections = {s.id for s in _rows(store, "order_set_sections") if s.order_set_id == cap}
    orderables = {o.id: o for o in _rows(store, "orderables")}
    items = [i for i in _rows(store, "order_set_items") if i.section_id in sections]

    def line(item) -> tuple:
        return (orderables[item.orderable_id].generic_name or orderables[item.orderable_id].name,
                item.dose, item.dose_unit, item.route, item.frequency)

    offered = {line(i) for i in items}
    for wanted in [("ceftriaxone", 1, "g", "IV", "Q24H"), ("azithromycin", 500, "mg", "IV", "Q24H"),
                   ("enoxaparin", 40, "mg", "SC", "DAILY")]:
        assert wanted in offered, wanted
    names = {orderables[i.orderable_id].name for i in items}
    assert {"CBC with differential", "Basic metabolic panel", "Blood culture",
            "Admit to Inpatient"} <= names
    cultures = [i for i in items if orderables[i.orderable_id].name == "Blood culture"]
    assert [c.occurrences for c in cultures] == [2]
    defaults = {line(i) for i in items if i.default_selected}
    # pre-checked defaults the task does not ask for: they must be unchecked by the agent
    assert ("heparin", 5000, "units", "SC", "Q8H") in defaults
    assert ("azithromycin", 500, "mg", "PO", "Q24H") in defaults
    assert {"Procalcitonin", "XR Chest 2 Views"} <= {
        orderables[i.orderable_id].name for i in items if i.default_selected}
    admits = [i for i in items if i.default_selected
              and orderables[i.orderable_id].order_type == "admit"]
    assert [a.department_id for a in admits] == [2]  # Medicine


@pytest.mark.parametrize("system", DESKTOP)
def test_code_status_orderable_offers_the_goals_of_care_choice(worlds: dict[str, Store],
                                                              system: str) -> None:
    code = [o for o in _rows(worlds[system], "orderables") if o.order_type == "code_status"]
    assert len(code) == 1
    assert "DNR/DNI, full medical treatment otherwise" in code[0].choices
    assert "Full Code" in code[0].choices


# -- task seeds --------------------------------------------------------------------------
@pytest.fixture(scope="module")
def seeded(tmp_path_factory) -> dict[str, Path]:
    """Each desktop task seeded once, the way an episode is (world + seed + input files)."""
    catalog = load_catalog()
    runs = {}
    for task_id in sorted(DESKTOP_TASKS):
        runs[task_id] = seed_task(catalog.get(task_id), None,
                                  tmp_path_factory.mktemp(task_id.replace(".", "_")))
    return runs


def _task_store(run: Path, task_id: str) -> Store:
    system = DESKTOP_TASKS[task_id]
    return open_store(system, run / "stores" / f"{system}.sqlite", readonly=True)


@pytest.mark.parametrize("task_id", sorted(DESKTOP_TASKS))
def test_task_seeds_into_an_audited_store(seeded: dict[str, Path], task_id: str) -> None:
    spec = load_catalog().get(task_id)
    assert spec.seed == {DESKTOP_TASKS[task_id]: f"seed/{DESKTOP_TASKS[task_id]}.yaml"}
    store = _task_store(seeded[task_id], task_id)
    report = store.verify_audit()
    store.dispose()
    assert report.ok, [str(p) for p in report.problems]
    data = yaml.safe_load((spec.folder / spec.seed[DESKTOP_TASKS[task_id]]).read_text())
    for table, rows in data.items():
        for row in rows:
            assert 1000 <= row["id"] <= 8999, f"{task_id}: {table} id {row['id']}"
    for item in spec.inputs:
        assert (seeded[task_id] / "input" / item.path).stat().st_size > 0, item.path


@pytest.mark.parametrize("task_id", sorted(DESKTOP_TASKS))
def test_task_seed_leaves_the_work_to_the_agent(seeded: dict[str, Path], task_id: str) -> None:
    """Nothing seeded is pending or dated after the start, and no addendum exists yet."""
    store = _task_store(seeded[task_id], task_id)
    start = SandboxClock().now_local().replace(tzinfo=None)
    for order in _rows(store, "orders"):
        assert order.status != "pending", f"order {order.id} is left pending"
        assert order.signed_at is None or order.signed_at < start, f"order {order.id}"
    for document in _rows(store, "documents"):
        assert document.filed_at is None or document.filed_at < start, document.filename
    assert _rows(store, "note_addenda") == []
    assert _rows(store, "avs_events") == [] or all(
        e.at < start for e in _rows(store, "avs_events"))
    store.dispose()


def test_ord17_scan_in_the_inbox_is_the_input_advance_directive(
        seeded: dict[str, Path]) -> None:
    run = seeded["R09.03.01.02-T17"]
    store = _task_store(run, "R09.03.01.02-T17")
    documents = {d.id: d for d in _rows(store, "documents")}
    store.dispose()
    ad = (run / "input" / "ad.pdf").read_bytes()
    assert documents[1001].sha256 == sha256_hex(ad)
    assert (documents[1001].patient_id, documents[1001].status) == (None, "unfiled")
    others = [d for d in documents.values() if d.id != 1001]
    assert all(d.sha256 != sha256_hex(ad) for d in others)


def test_ord15_note_hash_in_the_gold_comment_is_the_seeded_text(
        seeded: dict[str, Path]) -> None:
    task_id = "R09.03.01.02-T15"
    store = _task_store(seeded[task_id], task_id)
    notes = {n.id: n for n in _rows(store, "notes")}
    store.dispose()
    comment = _seed_path(task_id).read_text().split("\n\n", 1)[0]
    assert notes[1002].text_sha256 in comment
    assert notes[1002].text_sha256 == sha256_hex(notes[1002].text)
    assert "left knee" in notes[1002].text and "right knee" not in notes[1002].text.lower()


def test_ord07_has_eight_home_meds_waiting_for_reconciliation(seeded: dict[str, Path]) -> None:
    task_id = "R09.03.01.02-T07"
    store = _task_store(seeded[task_id], task_id)
    items = [i for i in _rows(store, "med_rec_items") if i.med_rec_id == 1001]
    meds = [m for m in _rows(store, "home_medications") if m.patient_id == 1]
    store.dispose()
    assert len(meds) == 8
    assert sorted(i.home_medication_id for i in items) == sorted(m.id for m in meds)
    assert all(i.action is None and i.generated_order_id is None for i in items)
    plan = (seeded[task_id] / "input" / "admitting_plan.txt").read_text()
    for med in meds:
        generic = med.medication.split()[0].lower()
        assert generic in plan.lower(), generic


def test_ord20_charted_weight_gives_the_gold_enoxaparin_dose(seeded: dict[str, Path]) -> None:
    task_id = "R09.03.01.02-T20"
    store = _task_store(seeded[task_id], task_id)
    frank = next(p for p in _rows(store, "patients") if p.mrn == "E1006930")
    store.dispose()
    assert frank.weight_kg == 92.0
    assert "dose 92 mg" in _seed_path(task_id).read_text()


def _seed_path(task_id: str) -> Path:
    return TASKS_DIR / task_id / "seed" / f"{DESKTOP_TASKS[task_id]}.yaml"


def test_audit_table_is_not_seeded() -> None:
    for system in DESKTOP:
        data = yaml.safe_load((WORLD_DIR / f"{system}.yaml").read_text())
        assert AUDIT_TABLE not in data
