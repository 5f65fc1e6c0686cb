"""Where a DME order's own facts live while it is a draft: in its ``pa_drafts`` row.

A draft order is a ``pa_cases`` row (status ``draft``, with the service facts every request
has) plus the autosaved state of its order form in ``pa_drafts.form_state``; the
``dme_orders`` row is written once, when the order is submitted. So a draft is an ordinary
Acme draft — listed, resumed and deleted like the provider portal's own — and only
submitted orders have order rows.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from sandbox.stores.acme import DmeOrder, PaCase, PaDraft

STEP = "dme_order"
ORDER_COLUMNS = tuple(c.name for c in DmeOrder.__table__.columns
                      if c.name not in ("id", "case_id"))
DATE_COLUMNS = {c.name for c in DmeOrder.__table__.columns
                if c.type.python_type is dt.date}


def _encode(order: DmeOrder) -> str:
    state = {}
    for name in ORDER_COLUMNS:
        value = getattr(order, name)
        state[name] = value.isoformat() if isinstance(value, dt.date) else value
    return json.dumps(state, sort_keys=True)


def _decode(text: str) -> dict[str, Any]:
    try:
        state = json.loads(text or "{}")
    except ValueError:
        state = {}
    found: dict[str, Any] = {}
    for name in ORDER_COLUMNS:
        value = state.get(name) if isinstance(state, dict) else None
        if name in DATE_COLUMNS and isinstance(value, str):
            try:
                value = dt.date.fromisoformat(value)
            except ValueError:
                value = None
        found[name] = value
    return found


def draft_row(db: Session, case_id: int) -> PaDraft | None:
    return db.scalar(select(PaDraft).where(PaDraft.case_id == case_id))


def order_of(db: Session, case: PaCase) -> DmeOrder | None:
    """The order facts of a case: its ``dme_orders`` row, else (a draft) an unsaved order
    rebuilt from the draft's form state."""
    row = db.scalar(select(DmeOrder).where(DmeOrder.case_id == case.id))
    if row is not None or case.status != "draft":
        return row
    draft = draft_row(db, case.id)
    state = _decode(draft.form_state) if draft is not None else {}
    order = DmeOrder(**{k: v for k, v in state.items() if v is not None})
    if order.product_description is None:  # an unsaved object has no column defaults yet
        order.product_description = ""
    return order


def save_draft(db: Session, case: PaCase, order: DmeOrder, portal_user_id: int,
               now: dt.datetime) -> bool:
    """Store the order's facts in the draft's form state; whether anything changed."""
    state = _encode(order)
    draft = draft_row(db, case.id)
    if draft is None:
        db.add(PaDraft(case_id=case.id, portal_user_id=portal_user_id, wizard_step=STEP,
                       form_state=state, saved_at=now))
        return True
    if draft.form_state == state:
        return False
    draft.form_state = state
    draft.saved_at = now
    return True


def commit_order(db: Session, case: PaCase, order: DmeOrder) -> DmeOrder:
    """On submission: the ``dme_orders`` row, from the draft's state."""
    row = DmeOrder(case_id=case.id, **{name: getattr(order, name) for name in ORDER_COLUMNS})
    db.add(row)
    return row
