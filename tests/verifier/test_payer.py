"""verifier.payer: the decisions every prior-auth check shares, one by one.

Each test builds a small run of pa-14's systems (EHR, Acme, fax) row by row — a member and
a look-alike one digit apart, two EHR documents, an authorization record — writes what an
agent would, and asks one helper one question through a real :class:`Extract`.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from sandbox.stores.acme import (
    Appeal,
    Attachment,
    AuthExtension,
    ClaimCorrection,
    Member,
    PaAnswer,
    PaCase,
    Plan,
)
from sandbox.stores.ehr import Document, EhrTask, PatientData, Pnote, PriorAuthorization, User
from sandbox.stores.epa import EpaRequest
from sandbox.stores.fax import FaxAccount, FaxDocument, FaxJob, ReceivedFax
from sandbox.stores.regulator import ExternalReview
from tests.verifier.builders import RunBuilder, task_spec
from tests.verifier.tasks.pa_support import blank_form, fill_pdf
from verifier import CouldNotGrade, Extract
from verifier.payer import (
    APPEAL_SUBMITTED,
    BETA_PA_FORM,
    CASE_SUBMITTED,
    TITLES,
    FormRules,
    attached_to,
    by_digest,
    case_answers,
    case_detail,
    delivered_faxes,
    diagnosis_codes,
    document_parts,
    ehr_document_hash,
    ehr_document_hashes,
    ehr_reference_places,
    exact_documents,
    fax_files,
    filed,
    filled_form,
    form_date,
    included_documents,
    input_hash,
    latest,
    member_cases,
    member_id,
    name_words,
    nothing_filed,
    primary_icd10,
    reference_recorded,
    says_twice_daily,
    submitted_appeal,
    submitted_case,
    task_carries,
)

SPEC = task_spec("R09.03.01.04-T14")
NOW = dt.datetime(2026, 10, 19, 9, 30)
MEMBER, LOOK_ALIKE = "ACM100000001", "ACM100000010"
MRN, OTHER_MRN = "700001", "700010"
NOTE, REPORT = b"%PDF-1.4 visit note", b"%PDF-1.4 imaging report"
AUTH_RECORD, PA_TASK = 3001, 4001


@pytest.fixture
def run(tmp_path) -> RunBuilder:
    """The seeded world: members 1 (the task's) and 2 (a look-alike), patients 101 and 102,
    EHR documents 2001 (visit note) and 2002 (imaging report), authorization record 3001,
    the PA desk's task 4001, one seeded submitted case of member 1 and a fax account."""
    run = RunBuilder(tmp_path / "run", SPEC)
    with run.seed("ehr") as s:
        s.add(User(id=24, username="dr.brandt", fname="Ann", lname="Brandt"))
        s.add_all([PatientData(id=1, pid=101, pubpid=MRN, fname="Rhea", lname="Abbott",
                               DOB=dt.date(1970, 1, 1), sex="Female"),
                   PatientData(id=2, pid=102, pubpid=OTHER_MRN, fname="Rhea", lname="Abbot",
                               DOB=dt.date(1970, 1, 1), sex="Female")])
        s.flush()
        s.add_all([Document(id=2001, date=NOW, foreign_id=101, name="Visit note.pdf",
                            document_data=NOTE),
                   Document(id=2002, date=NOW, foreign_id=101, name="Imaging report.pdf",
                            document_data=REPORT),
                   PriorAuthorization(id=AUTH_RECORD, pid=101, date=NOW, notes="awaiting"),
                   PriorAuthorization(id=3002, pid=102, date=NOW),
                   Pnote(id=5001, date=NOW, body="seeded note PA26-000777", pid=101),
                   EhrTask(id=PA_TASK, pid=101, assigned_to=24, subject="Submit the MRI PA",
                           created=NOW)])
    with run.seed("acme") as s:
        s.add(Plan(id=1, plan_key="gold", name="Acme Gold PPO", plan_type="PPO"))
        s.flush()
        s.add_all([Member(id=1, member_number=MEMBER, last_name="Abbott", first_name="Rhea",
                          dob=dt.date(1970, 1, 1), sex="F", plan_id=1,
                          coverage_start=dt.date(2026, 1, 1)),
                   Member(id=2, member_number=LOOK_ALIKE, last_name="Abbot", first_name="Rhea",
                          dob=dt.date(1970, 1, 1), sex="F", plan_id=1,
                          coverage_start=dt.date(2026, 1, 1))])
        s.flush()
        s.add(PaCase(id=1000, member_id=1, status="approved", service_code="72148",
                     reference_number="PA26-000100"))
    with run.seed("fax") as s:
        s.add(FaxAccount(id=1, username="clinic", password_sha256="0" * 64,
                         display_name="Clinic", organization="Clinic",
                         sender_number="217-555-0199"))
    return run.snapshot()


@contextmanager
def extract(run: RunBuilder) -> Iterator[Extract]:
    run.close()
    with Extract.open(run.root, SPEC) as ex:
        yield ex


def add_case(run: RunBuilder, *, member: int = 1, status: str = "submitted",
             channel: str = "browser", **values) -> None:
    with run.agent("acme", channel=channel) as s:
        s.add(PaCase(member_id=member, status=status, created_at=NOW, **values))


# -- which filing counts -------------------------------------------------------------------
def test_a_member_is_found_by_number_and_a_look_alike_is_another_member(run):
    with extract(run) as ex:
        assert (member_id(ex, MEMBER), member_id(ex, LOOK_ALIKE)) == (1, 2)
        with pytest.raises(CouldNotGrade, match="0 Acme members ACM999999999"):
            member_id(ex, "ACM999999999")


def test_a_draft_or_a_cancelled_case_is_not_a_submission(run):
    add_case(run, status="draft", service_code="72148")
    add_case(run, status="cancelled", service_code="72148")
    with extract(run) as ex:
        assert submitted_case(ex, MEMBER) is None
        assert [c.status for c in member_cases(ex, MEMBER)] == ["draft", "cancelled"]
    assert "draft" not in CASE_SUBMITTED and "cancelled" not in CASE_SUBMITTED
    assert "pended" in CASE_SUBMITTED and "denied" in CASE_SUBMITTED


def test_the_seeded_case_is_not_this_runs_submission(run):
    with extract(run) as ex:
        assert member_cases(ex, MEMBER) == []
        assert submitted_case(ex, MEMBER) is None


def test_a_look_alike_members_case_is_not_the_members(run):
    add_case(run, member=2, service_code="72148")
    with extract(run) as ex:
        assert submitted_case(ex, MEMBER) is None
        assert submitted_case(ex, LOOK_ALIKE) is not None


def test_a_case_written_through_another_channel_is_not_seen(run):
    add_case(run, channel="api", service_code="72148")
    with extract(run) as ex:
        assert submitted_case(ex, MEMBER) is None


def test_the_preferred_kind_wins_over_a_later_other_case(run):
    add_case(run, service_code="72148", reference_number="PA26-000201")
    add_case(run, service_code="70450", reference_number="PA26-000202")
    with extract(run) as ex:
        cpt = submitted_case(ex, MEMBER, prefer=lambda c: c.service_code == "72148")
        newest = submitted_case(ex, MEMBER)
        assert (cpt.reference_number, newest.reference_number) == ("PA26-000201",
                                                                   "PA26-000202")


def test_latest_ranks_by_preference_then_id():
    class Row:
        def __init__(self, id: int, kind: str, sent: bool):
            self.id, self.kind, self.sent = id, kind, sent

    rows = [Row(1, "dme", True), Row(2, "dme", False), Row(3, "other", True)]
    assert latest([]) is None
    assert latest(rows).id == 3
    assert latest(rows, prefer=lambda r: r.kind == "dme").id == 2
    assert latest(rows, prefer=lambda r: (r.sent, r.kind == "dme")).id == 1


def test_an_appeal_counts_past_draft_only(run):
    with run.agent("acme") as s:
        s.add_all([Appeal(member_id=1, level=2, status="draft", created_at=NOW),
                   Appeal(member_id=1, level=1, case_id=1000, status="submitted",
                          created_at=NOW, reference_number="AP26-000001")])
    with extract(run) as ex:
        appeal = submitted_appeal(ex, MEMBER, prefer=lambda a: a.level == 2)
        assert appeal is not None and appeal.reference_number == "AP26-000001"
        assert submitted_appeal(ex, LOOK_ALIKE) is None
    assert APPEAL_SUBMITTED[0] == "submitted" and "draft" not in APPEAL_SUBMITTED


@pytest.mark.parametrize(("row", "sent"), [
    (PaCase(status="draft"), False), (PaCase(status="cancelled"), False),
    (PaCase(status="in_review"), True), (PaCase(status="denied"), True),
    (Appeal(status="draft"), False), (Appeal(status="upheld"), True),
    (ClaimCorrection(status="draft"), False), (ClaimCorrection(status="submitted"), True),
    (ExternalReview(status="draft"), False), (ExternalReview(status="withdrawn"), False),
    (ExternalReview(status="submitted"), True),
    (EpaRequest(status="in_progress"), False), (EpaRequest(status="sent_to_plan"), True)])
def test_filed_is_the_one_rule_for_drafts(row, sent):
    assert filed(row) is sent


@pytest.mark.parametrize(("text", "twice"), [
    ("naproxen 500 mg BID", True), ("1,000 mg b.i.d.", True), ("twice-daily", True),
    ("2x/day", True), ("two times a day", True), ("q12h", True), ("every 12 hours", True),
    ("once daily", False), ("q12", False), ("q8h", False), ("twice weekly", False),
    ("forbid", False)])
def test_twice_daily_in_the_office_s_wordings(text, twice):
    assert says_twice_daily(text) is twice


def test_nothing_filed_scores_zero_and_names_member_and_channel():
    result = nothing_filed(MEMBER, "CPT 72148", kind="appeal", done="saved", via="the API")
    assert result.fraction == 0.0
    assert result.evidence == {"expected": "CPT 72148", "found": "no appeal for member "
                               f"{MEMBER} saved through the API in this episode"}


# -- what the request says -----------------------------------------------------------------
def test_diagnosis_codes_keep_the_entered_order_and_the_first_is_primary():
    assert diagnosis_codes(" a41.9, N39.0,,R65.20 ") == ["A41.9", "N39.0", "R65.20"]
    assert primary_icd10("m51.16,M54.16") == "M51.16"
    assert (primary_icd10(None), diagnosis_codes(None)) == ("", [])


def test_answers_and_the_detail_row_belong_to_their_case(run):
    with run.agent("acme") as s:
        case = PaCase(member_id=1, status="submitted", case_type="extension", created_at=NOW)
        other = PaCase(member_id=1, status="submitted", created_at=NOW)
        s.add_all([case, other])
        s.flush()
        s.add_all([PaAnswer(case_id=case.id, question_key="pt_weeks", answer="6"),
                   PaAnswer(case_id=other.id, question_key="pt_weeks", answer="2"),
                   AuthExtension(case_id=case.id, base_case_id=1000, current_score=51)])
    with extract(run) as ex:
        mine = submitted_case(ex, MEMBER, prefer=lambda c: c.case_type == "extension")
        assert case_answers(ex, mine) == {"pt_weeks": "6"}
        assert case_detail(ex, AuthExtension, mine).current_score == 51
        newest = submitted_case(ex, MEMBER)
        assert case_detail(ex, AuthExtension, newest) is None


# -- documents -----------------------------------------------------------------------------
def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


GOLD = {sha(NOTE): "visit note", sha(REPORT): "imaging report"}


def test_gold_documents_are_the_seeded_bytes(run):
    (run.root / "input" / "search.pdf").write_bytes(b"%PDF search")
    with extract(run) as ex:
        assert ehr_document_hashes(ex, {2001: "visit note", 2002: "imaging report"}) == GOLD
        assert ehr_document_hash(ex, 2001, "visit note") == sha(NOTE)
        assert input_hash(ex, "search.pdf") == sha(b"%PDF search")
        with pytest.raises(CouldNotGrade, match=r"no document 2999 \(lost note\)"):
            ehr_document_hash(ex, 2999, "lost note")
        with pytest.raises(CouldNotGrade, match="input/absent.pdf is missing"):
            input_hash(ex, "absent.pdf")


def test_exactly_the_gold_documents_earn_everything():
    attached = {sha(NOTE): "note.pdf", sha(REPORT): "renamed.pdf"}
    result = exact_documents(GOLD, attached, rows=["acme.pa_cases#1"])
    assert result.fraction == 1.0
    assert result.evidence["rows"] == ["acme.pa_cases#1"]


def test_a_missing_document_costs():
    result = exact_documents(GOLD, {sha(NOTE): "note.pdf"})
    assert result.fraction == 0.5
    assert result.evidence["missing"] == ["imaging report"]


def test_an_extra_attachment_costs():
    attached = {sha(NOTE): "note.pdf", sha(REPORT): "report.pdf", sha(b"old"): "2025 test.pdf"}
    result = exact_documents(GOLD, attached)
    assert result.fraction == pytest.approx(2 / 3)
    assert result.evidence["extra"] == ["2025 test.pdf"]


def test_included_documents_do_not_charge_for_others():
    attached = {sha(NOTE): "note.pdf", sha(b"letter"): "letter.pdf"}
    result = included_documents(GOLD, attached)
    assert result.fraction == 0.5
    assert result.evidence["others"] == ["letter.pdf"]
    parts = document_parts(GOLD, attached)
    assert {k: r.fraction for k, r in parts.items()} == {"visit note": 1.0,
                                                         "imaging report": 0.0}


def test_attachments_are_recognised_by_content_once_per_document(run):
    with run.agent("acme") as s:
        case = PaCase(member_id=1, status="submitted", created_at=NOW)
        appeal = Appeal(member_id=1, status="submitted", created_at=NOW)
        s.add_all([case, appeal])
        s.flush()
        s.add_all([Attachment(case_id=case.id, filename="a.pdf", content=NOTE),
                   Attachment(case_id=case.id, filename="a copy.pdf", content=NOTE),
                   Attachment(appeal_id=appeal.id, filename="r.pdf", content=REPORT)])
    with extract(run) as ex:
        case_files = attached_to(ex, submitted_case(ex, MEMBER))
        assert list(case_files) == [sha(NOTE)]
        assert attached_to(ex, submitted_appeal(ex, MEMBER)) == {sha(REPORT): "r.pdf"}
        assert exact_documents(GOLD, case_files).fraction == 0.5


def test_by_digest_takes_any_stored_file():
    files = [Attachment(filename="one.pdf", content=b"x"), FaxDocument(filename="two.pdf",
                                                                       content=b"y")]
    assert by_digest(files) == {sha(b"x"): "one.pdf", sha(b"y"): "two.pdf"}


# -- faxes -----------------------------------------------------------------------------------
def send(run: RunBuilder, status: str, *, received: bool = False,
         files: tuple[tuple[str, bytes], ...] = ()) -> None:
    with run.agent("fax") as s:
        job = FaxJob(account_id=1, from_number="217-555-0199", to_number="1-888-555-0142",
                     to_digits="18885550142", status=status, created_at=NOW)
        s.add(job)
        s.flush()
        s.add_all(FaxDocument(job_id=job.id, position=n, filename=name, page_count=1,
                              content=data) for n, (name, data) in enumerate(files, 1))
        job_id = job.id
    if received:
        with run.agent("fax", channel="fax", actor="fax-sink") as s:
            s.add(ReceivedFax(job_id=job_id, to_digits="18885550142",
                              from_digits="12175550199", filename="rx.pdf", page_count=1,
                              content=b"%PDF rx", received_at=NOW))


def test_only_transmitted_faxes_count(run):
    send(run, "failed")
    send(run, "queued")
    send(run, "delivered")
    send(run, "sending", received=True)
    with extract(run) as ex:
        assert [(j.id, j.status) for j in delivered_faxes(ex)] == [(3, "delivered"),
                                                                   (4, "sending")]


def test_the_form_is_the_upload_with_the_most_of_its_fields(run):
    names = ["patient_name", "member_id", "cpt_code"]
    form = fill_pdf(blank_form(names), {"patient_name": "Ross, Hannah"})
    other = blank_form(["a", "b", "c", "d"])
    send(run, "delivered", files=(("note.pdf", NOTE), ("other.pdf", other),
                                  ("form.pdf", form)))
    with extract(run) as ex:
        files = fax_files(ex, delivered_faxes(ex)[0])
        fields, chosen = filled_form(ex, files, names)
        assert chosen.filename == "form.pdf" and fields["patient_name"] == "Ross, Hannah"
        assert filled_form(ex, files)[1].filename == "other.pdf"
        assert filled_form(ex, files[:1], names) == ({}, None)


# -- form fields -----------------------------------------------------------------------------
def test_names_compare_as_words_without_titles():
    assert name_words("Dr. Rafael Ortiz, MD") == name_words("Ortiz, Rafael") == {"rafael",
                                                                                 "ortiz"}
    rules = FormRules(names=frozenset({"provider"}))
    assert rules.field("provider", "Kwame Osei, MD", "osei kwame").fraction == 1.0
    # one rule for every form: credentials (MD, DO, NP, PA) are not part of the name
    for written in ("Kwame Osei, PA", "Dr. Kwame Osei, NP", "Osei, Kwame DO"):
        assert rules.field("provider", "Kwame Osei, MD", written).fraction == 1.0
    assert BETA_PA_FORM.titles == TITLES
    assert rules.field("provider", "Kwame Osei, MD", "Kwame Ose, MD").fraction == 0.0
    assert rules.field("provider", "", "").fraction == 0.0  # an empty field says nothing


def test_phones_dates_and_codes():
    form = BETA_PA_FORM
    assert form.field("provider_fax", "217-555-0199", "(217) 555 0199").fraction == 1.0
    assert form.field("provider_fax", "217-555-0199", "217-555-0100").fraction == 0.0
    gold = dt.date(2026, 10, 27)
    for written in ("2026-10-27", "10/27/2026", "10-27-2026", "10/27/26", gold):
        assert form.field("service_date", gold, written).fraction == 1.0, written
    assert form.field("service_date", gold, "27/10/2026").fraction == 0.0
    assert form.field("cpt_code", "R93.2", " r93.2 ").fraction == 1.0
    assert form.field("cpt_code", "74160", None).fraction == 0.0
    parts = form.fields({"cpt_code": "74160", "member_id": "BTC1"}, {"cpt_code": "74160"})
    assert {k: r.fraction for k, r in parts.items()} == {"cpt_code": 1.0, "member_id": 0.0}


def test_form_date_reads_what_forms_hold():
    assert form_date(dt.datetime(2026, 10, 27, 8)) == dt.date(2026, 10, 27)
    assert form_date(" 2026-10-27 ") == dt.date(2026, 10, 27)
    assert form_date(None) is None and form_date("soon") is None


# -- the payer's number in the EHR -------------------------------------------------------------
def test_a_reference_counts_in_the_authorization_record_or_a_new_note(run):
    with run.agent("ehr") as s:
        s.add_all([Pnote(date=NOW, body="Acme case PA26-000301 submitted", pid=101),
                   Pnote(date=NOW, body="PA26-000302", pid=101, deleted=1),
                   Pnote(date=NOW, body="PA26-000303", pid=102)])
        s.get(PriorAuthorization, AUTH_RECORD).portal_reference = "pa26-000304"
        s.get(PriorAuthorization, 3002).portal_reference = "PA26-000305"
    with extract(run) as ex:
        places = ehr_reference_places(ex, MRN, AUTH_RECORD)
        found = {n: reference_recorded(n, places).fraction
                 for n in ("PA26-000301", "PA26-000302", "PA26-000303", "PA26-000304",
                           "PA26-000305", "PA26-000777")}
        # record 3001 is patient 101's: it is no place for patient 102's number
        theirs = ehr_reference_places(ex, OTHER_MRN, AUTH_RECORD)
        assert reference_recorded("PA26-000304", theirs).fraction == 0.0
    # a deleted note, another patient's note or record, and a seeded note do not count
    assert found == {"PA26-000301": 1.0, "PA26-000302": 0.0, "PA26-000303": 0.0,
                     "PA26-000304": 1.0, "PA26-000305": 0.0, "PA26-000777": 0.0}


def test_the_pa_desk_task_carries_the_reference(run):
    with run.agent("ehr") as s:
        s.get(EhrTask, PA_TASK).body = "Submitted, Acme reference PA26-000401"
    with extract(run) as ex:
        assert task_carries(ex, PA_TASK, "pa26-000401").fraction == 1.0
        assert task_carries(ex, PA_TASK, "PA26-000402").fraction == 0.0
        missing = task_carries(ex, 4999, "PA26-000401")
        assert (missing.fraction, missing.evidence["found"]) == (0.0, "deleted")


@pytest.mark.parametrize(("text", "found"), [
    ("PA26-042207", True), ("Ref: pa26-042207.", True), ("approved (PA26-042207)", True),
    ("PA26-0422071", False), ("XPA26-042207", False), ("PA26-04220", False), ("", False),
])
def test_a_number_is_mentioned_only_whole(text, found):
    from verifier.values import mentions

    assert mentions(text, "PA26-042207") is found
    assert mentions(text, "") is False
