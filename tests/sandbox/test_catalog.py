"""The task catalog against the seed proposals, and the catalog's strictness.

Every ``fixtures/tasks/<id>/task.yaml`` must carry the seed's words (title, instruction,
verifier, partial credit, difficulty, tags) unchanged, and its sandbox-specific parts
(systems, channel, input and output files, writable tables) must agree with its instruction.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from sandbox.catalog import SYSTEM_NAMES, Catalog, CatalogError, TaskSpec, load_task
from sandbox.paths import SEEDS_DIR, SHARED_DIR, TASKS_DIR
from sandbox.stores import metadata_for
from tests.sandbox.seedtext import (
    SeedCredit,
    SeedTask,
    SeedTextError,
    load_seeds,
    parse_seed_document,
)

PA_IDS = [f"R09.03.01.04-T{n:02d}" for n in range(1, 21)]
ORD_IDS = [f"R09.03.01.02-T{n:02d}" for n in range(1, 21)]
SEED_IDS = PA_IDS + ORD_IDS

# Where each system is reached, as the instruction must say it.
SYSTEM_MARKERS = {
    "ehr": ("http://emr.clinic.test",),
    "acme": (
        "http://portal.acmehealth.test",
        "http://dme.acmehealth.test",
        "http://api.acmehealth.test",
    ),
    "epa": ("http://epa.covermymeds.test",),
    "fax": ("http://fax.betacare.test",),
    "regulator": ("http://review.insurance.state.test",),
    "hyperspace": ('"Epic Hyperspace (training)"',),
    "powerchart": ('"PowerChart (training domain)"',),
}
INTERFACE_OF_CHANNEL = {"browser": "brow", "desktop": "desk", "api": "api"}
EXPECTED_VARIANTS = {"pa-04": ["default", "complete-docs"], "ord-03": ["default", "normal-mg"]}


@pytest.fixture(scope="module")
def seeds() -> dict[str, SeedTask]:
    return load_seeds(SEEDS_DIR)


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return Catalog([TASKS_DIR])


def _alias(task_id: str) -> str:
    family, number = task_id.rsplit("-T", 1)
    return ("pa" if family.endswith("04") else "ord") + "-" + number


# -- the seed reader -------------------------------------------------------------------------
def test_seed_documents_hold_forty_proposals(seeds):
    assert sorted(seeds) == sorted(SEED_IDS)
    pending = seeds["R09.03.01.04-T02"]
    assert pending.credit[-1] == SeedCredit("case 5 (equal share per case)", 20)
    assert seeds["R09.03.01.02-T18"].platforms == ("lin", "mac")
    assert seeds["R09.03.01.02-T10"].conditions == ("licensed", "long")
    assert seeds["R09.03.01.02-T01"].conditions == ()
    for seed in seeds.values():
        assert sum(c.percent for c in seed.credit) == 100, seed.id


_LINED = """R09.03.01.04-T07 Do a thing
Original instruction

Open input/a.txt and do it.

Platforms: web · Any OS (web)
Applications: payer portals (sandbox) · HealthAdminBench-style apps
Interfaces: brow · Browser
GUI need · task setting: G3 · GUI-only
GUI need · ordinary access: G2 · GUI-essential
Interaction primitives: multi · Cross-app type · Text & forms click · Point & click
Work product: WP08 · App/system state
Conditions: multiapp · Multi-app long · Long-horizon
Proposed difficulty: 3 / 5

Proposed verifier

Check it.

Proposed partial credit

60% first part (proportional); 40% second part

