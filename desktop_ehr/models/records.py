"""A read-only table model over chart rows (Results Review, MAR, Medication List …)."""

from __future__ import annotations

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt
from PySide6.QtGui import QBrush, QColor, QFont

from desktop_ehr.services.chart import ChartRow

ABNORMAL_FLAGS = {"H", "L", "HH", "LL", "A", "severe"}
MUTED_FLAGS = {"discontinued", "completed", "canceled", "done", "inactive", "resolved"}
ROW_ID_ROLE = Qt.ItemDataRole.UserRole + 1


class RecordTableModel(QAbstractTableModel):
    """Columns are ``(key, header)`` pairs over ``ChartRow.cells``."""

    def __init__(self, columns: list[tuple[str, str]], rows: list[ChartRow] | None = None,
                 parent=None) -> None:
        super().__init__(parent)
        self._columns = list(columns)
        self._rows: list[ChartRow] = list(rows or [])

    def set_rows(self, rows: list[ChartRow]) -> None:
        self.beginResetModel()
        self._rows = list(rows)
        self.endResetModel()

    def row_at(self, row: int) -> ChartRow:
        return self._rows[row]

    def rows(self) -> list[ChartRow]:
        return list(self._rows)

    # -- Qt ------------------------------------------------------------------------------
    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(self._columns)

    def headerData(self, section: int, orientation, role=Qt.ItemDataRole.DisplayRole):  # noqa: N802
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self._columns[section][1]
        return None

    def data(self, index: QModelIndex, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        record = self._rows[index.row()]
        key = self._columns[index.column()][0]
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            value = record.cells.get(key, "")
            return "" if value is None else str(value)
        if role == ROW_ID_ROLE:
            return record.id
        if role == Qt.ItemDataRole.ForegroundRole:
            if record.flag in ABNORMAL_FLAGS:
                return QBrush(QColor("#b00020"))
            if record.flag in MUTED_FLAGS:
                return QBrush(QColor("#7a7a7a"))
        if role == Qt.ItemDataRole.FontRole and record.flag in ABNORMAL_FLAGS and \
                key in ("value", "flag", "allergen"):
            font = QFont()
            font.setBold(True)
            return font
        return None
