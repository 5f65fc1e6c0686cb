"""What the prior-authorization checks ask of the payer stores, decided once.

Every pa-* task grades the same few questions: which of the member's requests (or appeals,
or faxes) counts as the one filed; were exactly the right documents attached, recognised by
their bytes; did the fax that arrived carry its pages in order; does a filled form say what
the chart says; is the payer's number recorded in the EHR. Each function here makes one of
those decisions and says why in its docstring, so a task's ``verify.py`` holds its gold
facts and the few rules that are its own.

The stores are read through the :class:`~verifier.Extract` only, so the channel rule holds:
a row another channel or episode wrote is seen as seeded, and ``ex.created`` rows are this
run's.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from sandbox.stores.acme import (
    APPEAL_STATUSES,
    CASE_STATUSES,
    Appeal,
    Attachment,
    ClaimCorrection,
    Member,
    PaAnswer,
    PaCase,
)
from sandbox.stores.base import StoredFile
from sandbox.stores.ehr import Document, EhrTask, Pnote, PriorAuthorization
from sandbox.stores.epa import EpaRequest
from sandbox.stores.fax import FaxDocument, FaxJob, ReceivedFax, fax_digits
from sandbox.stores.regulator import REVIEW_STATUSES, ExternalReview
from verifier.checks import Result, equal_share, expect, row_ref
from verifier.documents import PdfDocument
from verifier.errors import CouldNotGrade
from verifier.extract import Extract
from verifier.values import as_date, mentions, normalize_text

# -- what counts as filed ----------------------------------------------------------------
# The one rule for drafts: a request that was never sent earns nothing for its content. A
# draft (saved, resumable, not on the payer's desk) or a draft the office withdrew is not a
# filing, so every item about what a request says grades only a request past draft; an item
# that asks "was it sent" then decides the send, and "nothing submitted" items ignore drafts.
#
# A case past ``draft`` is on the payer's desk; a cancelled case was withdrawn by the office,
# so neither a draft nor a cancelled case is the request the task asked for.
CASE_SUBMITTED: tuple[str, ...] = tuple(s for s in CASE_STATUSES
                                        if s not in ("draft", "cancelled"))
# An appeal cannot be withdrawn in the portal: every status past ``draft`` was filed.
APPEAL_SUBMITTED: tuple[str, ...] = tuple(s for s in APPEAL_STATUSES if s != "draft")
# An external review request past draft reached the state, unless it was withdrawn.
REVIEW_SUBMITTED: tuple[str, ...] = tuple(s for s in REVIEW_STATUSES
                                          if s not in ("draft", "withdrawn"))
# An ePA request is with the plan once sent (the plan's replies keep it past sending).
EPA_SENT: tuple[str, ...] = ("sent_to_plan", "approved", "denied", "pended")

Filing = PaCase | Appeal | ClaimCorrection | ExternalReview | EpaRequest


def filed(row: Filing) -> bool:
    """Whether a request, appeal, corrected claim, external review or ePA request was sent:
    the one test of "is this a filing, or a draft" every pa-* check uses."""
    if isinstance(row, PaCase):
        return row.status in CASE_SUBMITTED
    if isinstance(row, Appeal):
        return row.status in APPEAL_SUBMITTED
    if isinstance(row, ExternalReview):
        return row.status in REVIEW_SUBMITTED
    if isinstance(row, EpaRequest):
        return row.status in EPA_SENT
    return row.status != "draft"  # a corrected claim: draft, then submitted / accepted


class Numbered(Protocol):
    """A row with a surrogate ``id`` that grows with time (cases, appeals, fax jobs ...)."""

    @property
    def id(self) -> int: ...


Row = TypeVar("Row", bound=Numbered)
Detail = TypeVar("Detail")
File = TypeVar("File", bound=StoredFile)


def latest(rows: Iterable[Row], prefer: Callable[[Row], Any] | None = None) -> Row | None:
    """The row a check grades among several attempts: the latest (highest ``id``) of those
    ``prefer`` ranks highest, or ``None`` when there are none.

    Preferring the right kind (the CPT code, the case type, the destination) before recency
    grades the attempt that meant to do the task, so a later unrelated filing does not hide
    it; the other items decide what the extra filings cost.
    """
    found = list(rows)
    if not found:
        return None
    return max(found, key=lambda row: (prefer(row) if prefer else 0, row.id))


def member_id(ex: Extract, number: str) -> int:
    """``members.id`` of the Acme member with this member number, as seeded.

    Everything of a member is found through this key, never by name, so a look-alike
    member (one digit apart, the same name) is another member. A seed without exactly one
    such member is the fixture's fault: could not grade.
    """
    rows = ex.seed_rows(Member, Member.member_number == number)
    if len(rows) != 1:
        raise CouldNotGrade(f"the seed has {len(rows)} Acme members {number}")
    return rows[0].id


def member_cases(ex: Extract, number: str) -> list[PaCase]:
    """The member's cases this run created (drafts included), oldest first."""
    return sorted(ex.created(PaCase, PaCase.member_id == member_id(ex, number)),
                  key=lambda case: case.id)


