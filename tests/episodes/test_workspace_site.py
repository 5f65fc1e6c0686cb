"""The Workspace site: viewers by kind, the CSV/TXT editor, uploads, copies, and its guards."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from portal_web import create_app

HOST = "workspace.local"
ORIGIN = {"origin": f"http://{HOST}"}


@pytest.fixture
def client(demo_run: Path) -> TestClient:
    app = create_app({"run_dir": demo_run, "episode_id": "ep-test", "sites": ["workspace"]})
    return TestClient(app, base_url=f"http://{HOST}")


def test_documents_listing_names_every_input(client: TestClient, demo_run: Path):
    page = client.get("/", follow_redirects=True)
    assert page.status_code == 200
    for path in (demo_run / "input").iterdir():
        assert path.name in page.text
    assert page.template.name == "folder.html"
    assert page.context["writable"] is False


def test_viewers_by_kind(client: TestClient):
    text = client.get("/view/documents/referral.txt")
    assert "MRN 480117" in text.text and text.context["kind"] == "text"
    table = client.get("/view/documents/clinic_hours.csv")
    assert table.context["header"] == ["day", "opens", "closes"]
    assert ["Saturday", "08:00", "12:00"] in table.context["rows"]
    cal = client.get("/view/documents/imaging_schedule.ics")
    assert [e.summary for e in cal.context["events"]] == ["MRI slot (open)"] * 2
    assert "Tue 10/20/2026 08:00 AM" in cal.text
    image = client.get("/view/documents/insurance_card.png")
    assert 'src="http://workspace.local/raw/documents/insurance_card.png"' in image.text
    pdf = client.get("/view/documents/prior_imaging.pdf", follow_redirects=False)
    assert pdf.status_code == 303 and pdf.headers["location"].endswith("/raw/documents/prior_imaging.pdf")
    raw = client.get("/raw/documents/prior_imaging.pdf")
    assert raw.headers["content-type"] == "application/pdf"
    assert raw.headers["content-disposition"].startswith("inline")
    assert raw.content.startswith(b"%PDF")
    download = client.get("/raw/documents/referral.txt?download=1")
    assert download.headers["content-disposition"].startswith("attachment")


def test_new_csv_grid_edit_and_save(client: TestClient, demo_run: Path):
    made = client.post("/new", data={"name": "summary", "kind": "csv"}, headers=ORIGIN,
                       follow_redirects=False)
    assert made.status_code == 303 and made.headers["location"].endswith("/edit/summary.csv")
    editor = client.get("/edit/summary.csv")
    assert len(editor.context["grid"]) == 3 and editor.context["columns"][:2] == ["A", "B"]
    form = {"rows": "3", "cols": "4", "action": "save",
            "cell-0-0": "mrn", "cell-0-1": "patient", "cell-1-0": "480117",
            "cell-1-1": "Nakamura, Ellen"}
    saved = client.post("/edit/summary.csv", data=form, headers=ORIGIN, follow_redirects=False)
    assert saved.status_code == 303
    assert (demo_run / "output" / "summary.csv").read_text() == (
        'mrn,patient\n480117,"Nakamura, Ellen"\n')
    log = [json.loads(x) for x in (demo_run / "logs" / "workspace.jsonl").read_text().splitlines()]
    assert [e["action"] for e in log] == ["create", "save"]
    assert {e["channel"] for e in log} == {"browser"} and log[0]["episode_id"] == "ep-test"
    assert log[0]["sandbox_time"].startswith("2026-10-19T09:00")


def test_grid_grows_without_saving(client: TestClient, demo_run: Path):
    client.post("/new", data={"name": "t.csv", "kind": "csv"}, headers=ORIGIN)
    grown = client.post("/edit/t.csv", data={"rows": "3", "cols": "4", "action": "add_row",
                                             "cell-0-0": "x"}, headers=ORIGIN)
    assert len(grown.context["grid"]) == 4 and grown.context["grid"][0][0] == "x"
    assert (demo_run / "output" / "t.csv").read_text() == ""


def test_text_editor_and_text_mode_of_csv(client: TestClient, demo_run: Path):
    client.post("/new", data={"name": "note", "kind": "txt"}, headers=ORIGIN)
    assert client.get("/edit/note.txt").context["text_mode"] is True
    client.post("/edit/note.txt", data={"text": "line one\r\nline two"}, headers=ORIGIN)
    assert (demo_run / "output" / "note.txt").read_text() == "line one\nline two"
    client.post("/new", data={"name": "a.csv", "kind": "csv"}, headers=ORIGIN)
    assert client.get("/edit/a.csv?mode=text").context["text_mode"] is True
    client.post("/edit/a.csv", data={"text": "a,b\n1,2\n"}, headers=ORIGIN)
    assert client.get("/view/output/a.csv").context["rows"] == [["1", "2"]]


def test_upload_copy_delete(client: TestClient, demo_run: Path):
    up = client.post("/upload", files={"file": ("scan.pdf", b"%PDF-1.4 x", "application/pdf")},
                     headers=ORIGIN)
    assert up.status_code == 200 and (demo_run / "output" / "scan.pdf").read_bytes() == b"%PDF-1.4 x"
    client.post("/copy/documents/referral.txt", headers=ORIGIN)
    assert (demo_run / "output" / "referral.txt").read_text().startswith("Lakeside")
    client.post("/delete/scan.pdf", headers=ORIGIN)
    assert not (demo_run / "output" / "scan.pdf").exists()


@pytest.mark.parametrize("path", [
    "/view/documents/..%2Fclock.json", "/raw/documents/.hidden", "/view/secrets/x.txt",
    "/raw/documents/nope.txt", "/edit/..%2Frun.json",
])
def test_paths_outside_the_folders_are_refused(client: TestClient, path: str):
    page = client.get(path)
    assert page.status_code in (400, 404, 415)
    assert "run.json" not in page.text or page.status_code != 200


def test_documents_are_read_only_and_forms_need_same_origin(client: TestClient, demo_run: Path):
    refused = client.post("/copy/documents/referral.txt")  # no Origin: not from the page
    assert refused.status_code == 403 and "Workspace page itself" in refused.text
    foreign = client.post("/new", data={"name": "x", "kind": "txt"},
                          headers={"origin": "http://portal.acmehealth.test"})
    assert foreign.status_code == 403
    clash = client.post("/new", data={"name": "../run", "kind": "txt"}, headers=ORIGIN)
    assert clash.status_code == 400 and "not a valid file name" in clash.text
    assert not (demo_run / "output" / "x.txt").exists()


@pytest.mark.parametrize("origin", [
    "http://workspace.local:9999", "https://workspace.local", "http://workspace.local.evil",
    "ftp://workspace.local", "null", "http://workspace.local:notaport"])
def test_same_origin_compares_scheme_host_and_port(client: TestClient, demo_run: Path, origin):
    refused = client.post("/new", data={"name": "x", "kind": "txt"}, headers={"origin": origin})
    assert refused.status_code == 403 and "Workspace page itself" in refused.text
    assert not (demo_run / "output" / "x.txt").exists()
    same = client.post("/new", data={"name": "x", "kind": "txt"},
                       headers={"origin": "http://workspace.local:80"}, follow_redirects=False)
    assert same.status_code == 303


def test_a_file_name_with_a_trailing_newline_is_refused(client: TestClient, demo_run: Path):
    from portal_web.workspace.files import WorkspaceError, check_name

    with pytest.raises(WorkspaceError):
        check_name("notes.txt\n")
    upload = client.post("/upload", files={"file": ("notes.txt\n", b"hi", "text/plain")},
                         headers=ORIGIN)
    assert upload.status_code == 400 and "not a valid file name" in upload.text
    assert list((demo_run / "output").glob("notes*")) == []


def test_unreadable_and_oversize_saves_get_the_workspace_page(client: TestClient,
                                                              demo_run: Path):
    client.post("/new", data={"name": "big.txt", "kind": "txt"}, headers=ORIGIN)
    broken = client.post("/edit/big.txt", content=b"--xyz\r\nnot a part",
                         headers={**ORIGIN, "content-type": "multipart/form-data; boundary=xyz"})
    assert broken.status_code == 400 and broken.headers["content-type"].startswith("text/html")
    assert broken.template.name == "problem.html"
    huge = "a" * (5 * 1024 * 1024)
    multipart = client.post("/edit/big.txt", files={"text": (None, huge)}, headers=ORIGIN)
    assert multipart.status_code == 413 and multipart.template.name == "problem.html"
    form = client.post("/edit/big.txt", data={"text": huge}, headers=ORIGIN)
    assert form.status_code == 413 and form.template.name == "problem.html"
    assert (demo_run / "output" / "big.txt").read_text() == ""
    wrong = client.post("/upload", content=b"x", headers={**ORIGIN,
                                                           "content-type": "multipart/form-data"})
    assert wrong.status_code == 400 and wrong.template.name == "problem.html"