Mapped research references
"""

_GLUED = """R09.03.01.04-T07 Do a thing
Original instruction
Open input/a.txt and do it.
- Platforms
web· Any OS (web)- Applications
- payer portals (sandbox) · HealthAdminBench-style apps
- Interfaces
brow· Browser- GUI need · task setting
G3· GUI-only- GUI need · ordinary access
G2· GUI-essential- Interaction primitives
multi· Cross-apptype· Text & formsclick· Point & click- Work product
WP08· App/system state- Conditions
multiapp· Multi-applong· Long-horizon- Proposed difficulty
- 3 / 5
Proposed verifier
Check it.
Proposed partial credit
60% first part (proportional); 40% second part
Mapped research references
"""


def test_both_renderings_of_a_proposal_read_the_same():
    lined, glued = parse_seed_document(_LINED), parse_seed_document(_GLUED)
    assert lined == glued
    (task,) = lined
    assert task.instruction == "Open input/a.txt and do it."
    assert task.primitives == ("multi", "type", "click")
    assert task.conditions == ("multiapp", "long")
    assert task.credit == (
        SeedCredit("first part (proportional)", 60),
        SeedCredit("second part", 40),
    )
    assert task.applications == ("payer portals (sandbox)", "HealthAdminBench-style apps")


def test_seed_reader_names_the_task_it_cannot_read():
    broken = _LINED.replace("click · Point & click", "poke · Poke")
    with pytest.raises(SeedTextError, match=r"R09\.03\.01\.04-T07: unknown primitives entry"):
        parse_seed_document(broken)


def test_seed_reader_fails_clearly_without_documents(tmp_path):
    with pytest.raises(SeedTextError, match="no seed documents"):
        load_seeds(tmp_path)


# -- every task against its seed -------------------------------------------------------------
def test_catalog_holds_exactly_the_seed_tasks(catalog, seeds):
    assert len(catalog) == 40
    assert sorted(spec.id for spec in catalog) == sorted(seeds)
    for spec in catalog:
        assert spec.alias == _alias(spec.id)
        assert spec.folder == TASKS_DIR / spec.id


@pytest.mark.parametrize("task_id", SEED_IDS)
def test_task_carries_the_seed_words(task_id, catalog, seeds):
    spec, seed = catalog.get(task_id), seeds[task_id]
    assert spec.alias == _alias(task_id)
    assert spec.family == ("prior-auth" if task_id in PA_IDS else "orders")
    assert spec.title == seed.title
    assert spec.seed_instruction == seed.instruction
    assert spec.proposed_verifier == seed.verifier
    assert [(c.name, c.percent) for c in spec.credit] == [(c.name, c.percent) for c in seed.credit]
    assert spec.difficulty == seed.difficulty
    tags = spec.tags
    assert (tags.gui_need, tags.gui_need_ordinary, tags.work_product) == (
        seed.gui_need, seed.gui_need_ordinary, seed.work_product
    )
    assert tags.primitives == list(seed.primitives)
    assert tags.conditions == list(seed.conditions)
    assert tags.platforms == list(seed.platforms)
    assert tags.interfaces == list(seed.interfaces)
    assert tags.applications == list(seed.applications)


def _declared_inputs(spec: TaskSpec) -> set[str]:
    """Input files the task declares: its ``inputs`` entries, else the ``inputs:`` notes line."""
    declared = {item.path for item in spec.inputs}
    for line in spec.notes.splitlines():
        if line.startswith("inputs:"):
            declared |= {name.strip() for name in line.removeprefix("inputs:").split(",")}
    return declared


@pytest.mark.parametrize("task_id", SEED_IDS)
def test_task_instruction_says_where_things_are(task_id, catalog):
    spec = catalog.get(task_id)
    text = spec.instruction
    for system, markers in SYSTEM_MARKERS.items():
        named = any(marker in text for marker in markers)
        assert named == (system in spec.systems), (
            f"{spec.alias}: system {system!r} is {'' if system in spec.systems else 'not '}in "
            f"systems but the instruction {'does not name' if not named else 'names'} {markers}"
        )
    desktop = bool({"hyperspace", "powerchart"} & set(spec.systems))
    assert desktop == (spec.channel == "desktop")
    if desktop:
        assert '"Citrix Workspace"' in text
    assert (spec.channel == "api") == spec.alias.endswith("-18")
    assert spec.tags.interfaces == [INTERFACE_OF_CHANNEL[spec.channel]]

    mentioned_inputs = set(re.findall(r"\binput/([\w.-]*\w)", text))
    mentioned_outputs = set(re.findall(r"\boutput/([\w.-]*\w)", text))
    assert mentioned_inputs == _declared_inputs(spec), (
        f"{spec.alias}: files named in the instruction and the declared inputs differ"
    )
    assert mentioned_outputs == set(spec.outputs)
    uses_files = bool(mentioned_inputs or mentioned_outputs)
    assert uses_files == ("workspace" in spec.systems)
    if uses_files and spec.channel != "api":
        assert "http://workspace.local" in text
    assert spec.clock.isoformat() == "2026-10-19T09:00:00-04:00"


@pytest.fixture(scope="module")
def schema_tables() -> dict[str, set[str]]:
    """The tables each store's models define (the footprint check compares against these)."""
    return {
        system: set(metadata_for(system).tables) - {"audit_log"}
        for system in SYSTEM_NAMES
        if system != "workspace"
    }


