"""The Hyperspace composition: toolbar, workspace tabs, Storyboard, activity tabs.

::

    [☰ Hyperspace][In Basket][Patient Lookup][Patient Lists] ......... user [Secure][Log Out]
    [⌂ Patient Lists][Test, Walter ×][…]
    | Storyboard | Chart Review | Results Review | Problem List | Orders | MAR | Notes | … |
    |  name      |  activity content                                                   |
    |  MRN …     |                                                                      |
    [status bar: user · department · date · TRAINING]
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QMenu,
    QStackedWidget,
    QTabBar,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from desktop_ehr.personas.shell import ShellBase
from desktop_ehr.services.parsing import format_date, format_datetime
from desktop_ehr.widgets import chart_pages
from desktop_ehr.widgets.common import button, named
from desktop_ehr.widgets.discharge_navigator import DischargeNavigator
from desktop_ehr.widgets.inbox_page import InboxPage
from desktop_ehr.widgets.medrec_page import MedRecPage
from desktop_ehr.widgets.notes_page import NotesPage
from desktop_ehr.widgets.orders_page import OrdersPage
from desktop_ehr.widgets.patient_chart import PatientChart
from desktop_ehr.widgets.patient_info_page import PatientInfoPage
from desktop_ehr.widgets.patient_lists import PatientListPage, PatientLookupDialog


class Storyboard(QFrame):
    """The left column: who the patient is, at a glance."""

    FIELDS = ("ageSex", "mrn", "dob", "code", "isolation", "allergies", "weight", "height",
              "coverage", "pcp", "attending", "location", "admitted", "reason", "proxy")

    def __init__(self, chart: PatientChart, parent=None) -> None:
        super().__init__(parent)
        self.chart = chart
        self.setObjectName("storyboard")
        self.setProperty("role", "storyboard")
        self.setFixedWidth(212)
        self.photo = QLabel("")
        self.photo.setProperty("role", "sbPhoto")
        self.photo.setFixedSize(60, 60)
        self.photo.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.name = named(QLabel(""), "storyboard.name", "Patient name")
        self.name.setProperty("role", "sbName")
        self.name.setWordWrap(True)
        self.labels: dict[str, QLabel] = {}
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 10, 10, 10)
        layout.setSpacing(2)
        top = QHBoxLayout()
        top.addWidget(self.photo)
        top.addWidget(self.name, 1)
        layout.addLayout(top)
        headings = {"code": "CODE / ISOLATION", "allergies": "ALLERGIES",
                    "weight": "MEASUREMENTS", "coverage": "COVERAGE / CARE TEAM",
                    "location": "ENCOUNTER", "proxy": "HEALTH CARE AGENT"}
        for key in self.FIELDS:
            if key in headings:
                head = QLabel(headings[key])
                head.setProperty("role", "sbHeading")
                layout.addWidget(head)
            label = named(QLabel(""), f"storyboard.{key}", key)
            label.setWordWrap(True)
            self.labels[key] = label
            layout.addWidget(label)
        layout.addStretch(1)
        chart.changed.connect(self.load)
        self.load()

    def load(self) -> None:
        s = self.chart.summary
        self.photo.setText((s.first_name[:1] + s.last_name[:1]).upper())
        self.name.setText(s.name)
        text = {
            "ageSex": f"{s.age} y.o. {s.sex}", "mrn": f"MRN: {s.mrn}",
            "dob": f"DOB: {format_date(s.dob)}",
            "code": f"Code: {s.code_status}",
            "isolation": f"Isolation: {s.isolation}" if s.isolation else "Isolation: None",
            "allergies": s.allergy_text,
            "weight": f"Wt: {s.weight_text}" + (f" ({format_date(s.weight_date)[:5]})"
                                                 if s.weight_date else ""),
            "height": f"Ht: {s.height_cm:g} cm   BMI: {s.bmi}" if s.height_cm else "Ht: —",
            "coverage": f"Cov: {s.coverage or 'None'}",
            "pcp": f"PCP: {s.pcp or '—'}", "attending": f"Attending: {s.attending or '—'}",
            "location": f"{(s.encounter_type or '').title()} · {s.location}",
            "admitted": f"Since {format_datetime(s.admit_at)}" if s.admit_at else "",
            "reason": s.reason or "", "proxy": s.proxy or "None on file"}
        for key, label in self.labels.items():
            label.setText(text[key])
            label.setAccessibleName(text[key] or key)
        self.labels["allergies"].setProperty("role", "sbAllergy" if s.allergies
                                             else "sbNoAllergy")
        self.labels["code"].setProperty("role", "sbCode")
        self.labels["isolation"].setProperty("role", "sbBadge" if s.isolation else "")
        for key in ("allergies", "code", "isolation"):
            self.labels[key].style().unpolish(self.labels[key])
            self.labels[key].style().polish(self.labels[key])


class ActivityWorkspace(QWidget):
    """An activity tab bar over a stack of pages; pages reload when shown."""

    def __init__(self, tabs_name: str, parent=None) -> None:
        super().__init__(parent)
        self.bar = named(QTabBar(), tabs_name, "Activity tabs")
        self.bar.setExpanding(False)
        self.bar.setDrawBase(False)
        self.pages = QStackedWidget()
        self.bar.currentChanged.connect(self._show)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.bar)
        layout.addWidget(self.pages, 1)

    def add(self, title: str, page: QWidget) -> None:
        self.bar.addTab(title)
        self.pages.addWidget(page)

    def _show(self, index: int) -> None:
        self.pages.setCurrentIndex(index)
        self.activate()

    def activate(self) -> None:
        page = self.pages.currentWidget()
        if page is not None and hasattr(page, "load"):
            page.load()

    def select(self, title: str) -> None:
        for i in range(self.bar.count()):
            if self.bar.tabText(i) == title:
                self.bar.setCurrentIndex(i)
                return
        raise KeyError(title)


class TabbedPage(QTabWidget):
    """Sub-tabs (Chart Review's Encounters / Notes / Labs / Meds / Media …)."""

    def __init__(self, name: str, pages: list[tuple[str, QWidget]], parent=None) -> None:
        super().__init__(parent)
        self.setObjectName(f"page.{name}")
        self.tabBar().setObjectName(f"{name}.tabs")
        self.tabBar().setAccessibleName(f"{name} tabs")
        self.setDocumentMode(True)
        for title, page in pages:
            self.addTab(page, title)
        self.currentChanged.connect(lambda _i: self.load())

    def load(self) -> None:
        page = self.currentWidget()
        if page is not None and hasattr(page, "load"):
            page.load()


class PatientWorkspace(QWidget):
    def __init__(self, chart: PatientChart, parent=None) -> None:
        super().__init__(parent)
        self.chart = chart
        self.setObjectName(f"workspace.patient{chart.patient_id}")
        self.storyboard = Storyboard(chart)
        self.activities = ActivityWorkspace("activity.tabs")
        review = TabbedPage("chartReview", [
            ("Encounters", chart_pages.encounters_page(chart, "chartReview.encounters")),
            ("Notes", NotesPage(chart, "chartReview.notes")),
            ("Labs", chart_pages.results_page(chart, "chartReview.labs", "Labs")),
            ("Meds", chart_pages.home_meds_page(chart, "chartReview.meds",
                                                "Medications (Prior to Admission)")),
            ("Media", chart_pages.documents_list_page(chart, "chartReview.media", "Media"))])
        self.orders = OrdersPage(chart, "hyperspace")
        navigators = TabbedPage("navigators", [
            ("Discharge", DischargeNavigator(chart)),
            ("Admission Med Rec", MedRecPage(chart, "admission", "admissionMedrec"))])
        for title, page in (
                ("Chart Review", review),
                ("Results Review", chart_pages.results_page(chart)),
                ("Problem List", chart_pages.problems_page(chart)),
                ("Orders", self.orders),
                ("MAR", chart_pages.mar_page(chart)),
                ("Notes", NotesPage(chart, "notes")),
                ("Flowsheets", chart_pages.vitals_page(chart)),
                ("Allergies", chart_pages.allergies_page(chart)),
                ("Demographics", PatientInfoPage(chart)),
                ("Navigators", navigators)):
            self.activities.add(title, page)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.storyboard)
        layout.addWidget(self.activities, 1)
        for key, title in ((Qt.Key.Key_F2, "Chart Review"), (Qt.Key.Key_F3, "Orders"),
                           (Qt.Key.Key_F4, "Notes")):
            shortcut = QShortcut(QKeySequence(key), self)
            shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            shortcut.activated.connect(lambda t=title: self.activities.select(t))
        chart.changed.connect(self.activities.activate)
        self.activities.activate()

    def activate(self) -> None:
        self.activities.activate()


