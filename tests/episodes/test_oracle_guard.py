"""The oracle may locate and read, never act around the agent API (DOM, Qt, stores, files)."""

from __future__ import annotations

import io
from pathlib import Path
from types import SimpleNamespace

import pytest

from episodes.oracle import (
    READ_ONLY_METHODS,
    Oracle,
    OracleError,
    OracleViolation,
    ReadOnly,
    check_gold_source,
    load_gold,
)
from sandbox.catalog import load_catalog
from sandbox.paths import FIXTURES_DIR

CATALOG = load_catalog()

GOLD_FILES = sorted(FIXTURES_DIR.glob("*/*/gold.py"))
# the steps gold files share obey the same rules
STEP_FILES = sorted((Path(__file__).parents[2] / "episodes" / "oracle_steps").glob("*.py"))


def test_shared_steps_exist():
    assert {p.name for p in STEP_FILES} >= {"desktop.py", "web.py"}


@pytest.mark.parametrize("path", GOLD_FILES + STEP_FILES,
                         ids=lambda p: p.parent.name + "/" + p.name)
def test_every_gold_solution_acts_only_through_the_agent_api(path: Path):
    assert check_gold_source(path.read_text(), str(path)) == []


def test_the_demo_has_a_gold_solution():
    assert any(p.parent.name == "DEMO-T01" for p in GOLD_FILES)
    assert callable(load_gold(FIXTURES_DIR / "demo" / "DEMO-T01"))


@pytest.mark.parametrize("source, complaint", [
    ("def solve(o):\n    o.tab('ehr').get_by_label('Pulse').fill('76')\n", ".fill"),
    ("def solve(o):\n    o.tab('ehr').get_by_role('button').click()\n", ".click on a locator"),
    ("def solve(o):\n    o.tab('ehr').evaluate('document.forms[0].submit()')\n", ".evaluate"),
    ("def solve(o):\n    o.tab('ehr').locator('#f').dispatch_event('click')\n", ".dispatch_event"),
    ("def solve(o):\n    o.tab('ehr').locator('input').set_input_files('a.pdf')\n",
     ".set_input_files"),
    ("import sqlite3\ndef solve(o):\n    sqlite3.connect('stores/ehr.sqlite')\n", "sqlite3"),
    ("from sandbox.stores import open_store\n", "sandbox.stores"),
    ("from PySide6.QtWidgets import QApplication\n", "PySide6"),
    ("import httpx\n", "httpx"),
    ("def solve(o):\n    open('output/x.csv', 'w').write('x')\n", "open()"),
    ("def solve(o):\n    o.episode._playwright\n", "private attribute"),
    ("def solve(o):\n    getattr(o, 'episode')\n", "getattr()"),
])
def test_static_guard_names_what_acts_around_the_agent_api(source: str, complaint: str):
    problems = check_gold_source(source)
    assert problems, f"not caught: {source!r}"
    assert any(complaint in p for p in problems), problems


class Page:
    """Stands in for a Playwright page: records what was called on it."""

    def __init__(self):
        self.calls: list[str] = []

    def get_by_role(self, role, **kw):
        self.calls.append("get_by_role")
        return Locator(self)

    def fill(self, *a):
        self.calls.append("fill")

    def evaluate(self, *a):
        self.calls.append("evaluate")


class Locator:
    def __init__(self, page: Page):
        self.page = page

    async def bounding_box(self):
        self.page.calls.append("bounding_box")
        return {"x": 1, "y": 2, "width": 3, "height": 4}

    def click(self):
        self.page.calls.append("click")

    def fill(self, text):
        self.page.calls.append("fill")


def _run(coro):
    import asyncio

    return asyncio.new_event_loop().run_until_complete(coro)


def test_read_only_proxy_reads_and_refuses_to_act():
    page = Page()
    tab = ReadOnly(page, _run, "tab('ehr')")
    button = tab.get_by_role("button", name="Save")
    assert isinstance(button, ReadOnly)
    assert button.bounding_box() == {"x": 1, "y": 2, "width": 3, "height": 4}
    for acting in ("click", "fill", "evaluate", "press", "set_input_files", "dispatch_event"):
        target = tab if acting == "evaluate" else button
        with pytest.raises(OracleViolation, match="act through the agent API"):
            getattr(target, acting)
    assert page.calls == ["get_by_role", "bounding_box"]  # nothing acted
    with pytest.raises(OracleViolation):
        button.unwrap_for_driver(object())