@pytest.mark.parametrize("task_id", SEED_IDS)
def test_task_writes_only_tables_its_systems_define(task_id, catalog, schema_tables):
    spec = catalog.get(task_id)
    assert spec.may_touch, f"{spec.alias}: every task writes something"
    for system, tables in spec.may_touch.items():
        assert system in spec.systems, f"{spec.alias}: may_touch names unused system {system}"
        unknown = set(tables) - schema_tables[system]
        assert not unknown, f"{spec.alias}: unknown {system} tables {sorted(unknown)}"
        assert len(tables) == len(set(tables))


def test_twin_fixtures_exist_where_the_seeds_ask_for_them(catalog):
    for spec in catalog:
        assert spec.variant_names == EXPECTED_VARIANTS.get(spec.alias, ["default"]), spec.alias
    assert "normal" in catalog.get("ord-03").variants["normal-mg"].description.lower()
    assert "home assessment" in catalog.get("pa-04").variants["complete-docs"].description


# -- strictness ------------------------------------------------------------------------------
@pytest.fixture
def task_copy(tmp_path) -> Path:
    """A writable copy of ord-01's task.yaml in a folder named after its id."""
    folder = tmp_path / "R09.03.01.02-T01"
    folder.mkdir()
    target = folder / "task.yaml"
    shutil.copy(TASKS_DIR / "R09.03.01.02-T01" / "task.yaml", target)
    return target


def _line_of(path: Path, prefix: str) -> int:
    lines = path.read_text().splitlines()
    return next(i for i, line in enumerate(lines, start=1) if line.startswith(prefix))


def test_copy_of_a_task_loads(task_copy):
    assert load_task(task_copy).alias == "ord-01"


def test_unknown_key_names_file_key_and_line(task_copy):
    text = task_copy.read_text().replace("channel: browser\n", "channel: browser\ncolour: blue\n")
    task_copy.write_text(text)
    line = _line_of(task_copy, "colour:")
    with pytest.raises(CatalogError) as caught:
        load_task(task_copy)
    message = str(caught.value)
    assert f"{task_copy}:{line}: colour: unknown key" in message


def test_unknown_nested_key_names_its_path_and_line(task_copy):
    text = task_copy.read_text().replace("  gui_need: G3\n", "  gui_need: G3\n  gui_needs: G2\n")
    task_copy.write_text(text)
    line = _line_of(task_copy, "  gui_needs:")
    with pytest.raises(CatalogError, match=rf":{line}: tags\.gui_needs: unknown key"):
        load_task(task_copy)


def test_wrong_alias_is_refused(task_copy):
    task_copy.write_text(task_copy.read_text().replace("alias: ord-01", "alias: ord-02"))
    with pytest.raises(CatalogError, match=r"alias 'ord-02' does not match id .*want ord-01"):
        load_task(task_copy)