class HomeWorkspace(ActivityWorkspace):
    def __init__(self, shell: HyperspaceShell) -> None:
        super().__init__("home.tabs")
        self.setObjectName("workspace.home")
        self.patients = PatientListPage(shell.ctx, "patientList", "My Patients - 4W / ED",
                                        placeholder="Filter by name or MRN")
        self.patients.open_patient.connect(shell.open_patient)
        self.inbox = InboxPage(shell.ctx, shell.vocab, "inbox")
        self.inbox.open_patient.connect(shell.open_patient)
        self.add("Patient Lists", self.patients)
        self.add("In Basket", self.inbox)


class HyperspaceShell(ShellBase):
    def __init__(self, ctx, ref, persona, parent=None) -> None:
        super().__init__(ctx, ref, persona, "workspace.tabs", parent)
        self.setObjectName("shell.hyperspace")
        toolbar = QFrame()
        toolbar.setProperty("role", "hsToolbar")
        toolbar.setFixedHeight(36)
        tl = QHBoxLayout(toolbar)
        tl.setContentsMargins(6, 3, 6, 3)
        tl.setSpacing(2)
        menu_button = button("☰ Hyperspace", "toolbar.menu", "Main menu")
        menu = QMenu(menu_button)
        menu.setObjectName("toolbar.menu.popup")
        menu.addAction("Patient Lookup", self.lookup)
        menu.addAction("In Basket", lambda: self._home("In Basket"))
        menu.addAction("Patient Lists", lambda: self._home("Patient Lists"))
        menu.addSeparator()
        menu.addAction("Log Out", self.logout_requested.emit)
        menu_button.setMenu(menu)
        tl.addWidget(menu_button)
        tl.addSpacing(8)
        for text, name, slot in (("✉ In Basket", "toolbar.inBasket",
                                  lambda: self._home("In Basket")),
                                 ("⚲ Patient Lookup", "toolbar.patientLookup", self.lookup),
                                 ("☷ Patient Lists", "toolbar.patientLists",
                                  lambda: self._home("Patient Lists"))):
            tl.addWidget(button(text, name, text[2:], slot=slot))
        tl.addStretch(1)
        user = QLabel(f"{ctx.user.display_name}  ·  4W MEDICINE")
        tl.addWidget(user)
        tl.addWidget(button("Secure", "toolbar.secure", "Secure",
                            slot=self.logout_requested.emit))
        tl.addWidget(button("⎋ Log Out", "toolbar.logout", "Log out",
                            slot=self.logout_requested.emit))
        status = QFrame()
        status.setProperty("role", "hsStatus")
        sl = QHBoxLayout(status)
        sl.setContentsMargins(8, 2, 8, 2)
        self.status_label = named(QLabel(""), "status.message", "Status message")
        sl.addWidget(self.status_label, 1)
        sl.addWidget(QLabel(f"{ctx.user.username}  |  Riverside Memorial Hospital  |  "
                            f"{ctx.now():%a %m/%d/%Y}  |  TRAINING ENVIRONMENT"))
        self.status_message.connect(self.status_label.setText)
        self.home = HomeWorkspace(self)
        self.add_home("⌂ Patient Lists", self.home)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(toolbar)
        layout.addWidget(self.tabs)
        layout.addWidget(self.stack, 1)
        layout.addWidget(status)
        lookup_key = QShortcut(QKeySequence("Ctrl+Shift+L"), self)
        lookup_key.activated.connect(self.lookup)
        self.home.activate()

    def make_workspace(self, chart: PatientChart) -> QWidget:
        return PatientWorkspace(chart)

    def _home(self, activity: str) -> None:
        self.tabs.setCurrentIndex(0)
        self.home.select(activity)

    def lookup(self) -> None:
        patient_id = PatientLookupDialog.lookup(self, self.ctx, self.vocab.patient_search)
        if patient_id is not None:
            self.open_patient(patient_id)
