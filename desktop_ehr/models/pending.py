"""The pending list: orders accepted but not yet signed ('Orders to be Signed' /
'Orders for Signature'), and pending actions on signed orders (hold, discontinue)."""

from __future__ import annotations

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt, Signal
from PySide6.QtGui import QBrush, QColor

from desktop_ehr.services.catalog import Reference
from desktop_ehr.services.orders import OrderDraft, describe, invalid_fields, missing_fields
from desktop_ehr.services.parsing import format_datetime
from desktop_ehr.services.signing import OrderAction

ACTION_LABELS = {"hold": "Hold", "discontinue": "Discontinue", "resume": "Resume"}


class PendingOrdersModel(QAbstractTableModel):
    """Rows are :class:`OrderDraft` (new orders) or :class:`OrderAction` (changes)."""

    COLUMNS = ("Order", "Details", "Status")
    changed = Signal()

    def __init__(self, ref: Reference, parent=None) -> None:
        super().__init__(parent)
        self.ref = ref
        self._entries: list[OrderDraft | OrderAction] = []
        for sig in (self.rowsInserted, self.rowsRemoved, self.modelReset, self.dataChanged):
            sig.connect(lambda *_: self.changed.emit())

    # -- editing -------------------------------------------------------------------------
    def add(self, entry: OrderDraft | OrderAction) -> int:
        row = len(self._entries)
        self.beginInsertRows(QModelIndex(), row, row)
        self._entries.append(entry)
        self.endInsertRows()
        return row

    def replace(self, row: int, entry: OrderDraft | OrderAction) -> None:
        self._entries[row] = entry
        self.dataChanged.emit(self.index(row, 0), self.index(row, len(self.COLUMNS) - 1))

    def remove(self, row: int) -> None:
        self.beginRemoveRows(QModelIndex(), row, row)
        del self._entries[row]
        self.endRemoveRows()

    def clear(self) -> None:
        self.beginResetModel()
        self._entries.clear()
        self.endResetModel()

    # -- reading -------------------------------------------------------------------------
    def entry(self, row: int) -> OrderDraft | OrderAction:
        return self._entries[row]

    def drafts(self) -> list[OrderDraft]:
        return [e for e in self._entries if isinstance(e, OrderDraft)]

    def actions(self) -> list[OrderAction]:
        return [e for e in self._entries if isinstance(e, OrderAction)]

    def has_action_for(self, order_id: int) -> bool:
        return any(a.order_id == order_id for a in self.actions())

    def problems(self, row: int) -> list[str]:
        entry = self._entries[row]
        if not isinstance(entry, OrderDraft):
            return []
        orderable = self.ref.orderables.get(entry.orderable_id)
        if orderable is None:
            return ["not orderable"]
        missing = missing_fields(entry, orderable, self.ref)
        return ([f"Missing: {', '.join(missing)}"] if missing else []) + \
            invalid_fields(entry, self.ref)

    def __len__(self) -> int:
        return len(self._entries)

    # -- Qt ------------------------------------------------------------------------------
    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(self._entries)

    def columnCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(self.COLUMNS)

    def headerData(self, section: int, orientation, role=Qt.ItemDataRole.DisplayRole):  # noqa: N802
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.COLUMNS[section]
        return None

    def data(self, index: QModelIndex, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        entry = self._entries[index.row()]
        col = index.column()
        problems = self.problems(index.row())
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            if isinstance(entry, OrderAction):
                return self._action_text(entry, col)
            if col == 0:
                return entry.order_name
            if col == 1:
                return describe(entry, self.ref)
            return "; ".join(problems) if problems else "Ready to sign"
        if role == Qt.ItemDataRole.ForegroundRole and col == 2:
            return QBrush(QColor("#b00020" if problems else "#1b6e20"))
        return None

    @staticmethod
    def _action_text(action: OrderAction, col: int) -> str:
        if col == 0:
            return f"{ACTION_LABELS[action.kind]}: {action.order_name}"
        if col == 1:
            parts = []
            if action.hold_from:
                parts.append(f"from {format_datetime(action.hold_from)}")
            if action.hold_until:
                parts.append(f"until {format_datetime(action.hold_until)}")
            if action.reason:
                parts.append(action.reason)
            return ", ".join(parts)
        return "Ready to sign"