def submitted_case(ex: Extract, number: str,
                   prefer: Callable[[PaCase], Any] | None = None) -> PaCase | None:
    """The member's new case past draft that the task grades (see :func:`latest`); a draft
    is never graded for its content (see :func:`filed`)."""
    return latest((c for c in member_cases(ex, number) if filed(c)), prefer)


def submitted_appeal(ex: Extract, number: str,
                     prefer: Callable[[Appeal], Any] | None = None) -> Appeal | None:
    """The member's new appeal past draft that the task grades (see :func:`latest`)."""
    appeals = ex.created(Appeal, Appeal.member_id == member_id(ex, number))
    return latest((a for a in appeals if filed(a)), prefer)


def case_detail(ex: Extract, model: type[Detail], case: PaCase) -> Detail | None:
    """The case's row in a 1:1 detail table (``dme_orders``, ``auth_extensions`` ...), or
    ``None`` when the request was filed without one."""
    rows = ex.rows(model, model.case_id == case.id)  # type: ignore[attr-defined]
    return rows[0] if rows else None


def nothing_filed(member: str, expected: object, *, kind: str = "request",
                  done: str = "submitted", via: str = "the browser") -> Result:
    """0 for an item whose subject was never filed, saying what was looked for.

    An item about a request's content cannot give partial credit to a request that does not
    exist; the evidence says which member and which channel were searched.
    """
    return Result.failed(expected=expected, found=f"no {kind} for member {member} {done} "
                         f"through {via} in this episode")


# -- what the request says ---------------------------------------------------------------
def diagnosis_codes(codes: str | None) -> list[str]:
    """The ICD-10 codes of a ``pa_cases.icd10_codes`` value, in entered order, upper case."""
    return [c.strip().upper() for c in (codes or "").split(",") if c.strip()]


def primary_icd10(codes: str | None) -> str:
    """The primary (first) diagnosis of ``icd10_codes``; ``""`` when none was entered."""
    return (codes or "").split(",")[0].strip().upper()


def case_answers(ex: Extract, case: PaCase) -> dict[str, str]:
    """The case's questionnaire answers, question key → stored answer text."""
    return {a.question_key: a.answer for a in ex.rows(PaAnswer, PaAnswer.case_id == case.id)}


# Any way an office writes "twice a day" in a dose's free text (naproxen 500 mg BID,
# metformin 1000 mg every 12 hours): pa-01 and pa-20 grade a dose by amount and frequency.
TWICE_DAILY = re.compile(
    r"\btwice[\s-]+(?:(?:a|per|each)[\s-]+)?da(?:il)?y\b"
    r"|\b(?:2|two)\s*(?:x|times)[\s-]*(?:(?:a|per|each)[\s-]+|/\s*)?da(?:il)?y\b"
    r"|\bb\.?\s?i\.?\s?d\b"
    r"|\bevery\s+12\s*(?:hours?|hrs?|h)\b|\bq\.?\s?12\s*(?:hours?|hrs?|h)(?![a-z0-9])")


def says_twice_daily(text: object) -> bool:
    """Whether a free-text dose or direction gives a twice-daily frequency."""
    return bool(TWICE_DAILY.search(normalize_text(text)))


# -- documents, recognised by their bytes --------------------------------------------------
def ehr_document_data(ex: Extract, document_id: int, label: str) -> bytes:
    """The bytes of a seeded EHR document; a seed without it could not be graded."""
    rows = ex.seed_rows(Document, Document.id == document_id)
    if not rows or not rows[0].document_data:
        raise CouldNotGrade(f"the seeded EHR has no document {document_id} ({label})")
    return bytes(rows[0].document_data)


def ehr_document_hash(ex: Extract, document_id: int, label: str) -> str:
    """sha256 of a seeded EHR document: the evidence the office should have attached.

    Attachments compare by content, not by file name, so a renamed copy of the right note
    counts and a look-alike's note of the same name does not.
    """
    return ex.sha256(ehr_document_data(ex, document_id, label))


def ehr_document_hashes(ex: Extract, documents: Mapping[int, str]) -> dict[str, str]:
    """sha256 → label of the seeded EHR documents given as document id → label."""
    return {ehr_document_hash(ex, doc_id, label): label for doc_id, label in documents.items()}


