"""An order set / PowerPlan as a checkable tree: sections, and their lines below.

Lines the build marks ``default_selected`` start checked and can be unchecked; in a
choose-one section checking a line unchecks its siblings. Edited details of a line (from
the composer) are kept as an override draft and used when the set is accepted.
"""

from __future__ import annotations

from datetime import datetime

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QStandardItem, QStandardItemModel

from desktop_ehr.services.catalog import Reference
from desktop_ehr.services.order_sets import OrderSetInfo, SetItem
from desktop_ehr.services.orders import OrderDraft, describe, draft_from_set_item

ITEM_ID_ROLE = Qt.ItemDataRole.UserRole + 1
SECTION_ID_ROLE = Qt.ItemDataRole.UserRole + 2


class OrderSetModel(QStandardItemModel):
    """Column 0: the line (checkable); column 1: its order sentence."""

    selection_changed = Signal()

    def __init__(self, info: OrderSetInfo, ref: Reference, now: datetime, parent=None) -> None:
        super().__init__(parent)
        self.info = info
        self.ref = ref
        self.now = now
        self._overrides: dict[int, OrderDraft] = {}
        self._updating = False
        self.setHorizontalHeaderLabels(["Order", "Details"])
        bold = QFont()
        bold.setBold(True)
        for section in info.sections:
            title = section.name + (" (choose one)" if section.choose_one else "")
            if section.phase:
                title = f"{section.phase}: {title}"
            head = QStandardItem(title)
            head.setData(section.id, SECTION_ID_ROLE)
            head.setFont(bold)
            head.setEditable(False)
            head.setSelectable(False)
            guide = QStandardItem(section.guidance or "")
            guide.setEditable(False)
            guide.setForeground(QBrush(QColor("#5a5a5a")))
            for item in section.items:
                line = QStandardItem(item.display)
                line.setData(item.id, ITEM_ID_ROLE)
                line.setEditable(False)
                # toggled by a click anywhere on the line (see OrderSetTree), so the
                # view's own indicator toggling is off: one click, one toggle
                line.setCheckable(False)
                line.setCheckState(Qt.CheckState.Checked if item.default_selected
                                   else Qt.CheckState.Unchecked)
                detail = QStandardItem(self._detail_text(item))
                detail.setEditable(False)
                detail.setData(item.id, ITEM_ID_ROLE)
                head.appendRow([line, detail])
            self.appendRow([head, guide])
        self.itemChanged.connect(self._on_item_changed)

    # -- selection -----------------------------------------------------------------------
    def _on_item_changed(self, item: QStandardItem) -> None:
        if self._updating or item.column() != 0 or item.data(ITEM_ID_ROLE) is None:
            return
        section = self._section_of(item.data(ITEM_ID_ROLE))
        if section is not None and section.choose_one and \
                item.checkState() == Qt.CheckState.Checked:
            self._updating = True
            try:
                parent = item.parent()
                for row in range(parent.rowCount()):
                    sibling = parent.child(row, 0)
                    if sibling is not item:
                        sibling.setCheckState(Qt.CheckState.Unchecked)
            finally:
                self._updating = False
        self.selection_changed.emit()

    def _section_of(self, item_id: int):
        for section in self.info.sections:
            if any(i.id == item_id for i in section.items):
                return section
        return None

    def line_items(self) -> list[QStandardItem]:
        out = []
        for r in range(self.rowCount()):
            head = self.item(r, 0)
            out.extend(head.child(c, 0) for c in range(head.rowCount()))
        return out

    def line_for(self, item_id: int) -> QStandardItem | None:
        return next((li for li in self.line_items() if li.data(ITEM_ID_ROLE) == item_id), None)

    def set_checked(self, item_id: int, checked: bool) -> None:
        line = self.line_for(item_id)
        if line is None:
            raise KeyError(f"order set {self.info.name!r} has no line {item_id}")
        line.setCheckState(Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)

    def toggle(self, item_id: int) -> None:
        line = self.line_for(item_id)
        self.set_checked(item_id, line.checkState() != Qt.CheckState.Checked)

    def checked_ids(self) -> list[int]:
        return [li.data(ITEM_ID_ROLE) for li in self.line_items()
                if li.checkState() == Qt.CheckState.Checked]

    # -- details -------------------------------------------------------------------------
    def draft_for_item(self, item_id: int) -> OrderDraft:
        if item_id in self._overrides:
            return self._overrides[item_id].copy()
        item = self.info.item(item_id)
        return draft_from_set_item(item, self.ref.orderables[item.orderable_id], self.info.id,
                                   self.now, self.ref)

    def set_override(self, item_id: int, draft: OrderDraft) -> None:
        """Details edited in the composer replace the line's built sentence."""
        self._overrides[item_id] = draft
        line = self.line_for(item_id)
        detail = line.parent().child(line.row(), 1)
        detail.setText(describe(draft, self.ref, with_start=False))

    def _detail_text(self, item: SetItem) -> str:
        orderable = self.ref.orderables.get(item.orderable_id)
        if orderable is None:
            return "(not orderable)"
        return describe(draft_from_set_item(item, orderable, self.info.id, self.now, self.ref),
                        self.ref, with_start=False)

    def drafts(self) -> list[OrderDraft]:
        """Drafts of the checked lines, in set order (what Accept adds to the pending list)."""
        return [self.draft_for_item(i) for i in self.checked_ids()]
