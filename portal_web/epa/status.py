"""How a request's status reads on the dashboard: CoverMyMeds' four groups and badges.

The store keeps fine-grained statuses (``sandbox.stores.epa.REQUEST_STATUSES``); the
dashboard groups them as prescriber offices see them: New (a pharmacy started it), Follow
Up (the plan sent questions to answer), Sent to Plan (waiting for the plan) and
Determination (approved, denied or cancelled).
"""

from __future__ import annotations

from dataclasses import dataclass

GROUPS: tuple[tuple[str, str], ...] = (
    ("new", "New"),
    ("follow_up", "Follow Up"),
    ("sent", "Sent to Plan"),
    ("determination", "Determination"),
)
GROUP_OF = {
    "new": "new",
    "questions_received": "follow_up", "in_progress": "follow_up",
    "sent_to_plan": "sent", "pended": "sent",
    "approved": "determination", "denied": "determination", "cancelled": "determination",
}
DETAIL = {
    "new": "Ready to start: send to the plan",
    "questions_received": "Plan questions received",
    "in_progress": "Answering plan questions",
    "sent_to_plan": "Waiting for the plan",
    "pended": "Pended for clinical review",
    "approved": "Approved",
    "denied": "Denied",
    "cancelled": "Cancelled",
}


@dataclass(frozen=True)
class Badge:
    """The status pill of a request: its group label, detail line and colour class."""

    group: str
    label: str
    detail: str
    css: str


def badge(status: str) -> Badge:
    """The badge for an effective status (see ``sandbox.stores.epa.plan_state``)."""
    group = GROUP_OF.get(status, "sent")
    label = dict(GROUPS)[group]
    if status in ("approved", "denied", "cancelled"):
        label = f"{label}: {DETAIL[status]}"
        css = {"approved": "ok", "denied": "bad", "cancelled": "muted"}[status]
    else:
        css = {"new": "new", "follow_up": "warn", "sent": "info"}[group]
    return Badge(group, label, DETAIL.get(status, status), css)