def test_credit_must_sum_to_one_hundred(task_copy):
    text = task_copy.read_text().replace("percent: 15}", "percent: 20}", 1)
    task_copy.write_text(text)
    with pytest.raises(CatalogError, match="credit percents sum to 105, not 100"):
        load_task(task_copy)


def test_unknown_system_is_refused(task_copy):
    text = task_copy.read_text().replace("systems: [ehr, workspace]", "systems: [ehr, emr]")
    task_copy.write_text(text)
    line = _line_of(task_copy, "systems:")
    with pytest.raises(CatalogError) as caught:
        load_task(task_copy)
    message = str(caught.value)
    assert f":{line}: systems:" in message and "'emr'" in message
    assert all(name in message for name in SYSTEM_NAMES)


def test_folder_must_be_named_after_the_id(task_copy):
    moved = task_copy.parent.parent / "ord-01" / "task.yaml"
    moved.parent.mkdir()
    task_copy.rename(moved)
    with pytest.raises(CatalogError, match="folder name must be the task id R09.03.01.02-T01"):
        load_task(moved)


# -- lookup ----------------------------------------------------------------------------------
def test_get_by_id_or_alias(catalog):
    assert catalog.get("pa-07").id == "R09.03.01.04-T07"
    assert catalog.get("ORD-16").id == "R09.03.01.02-T16"
    assert catalog.get("R09.03.01.02-T16").alias == "ord-16"


@pytest.mark.parametrize(("key", "best"), [
    ("pa01", "pa-01"),
    ("ord_07", "ord-07"),
    ("R09.03.01.4-T07", "R09.03.01.04-T07"),
])
def test_unknown_task_gets_close_matches(catalog, key, best):
    with pytest.raises(CatalogError) as caught:
        catalog.get(key)
    message = str(caught.value)
    assert message.startswith(f"unknown task {key!r}; did you mean ")
    suggestions = message.split("did you mean ", 1)[1].rstrip("?").split(", ")
    assert suggestions[0] == best


def test_select_families_and_lists(catalog):
    orders = catalog.select("ord")
    assert len(orders) == 20 and {s.family for s in orders} == {"orders"}
    assert [s.alias for s in catalog.select("pa")] == [f"pa-{n:02d}" for n in range(1, 21)]
    everything = catalog.select("all")
    assert len(everything) == 40 and everything[0].alias == "pa-01"
    assert everything[20].alias == "ord-01"
    assert [s.alias for s in catalog.select("pa-03, ord-18")] == ["pa-03", "ord-18"]


def shared_seeds(folder: Path = SHARED_DIR / "seeds", env=os.environ) -> Path:
    """The team's seed folder beside the checkout; a clone without it skips the comparison
    (naming the folder), but CI, where the folder exists, fails without it."""
    if folder.is_dir():
        return folder
    message = (f"{folder} is missing: the copy in fixtures/seeds/ cannot be compared with "
               "the shared seeds (CI has them; elsewhere this test is skipped)")
    if env.get("CI", "").strip().lower() in ("true", "1", "yes"):
        pytest.fail(message)
    pytest.skip(message)


def test_a_missing_shared_seed_folder_skips_outside_ci_and_fails_in_ci(tmp_path):
    missing = tmp_path / "shared" / "seeds"
    with pytest.raises(pytest.skip.Exception, match=str(missing)):
        shared_seeds(missing, env={})
    with pytest.raises(pytest.fail.Exception, match=str(missing)):
        shared_seeds(missing, env={"CI": "true"})
    missing.mkdir(parents=True)
    assert shared_seeds(missing, env={"CI": "true"}) == missing


def test_the_repository_copy_of_the_seeds_is_word_for_word_the_shared_one():
    shared = {p.name: p.read_bytes() for p in shared_seeds().glob("*.txt")}
    copied = {p.name: p.read_bytes() for p in SEEDS_DIR.glob("*.txt")}
    assert copied == shared
