"""The Orders activity: active orders, the pending list and Sign.

Hyperspace shows a "Place new order or order set" box over the active orders with the
pending list ('Orders to be Signed') beside it; PowerChart shows "+ Add" in a page toolbar
and 'Orders For Signature' below the orders. Both drive :class:`PatientChart`.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QSplitter, QVBoxLayout, QWidget

from desktop_ehr.models.records import RecordTableModel
from desktop_ehr.services import chart_lists
from desktop_ehr.widgets.chart_pages import ORDER_COLUMNS
from desktop_ehr.widgets.common import button, caption, line_edit, named, table_view
from desktop_ehr.widgets.patient_chart import PatientChart


class PendingPanel(QFrame):
    """The pending list with Remove / Edit and the Sign button (F9 signs)."""

    def __init__(self, chart: PatientChart, prefix: str = "pending", parent=None) -> None:
        super().__init__(parent)
        self.chart = chart
        vocab = chart.vocab
        self.setProperty("role", "panel")
        self.title = named(QLabel(vocab.pending_orders), f"{prefix}.title",
                           vocab.pending_orders)
        self.title.setProperty("role", "sectionTitle")
        self.table = table_view(f"{prefix}.table", vocab.pending_orders, chart.pending)
        self.table.setColumnWidth(0, 220)
        self.table.setColumnWidth(1, 300)
        self.table.doubleClicked.connect(lambda index: chart.edit_pending(index.row()))
        self.edit_button = button("Modify", f"{prefix}.edit", "Modify pending order",
                                  slot=self._edit)
        self.remove_button = button("Remove", f"{prefix}.remove", "Remove pending order",
                                    slot=self._remove)
        self.sign_button = button(f"✔ {vocab.sign}", f"{prefix}.sign",
                                  f"{vocab.sign} orders", role="sign", slot=chart.sign,
                                  tooltip="F9")
        self.count = QLabel("")
        self.count.setProperty("role", "caption")
        head = QHBoxLayout()
        head.addWidget(self.title)
        head.addWidget(self.count)
        head.addStretch(1)
        head.addWidget(self.edit_button)
        head.addWidget(self.remove_button)
        head.addWidget(self.sign_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 6)
        layout.addLayout(head)
        layout.addWidget(self.table, 1)
        chart.pending.changed.connect(self._update)
        self._update()

    def _selected(self) -> int | None:
        rows = self.table.selectionModel().selectedRows()
        return rows[0].row() if rows else None

    def _edit(self) -> None:
        row = self._selected()
        if row is not None:
            self.chart.edit_pending(row)

    def _remove(self) -> None:
        row = self._selected()
        if row is not None:
            self.chart.remove_pending(row)

    def _update(self) -> None:
        n = len(self.chart.pending)
        self.count.setText(f"({n})")
        self.sign_button.setEnabled(n > 0)


class OrdersPage(QWidget):
    def __init__(self, chart: PatientChart, style: str = "hyperspace", parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("page.orders")
        self.chart = chart
        vocab = chart.vocab
        self.model = RecordTableModel(ORDER_COLUMNS)
        self.table = table_view("orders.active", "Active orders", self.model)
        for col, width in enumerate((250, 270, 130, 115, 115, 75)):
            self.table.setColumnWidth(col, width)
        self.new_button = button(vocab.new_order if style == "powerchart" else "New Order",
                                 "orders.new", "New order", role="primary" if style ==
                                 "powerchart" else None, slot=lambda: chart.search_and_order(
                                     self.search.text() if hasattr(self, "search") else ""))
        self.set_button = button(vocab.order_sets, "orders.orderSets", vocab.order_sets,
                                 slot=self._order_sets)
        self.hold_button = button("Hold", "orders.hold", "Hold order",
                                  slot=lambda: self._act("hold"))
        self.dc_button = button("Discontinue", "orders.discontinue", "Discontinue order",
                                slot=lambda: self._act("discontinue"))
        self.resume_button = button("Resume", "orders.resume", "Resume held order",
                                    slot=lambda: self._act("resume"))
        toolbar = QHBoxLayout()
        toolbar.setContentsMargins(6, 4, 6, 4)
        if style == "hyperspace":
            self.search = line_edit("orders.search", "Place new order or order set",
                                    "Place new order or order set")
            self.search.setMinimumWidth(340)
            self.search.returnPressed.connect(self._search_entered)
            toolbar.addWidget(self.search)
            toolbar.addWidget(self.new_button)
        else:
            toolbar.addWidget(self.new_button)
        toolbar.addWidget(self.set_button)
        toolbar.addStretch(1)
        toolbar.addWidget(caption("Selected order:"))
        for b in (self.hold_button, self.dc_button, self.resume_button):
            toolbar.addWidget(b)
        bar = QFrame()
        bar.setProperty("role", "pageToolbar")
        bar.setLayout(toolbar)
        self.toolbar = toolbar

        active = QFrame()
        active.setProperty("role", "panel")
        al = QVBoxLayout(active)
        al.setContentsMargins(6, 4, 6, 6)
        title = named(QLabel("Active Orders" if style == "hyperspace" else "Orders"),
                      "orders.activeTitle", "Active orders")
        title.setProperty("role", "sectionTitle")
        al.addWidget(title)
        al.addWidget(self.table, 1)
        self.pending_panel = PendingPanel(chart)
        split = QSplitter(Qt.Orientation.Horizontal if style == "hyperspace"
                          else Qt.Orientation.Vertical)
        split.addWidget(active)
        split.addWidget(self.pending_panel)
        split.setSizes([560, 440] if style == "hyperspace" else [430, 210])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(bar)
        layout.addWidget(split, 1)
        chart.changed.connect(self.load)

    def _search_entered(self) -> None:
        text = self.search.text()
        if self.chart.search_and_order(text):
            self.search.clear()

    def _order_sets(self) -> None:
        self.chart.search_and_order("")

    def _act(self, kind: str) -> None:
        rows = self.table.selectionModel().selectedRows()
        if not rows:
            self.chart.status.emit("Select an active order first.")
            return
        self.chart.act_on_order(kind, self.model.row_at(rows[0].row()).id)

    def load(self) -> None:
        self.model.set_rows(chart_lists.orders(self.chart.ctx, self.chart.patient_id,
                                               active_only=True))
