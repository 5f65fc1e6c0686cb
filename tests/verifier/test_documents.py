"""Files a check may read: Workspace outputs, received faxes (PDF), input hashes."""

from __future__ import annotations

import hashlib
import io

from reportlab.pdfgen import canvas

from tests.verifier.builders import RunBuilder, make_task, seed_patients
from verifier import grade
from verifier.documents import PdfDocument

FILES = '''
from verifier import Result, check

@check("files read")
def files(ex):
    faxes = ex.fax_documents()
    form = ex.fax_document("fax_0001.pdf")
    return Result.passed(
        faxes=[(d.name, d.page_count, d.problem is None) for d in faxes],
        fields=form.fields, text=form.text, sha=form.sha256,
        missing_fax=ex.fax_document("nope.pdf") is None,
        outside=ex.output_text("../run.json"),
        letter=ex.output_text("letter.txt"),
        table=ex.output_csv("status.csv"),
        outputs=ex.output_files(),
        input_sha=ex.input_sha256("ad.pdf"),
        blob_pages=ex.pdf(open(ex.path / "input" / "ad.pdf", "rb").read()).page_count,
    )
'''


def fillable_pdf() -> bytes:
    buffer = io.BytesIO()
    page = canvas.Canvas(buffer)
    page.drawString(72, 720, "Beta Care Prior Authorization Request")
    page.acroForm.textfield(name="member_id", value="BTC55120987", x=72, y=600, width=200,
                            height=20)
    page.acroForm.textfield(name="cpt", value="72148", x=72, y=560, width=200, height=20)
    page.showPage()
    page.drawString(72, 720, "Clinical note: lumbar radiculopathy")
    page.showPage()
    page.save()
    return buffer.getvalue()


def test_extract_reads_faxes_outputs_and_inputs(tmp_path):
    spec = make_task(tmp_path / "tasks", FILES, credit=[("files read", 100)])
    run = RunBuilder(tmp_path / "run", spec)
    seed_patients(run)
    run.snapshot()
    pdf = fillable_pdf()
    (run.root / "fax_sink" / "fax_0001.pdf").write_bytes(pdf)
    (run.root / "fax_sink" / "fax_0002.pdf").write_bytes(b"%PDF-1.4 truncated")
    (run.root / "output" / "letter.txt").write_text("\ufeffDear reviewer,\n")
    (run.root / "output" / "status.csv").write_text("case, status \n 1 ,Approved\n")
    (run.root / "input" / "ad.pdf").write_bytes(pdf)
    ev = grade(spec, run.close()).checks[0].evidence
    assert ev["faxes"] == [("fax_0001.pdf", 2, True), ("fax_0002.pdf", 0, False)]
    assert ev["fields"] == {"member_id": "BTC55120987", "cpt": "72148"}
    assert "Clinical note: lumbar radiculopathy" in ev["text"]
    assert ev["sha"] == hashlib.sha256(pdf).hexdigest() == ev["input_sha"]
    assert ev["missing_fax"] is True and ev["outside"] is None
    assert ev["letter"] == "Dear reviewer,\n"
    assert ev["table"] == [{"case": "1", "status": "Approved"}]
    assert ev["outputs"] == ["letter.txt", "status.csv"]
    assert ev["blob_pages"] == 2


def test_an_unreadable_pdf_is_evidence_not_a_crash():
    doc = PdfDocument("x.pdf", b"not a pdf at all")
    assert doc.problem and doc.page_count == 0 and doc.fields == {} and doc.text == ""
    assert doc.to_json()["sha256"] == hashlib.sha256(b"not a pdf at all").hexdigest()
