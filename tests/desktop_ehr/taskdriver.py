"""Driving the client's real widgets through a task, for the per-task tests.

Modal dialogs are replaced by stand-ins that build the *real* dialog, fill its fields the
way a user types them, and press its buttons, so the tests exercise the same parsing,
validation and writes as clicks through the stream would.
"""

from __future__ import annotations

from collections import deque
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox

from desktop_ehr.app import LaunchOptions, build
from desktop_ehr.services.chart import search_patients
from desktop_ehr.widgets.common import Prompt
from desktop_ehr.widgets.order_composer import OrderComposer
from sandbox.catalog import load_catalog
from tests.desktop_ehr.conftest import login


def has_seed(alias: str, system: str) -> bool:
    return system in load_catalog().get(alias).seed


def has_verifier(alias: str) -> bool:
    spec = load_catalog().get(alias)
    return (Path(spec.folder) / "verify.py").is_file()


def grade(alias: str, run_dir: Path) -> float:
    from verifier.engine import grade as grade_run

    report = grade_run(load_catalog().get(alias), run_dir, judge="rubric")
    assert report.score is not None, [(c.name, c.status, c.evidence) for c in report.checks]
    return report.score


def open_window(qtbot, persona: str, run_dir: Path):
    window, _ = build(LaunchOptions(persona, run_dir))
    qtbot.addWidget(window)
    window.resize(1280, 800)
    window.show()
    login(window, persona)
    return window


def patient_id(window, mrn: str) -> int:
    (row,) = [r for r in search_patients(window.ctx, mrn) if r.mrn == mrn]
    return row.id


def pick(box: QComboBox, text: str) -> None:
    index = box.findText(text, Qt.MatchFlag.MatchStartsWith)
    assert index >= 0, f"{box.objectName()} has no entry {text!r}"
    box.setCurrentIndex(index)


def fill_composer(dialog: OrderComposer, spec: dict) -> None:
    """Type a spec into the composer: keys are field names, values what a user enters."""
    if "sentence" in spec:
        dialog.findChild(type(dialog.accept_button),
                         f"composer.sentence.{spec['sentence']}").click()
    if "per_kg" in spec:
        dialog.per_kg.setText(spec["per_kg"])
        dialog.findChild(type(dialog.accept_button), "composer.weightCalc").click()
    for key in ("dose", "hold", "timeframe", "occurrences"):
        if key in spec:
            getattr(dialog, key).setText(spec[key])
    if "frequency" in spec:
        dialog.frequency.setEditText(spec["frequency"])
    if "prn_reason" in spec:
        dialog.prn.setChecked(True)
        dialog.prn_reason.setEditText(spec["prn_reason"])
    for key in ("department", "codeStatus", "disposition", "timeframeUnit", "priority"):
        if key in spec:
            pick(dialog._fields[key], spec[key])
    for key in ("start", "stop"):
        if key in spec:
            field = getattr(dialog, key)
            field.date_edit.setText(spec[key][0])
            field.time_edit.setText(spec[key][1])
    for low, high, units in spec.get("scale", ()):
        dialog.scale.low.setText(low)
        dialog.scale.high.setText(high)
        dialog.scale.units.setText(units)
        assert dialog.scale.add_from_entry(), dialog.scale.error.text()


class Composer:
    """Stand-in for ``OrderComposer.compose``: each call fills the next spec and accepts."""

    def __init__(self, monkeypatch) -> None:
        self.specs: deque[dict] = deque()
        self.messages: list[str] = []
        composer = self

        def compose(cls, parent, orderable, draft, ref, patient, today_fn, vocab):
            dialog = OrderComposer(orderable, draft, ref, patient, today_fn, vocab, parent)
            fill_composer(dialog, composer.specs.popleft())
            dialog.accept()
            composer.messages.append(dialog.message.text())
            result = dialog.result_draft
            dialog.deleteLater()
            return result

        monkeypatch.setattr(OrderComposer, "compose", classmethod(compose))

    def queue(self, *specs: dict) -> Composer:
        self.specs.extend(specs)
        return self


def answer_prompts(monkeypatch, answers: dict[str, str]) -> list[str]:
    shown: list[str] = []

    def ask(cls, parent, name, title, text, buttons, **kwargs):
        shown.append(name)
        return answers.get(name, "ok")

    monkeypatch.setattr(Prompt, "ask", classmethod(ask))
    return shown
