"""The PowerChart composition: menu bar, toolbar, Organizer, Banner Bar, left Menu.

::

    Task  Edit  View  Patient  Chart  Links  Notifications  Help
    [Message Center][Patient List][⟳] ......................... [Name, MRN or FIN][Search]
    [Organizer][Zztest, Rosa ×]
    | Zztest, Rosa   DOB … Age … Sex … MRN … FIN … Loc …                             |
    | Allergies … Code Status … Isolation … Weight … Inpatient [admit – ] Attending … |
    | Menu          | Orders                                            [+ Add] …  |
    |  Orders       |  …                                                            |
    |  Medication … |                                                               |
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QMenu,
    QMenuBar,
    QSizePolicy,
    QStackedWidget,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from desktop_ehr.personas.shell import ShellBase
from desktop_ehr.services.parsing import format_date, format_datetime, format_number
from desktop_ehr.widgets import chart_pages
from desktop_ehr.widgets.common import button, line_edit, named
from desktop_ehr.widgets.documents_page import DocumentsPage
from desktop_ehr.widgets.inbox_page import InboxPage
from desktop_ehr.widgets.medrec_page import MedRecPage
from desktop_ehr.widgets.notes_page import NotesPage
from desktop_ehr.widgets.orders_page import OrdersPage
from desktop_ehr.widgets.patient_chart import PatientChart
from desktop_ehr.widgets.patient_info_page import PatientInfoPage
from desktop_ehr.widgets.patient_lists import PatientListPage, PatientLookupDialog

MENU = ("Orders", "Medication List", "MAR", "Interactive View and I&O", "Results Review",
        "Documentation", "Allergies", "Problems and Diagnoses", "Patient Information",
        "Medication Reconciliation")


class BannerBar(QFrame):
    """Name, DOB, age, sex, MRN, FIN, location; allergies, code status, isolation, weight."""

    def __init__(self, chart: PatientChart, parent=None) -> None:
        super().__init__(parent)
        self.chart = chart
        self.setObjectName("banner")
        self.setProperty("role", "banner")
        self.name = named(QLabel(""), "banner.name", "Patient name")
        self.name.setProperty("role", "bannerName")
        self.name.setMinimumWidth(170)
        self.fields: dict[str, QLabel] = {}
        grid = QGridLayout(self)
        grid.setContentsMargins(10, 4, 10, 4)
        grid.setHorizontalSpacing(18)
        grid.setVerticalSpacing(1)
        grid.addWidget(self.name, 0, 0, 3, 1, Qt.AlignmentFlag.AlignVCenter)
        layout = (("dob", 0, 1), ("age", 0, 2), ("sex", 0, 3), ("mrn", 0, 4), ("fin", 0, 5),
                  ("attending", 0, 6), ("allergies", 1, 1, 3), ("code", 1, 4, 2),
                  ("pcp", 1, 6), ("location", 2, 1), ("weight", 2, 2), ("isolation", 2, 3, 2),
                  ("encounter", 2, 5, 2))
        for key, row, col, *span in layout:
            label = named(QLabel(""), f"banner.{key}", key)
            # the banner never widens the window: long values are clipped, not wrapped
            label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
            label.setMinimumWidth(40)
            self.fields[key] = label
            grid.addWidget(label, row, col, 1, span[0] if span else 1)
        for col, stretch in enumerate((0, 3, 3, 3, 3, 3, 4)):
            grid.setColumnStretch(col, stretch)
        chart.changed.connect(self.load)
        self.load()

    def load(self) -> None:
        s = self.chart.summary
        self.name.setText(s.name)
        since = format_datetime(s.admit_at) if s.admit_at else ""
        text = {"dob": f"DOB: {format_date(s.dob)}", "age": f"Age: {s.age} years",
                "sex": f"Sex: {s.sex}", "mrn": f"MRN: {s.mrn}", "fin": f"FIN: {s.fin or ''}",
                "location": f"Loc: {s.location}",
                "allergies": f"Allergies: {s.allergy_text}",
                "code": f"Code Status: {s.code_status}",
                "isolation": f"Isolation: {s.isolation or '<No Data Available>'}",
                "weight": f"Dosing Wt: {format_number(s.weight_kg)} kg" if s.weight_kg
                else "Dosing Wt: <No Data Available>",
                "encounter": f"{(s.encounter_type or '').title()} [{since} - <No - Discharge "
                             "Date>]" if since else "",
                "attending": f"Attending: {s.attending or ''}",
                "pcp": f"PCP: {s.pcp or ''}"}
        for key, label in self.fields.items():
            label.setText(text[key])
            label.setAccessibleName(text[key] or key)
        for key, role in (("allergies", "bannerAllergy"), ("code", "bannerCode"),
                          ("isolation", "bannerIsolation" if s.isolation else "")):
            self.fields[key].setProperty("role", role)
            self.fields[key].style().unpolish(self.fields[key])
            self.fields[key].style().polish(self.fields[key])


class ChartView(QWidget):
    """Banner Bar over the left Menu and the page area."""

    def __init__(self, chart: PatientChart, parent=None) -> None:
        super().__init__(parent)
        self.chart = chart
        self.setObjectName(f"chart.patient{chart.patient_id}")
        self.banner = BannerBar(chart)
        self.menu = named(QListWidget(), "chart.menu", "Chart menu")
        self.menu.setFixedWidth(196)
        self.pages = QStackedWidget()
        self.title = named(QLabel(""), "chart.pageTitle", "Page title")
        self.title.setProperty("role", "pageTitle")
        self.orders = OrdersPage(chart, "powerchart")
        recon = button("Reconciliation ▾", "orders.reconciliation", "Reconciliation")
        recon_menu = QMenu(recon)
        recon_menu.setObjectName("orders.reconciliation.menu")
        recon_menu.addAction("Admission…", lambda: self.select("Medication Reconciliation"))
        recon.setMenu(recon_menu)
        self.orders.toolbar.insertWidget(2, recon)
        med_list = QWidget()
        ml = QVBoxLayout(med_list)
        ml.setContentsMargins(0, 0, 0, 0)
        ml.setSpacing(4)
        self._med_pages = [chart_pages.home_meds_page(chart, "medList.home",
                                                      "Home Medications (Documented)"),
                           chart_pages.med_orders_page(chart, "medList.orders",
                                                       "Inpatient Medication Orders")]
        for page in self._med_pages:
            ml.addWidget(page, 1)
        ml.addWidget(button("Admission Reconciliation", "medList.reconcile",
                            "Admission medication reconciliation",
                            slot=lambda: self.select("Medication Reconciliation")),
                     0, Qt.AlignmentFlag.AlignLeft)
        med_list.load = lambda: [p.load() for p in self._med_pages]
        documentation = QTabWidget()
        documentation.setObjectName("page.documentation")
        documentation.tabBar().setObjectName("documentation.tabs")
        documentation.tabBar().setAccessibleName("Documentation tabs")
        documentation.setDocumentMode(True)
        self.documents = DocumentsPage(chart)
        notes = NotesPage(chart, "notes")
        documentation.addTab(self.documents, "Documents")
        documentation.addTab(notes, "Clinical Notes")
        documentation.load = lambda: (self.documents.load(), notes.load())
        pages = {
            "Orders": self.orders,
            "Medication List": med_list,
            "MAR": chart_pages.mar_page(chart),
            "Interactive View and I&O": chart_pages.vitals_page(chart, "iview",
                                                                "Interactive View and I&O"),
            "Results Review": chart_pages.results_page(chart),
            "Documentation": documentation,
            "Allergies": chart_pages.allergies_page(chart),
            "Problems and Diagnoses": chart_pages.problems_page(chart, "problems",
                                                               "Problems and Diagnoses"),
            "Patient Information": PatientInfoPage(chart),
            "Medication Reconciliation": MedRecPage(chart, "admission", "medrec"),
        }
        self._page_titles = list(pages)
        for title, page in pages.items():
            self.menu.addItem(title)
            self.pages.addWidget(page)
        self.menu.currentRowChanged.connect(self._show)
        header = QFrame()
        header.setProperty("role", "pageHeader")
        hl = QHBoxLayout(header)
        hl.setContentsMargins(8, 3, 8, 3)
        hl.addWidget(self.title)
        hl.addStretch(1)
        hl.addWidget(named(QLabel("⟳ 0 minutes ago"), "chart.refreshed", "Last refreshed"))
        menu_box = QWidget()
        mbl = QVBoxLayout(menu_box)
        mbl.setContentsMargins(0, 0, 0, 0)
        mbl.setSpacing(0)
        head = QLabel("Menu")
        head.setProperty("role", "menuHeader")
        mbl.addWidget(head)
        mbl.addWidget(self.menu, 1)
        right = QWidget()
        rl = QVBoxLayout(right)
        rl.setContentsMargins(0, 0, 0, 0)
        rl.setSpacing(0)
        rl.addWidget(header)
        rl.addWidget(self.pages, 1)
        body = QHBoxLayout()
        body.setContentsMargins(0, 0, 0, 0)
        body.setSpacing(0)
        body.addWidget(menu_box)
        body.addWidget(right, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.banner)
        layout.addLayout(body, 1)
        chart.changed.connect(self.activate)
        self.menu.setCurrentRow(0)

    def _show(self, row: int) -> None:
        self.pages.setCurrentIndex(row)
        self.title.setText(self._page_titles[row])
        self.activate()

    def select(self, title: str) -> None:
        self.menu.setCurrentRow(self._page_titles.index(title))

    def activate(self) -> None:
        page = self.pages.currentWidget()
        if page is not None and hasattr(page, "load"):
            page.load()


class OrganizerView(QWidget):
    def __init__(self, shell: PowerChartShell) -> None:
        super().__init__()
        self.setObjectName("organizer")
        self.menu = named(QListWidget(), "organizer.menu", "Organizer")
        self.menu.setFixedWidth(180)
        self.pages = QStackedWidget()
        self.inbox = InboxPage(shell.ctx, shell.vocab, "messageCenter")
        self.inbox.open_patient.connect(shell.open_patient)
        self.patients = PatientListPage(shell.ctx, "patientList", "Patient List - 4W / 5E",
                                        show_fin=True, placeholder="Filter by name, MRN, FIN")
        self.patients.open_patient.connect(shell.open_patient)
        for title, page in (("Message Center", self.inbox), ("Patient List", self.patients)):
            self.menu.addItem(title)
            self.pages.addWidget(page)
        self.menu.currentRowChanged.connect(self._show)
        head = QLabel("Organizer")
        head.setProperty("role", "menuHeader")
        left = QWidget()
        ll = QVBoxLayout(left)
        ll.setContentsMargins(0, 0, 0, 0)
        ll.setSpacing(0)
        ll.addWidget(head)
        ll.addWidget(self.menu, 1)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(left)
        layout.addWidget(self.pages, 1)
        self.menu.setCurrentRow(1)

    def _show(self, row: int) -> None:
        self.pages.setCurrentIndex(row)
        self.activate()

    def select(self, title: str) -> None:
        self.menu.setCurrentRow(["Message Center", "Patient List"].index(title))

    def activate(self) -> None:
        self.pages.currentWidget().load()


class PowerChartShell(ShellBase):
    def __init__(self, ctx, ref, persona, parent=None) -> None:
        super().__init__(ctx, ref, persona, "chart.tabs", parent)
        self.setObjectName("shell.powerchart")
        menubar = named(QMenuBar(), "menubar", "Menu bar")
        task = menubar.addMenu("&Task")
        task.addAction("Patient Search…", self.lookup)
        task.addAction("Log Off", self.logout_requested.emit)
        task.addAction("Exit", self.logout_requested.emit)
        for title in ("&Edit", "&View", "&Patient", "&Chart", "&Links", "&Notifications",
                      "&Navigation", "&Help"):
            menu = menubar.addMenu(title)
            if title == "&Patient":
                menu.addAction("Patient Search…", self.lookup)
            else:
                menu.addAction("(training domain)").setEnabled(False)
        toolbar = QFrame()
        toolbar.setProperty("role", "pcToolbar")
        tl = QHBoxLayout(toolbar)
        tl.setContentsMargins(4, 2, 4, 2)
        tl.setSpacing(1)
        for text, name, slot in (("✉ Message Center", "toolbar.messageCenter",
                                  lambda: self._organizer("Message Center")),
                                 ("☷ Patient List", "toolbar.patientList",
                                  lambda: self._organizer("Patient List")),
                                 ("⌂ Organizer", "toolbar.organizer",
                                  lambda: self._organizer(None)),
                                 ("⟳ Refresh", "toolbar.refresh", self._refresh),
                                 ("⎋ Exit", "toolbar.exit", self.logout_requested.emit)):
            tl.addWidget(button(text, name, text[2:], slot=slot))
        tl.addStretch(1)
        self.search = line_edit("patientSearch.query", "Patient search", "Name, MRN or FIN")
        self.search.setFixedWidth(220)
        self.search.returnPressed.connect(lambda: self.lookup(self.search.text()))
        tl.addWidget(QLabel("Recent ▾"))
        tl.addWidget(self.search)
        tl.addWidget(button("Search", "patientSearch.go", "Search patient",
                            slot=lambda: self.lookup(self.search.text())))
        status = QFrame()
        status.setProperty("role", "pcStatus")
        sl = QHBoxLayout(status)
        sl.setContentsMargins(6, 1, 6, 1)
        self.status_label = named(QLabel(""), "status.message", "Status message")
        sl.addWidget(self.status_label, 1)
        sl.addWidget(QLabel(f"TRAIN  |  {ctx.user.username}  |  {ctx.now():%m/%d/%Y}"))
        self.status_message.connect(self.status_label.setText)
        self.organizer = OrganizerView(self)
        self.add_home("Organizer", self.organizer)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(menubar)
        layout.addWidget(toolbar)
        layout.addWidget(self.tabs)
        layout.addWidget(self.stack, 1)
        layout.addWidget(status)
        self.organizer.activate()

    def make_workspace(self, chart: PatientChart) -> QWidget:
        return ChartView(chart)

    def tab_title(self, chart: PatientChart) -> str:
        return f"{chart.summary.name.upper()} - {chart.summary.mrn}"

    def _organizer(self, page: str | None) -> None:
        self.tabs.setCurrentIndex(0)
        if page:
            self.organizer.select(page)

    def _refresh(self) -> None:
        chart = self.current_chart()
        if chart is not None:
            chart.refresh()
        else:
            self.organizer.activate()

    def lookup(self, initial: str = "") -> None:
        patient_id = PatientLookupDialog.lookup(self, self.ctx, self.vocab.patient_search,
                                                initial if isinstance(initial, str) else "")
        if patient_id is not None:
            self.search.clear()
            self.open_patient(patient_id)