def ehr_document_pdfs(ex: Extract, documents: Mapping[int, str]) -> dict[str, PdfDocument]:
    """label → the seeded EHR document as a PDF, given as document id → label."""
    return {label: ex.pdf(ehr_document_data(ex, doc_id, label), label)
            for doc_id, label in documents.items()}


def input_hash(ex: Extract, name: str) -> str:
    """sha256 of a task input file (``input/<name>``), the evidence to upload."""
    sha = ex.input_sha256(name)
    if sha is None:
        raise CouldNotGrade(f"input/{name} is missing from the extract")
    return sha


def input_hashes(ex: Extract, inputs: Mapping[str, str]) -> dict[str, str]:
    """sha256 → label of task input files given as file name → label."""
    return {input_hash(ex, name): label for name, label in inputs.items()}


def by_digest(files: Iterable[StoredFile]) -> dict[str, str]:
    """sha256 → file name of stored files: the same bytes attached twice are one document."""
    return {f.sha256: f.filename for f in files}


def attached_to(ex: Extract, owner: PaCase | Appeal) -> dict[str, str]:
    """sha256 → file name of the documents attached to an Acme case or appeal."""
    if isinstance(owner, PaCase):
        return by_digest(ex.rows(Attachment, Attachment.case_id == owner.id))
    return by_digest(ex.rows(Attachment, Attachment.appeal_id == owner.id))


def exact_documents(gold: Mapping[str, str], attached: Mapping[str, str],
                    **evidence: Any) -> Result:
    """Matched gold documents over max(gold, distinct documents attached).

    For items that ask for "exactly" the evidence: each missing document costs, and so does
    each extra one (an outdated test, a look-alike's note), since a reviewer must read it.
    """
    matched = sorted(gold[sha] for sha in attached if sha in gold)
    return Result(len(matched) / max(len(gold), len(attached)), {
        "expected": sorted(gold.values()), "matched": matched,
        "extra": sorted({name for sha, name in attached.items() if sha not in gold}),
        "missing": sorted(set(gold.values()) - set(matched)), **evidence})


def document_attached(sha: str, label: str, attached: Mapping[str, str]) -> Result:
    """1 when the document with this sha256 is among the attached files."""
    return Result.of(sha in attached, expected=label, found=attached.get(sha, "not attached"))


def document_parts(gold: Mapping[str, str], attached: Mapping[str, str]) -> dict[str, Result]:
    """One part per gold document (label → attached or not), for an item that shares its
    parts with other facts (a cover sheet, a form)."""
    return {label: document_attached(sha, label, attached) for sha, label in gold.items()}


def included_documents(gold: Mapping[str, str], attached: Mapping[str, str],
                       **evidence: Any) -> Result:
    """The share of gold documents attached; other documents do not cost.

    For items that "include" the evidence: a letter or order may carry more than the gold.
    """
    return equal_share(document_parts(gold, attached),
                       others=sorted(n for s, n in attached.items() if s not in gold),
                       **evidence)


# -- faxes -------------------------------------------------------------------------------
def delivered_faxes(ex: Extract) -> list[FaxJob]:
    """This run's fax jobs that reached the other end, oldest first.

    A job counts when the service marked it ``delivered`` or the sink received it; a queued
    or failed job transmitted nothing.
    """
    received = {r.job_id for r in ex.rows(ReceivedFax)}
    return sorted((j for j in ex.created(FaxJob) if j.status == "delivered" or j.id in received),
                  key=lambda j: j.id)


def sent_faxes(ex: Extract) -> list[FaxJob]:
    """This run's fax jobs that were sent (a confirmation ID, not failed or cancelled),
    delivered or still on their way, oldest first: what the office has filed by fax even
    if the episode ended before the last page went through."""
    return sorted((j for j in ex.created(FaxJob) if j.confirmation_id
                   and j.status in ("queued", "sending", "delivered")),
                  key=lambda j: j.id)


def fax_files(ex: Extract, job: FaxJob) -> list[FaxDocument]:
    """The files uploaded to a fax job, as uploaded (fillable-form fields intact)."""
    return ex.rows(FaxDocument, FaxDocument.job_id == job.id)


