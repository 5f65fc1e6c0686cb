"""The words each persona uses for the same things (the stores use one vocabulary)."""

from __future__ import annotations

from dataclasses import dataclass, fields


@dataclass(frozen=True)
class Vocabulary:
    product: str
    window_title: str
    composer_title: str
    accept: str
    order_set: str
    order_sets: str
    pending_orders: str
    sign: str
    new_order: str
    order_search_title: str
    inbox: str
    documents: str
    patient_search: str
    med_rec_title: str
    action_continue: str
    action_discontinue: str
    action_modify: str
    action_hold: str
    action_stop: str
    action_change: str
    med_rec_after: str
    discharge_after: str
    sign_rec: str
    addendum: str
    proxy: str
    log_in: str
    log_out: str

    def med_rec_labels(self, rec_type: str) -> dict[str, str]:
        if rec_type == "admission":
            return {"continue": self.action_continue, "discontinue": self.action_discontinue,
                    "modify": self.action_modify, "hold": self.action_hold,
                    "after": self.med_rec_after}
        return {"continue": self.action_continue, "stop": self.action_stop,
                "change": self.action_change, "new": "New (Prescribe)",
                "after": self.discharge_after}


HYPERSPACE = Vocabulary(
    product="Hyperspace", window_title="Epic Hyperspace (training)",
    composer_title="Order Composer", accept="Accept", order_set="Order Set",
    order_sets="Order Sets", pending_orders="Orders to be Signed", sign="Sign",
    new_order="New Order", order_search_title="Order Search", inbox="In Basket",
    documents="Media", patient_search="Patient Lookup",
    med_rec_title="Admission Medication Reconciliation",
    action_continue="Continue", action_discontinue="Discontinue", action_modify="Modify",
    action_hold="Hold", action_stop="Stop Taking", action_change="Change Dose",
    med_rec_after="After Admission", discharge_after="After Discharge",
    sign_rec="Mark as Reviewed", addendum="Addendum", proxy="Health Care Agent",
    log_in="Log In", log_out="Log Out")

POWERCHART = Vocabulary(
    product="PowerChart", window_title="PowerChart (training domain)",
    composer_title="Order Details", accept="OK", order_set="PowerPlan",
    order_sets="PowerPlans", pending_orders="Orders For Signature", sign="Sign",
    new_order="+ Add", order_search_title="Add Order", inbox="Message Center",
    documents="Documents", patient_search="Patient Search",
    med_rec_title="Medication Reconciliation - Admission",
    action_continue="Continue", action_discontinue="Do Not Continue", action_modify="Modify",
    action_hold="Hold", action_stop="Do Not Continue", action_change="Modify",
    med_rec_after="After: Inpatient Orders", discharge_after="After: Discharge List",
    sign_rec="Sign", addendum="Addendum", proxy="Health Care Proxy",
    log_in="OK", log_out="Exit")


def vocabulary_keys() -> list[str]:
    return [f.name for f in fields(Vocabulary)]
