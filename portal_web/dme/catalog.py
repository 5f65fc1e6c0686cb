"""What the DME portal orders: the HCPCS items it takes, which of them are power mobility
devices, and Acme's own medical-necessity questions for power mobility.

Descriptions are our own short wording. CMS retired the certificate of medical necessity
(CMN) for power mobility devices, so the questions here are Acme Health's form AMN-PMD-1,
labelled as Acme's, not a CMS form.
"""

from __future__ import annotations

import re

DME_ITEMS: dict[str, str] = {
    "K0822": "Power wheelchair, group 2 standard, sling/solid seat and back",
    "K0823": "Power wheelchair, group 2 standard, captain's chair",
    "K0824": "Power wheelchair, group 2 heavy duty, sling/solid seat and back",
    "K0825": "Power wheelchair, group 2 heavy duty, captain's chair",
    "K0835": "Power wheelchair, group 2 standard, single power option, sling/solid seat",
    "K0856": "Power wheelchair, group 3 standard, single power option, sling/solid seat",
    "K0800": "Power operated vehicle (scooter), group 1 standard",
    "E0260": "Hospital bed, semi-electric, with side rails and mattress",
    "E0601": "Continuous positive airway pressure (CPAP) device",
    "E0143": "Walker, folding, wheeled, adjustable",
    "E0470": "Respiratory assist device, bi-level, without backup rate",
    "E1390": "Oxygen concentrator, single delivery port",
}
MODIFIERS = {"NU": "NU - New equipment (purchase)", "RR": "RR - Rental",
             "KX": "KX - Coverage criteria met"}
LIFETIME = 99
MN_FORM = ("Acme Health Power Mobility Medical Necessity Form (AMN-PMD-1)",
           "Acme's own form for power mobility devices, completed by the ordering "
           "practitioner. It replaces the CMS certificate of medical necessity, which CMS "
           "retired; do not attach a CMS CMN.")
MN_QUESTIONS: tuple[tuple[str, str], ...] = (
    ("mobility_limits_adls",
     "Does the patient have a mobility limitation that significantly impairs mobility-related "
     "activities of daily living (toileting, feeding, dressing, grooming, bathing) in the "
     "home?"),
    ("cane_walker_sufficient",
     "Can the mobility limitation be resolved safely with a cane or walker?"),
    ("manual_wheelchair_sufficient",
     "Can the patient's mobility needs in the home be met with an optimally configured manual "
     "wheelchair that the patient can self-propel?"),
    ("scooter_sufficient",
     "Can the patient's mobility needs in the home be met with a power-operated vehicle "
     "(scooter) that the patient can transfer to and operate safely?"),
    ("can_operate_safely",
     "Does the patient have the mental and physical ability to operate the power wheelchair "
     "safely?"),
    ("home_accommodates",
     "Does the patient's home provide adequate access between rooms, maneuvering space and "
     "surfaces for the power wheelchair?"),
)


def is_power_mobility(hcpcs: str | None) -> bool:
    """Power wheelchairs and scooters: HCPCS K0800–K0899."""
    return bool(hcpcs and re.fullmatch(r"K08\d\d", hcpcs))


def length_of_need_label(months: int | None) -> str:
    if months is None:
        return ""
    return "Lifetime (99)" if months == LIFETIME else f"{months} months"
