"""ord-15 (Hyperspace addendum to a signed note) graded on runs written like the client.

Split from the seed: 40% addendum linked and signed (two equal parts); 30% correction
content (two equal parts); 30% original intact (two equal parts).
"""

from __future__ import annotations

import pytest

from sandbox.stores.inpatient import sha256_hex
from tests.verifier.desktop.runs import NOW, DesktopRun, flagged, seeded
from verifier import OTHER_PATIENT

NORA, NORAH = 5, 6
NOTE, NURSING_NOTE, NORAH_NOTE = 1002, 1003, 1010
GOLD_HASH = "6304725eecc690b536084cc202253ec2204fe1209e6b538cde4091014d150419"
LINKED, CONTENT, INTACT = 0.40, 0.30, 0.30
REASON = "Laterality documented in error"
TEXT = ("Correction: the knee examined and injected on 10/10/2026 was the RIGHT knee, not the "
        "left. All references to the left knee in this note should read right knee.")


@pytest.fixture(scope="module")
def task(tmp_path_factory):
    return seeded("ord-15", tmp_path_factory)


def addendum(run: DesktopRun, *, note: int = NOTE, reason: str | None = REASON,
             text: str = TEXT, signed: bool = True, **write) -> None:
    """The client's sign_addendum: one signed addendum linked to the note."""
    with run.write(**write) as s:
        user = run.user_row(s)
        s.add(run.m.NoteAddendum(
            note_id=note, author_user_id=user.id, created_at=NOW, reason=reason, text=text,
            status="signed" if signed else "in_progress", signed_at=NOW if signed else None,
            signed_by_user_id=user.id if signed else None))


def test_seeded_note_hash_is_the_gold_value(task):
    run = task.run()
    with run.read() as s:
        note = s.get(run.m.Note, NOTE)
        assert note.text_sha256 == GOLD_HASH == sha256_hex(note.text)


def test_signed_addendum_scores_one(task):
    run = task.run()
    addendum(run)
    report = run.grade()
    assert report.score == pytest.approx(1.0)
    assert report.footprint["counts"] == {"insert": 1, "update": 0, "delete": 0, "stray": 0}


def test_untouched_run_earns_only_the_original_intact(task):
    report = task.run().grade()
    assert report.score == pytest.approx(INTACT)
    assert report.score < 0.5


@pytest.mark.parametrize("kwargs, lost", [
    ({"note": NURSING_NOTE}, LINKED / 2),          # her note, the wrong one
    ({"signed": False}, LINKED / 2),
    ({"text": TEXT.replace("right knee", "other knee").replace("RIGHT", "other")},
     CONTENT / 2),
    ({"reason": None, "text": "Right knee."}, CONTENT / 2),
    ({"reason": None}, 0.0),                        # the text itself says why
], ids=["wrong-note", "unsigned", "no-right-knee", "no-reason", "reason-in-text"])
def test_each_wrong_value_costs_its_share(task, kwargs, lost):
    run = task.run()
    addendum(run, **kwargs)
    assert run.grade().score == pytest.approx(1.0 - lost)


def test_editing_the_signed_note_loses_its_half_of_original_intact(task):
    run = task.run()
    addendum(run)
    with run.write() as s:
        note = s.get(run.m.Note, NOTE)
        note.text = note.text.replace("left knee", "right knee")
    report = run.grade()
    assert report.score == pytest.approx(1.0 - INTACT / 2)
    assert report.checks[2].evidence["parts"][0]["fraction"] == 0.0


def test_a_standalone_correction_note_instead_of_an_addendum(task):
    run = task.run()
    with run.write() as s:
        s.add(run.m.Note(patient_id=NORA, encounter_id=6, note_type="Progress Notes",
                         title="Correction", author_user_id=1, service_date=NOW.date(),
                         created_at=NOW, text=TEXT, status="signed", signed_at=NOW,
                         signed_by_user_id=1))
    report = run.grade()
    assert report.score == pytest.approx(INTACT / 2)


@pytest.mark.parametrize("write", [{"channel": "api"}, {"episode": "ep-other"}],
                         ids=["api", "other-episode"])
def test_addendum_from_another_channel_or_episode_does_not_count(task, write):
    run = task.run()
    addendum(run, **write)
    report = run.grade()
    assert report.score == pytest.approx(INTACT)
    assert [(e["table"], e["rows"]) for e in report.channel["exclusions"]] == [
        ("note_addenda", 1)]


def test_addendum_on_the_look_alikes_note_earns_nothing(task):
    """Norah's left-knee note is correct as written; an addendum there is on the wrong
    chart. note_addenda has no patient column, so the engine cannot flag it: the check's
    evidence names it instead."""
    run = task.run()
    addendum(run, note=NORAH_NOTE)
    report = run.grade()
    assert report.score == pytest.approx(INTACT)
    assert report.checks[0].evidence["addenda_on_other_patients_notes"] == [
        f"hyperspace.note_addenda#1 on note {NORAH_NOTE}"]


def test_editing_the_look_alikes_note_is_flagged_and_costs_the_untouched_part(task):
    run = task.run()
    addendum(run)
    with run.write() as s:
        s.get(run.m.Note, NORAH_NOTE).text += "\nAddendum: right knee."
    report = run.grade()
    assert report.score == pytest.approx(1.0 - INTACT / 2)
    assert flagged(report, OTHER_PATIENT) == [f"hyperspace.notes#{NORAH_NOTE}"]


def test_the_clients_own_addendum_scores_one(task):
    """Contract with desktop_ehr: its sign_addendum grades as the row above."""
    run = task.run()
    with run.client() as (ctx, _):
        from desktop_ehr.services import charting

        charting.sign_addendum(ctx, NOTE, REASON, TEXT)
    assert run.grade().score == pytest.approx(1.0)
