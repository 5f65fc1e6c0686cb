"""An order set / PowerPlan opened for selection: check lines, edit their details, accept.

Accept adds the checked lines to the pending list (nothing is written until Sign); Cancel
discards every change made here.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QHBoxLayout,
    QLabel,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from desktop_ehr.models.order_set import ITEM_ID_ROLE, OrderSetModel
from desktop_ehr.personas.vocabulary import Vocabulary
from desktop_ehr.services.orders import OrderDraft
from desktop_ehr.widgets.common import button, caption, named


class OrderSetTree(QTreeView):
    """Click (or Space) on a line checks or unchecks it; double-click edits its details."""

    def __init__(self, model: OrderSetModel, parent=None) -> None:
        super().__init__(parent)
        self.setModel(model)
        self.clicked.connect(self._toggle_index)

    def _toggle_index(self, index) -> None:
        item_id = index.siblingAtColumn(0).data(ITEM_ID_ROLE)
        if item_id is not None:
            self.model().toggle(item_id)

    def keyPressEvent(self, event) -> None:  # noqa: N802 - Qt API
        if event.key() == Qt.Key.Key_Space and self.currentIndex().isValid():
            self._toggle_index(self.currentIndex())
            event.accept()
            return
        super().keyPressEvent(event)


class OrderSetDialog(QDialog):
    """``edit_fn(draft) -> OrderDraft | None`` opens the composer on one line's details."""

    def __init__(self, model: OrderSetModel, edit_fn, vocab: Vocabulary,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = model
        self._edit_fn = edit_fn
        self.result_drafts: list[OrderDraft] | None = None
        named(self, "orderSet", f"{vocab.order_set}: {model.info.name}")
        self.setWindowTitle(f"{vocab.order_set} - {model.info.name}")
        self.resize(980, 680)
        title = named(QLabel(model.info.name), "orderSet.name", f"{vocab.order_set} name")
        title.setProperty("role", "dialogTitle")
        self.tree = named(OrderSetTree(model), "orderSet.tree", f"{vocab.order_set} orders")
        self.tree.setUniformRowHeights(True)
        self.tree.setAlternatingRowColors(True)
        self.tree.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.tree.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.tree.expandAll()
        self.tree.setColumnWidth(0, 520)
        self.tree.doubleClicked.connect(self._edit_index)
        self.summary = named(QLabel(""), "orderSet.summary", "Selected orders")
        self.summary.setProperty("role", "caption")
        edit = button("Edit Details", "orderSet.edit", "Edit order details",
                      slot=self._edit_selected)
        accept = button(f"✔ {vocab.accept}", "orderSet.accept", vocab.accept, role="primary",
                        slot=self._accept)
        accept.setDefault(True)
        cancel = button("✖ Cancel", "orderSet.cancel", "Cancel", slot=self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(title)
        if model.info.description:
            desc = caption(model.info.description)
            desc.setWordWrap(True)
            layout.addWidget(desc)
        layout.addWidget(self.tree, 1)
        bottom = QHBoxLayout()
        bottom.addWidget(self.summary, 1)
        bottom.addWidget(edit)
        bottom.addWidget(accept)
        bottom.addWidget(cancel)
        layout.addLayout(bottom)
        model.selection_changed.connect(self._update_summary)
        self._update_summary()

    def _update_summary(self) -> None:
        n = len(self.model.checked_ids())
        self.summary.setText(f"{n} order{'s' if n != 1 else ''} selected. Click an order to "
                             "check or uncheck it; double-click to change its details.")

    def _edit_index(self, index) -> None:
        item_id = index.siblingAtColumn(0).data(ITEM_ID_ROLE)
        if item_id is None:
            return
        edited = self._edit_fn(self.model.draft_for_item(item_id))
        if edited is not None:
            self.model.set_override(item_id, edited)
            self.model.set_checked(item_id, True)

    def _edit_selected(self) -> None:
        rows = self.tree.selectionModel().selectedRows()
        if rows:
            self._edit_index(rows[0])
        else:
            self.summary.setText("Select an order line first, then Edit Details.")

    def _accept(self) -> None:
        self.result_drafts = self.model.drafts()
        self.accept()

    @classmethod
    def choose(cls, parent: QWidget | None, model: OrderSetModel, edit_fn,
               vocab: Vocabulary) -> list[OrderDraft] | None:
        dialog = cls(model, edit_fn, vocab, parent)
        dialog.exec()
        result = dialog.result_drafts
        dialog.deleteLater()
        return result

