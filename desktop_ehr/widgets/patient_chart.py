"""One open chart: its patient, its pending orders and the ordering workflow.

Both personas' pages call this controller, so "order search → composer → pending → Sign"
behaves the same everywhere; only the words and the layout around it differ. Dialogs are
opened through their replaceable classmethods (tests answer them without a screen).
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QWidget

from desktop_ehr.models.order_set import OrderSetModel
from desktop_ehr.models.pending import PendingOrdersModel
from desktop_ehr.personas.vocabulary import Vocabulary
from desktop_ehr.services import cds
from desktop_ehr.services.catalog import Reference
from desktop_ehr.services.chart import PatientSummary, patient_summary
from desktop_ehr.services.chart_lists import order_details_text
from desktop_ehr.services.order_sets import load_order_set, search_order_sets
from desktop_ehr.services.orders import OrderDraft, draft_for
from desktop_ehr.services.signing import OrderAction, SignRefused, sign_orders
from desktop_ehr.session import EhrContext
from desktop_ehr.widgets.common import Prompt
from desktop_ehr.widgets.order_actions import OrderActionDialog
from desktop_ehr.widgets.order_composer import OrderComposer
from desktop_ehr.widgets.order_search import OrderSearchDialog
from desktop_ehr.widgets.order_set_dialog import OrderSetDialog


class PatientChart(QObject):
    """``changed`` fires after any write to this chart (pages then reload)."""

    changed = Signal()
    signed = Signal(list)
    status = Signal(str)

    def __init__(self, ctx: EhrContext, ref: Reference, vocab: Vocabulary, patient_id: int,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.ref = ref
        self.vocab = vocab
        self.patient_id = patient_id
        self.summary: PatientSummary = patient_summary(ctx, patient_id)
        self.pending = PendingOrdersModel(ref, self)
        self.dialog_parent: QWidget | None = None

    @property
    def encounter_id(self) -> int | None:
        return self.summary.encounter_id

    def refresh(self) -> None:
        self.summary = patient_summary(self.ctx, self.patient_id)
        self.changed.emit()

    # -- ordering ------------------------------------------------------------------------
    def search_and_order(self, initial: str = "", order_mode: str = "inpatient") -> bool:
        """Order search, then the composer or the order set; True when something was added."""
        choice = OrderSearchDialog.search(self.dialog_parent, self.ref,
                                          lambda text: search_order_sets(self.ctx, text),
                                          self.ctx.now(), self.vocab, initial)
        if choice is None:
            return False
        if choice.kind == "order_set":
            return self.open_order_set(choice.id)
        return self.new_order(choice.id, order_mode=order_mode)

    def new_order(self, orderable_id: int, order_mode: str = "inpatient",
                  **preset) -> bool:
        orderable = self.ref.orderables[orderable_id]
        draft = draft_for(orderable, self.ctx.now(), self.ref)
        draft.order_mode = order_mode
        for key, value in preset.items():
            setattr(draft, key, value)
        edited = self.compose(draft)
        if edited is None:
            return False
        return self.add_to_pending([edited])

    def compose(self, draft: OrderDraft) -> OrderDraft | None:
        orderable = self.ref.orderables[draft.orderable_id]
        return OrderComposer.compose(self.dialog_parent, orderable, draft, self.ref,
                                     self.summary, self.ctx.today, self.vocab)

    def open_order_set(self, order_set_id: int) -> bool:
        info = load_order_set(self.ctx, order_set_id)
        model = OrderSetModel(info, self.ref, self.ctx.now())
        drafts = OrderSetDialog.choose(self.dialog_parent, model, self.compose, self.vocab)
        if not drafts:
            return False
        return self.add_to_pending(drafts)

    def add_to_pending(self, drafts: list[OrderDraft]) -> bool:
        """Add drafts after the duplicate-order check (the user may cancel them)."""
        pending = self.pending.drafts()
        hits = []
        for i, draft in enumerate(drafts):
            hits += [(draft, h) for h in cds.duplicate_orders(
                self.ctx, self.patient_id, draft, self.ref, pending + drafts[:i])]
        if hits:
            lines = "\n".join(f"• {d.order_name}: duplicates {h.message}" for d, h in hits)
            answer = Prompt.ask(
                self.dialog_parent, "duplicateOrder", "Duplicate Order Warning",
                "The order you are placing may duplicate an existing order.",
                [("override", "Accept Anyway"), ("cancel", "Cancel Order")],
                details=lines, default="cancel")
            if answer != "override":
                self.status.emit("Duplicate order cancelled; nothing was added.")
                return False
        for draft in drafts:
            self.pending.add(draft)
        self.status.emit(f"{len(drafts)} order{'s' if len(drafts) != 1 else ''} added to "
                         f"{self.vocab.pending_orders}.")
        return True

    def edit_pending(self, row: int) -> None:
        entry = self.pending.entry(row)
        if not isinstance(entry, OrderDraft):
            return
        edited = self.compose(entry)
        if edited is not None:
            self.pending.replace(row, edited)

    def remove_pending(self, row: int) -> None:
        self.pending.remove(row)

    def act_on_order(self, kind: str, order_id: int) -> bool:
        """Pend a hold or discontinue of a signed order (written at Sign)."""
        m = self.ctx.models
        with self.ctx.reader() as s:
            order = s.get(m.Order, order_id)
            if order is None or order.patient_id != self.patient_id:
                return False
            name, details, status = order.order_name, order_details_text(order), order.status
        if status not in ("signed", "held"):
            Prompt.inform(self.dialog_parent, "orderNotActive", "Order Not Active",
                          f"{name} is {status}; only active orders can be changed.",
                          icon="warning")
            return False
        if self.pending.has_action_for(order_id):
            Prompt.inform(self.dialog_parent, "orderAlreadyPended", "Already Pending",
                          f"A change to {name} is already waiting to be signed.",
                          icon="warning")
            return False
        if kind == "resume":
            action = OrderAction("resume", order_id, name)
        else:
            action = OrderActionDialog.ask(self.dialog_parent, kind, order_id, name, details,
                                           self.ctx.today, self.ctx.now())
        if action is None:
            return False
        self.pending.add(action)
        return True

    def sign(self) -> bool:
        """Sign every pending order and action; refused (with the reasons) if incomplete."""
        try:
            ids = sign_orders(self.ctx, self.patient_id, self.encounter_id,
                              self.pending.drafts(), self.ref, self.pending.actions())
        except SignRefused as refused:
            Prompt.inform(self.dialog_parent, "signRefused", "Cannot Sign",
                          "These orders are missing required information. Open each one "
                          "(double-click) and complete it, then sign again.",
                          details="\n".join(refused.problems), icon="error")
            return False
        count = len(self.pending)
        self.pending.clear()
        self.status.emit(f"Signed {count} order{'s' if count != 1 else ''}.")
        self.signed.emit(ids)
        self.refresh()
        return True

    def discard_pending(self) -> None:
        self.pending.clear()
