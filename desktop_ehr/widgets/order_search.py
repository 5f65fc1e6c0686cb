"""Order search: orderables and order sets / PowerPlans matching what was typed.

Typing filters as you type; Enter in the search box moves to the first result; Enter (or a
double-click) on a result chooses it; Esc cancels.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt
from PySide6.QtWidgets import QDialog, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from desktop_ehr.personas.vocabulary import Vocabulary
from desktop_ehr.services.catalog import Orderable, Reference
from desktop_ehr.services.order_sets import OrderSetRow
from desktop_ehr.services.orders import describe, draft_for
from desktop_ehr.widgets.common import button, caption, line_edit, named, table_view


@dataclass(frozen=True)
class SearchChoice:
    kind: str  # 'orderable' | 'order_set'
    id: int
    name: str


class _ResultsModel(QAbstractTableModel):
    def __init__(self, headers: list[str], parent=None) -> None:
        super().__init__(parent)
        self.headers = headers
        self.rows: list[tuple[int, list[str]]] = []

    def set_rows(self, rows: list[tuple[int, list[str]]]) -> None:
        self.beginResetModel()
        self.rows = rows
        self.endResetModel()

    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(self.headers)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):  # noqa: N802
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.headers[section]
        return None

    def data(self, index: QModelIndex, role=Qt.ItemDataRole.DisplayRole):
        if index.isValid() and role in (Qt.ItemDataRole.DisplayRole,
                                        Qt.ItemDataRole.ToolTipRole):
            return self.rows[index.row()][1][index.column()]
        return None


class OrderSearchDialog(QDialog):
    def __init__(self, ref: Reference, order_sets_fn, now, vocab: Vocabulary,
                 initial: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ref = ref
        self._order_sets_fn = order_sets_fn
        self._now = now
        self.vocab = vocab
        self.choice: SearchChoice | None = None
        named(self, "orderSearch", vocab.order_search_title)
        self.setWindowTitle(vocab.order_search_title)
        self.resize(820, 560)
        self.query = line_edit("orderSearch.query", "Order search",
                               "Search orders, medications, labs, order sets …", initial)
        self.search_button = button("Search", "orderSearch.search", "Search",
                                    slot=self._search)
        self.orders_model = _ResultsModel(["Name", "Type", "Default sentence"])
        self.orders = table_view("orderSearch.results", "Order search results",
                                 self.orders_model)
        self.orders.setColumnWidth(0, 330)
        self.orders.setColumnWidth(1, 90)
        self.sets_model = _ResultsModel([vocab.order_set, "Specialty"])
        self.sets = table_view("orderSearch.orderSets", f"{vocab.order_set} results",
                               self.sets_model)
        self.sets.setColumnWidth(0, 420)
        self.status = named(QLabel(""), "orderSearch.status", "Search status")
        self.status.setProperty("role", "caption")
        self.select_button = button(f"✔ {vocab.accept}", "orderSearch.accept", vocab.accept,
                                    role="primary", slot=self._choose_selected)
        self.cancel_button = button("✖ Cancel", "orderSearch.cancel", "Cancel",
                                    slot=self.reject)
        top = QHBoxLayout()
        top.addWidget(self.query, 1)
        top.addWidget(self.search_button)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(caption("Orders and medications", role="sectionTitle"))
        layout.addWidget(self.orders, 3)
        layout.addWidget(caption(vocab.order_sets, role="sectionTitle"))
        layout.addWidget(self.sets, 1)
        bottom = QHBoxLayout()
        bottom.addWidget(self.status, 1)
        bottom.addWidget(self.select_button)
        bottom.addWidget(self.cancel_button)
        layout.addLayout(bottom)
        self.query.textChanged.connect(self._search)
        self.query.returnPressed.connect(self._to_results)
        for view in (self.orders, self.sets):
            view.activated.connect(self._choose)
            view.doubleClicked.connect(self._choose)
        self.orders.clicked.connect(lambda _i: self.sets.clearSelection())
        self.sets.clicked.connect(lambda _i: self.orders.clearSelection())
        self._search()

    def _search(self, *_args) -> None:
        text = self.query.text()
        hits: list[Orderable] = self.ref.search(text)
        self.orders_model.set_rows([(o.id, [o.name, o.order_type.replace("_", " ").title(),
                                            describe(draft_for(o, self._now, self.ref),
                                                     self.ref)]) for o in hits])
        sets: list[OrderSetRow] = self._order_sets_fn(text)
        self.sets_model.set_rows([(s.id, [s.name, s.specialty or ""]) for s in sets])
        if not text.strip():
            self.status.setText("Type part of an order name (e.g. ceftriaxone, cbc, admit).")
        else:
            self.status.setText(f"{len(hits)} order(s), {len(sets)} "
                                f"{self.vocab.order_set.lower()}(s) match '{text.strip()}'.")

    def _to_results(self) -> None:
        self._search()
        view = self.orders if self.orders_model.rows else self.sets
        if view.model().rowCount():
            view.setFocus()
            view.selectRow(0)

    def _choose(self, index: QModelIndex) -> None:
        model = index.model()
        item_id, cells = model.rows[index.row()]
        kind = "orderable" if model is self.orders_model else "order_set"
        self.choice = SearchChoice(kind, item_id, cells[0])
        self.accept()

    def _choose_selected(self) -> None:
        for view in (self.orders, self.sets):
            rows = view.selectionModel().selectedRows()
            if rows:
                self._choose(rows[0])
                return
        self.status.setText("Select an order or an order set first.")

    @classmethod
    def search(cls, parent: QWidget | None, ref: Reference, order_sets_fn, now,
               vocab: Vocabulary, initial: str = "") -> SearchChoice | None:
        dialog = cls(ref, order_sets_fn, now, vocab, initial, parent)
        dialog.exec()
        choice = dialog.choice
        dialog.deleteLater()
        return choice
