"""What both personas' shells share: a home tab and one tab per open chart.

A persona supplies the home page and the chart workspace (layout and words); this base
keeps the tabs, opens and closes charts (asking about unsigned orders), and carries status
messages to the status bar.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QStackedWidget, QTabBar, QWidget

from desktop_ehr.services.catalog import Reference
from desktop_ehr.session import EhrContext
from desktop_ehr.widgets.common import Prompt, named
from desktop_ehr.widgets.patient_chart import PatientChart

if TYPE_CHECKING:  # the persona builds its shell: only its type is needed here
    from desktop_ehr.personas import Persona


class ShellBase(QWidget):
    status_message = Signal(str)
    logout_requested = Signal()

    def __init__(self, ctx: EhrContext, ref: Reference, persona: Persona,
                 tabs_name: str, parent=None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.ref = ref
        self.persona = persona
        self.vocab = persona.vocab
        self.tabs = named(QTabBar(), tabs_name, "Open charts")
        self.tabs.setExpanding(False)
        self.tabs.setDocumentMode(True)
        self.tabs.setTabsClosable(True)
        self.tabs.setDrawBase(False)
        self.stack = named(QStackedWidget(), tabs_name.replace("tabs", "stack"),
                           "Workspace")
        self.tabs.currentChanged.connect(self._tab_changed)
        self.tabs.tabCloseRequested.connect(self._close_tab)
        self._patients: list[int | None] = []
        self.charts: dict[int, tuple[PatientChart, QWidget]] = {}
        sign_key = QShortcut(QKeySequence(Qt.Key.Key_F9), self)
        sign_key.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        sign_key.activated.connect(self.sign_shown_orders)

    # -- persona hooks -------------------------------------------------------------------
    def make_workspace(self, chart: PatientChart) -> QWidget:
        """The persona's layout of an open chart (Hyperspace's Storyboard and activity tabs,
        PowerChart's menu and banner); each persona's shell defines it."""
        raise NotImplementedError(f"{type(self).__name__} lays out no chart workspace")

    def tab_title(self, chart: PatientChart) -> str:
        return chart.summary.name

    # -- tabs ----------------------------------------------------------------------------
    def add_home(self, title: str, widget: QWidget) -> None:
        self.tabs.addTab(title)
        self.stack.addWidget(widget)
        self._patients.append(None)
        close = self.tabs.tabButton(0, QTabBar.ButtonPosition.RightSide)
        if close is not None:
            close.resize(0, 0)
            close.hide()

    def open_patient(self, patient_id: int) -> PatientChart:
        if patient_id in self.charts:
            self.tabs.setCurrentIndex(self._patients.index(patient_id))
            return self.charts[patient_id][0]
        chart = PatientChart(self.ctx, self.ref, self.vocab, patient_id, self)
        workspace = self.make_workspace(chart)
        chart.dialog_parent = workspace
        chart.status.connect(self.status_message)
        self.charts[patient_id] = (chart, workspace)
        self.stack.addWidget(workspace)
        self._patients.append(patient_id)
        index = self.tabs.addTab(self.tab_title(chart))
        close = self.tabs.tabButton(index, QTabBar.ButtonPosition.RightSide)
        if close is not None:
            named(close, f"{self.tabs.objectName()}.close.{patient_id}",
                  f"Close chart {chart.summary.name}")
        self.tabs.setCurrentIndex(index)
        self.status_message.emit(f"Opened chart: {chart.summary.name} (MRN {chart.summary.mrn})")
        return chart

    def _tab_changed(self, index: int) -> None:
        if 0 <= index < self.stack.count():
            self.stack.setCurrentIndex(index)
            widget = self.stack.widget(index)
            if hasattr(widget, "activate"):
                widget.activate()

    def _close_tab(self, index: int) -> None:
        patient_id = self._patients[index] if index < len(self._patients) else None
        if patient_id is not None:
            self.close_patient(patient_id)

    def close_patient(self, patient_id: int, ask: bool = True) -> bool:
        chart, workspace = self.charts[patient_id]
        if ask and len(chart.pending):
            answer = Prompt.ask(
                workspace, "unsignedOrders", "Unsigned Orders",
                f"{chart.summary.name} has {len(chart.pending)} unsigned order(s).",
                [("sign", chart.vocab.sign), ("discard", "Discard"), ("cancel", "Cancel")],
                details="Sign them now, discard them, or stay in the chart.", default="cancel")
            if answer == "sign":
                if not chart.sign():
                    return False
            elif answer != "discard":
                return False
        index = self._patients.index(patient_id)
        del self._patients[index]
        del self.charts[patient_id]
        self.tabs.removeTab(index)
        self.stack.removeWidget(workspace)
        workspace.deleteLater()
        chart.deleteLater()
        return True

    def close_all(self, ask: bool = False) -> bool:
        for patient_id in list(self.charts):
            if not self.close_patient(patient_id, ask=ask):
                return False
        self.tabs.setCurrentIndex(0)
        return True

    def sign_shown_orders(self) -> bool:
        """F9: sign the pending list on screen (Orders page or Discharge Navigator)."""
        from desktop_ehr.widgets.orders_page import PendingPanel

        for panel in self.findChildren(PendingPanel):
            if panel.isVisible() and panel.sign_button.isEnabled():
                return panel.chart.sign()
        return False

    def current_chart(self) -> PatientChart | None:
        index = self.tabs.currentIndex()
        patient_id = self._patients[index] if 0 <= index < len(self._patients) else None
        return self.charts[patient_id][0] if patient_id is not None else None