def test_read_only_methods_do_not_include_acting_ones():
    acting = {"click", "fill", "type", "press", "check", "evaluate", "dispatch_event",
              "set_input_files", "select_option", "focus", "hover", "tap", "goto"}
    assert not acting & READ_ONLY_METHODS


@pytest.mark.parametrize("alias", ["ord-01", "ord-04"])
def test_only_api_channel_oracles_may_call_the_api(alias):
    """A browser task's oracle acts through the screen: its API requests are refused before
    anything is sent (ord-18, the API control of ord-01, is the task that may)."""
    episode = SimpleNamespace(spec=CATALOG.get(alias), variant="default")
    oracle = Oracle(episode, loop=None, agent=None)
    with pytest.raises(OracleViolation, match="browser-channel task"):
        oracle.api_request("GET", "http://emr.clinic.test/apis/default/fhir/Patient")
    assert oracle.api_calls == 0


@pytest.mark.parametrize("alias", ["pa-01", "pa-20"])
def test_only_api_channel_oracles_may_write_an_output_file(alias, tmp_path):
    """A browser task's oracle makes its files through the Workspace's pages, like its agent:
    writing one directly is refused and nothing is written."""
    (tmp_path / "output").mkdir()
    episode = SimpleNamespace(spec=CATALOG.get(alias), variant="default", run_dir=tmp_path)
    with pytest.raises(OracleViolation, match="browser-channel task"):
        Oracle(episode, loop=None, agent=None).write_output("ref.txt", "PA26-100001\n")
    assert list((tmp_path / "output").iterdir()) == []


def test_an_api_channel_oracle_writes_only_the_outputs_its_task_declares(tmp_path):
    """pa-18's agent has code execution and writes output/ref.txt itself; so does its oracle,
    and only the files task.yaml lists under ``outputs:``."""
    (tmp_path / "output").mkdir()
    episode = SimpleNamespace(spec=CATALOG.get("pa-18"), variant="default", run_dir=tmp_path)
    oracle = Oracle(episode, loop=None, agent=None)
    oracle.write_output("ref.txt", "PA26-100001\n")
    assert (tmp_path / "output" / "ref.txt").read_text() == "PA26-100001\n"
    for name in ("other.txt", "../run.json", "ref.txt/x"):
        with pytest.raises(OracleError, match="is not an output of pa-18"):
            oracle.write_output(name, "x")
    assert [p.name for p in (tmp_path / "output").iterdir()] == ["ref.txt"]


def test_the_oracle_reads_the_text_of_a_pdf_it_holds():
    from reportlab.lib.pagesizes import letter
    from reportlab.pdfgen import canvas

    buffer = io.BytesIO()
    page = canvas.Canvas(buffer, pagesize=letter)
    page.drawString(72, 720, "Course: 6 weeks of physical therapy, 12 visits.")
    page.showPage()
    page.drawString(72, 720, "Red flags: none.")
    page.save()
    text = Oracle.pdf_text(buffer.getvalue())
    assert "6 weeks of physical therapy" in text and "Red flags: none." in text


def test_the_oracle_sees_only_finished_downloads(tmp_path):
    """Chromium writes a download into a hidden '.org.chromium.Chromium.XXXXXX' file first,
    then '….crdownload', then renames it: the oracle, like the Workspace, lists neither (pa-01
    once attached the hidden name it took for the new file)."""
    (tmp_path / "downloads").mkdir()
    for name in (".org.chromium.Chromium.jXOmWi", "letter.pdf.crdownload", "note.pdf"):
        (tmp_path / "downloads" / name).write_bytes(b"%PDF")
    episode = SimpleNamespace(spec=CATALOG.get("pa-01"), variant="default", run_dir=tmp_path)
    assert Oracle(episode, loop=None, agent=None).downloads() == ["note.pdf"]
