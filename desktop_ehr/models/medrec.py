"""The reconciliation grid: before (home list) | one column per action | after.

Simple actions (Continue, Do Not Continue, Stop) are checked straight in the grid; actions
that need details (Modify, Change, Hold) are set through :meth:`set_change` and
:meth:`set_hold` once their dialog is accepted, so a cancelled dialog changes nothing.
"""

from __future__ import annotations

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont

from desktop_ehr.services.medrec import CHANGE_ACTIONS, MedRecState, RecRow
from desktop_ehr.services.parsing import format_datetime

DETAIL_ACTIONS = ("modify", "change", "hold")


def two_lines(text: str) -> str:
    """Long headers break at the space nearest their middle (narrow action columns)."""
    if len(text) <= 10 or " " not in text:
        return text
    spaces = [i for i, ch in enumerate(text) if ch == " "]
    cut = min(spaces, key=lambda i: abs(i - len(text) / 2))
    return text[:cut] + "\n" + text[cut + 1:]


class MedRecModel(QAbstractTableModel):
    """``labels`` maps each action to its column header in the persona's words."""

    changed = Signal()

    def __init__(self, state: MedRecState, labels: dict[str, str], parent=None) -> None:
        super().__init__(parent)
        self.state = state
        self.labels = labels
        # a discharge list has no "last dose" to show: the patient is in hospital
        self._columns = ["medication", "before"] + \
            (["last_dose"] if state.rec_type == "admission" else []) + \
            list(state.actions) + ["after"]
        self._headers = {"medication": "Medication", "before": "Before: Dose / Route / Frequency",
                         "last_dose": "Last Dose", "after": labels.get("after", "After")}
        self.dataChanged.connect(lambda *_: self.changed.emit())
        self.modelReset.connect(self.changed.emit)
        self.rowsInserted.connect(lambda *_: self.changed.emit())
        self.rowsRemoved.connect(lambda *_: self.changed.emit())

    # -- structure -----------------------------------------------------------------------
    def column_of(self, key: str) -> int:
        return self._columns.index(key)

    def column_key(self, column: int) -> str:
        return self._columns[column]

    def is_action_column(self, column: int) -> bool:
        return self._columns[column] in self.state.actions

    def row(self, row: int) -> RecRow:
        return self.state.rows[row]

    @property
    def read_only(self) -> bool:
        return self.state.complete

    # -- editing -------------------------------------------------------------------------
    def set_action(self, row: int, action: str | None) -> None:
        """Continue / Do Not Continue / Stop (or clear); detail actions go through
        :meth:`set_change` / :meth:`set_hold`."""
        if action is not None and action not in self.state.actions:
            raise ValueError(f"{action!r} is not an action of this reconciliation")
        if action in DETAIL_ACTIONS:
            raise ValueError(f"{action!r} needs details: use set_change or set_hold")
        rec = self.state.rows[row]
        self._check_allowed(rec, action)
        rec.action = action
        rec.hold_reason = None
        rec.new_dose = rec.new_dose_unit = rec.new_route = rec.new_frequency = None
        if action == "new":  # prescribe as ordered in the hospital
            rec.new_dose, rec.new_dose_unit = rec.dose, rec.dose_unit
            rec.new_route, rec.new_frequency = rec.route, rec.frequency
        self._row_changed(row)

    def _check_allowed(self, rec: RecRow, action: str | None) -> None:
        """Refuse an action that does not fit the row, with the reason to show the user."""
        if rec.added:
            raise ValueError(f"{rec.medication} was added here as a new medication; use "
                             "Remove New to take it off.")
        if self.state.rec_type != "discharge" or action is None:
            return
        if rec.from_home and action == "new":
            raise ValueError(f"{rec.medication} is a home medication: choose "
                             f"{self.labels.get('continue')}, {self.labels.get('change')} or "
                             f"{self.labels.get('stop')}.")
        if not rec.from_home and action == "continue":
            raise ValueError(f"{rec.medication} was started in the hospital: choose "
                             f"{self.labels.get('new')} to prescribe it for home, or "
                             f"{self.labels.get('stop')}.")

    def set_change(self, row: int, dose: float, dose_unit: str | None, route: str | None,
                   frequency: str | None) -> None:
        rec = self.state.rows[row]
        if rec.added:
            raise ValueError(f"{rec.medication} was added here; remove it and add it again "
                             "to change its details.")
        if "modify" in self.state.actions:
            rec.action = "modify"
        else:  # a drug started in the hospital goes home as New, with the new sentence
            rec.action = "change" if rec.from_home else "new"
        rec.new_dose, rec.new_dose_unit = dose, dose_unit or rec.dose_unit
        rec.new_route, rec.new_frequency = route or rec.route, frequency or rec.frequency
        rec.hold_reason = None
        self._row_changed(row)

    def set_hold(self, row: int, reason: str) -> None:
        if "hold" not in self.state.actions:
            raise ValueError("this reconciliation has no Hold action")
        rec = self.state.rows[row]
        self._check_allowed(rec, "hold")
        rec.action = "hold"
        rec.hold_reason = reason.strip()
        rec.new_dose = rec.new_dose_unit = rec.new_route = rec.new_frequency = None
        self._row_changed(row)

    def add_new(self, rec: RecRow) -> int:
        rec.action = "new"
        row = len(self.state.rows)
        self.beginInsertRows(QModelIndex(), row, row)
        self.state.rows.append(rec)
        self.endInsertRows()
        return row

    def remove_new(self, row: int) -> None:
        if not self.state.rows[row].added:
            raise ValueError("only medications added here can be removed")
        self.beginRemoveRows(QModelIndex(), row, row)
        del self.state.rows[row]
        self.endRemoveRows()

    def _row_changed(self, row: int) -> None:
        self.dataChanged.emit(self.index(row, 0), self.index(row, len(self._columns) - 1))

    def undecided(self) -> list[str]:
        return [r.medication for r in self.state.rows if r.action is None]

    # -- Qt ------------------------------------------------------------------------------
    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(self.state.rows)

    def columnCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(self._columns)

    def headerData(self, section: int, orientation, role=Qt.ItemDataRole.DisplayRole):  # noqa: N802
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            key = self._columns[section]
            return two_lines(self.labels.get(key) or self._headers.get(key, key.title()))
        return None

    def flags(self, index: QModelIndex):
        # action cells are chosen by a click anywhere in the cell (MedRecPage), not by the
        # view's check-indicator toggling, so they are not user-checkable here
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable

    def data(self, index: QModelIndex, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        rec = self.state.rows[index.row()]
        key = self._columns[index.column()]
        if key in self.state.actions:
            if role == Qt.ItemDataRole.CheckStateRole:
                if self._fits(rec, key):
                    return Qt.CheckState.Checked if rec.action == key else \
                        Qt.CheckState.Unchecked
                return None
            if role == Qt.ItemDataRole.AccessibleTextRole:
                return f"{self.labels.get(key, key)}: {rec.medication}"
            if role == Qt.ItemDataRole.DisplayRole and key in DETAIL_ACTIONS \
                    and rec.action == key:
                return "✓"
            return None
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            if key == "medication":
                return rec.medication + ("  [NEW]" if rec.added else "")
            if key == "before":
                return rec.before_text + (f"  ({rec.sig})" if rec.sig and
                                          role == Qt.ItemDataRole.ToolTipRole else "")
            if key == "last_dose":
                return format_datetime(rec.last_dose_at)
            if key == "after":
                return rec.after_text
        if role == Qt.ItemDataRole.ForegroundRole and key == "after":
            if rec.action in ("discontinue", "stop"):
                return QBrush(QColor("#8a1c1c"))
            if rec.action in CHANGE_ACTIONS or rec.action == "new":
                return QBrush(QColor("#0b4f9c"))
            if rec.action == "hold":
                return QBrush(QColor("#8a5a00"))
        if role == Qt.ItemDataRole.FontRole and key == "medication" and rec.action is None:
            font = QFont()
            font.setBold(True)
            return font
        return None

    def choose(self, row: int, key: str) -> bool:
        """A click on a simple action cell: choose it, or clear it when already chosen.
        Raises ValueError (with the reason) when the action does not fit the row."""
        if self.read_only or key not in self.state.actions or key in DETAIL_ACTIONS:
            return False
        rec = self.state.rows[row]
        self.set_action(row, None if rec.action == key else key)
        return True

    def setData(self, index: QModelIndex, value, role=Qt.ItemDataRole.EditRole) -> bool:  # noqa: N802
        if not index.isValid() or role != Qt.ItemDataRole.CheckStateRole or self.read_only:
            return False
        key = self._columns[index.column()]
        if key not in self.state.actions or key in DETAIL_ACTIONS:
            return False
        checked = Qt.CheckState(value) == Qt.CheckState.Checked
        try:
            self.set_action(index.row(), key if checked else None)
        except ValueError:
            return False
        return True

    def _fits(self, rec: RecRow, key: str) -> bool:
        """Whether an action column applies to this row (others show no radio button)."""
        if rec.added:
            return key == "new"
        if self.state.rec_type == "discharge":
            return key in (("continue", "change", "stop") if rec.from_home else
                           ("change", "stop", "new"))
        return True
