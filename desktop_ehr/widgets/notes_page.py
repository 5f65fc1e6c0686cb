"""Notes: the list, a read-only viewer, Addendum for signed notes, and New Note.

A signed note cannot be edited: the viewer is read-only and Edit is refused with the reason;
the compliant correction is an Addendum, signed and linked to the note, shown below it.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from desktop_ehr.models.records import RecordTableModel
from desktop_ehr.services import chart_lists
from desktop_ehr.services.charting import NOTE_TYPES, ChartingRefused, create_note, sign_addendum
from desktop_ehr.widgets.common import (
    Prompt,
    button,
    combo,
    error_label,
    line_edit,
    named,
    show_error,
    table_view,
)
from desktop_ehr.widgets.patient_chart import PatientChart

NOTE_COLUMNS = [("date", "Date"), ("type", "Type"), ("title", "Title"), ("author", "Author"),
                ("status", "Status"), ("addenda", "Addenda")]


class AddendumDialog(QDialog):
    """Write and sign an addendum to a signed note; the original is shown, not editable."""

    def __init__(self, ctx, note_id: int, note_title: str, note_text: str, title: str,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.note_id = note_id
        self.result_id: int | None = None
        named(self, "addendum", title)
        self.setWindowTitle(f"{title} - {note_title}")
        self.resize(760, 620)
        original = named(QPlainTextEdit(note_text), "addendum.original", "Original note")
        original.setReadOnly(True)
        self.reason = line_edit("addendum.reason", "Reason for addendum",
                                "e.g. correction of laterality documented in error")
        self.text = named(QPlainTextEdit(), "addendum.text", "Addendum text")
        self.text.setPlaceholderText("Type the addendum. The original note stays unchanged.")
        self.error = error_label("addendum.error")
        sign = button("✔ Sign Addendum", "addendum.sign", "Sign addendum", role="sign",
                      slot=self._sign, tooltip="F9")
        sign.setShortcut(Qt.Key.Key_F9)
        cancel = button("✖ Cancel", "addendum.cancel", "Cancel", slot=self.reject)
        layout = QVBoxLayout(self)
        caption = QLabel(f"Original note (signed, read-only): {note_title}")
        caption.setProperty("role", "sectionTitle")
        layout.addWidget(caption)
        layout.addWidget(original, 2)
        form = QFormLayout()
        form.addRow("Reason:", self.reason)
        layout.addLayout(form)
        layout.addWidget(QLabel("Addendum:"))
        layout.addWidget(self.text, 2)
        layout.addWidget(self.error)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(sign)
        row.addWidget(cancel)
        layout.addLayout(row)

    def _sign(self) -> None:
        try:
            self.result_id = sign_addendum(self.ctx, self.note_id, self.reason.text(),
                                           self.text.toPlainText())
        except ChartingRefused as refused:
            show_error(self.error, " ".join(refused.problems))
            return
        self.accept()

    @classmethod
    def write(cls, parent, ctx, note_id: int, note_title: str, note_text: str,
              title: str = "Addendum") -> int | None:
        dialog = cls(ctx, note_id, note_title, note_text, title, parent)
        dialog.exec()
        result = dialog.result_id
        dialog.deleteLater()
        return result


class NewNoteDialog(QDialog):
    def __init__(self, chart: PatientChart, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.chart = chart
        self.result_id: int | None = None
        named(self, "newNote", "New Note")
        self.setWindowTitle("New Note")
        self.resize(700, 520)
        self.note_type = combo("newNote.type", "Note type", [(t, t) for t in NOTE_TYPES])
        self.title = line_edit("newNote.title", "Note title")
        self.text = named(QPlainTextEdit(), "newNote.text", "Note text")
        self.error = error_label("newNote.error")
        sign = button("✔ Sign", "newNote.sign", "Sign note", role="sign",
                      slot=lambda: self._save(True))
        pend = button("Pend", "newNote.pend", "Save note unsigned",
                      slot=lambda: self._save(False))
        cancel = button("✖ Cancel", "newNote.cancel", "Cancel", slot=self.reject)
        form = QFormLayout()
        form.addRow("Type:", self.note_type)
        form.addRow("Title:", self.title)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.text, 1)
        layout.addWidget(self.error)
        row = QHBoxLayout()
        row.addStretch(1)
        for b in (sign, pend, cancel):
            row.addWidget(b)
        layout.addLayout(row)

    def _save(self, sign: bool) -> None:
        try:
            self.result_id = create_note(self.chart.ctx, self.chart.patient_id,
                                         self.chart.encounter_id, self.note_type.currentData(),
                                         self.title.text(), self.text.toPlainText(), sign)
        except ChartingRefused as refused:
            show_error(self.error, " ".join(refused.problems))
            return
        self.accept()

    @classmethod
    def write(cls, parent, chart: PatientChart) -> int | None:
        dialog = cls(chart, parent)
        dialog.exec()
        result = dialog.result_id
        dialog.deleteLater()
        return result


class NotesPage(QWidget):
    def __init__(self, chart: PatientChart, name: str = "notes", parent=None) -> None:
        super().__init__(parent)
        self.setObjectName(f"page.{name}")
        self.chart = chart
        self.prefix = name
        self.model = RecordTableModel(NOTE_COLUMNS)
        self.table = table_view(f"{name}.list", "Notes", self.model)
        for col, width in enumerate((85, 120, 200, 140, 70)):
            self.table.setColumnWidth(col, width)
        self.table.selectionModel().selectionChanged.connect(lambda *_: self._show())
        self.viewer = named(QPlainTextEdit(), f"{name}.viewer", "Note text")
        self.viewer.setReadOnly(True)
        self.header = named(QLabel("Select a note"), f"{name}.noteHeader", "Note header")
        self.header.setProperty("role", "sectionTitle")
        self.header.setWordWrap(True)
        vocab = chart.vocab
        self.addendum_button = button(vocab.addendum, f"{name}.addendum", vocab.addendum,
                                      slot=self._addendum)
        self.edit_button = button("Edit", f"{name}.edit", "Edit note", slot=self._edit)
        self.new_button = button("New Note", f"{name}.new", "New note", slot=self._new)
        bar = QFrame()
        bar.setProperty("role", "pageToolbar")
        bl = QHBoxLayout(bar)
        bl.setContentsMargins(6, 4, 6, 4)
        bl.addWidget(self.new_button)
        bl.addStretch(1)
        bl.addWidget(self.edit_button)
        bl.addWidget(self.addendum_button)
        right = QWidget()
        rl = QVBoxLayout(right)
        rl.setContentsMargins(6, 4, 6, 4)
        rl.addWidget(self.header)
        rl.addWidget(self.viewer, 1)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.table)
        split.addWidget(right)
        split.setSizes([560, 480])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(bar)
        layout.addWidget(split, 1)
        chart.changed.connect(self.load)

    def load(self) -> None:
        current = self._current()
        self.model.set_rows(chart_lists.notes(self.chart.ctx, self.chart.patient_id))
        if current is not None:
            for r, row in enumerate(self.model.rows()):
                if row.id == current.id:
                    self.table.selectRow(r)
        self._show()

    def _current(self):
        rows = self.table.selectionModel().selectedRows()
        return self.model.row_at(rows[0].row()) if rows else None

    def _show(self) -> None:
        note = self._current()
        if note is None:
            self.header.setText("Select a note to read it.")
            self.viewer.setPlainText("")
            self.addendum_button.setEnabled(False)
            return
        c = note.cells
        signed = note.flag == "signed"
        self.header.setText(f"{c['title']} — {c['type']} — {c['date']} — {c['author']} — "
                            f"{'Signed ' + c['signed_at'] if signed else c['status']}")
        text = c["text"]
        for add in note.children:
            text += (f"\n\n----- Addendum ({add['status'].title()} {add['signed_at']}) -----\n"
                     f"Reason: {add['reason']}\n{add['text']}")
        self.viewer.setPlainText(text)
        self.addendum_button.setEnabled(signed)

    def _addendum(self) -> None:
        note = self._current()
        if note is None:
            return
        if AddendumDialog.write(self, self.chart.ctx, note.id,
                                f"{note.cells['title']} ({note.cells['date']})",
                                note.cells["text"], self.chart.vocab.addendum) is not None:
            self.chart.status.emit("Addendum signed.")
            self.chart.refresh()

    def _edit(self) -> None:
        note = self._current()
        if note is None:
            return
        if note.flag == "signed":
            Prompt.inform(self, "signedNoteLocked", "Note Is Signed",
                          "This note is signed and cannot be edited. To correct it, write an "
                          f"{self.chart.vocab.addendum}.", icon="warning")
            return
        Prompt.inform(self, "noteNotEditable", "Edit Note",
                      "Unsigned notes from other authors cannot be edited here.",
                      icon="warning")

    def _new(self) -> None:
        if NewNoteDialog.write(self, self.chart) is not None:
            self.chart.status.emit("Note saved.")
            self.chart.refresh()