def filled_form(ex: Extract, files: Sequence[File], names: Iterable[str] | None = None
                ) -> tuple[dict[str, Any], File | None]:
    """The AcroForm fields of the uploaded PDF that is the form, and that file.

    The form is the file with the most of the form's field ``names`` (without names: the
    most fields at all); the first such file wins a tie. A file without any is not a form:
    ``({}, None)``.
    """
    wanted = None if names is None else list(names)
    best: tuple[int, dict[str, Any], File | None] = (0, {}, None)
    for file in files:
        fields = ex.pdf(file.content, file.filename).fields
        count = len(fields) if wanted is None else sum(1 for name in wanted if name in fields)
        if count > best[0]:
            best = (count, fields, file)
    return best[1], best[2]


def received_fax(ex: Extract, job: FaxJob) -> PdfDocument | None:
    """What the other end received for a job: the sink's PDF (``fax_sink/<confirmation
    id>.pdf``), else the sink's ``received_faxes`` row; ``None`` when nothing arrived."""
    if job.confirmation_id:
        found = ex.fax_document(f"{job.confirmation_id}.pdf")
        if found is not None:
            return found
    rows = ex.rows(ReceivedFax, ReceivedFax.job_id == job.id)
    return ex.pdf(rows[0].content, rows[0].filename) if rows else None


_ANY_SPACE = re.compile(r"\s+")
# A fax cover sheet reads "FAX ... To: ... From: ...", whoever drew it.
COVER_SHEET = (re.compile(r"\bfax\b"), re.compile(r"\bto:"), re.compile(r"\bfrom:"))


def _page_key(text: str) -> str:
    return _ANY_SPACE.sub("", text).casefold()


def page_start(received: PdfDocument, document: PdfDocument) -> int | None:
    """The index of the received page where ``document``'s pages begin, in their order, or
    ``None`` when they did not all arrive.

    A received page is a document's page when it holds all of that page's text (the sink
    adds the transmit header line a fax machine prints on each page). A document with a
    page that has no text cannot be recognised this way: ``None``.
    """
    got = [_page_key(t) for t in received.pages_text]
    want = [_page_key(t) for t in document.pages_text]
    if not want or not all(want):
        return None
    for start in range(len(got) - len(want) + 1):
        if all(page in got[start + i] for i, page in enumerate(want)):
            return start
    return None


def fax_page_parts(ex: Extract, job: FaxJob, form: StoredFile | None,
                   documents: Mapping[str, PdfDocument]) -> dict[str, Result]:
    """The received fax's pages in the order the payer asks for: a cover sheet, then the
    form, then the chart documents. One part for the cover sheet and one per document:

    - cover sheet first: the first received page reads as a fax cover sheet ("fax", "To:",
      "From:") and is no page of the form or of the documents;
    - each document: all its pages arrived, after the form's (when the form arrived; a
      missing form is the form's item's loss, not the document's).

    What counts is what the sink received, not the job's cover flag or upload list.
    """
    received = received_fax(ex, job)
    if received is None or not received.page_count:
        nothing = Result.failed(found=f"nothing received for fax {job.confirmation_id}")
        return {"cover sheet first": nothing,
                **{f"{label} after the form": nothing for label in documents}}
    form_pdf = ex.pdf(form.content, form.filename) if form is not None else None
    form_at = page_start(received, form_pdf) if form_pdf is not None else None
    starts = {label: page_start(received, pdf) for label, pdf in documents.items()}
    own = ([form_pdf] if form_pdf is not None else []) + list(documents.values())
    first_text = received.pages_text[0] if received.pages_text else ""
    first = _page_key(first_text)
    is_theirs = any(key and key in first
                    for pdf in own for key in (_page_key(t) for t in pdf.pages_text))
    reads_as_cover = all(p.search(first_text.casefold()) for p in COVER_SHEET)
    order = {"received": received.name, "pages": received.page_count,
             "form starts at page": None if form_at is None else form_at + 1}
    parts = {"cover sheet first": Result.of(reads_as_cover and not is_theirs,
                                            expected="page 1 is a fax cover sheet", **order)}
    for label, start in starts.items():
        parts[f"{label} after the form"] = Result.of(
            start is not None and (form_at is None or start > form_at),
            expected=f"all pages of {label}, after the form",
            found="not received" if start is None else f"from page {start + 1}")
    return parts


# -- form fields against the chart --------------------------------------------------------
# Words a person's name may carry on a form besides the name itself: titles and the
# clinical credentials (MD, DO, NP, PA) an office writes after a provider's name.
TITLES = frozenset({"dr", "md", "do", "np", "pa", "mr", "mrs", "ms", "phd"})
DATE_FORMATS = ("%Y-%m-%d", "%m/%d/%Y", "%m-%d-%Y", "%m/%d/%y")


