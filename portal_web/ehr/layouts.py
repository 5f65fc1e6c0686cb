"""Layout-based forms (OpenEMR's LBF): field definitions from ``layout_options``.

A layout is identified by its form id (``LBFjoint_inj``, ``LBFio``, ``LBTref``); its title
and sections come from ``layout_group_properties``. Field ``data_type`` follows OpenEMR:

====  =============================  ===========================================
 1    list (``list_id``)              stored as the option id
 2    text box                        free text (``max_length``)
 3    text area                       free text
 4    date                            ``YYYY-MM-DD``
 10   provider                        ``users.id`` of a log-in provider
 14   address book                    ``users.id`` of an external contact
 21   checkbox (single, no list)      ``1`` when ticked
 27   radio group (``list_id``)       the option id
 90   patient document (*sandbox*)    ``documents.id`` of this patient
====  =============================  ===========================================

``layout_options.validation`` may add ``int:<min>:<max>`` or ``num:<min>:<max>``.
Fields of a flowsheet grid are named ``<prefix>_<HHMM>_<row>`` (``io_0800_iv``) or
``<row>_<HHMM>``; their title holds the time and the row label ("08:00 IV"); a row is
intake or output by its group's title. The grid shows what was entered, nothing computed:
totals are fields the nurse fills in. Anything else is rendered one field per cell.
A text field whose id is ``refer_document`` (or whose description names ``documents.id``)
is offered as a choice of the patient's documents.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from sqlalchemy import select
from sqlalchemy.orm import Session

from portal_web.common.forms import FieldReader
from portal_web.ehr.chart import address_book, options, providers, user_name
from sandbox.stores.ehr import Document, LayoutGroupProperties, LayoutOption

LIST, TEXT, TEXTAREA, DATE, PROVIDER, ADDRESS_BOOK, CHECKBOX, RADIO = 1, 2, 3, 4, 10, 14, 21, 27
DOCUMENT = 90
GRID_FIELDS = (re.compile(r"^[a-z]+_(?P<hhmm>[0-2]\d[0-5]\d)_(?P<row>[a-z][a-z0-9]*)$"),
               re.compile(r"^(?P<row>[a-z][a-z0-9]*)_(?P<hhmm>[0-2]\d[0-5]\d)$"))
INTAKE_ROWS = ("iv", "po", "ng", "tube", "blood", "intake")


@dataclass
class LayoutField:
    option: LayoutOption
    choices: list[tuple[str, str]] = field(default_factory=list)

    @property
    def id(self) -> str:
        return self.option.field_id

    @property
    def title(self) -> str:
        return self.option.title

    @property
    def kind(self) -> int:
        return self.option.data_type

    @property
    def required(self) -> bool:
        return self.option.uor == 2

    @property
    def is_select(self) -> bool:
        """Rendered as a drop-down (lists, providers, address book, documents)."""
        return self.kind in (LIST, PROVIDER, ADDRESS_BOOK, DOCUMENT) \
            or is_document_field(self.option)

    def display(self, value: str | None) -> str:
        """How a stored value reads (option title, provider name ...)."""
        if value in (None, ""):
            return ""
        if self.choices:
            return dict(self.choices).get(value, value)
        if self.kind == CHECKBOX:
            return "Yes" if value == "1" else ""
        return value


@dataclass
class FlowGrid:
    """Fields laid out as rows (IV, PO, urine, drain) by hour columns."""

    hours: list[str]
    rows: list[tuple[str, str, str, list[str]]]  # (row key, label, intake|output, field ids)


@dataclass
class Layout:
    form_id: str
    title: str
    groups: list[tuple[str, str, list[LayoutField]]]  # (group id, title, fields)
    grid: FlowGrid | None

    @property
    def fields(self) -> list[LayoutField]:
        return [f for _, _, fs in self.groups for f in fs]

    def field(self, field_id: str) -> LayoutField | None:
        return next((f for f in self.fields if f.id == field_id), None)


def layout_title(db: Session, form_id: str) -> str | None:
    row = db.get(LayoutGroupProperties, (form_id, ""))
    return row.grp_title if row is not None else None


def load_layout(db: Session, form_id: str, pid: int | None = None) -> Layout | None:
    title = layout_title(db, form_id)
    opts = list(db.scalars(select(LayoutOption).where(
        LayoutOption.form_id == form_id, LayoutOption.uor > 0)
        .order_by(LayoutOption.group_id, LayoutOption.seq, LayoutOption.field_id)))
    if title is None and not opts:
        return None
    group_titles = {g.grp_group_id: g.grp_title for g in db.scalars(
        select(LayoutGroupProperties).where(LayoutGroupProperties.grp_form_id == form_id))}
    provider_choices = [(str(u.id), user_name(u)) for u in providers(db)]
    book_choices = [(str(u.id), f"{user_name(u)}{' - ' + u.specialty if u.specialty else ''}"
                     f"{' (' + u.organization + ')' if u.organization else ''}")
                    for u in address_book(db)]
    doc_choices: list[tuple[str, str]] = []
    if pid is not None:
        doc_choices = [(str(d.id), f"{d.name} ({d.docdate or ''})") for d in db.scalars(
            select(Document).where(Document.foreign_id == pid, Document.deleted == 0)
            .order_by(Document.docdate.desc(), Document.id))]
    groups: dict[str, list[LayoutField]] = {}
    for opt in opts:
        if opt.data_type in (LIST, RADIO) and opt.list_id:
            choices = [(o.option_id, o.title) for o in options(db, opt.list_id)]
        elif opt.data_type == PROVIDER:
            choices = provider_choices
        elif opt.data_type == ADDRESS_BOOK:
            choices = book_choices
        elif opt.data_type == DOCUMENT or is_document_field(opt):
            choices = doc_choices
        else:
            choices = []
        groups.setdefault(opt.group_id, []).append(LayoutField(opt, choices))
    ordered = [(gid, group_titles.get(gid, ""), fs) for gid, fs in sorted(
        groups.items(), key=lambda kv: (_group_seq(db, form_id, kv[0]), kv[0]))]
    return Layout(form_id=form_id, title=title or form_id, groups=ordered,
                  grid=_grid(ordered))


def is_document_field(opt: LayoutOption) -> bool:
    """A text field that holds a ``documents.id`` (the referral's linked document)."""
    return opt.data_type == TEXT and (opt.field_id == "refer_document"
                                      or "documents.id" in (opt.description or ""))


def _group_seq(db: Session, form_id: str, group_id: str) -> int:
    row = db.get(LayoutGroupProperties, (form_id, group_id))
    return row.grp_seq if row is not None else 0


def _grid(groups: list[tuple[str, str, list[LayoutField]]]) -> FlowGrid | None:
    cells: dict[str, dict[str, str]] = {}
    labels: dict[str, str] = {}
    kinds: dict[str, str] = {}
    for _gid, group_title, fields in groups:
        for f in fields:
            match = next((m for p in GRID_FIELDS if (m := p.match(f.id))), None)
            if match is None or f.kind != TEXT:
                continue
            row, hhmm = match["row"], match["hhmm"]
            cells.setdefault(row, {})[hhmm] = f.id
            label = re.sub(r"\s*\d{1,2}:\d{2}\s*", " ", f.title).strip()
            labels.setdefault(row, label or row.upper())
            kinds.setdefault(row, _row_kind(row, group_title))
    if len(cells) < 2:
        return None
    hours = sorted({h for row in cells.values() for h in row})
    rows = [(row, labels[row], kinds[row], [cells[row].get(h, "") for h in hours])
            for row in cells]
    return FlowGrid(hours=[f"{h[:2]}:{h[2:]}" for h in hours], rows=rows)


def _row_kind(row: str, group_title: str) -> str:
    """Intake or output: by the group's title ("Intake (mL)"), else by the row's name."""
    heading = group_title.lower()
    if ("intake" in heading) != ("output" in heading):
        return "intake" if "intake" in heading else "output"
    return "intake" if row.startswith(INTAKE_ROWS) else "output"


def grid_field_ids(layout: Layout) -> set[str]:
    if layout.grid is None:
        return set()
    return {fid for _, _, _, ids in layout.grid.rows for fid in ids if fid}


def read_values(layout: Layout, reader: FieldReader) -> dict[str, str]:
    """Validate posted values of every field; returns field id → stored text ('' = empty)."""
    values: dict[str, str] = {}
    for f in layout.fields:
        name = f"form_{f.id}"
        opt = f.option
        if f.is_select or f.kind == RADIO:
            value = reader.choice(name, opt.title, [c for c, _ in f.choices],
                                  required=f.required)
        elif f.kind == DATE:
            day = reader.date(name, opt.title, required=f.required)
            value = day.isoformat() if day else None
        elif f.kind == CHECKBOX:
            value = "1" if reader.checkbox(name) else None
            if f.required and value is None:
                reader.fail(name, f"{opt.title} must be ticked.")
        else:
            limit = max(1, opt.max_length or 255) if f.kind == TEXT else 20_000
            value = _validated_text(reader, name, opt, limit)
        values[f.id] = value or ""
    return values


def _validated_text(reader: FieldReader, name: str, opt: LayoutOption,
                    limit: int) -> str | None:
    rule = (opt.validation or "").split(":")
    if rule[0] in ("int", "num") and len(rule) == 3:
        low, high = float(rule[1]), float(rule[2])
        if rule[0] == "int":
            number = reader.integer(name, opt.title, low=int(low), high=int(high),
                                    required=opt.uor == 2, unit="")
            return None if number is None else str(number)
        value = reader.number(name, opt.title, low=low, high=high, required=opt.uor == 2)
        return None if value is None else f"{value:g}"
    return reader.text(name, opt.title, required=opt.uor == 2, max_len=limit)


