"""How the claim pages explain a claim: X12 277 status categories, adjustment group codes and
the claim adjustment reason codes (CARC) Acme's remittances use, in our own short wording.

Stored adjustment codes look like ``CO-45,PR-2`` (group-reason); a bare ``45`` has no group.
"""

from __future__ import annotations

from dataclasses import dataclass

GROUPS = {"CO": "Contractual obligation", "PR": "Patient responsibility",
          "OA": "Other adjustment", "PI": "Payer-initiated reduction", "CR": "Correction"}
CARC = {
    "1": "Deductible amount",
    "2": "Coinsurance amount",
    "3": "Co-payment amount",
    "4": "Procedure code inconsistent with the modifier, or a modifier is missing",
    "16": "Claim lacks information needed for adjudication",
    "18": "Exact duplicate claim or service",
    "29": "Time limit for filing has expired",
    "45": "Charge exceeds the fee schedule or maximum allowable amount",
    "50": "Not deemed a medical necessity by the payer",
    "96": "Non-covered charge",
    "97": "Included in the payment for another service",
    "197": "Precertification or authorization absent",
    "198": "Precertification or authorization exceeded",
}
# X12 277 claim status category codes by claim status
STATUS_CATEGORY = {
    "received": ("A1", "Acknowledgement: received, not yet adjudicated"),
    "in_process": ("P1", "Pending: in process"),
    "paid": ("F1", "Finalized: payment"),
    "partially_paid": ("F1", "Finalized: payment"),
    "adjusted": ("F3", "Finalized: revised"),
    "denied": ("F2", "Finalized: denial"),
    "voided": ("F3", "Finalized: revised (voided)"),
}
FINALIZED = ("paid", "partially_paid", "denied", "adjusted")
FREQUENCY_LABELS = {"1": "1 - Original", "7": "7 - Replacement of prior claim",
                    "8": "8 - Void/cancel of prior claim"}


@dataclass(frozen=True)
class Adjustment:
    """One adjustment code of a line (``CO-45``)."""

    code: str
    group: str
    reason: str

    @property
    def description(self) -> str:
        text = CARC.get(self.reason, "See the remittance advice")
        return f"{GROUPS[self.group]}: {text}" if self.group in GROUPS else text


def adjustments(codes: str | None) -> list[Adjustment]:
    """The adjustment codes of a line or claim, in stored order."""
    found = []
    for part in (codes or "").replace(" ", "").split(","):
        if not part:
            continue
        group, _, reason = part.rpartition("-")
        found.append(Adjustment(part, group.upper(), reason))
    return found


def legend(code_lists: list[str | None]) -> list[Adjustment]:
    """Each distinct adjustment code of the given lists once, for the page's code legend."""
    seen: dict[str, Adjustment] = {}
    for codes in code_lists:
        for adjustment in adjustments(codes):
            seen.setdefault(adjustment.code, adjustment)
    return list(seen.values())