def name_words(value: object, titles: frozenset[str] = TITLES) -> set[str]:
    """The words of a name without titles: "Dr. Rafael Ortiz, MD" = "Ortiz, Rafael"."""
    return {w for w in re.findall(r"[a-z0-9]+", normalize_text(value)) if w not in titles}


def form_date(value: object) -> dt.date | None:
    """A date as a form gives it: a date, ISO text or US style (10/27/2026, 10/27/26)."""
    if isinstance(value, dt.date) or value is None:
        return as_date(value)
    text = str(value).strip()
    for fmt in DATE_FORMATS:
        try:
            return dt.datetime.strptime(text, fmt).date()
        except ValueError:
            continue
    return None


@dataclass(frozen=True)
class FormRules:
    """How one form's fields compare with the chart's facts.

    Names compare as words (order, ``titles`` and punctuation ignored), phone and fax
    numbers by their digits, dates as dates whatever their style; everything else (codes,
    NPIs, IDs) exactly, case and surrounding spaces ignored.
    """

    names: frozenset[str] = frozenset()
    phones: frozenset[str] = frozenset()
    titles: frozenset[str] = field(default=TITLES)
    field_names: tuple[str, ...] = ()  # the form's AcroForm fields, to tell it from uploads

    def field(self, name: str, gold: object, found: object) -> Result:
        """1 when the form's value of ``name`` says ``gold``."""
        if name in self.names:
            return Result.of(bool(found) and name_words(found, self.titles)
                             == name_words(gold, self.titles), expected=gold, found=found)
        if name in self.phones:
            return Result.of(fax_digits(str(found or "")) == fax_digits(str(gold)),
                             expected=gold, found=found)
        if isinstance(gold, dt.date):
            return Result.of(form_date(found) == gold, expected=gold.isoformat(), found=found)
        return expect(str(found).strip() if found is not None else None, gold)

    def fields(self, gold: Mapping[str, object], found: Mapping[str, object]
               ) -> dict[str, Result]:
        """One part per gold field, for a proportional item."""
        return {name: self.field(name, value, found.get(name)) for name, value in gold.items()}

    def form_of(self, ex: Extract, files: Sequence[File]) -> tuple[dict[str, Any], File | None]:
        """The uploaded file that is this form (most of its ``field_names``; see
        :func:`filled_form`) and its fields."""
        return filled_form(ex, files, self.field_names or None)


# Beta Care's PA request form (input/beta_pa_form.pdf): pa-07 and pa-14 fill the same 14
# fields, and grade them and pick the uploaded form by the same rules.
BETA_PA_FORM = FormRules(
    names=frozenset({"patient_name", "ordering_provider", "facility_name"}),
    phones=frozenset({"provider_phone", "provider_fax"}),
    field_names=("patient_name", "patient_dob", "member_id", "ordering_provider",
                 "ordering_npi", "provider_phone", "provider_fax", "cpt_code", "icd10_code",
                 "service_date", "facility_name", "facility_npi", "symptom_onset",
                 "prior_imaging_date"))


# -- the payer's number in the EHR ---------------------------------------------------------
def ehr_reference_places(ex: Extract, mrn: str, authorization: int) -> list[tuple[str, str]]:
    """(row, text) of where the office records a payer's number for a patient: the
    authorization record (``portal_reference`` and ``notes``) and new patient notes."""
    pid = ex.patient_key("ehr", mrn)
    places = [(row_ref(r), f"{r.portal_reference or ''} {r.notes or ''}")
              for r in ex.rows(PriorAuthorization, PriorAuthorization.id == authorization,
                               PriorAuthorization.pid == pid)]
    places += [(row_ref(n), n.body) for n in ex.created(Pnote, Pnote.pid == pid,
                                                        Pnote.deleted == 0)]
    return places


def reference_recorded(number: str, places: Sequence[tuple[str, str]]) -> Result:
    """1 when the payer's ``number`` appears (case and spacing ignored) in any place."""
    hits = [ref for ref, text in places if mentions(text, number)]
    return Result.of(bool(hits), expected=number, found=hits or "not recorded",
                     looked_in=[ref for ref, _ in places])


def task_carries(ex: Extract, task_id: int, number: str) -> Result:
    """1 when EHR task ``task_id``'s ``reference`` or ``body`` contains the payer's
    ``number``: the PA desk's work item is where the office looks for it."""
    tasks = ex.rows(EhrTask, EhrTask.id == task_id)
    if not tasks:
        return Result.failed(expected=f"EHR task {task_id}", found="deleted")
    task = tasks[0]
    text = f"{task.reference or ''} {task.body or ''}"
    return Result.of(mentions(text, number), expected=number,
                     found={"reference": task.reference, "body": task.body},
                     rows=[row_ref(task)])
