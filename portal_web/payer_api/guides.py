"""The implementation guides this payer accepts, as data for :mod:`portal_web.payer_api.rules`.

- 005010X217 278 Health Care Services Review: request (BHT02 ``13``) and response (``11``);
- 005010X215 278 Health Care Services Review Inquiry: request and response;
- 005010X210 275 Additional Information to Support a Health Care Services Review.

Loops, segment usage and repeats, and the code lists below follow the guides' structure
(UMO 2000A, requester 2000B, subscriber 2000C, dependent 2000D, patient event 2000E, service
2000F); where the guide leaves an element to a companion guide, Acme's companion rules are
the ones written here (``docs/payer-api.md``).
"""

from __future__ import annotations

import re

from portal_web.payer_api.edi import Segment
from portal_web.payer_api.rules import Guide, Issue, Level, Loop, Seg, comp, n, r, s, seg

X217 = "005010X217"
X215 = "005010X215"
X210 = "005010X210"

# -- code lists (Acme's subset of the X12 external and internal code lists) --------------------
REQUEST_CATEGORY = "AR HS SC"  # UM01: admission review, health services review, specialty care
CERTIFICATION_TYPE = "1 2 3 4 I S"  # UM02: appeals 1/2, cancel 3, extension 4, initial, revised
LEVEL_OF_SERVICE = "03 E U"  # UM06: emergency, elective, urgent
PROVIDER_ENTITY = "1T 71 72 73 77 AAJ DD DK DN FA G3 P3 QB QV SJ"
EVENT_DATES = "431 435 439 454 096 472 484 AAH"
REPORT_TYPES = ("03 04 05 06 07 08 09 10 11 13 15 21 48 55 59 77 A3 A4 AM AS B2 B3 B4 BR BS "
                "BT CB CK CT D2 DA DB DG DJ DS EB HC HR I5 IR LA M1 MT NN OB OC OD OE OX OZ "
                "P4 P5 P6 P7 PE PN PO PQ PY PZ RB RR RT RX SG V5 XP")
REJECT_REASONS = ("15 33 35 41 42 43 44 45 46 47 49 51 52 53 56 57 58 60 61 62 64 65 66 68 69 "
                  "70 71 72 73 74 75 76 77 78 79 95 97 98 AA AE AF AG AO CI E8 IA MA T5")
FOLLOW_UP = "C N P R S W X Y"
ACTION_CODES = "A1 A2 A3 A4 A6 C CT NA"
DIAGNOSIS_PRINCIPAL = "ABK ABJ BK BJ"
DIAGNOSIS_OTHER = "ABF BF ABJ BJ APR PR"


# -- segment checks beyond single elements -----------------------------------------------------
def dtp_value(segment: Segment) -> list[Issue]:
    """DTP03 must match its format qualifier (D8 CCYYMMDD, RD8 CCYYMMDD-CCYYMMDD)."""
    fmt, value = segment.value(2), segment.value(3)
    pattern = r"\d{8}" if fmt == "D8" else r"\d{8}-\d{8}"
    if not re.fullmatch(pattern, value) or not _dates_ok(value):
        want = "CCYYMMDD" if fmt == "D8" else "CCYYMMDD-CCYYMMDD"
        return [Issue("3", 1251, "8", value[:99],
                      f"DTP03 '{value[:30]}' is not a {fmt} date ({want})")]
    if fmt == "RD8" and value[:8] > value[9:]:
        return [Issue("3", 1251, "8", value[:99], "DTP03: the range ends before it starts")]
    return []


def _dates_ok(value: str) -> bool:
    import datetime as dt

    for part in value.split("-"):
        try:
            dt.date(int(part[:4]), int(part[4:6]), int(part[6:8]))
        except ValueError:
            return False
    return True


def hi_qualifiers(segment: Segment) -> list[Issue]:
    """HI01 is the principal diagnosis; later composites are other diagnoses."""
    issues = []
    for index, parts in enumerate(segment.elements(), start=1):
        if not parts or not parts[0]:
            continue
        allowed = DIAGNOSIS_PRINCIPAL if index == 1 else DIAGNOSIS_OTHER
        if parts[0] not in allowed.split():
            issues.append(Issue(f"{index}:1", 1270, "7", parts[0][:99],
                                f"HI{index:02d}-1 '{parts[0][:10]}' is not a diagnosis "
                                f"qualifier here (use {allowed.split()[0]} for ICD-10-CM)"))
        elif len(parts) < 2 or not parts[1]:
            issues.append(Issue(f"{index}:2", 1271, "1", "",
                                f"HI{index:02d}-2 (the diagnosis code) is required"))
    return issues


def bin_data(segment: Segment) -> list[Issue]:
    """BIN02 must be exactly BIN01 characters long (it was cut out by that length)."""
    if not re.fullmatch(r"BINARY-DATA-\d{3}", segment.value(2)):
        return [Issue("1", 784, "5", segment.value(1)[:99],
                      "BIN01 does not match the length of BIN02: BIN01 must be the exact "
                      "number of bytes of the data that follows, up to the segment terminator")]
    return []


def hl_numbers(segment: Segment) -> list[Issue]:
    if not segment.value(1).isdigit():
        return [Issue("1", 628, "6", segment.value(1)[:99], "HL01 must be a number")]
    return []


# -- segments ------------------------------------------------------------------------------------
def st(ident: str, version: str) -> Seg:
    return seg("ST", "Transaction Set Header", "R", 1,
               r(143, "Transaction Set Identifier Code", "ID", 3, 3, ident),
               r(329, "Transaction Set Control Number", "AN", 4, 9),
               r(1705, "Implementation Convention Reference", "AN", 1, 35, version))


SE = seg("SE", "Transaction Set Trailer", "R", 1,
         r(96, "Number of Included Segments", "N0", 1, 10),
         r(329, "Transaction Set Control Number", "AN", 4, 9))


def bht(purpose: str) -> Seg:
    return seg("BHT", "Beginning of Hierarchical Transaction", "R", 1,
               r(1005, "Hierarchical Structure Code", "ID", 4, 4, "0007 0078"),
               r(353, "Transaction Set Purpose Code", "ID", 2, 2, purpose),
               r(127, "Submitter Transaction Identifier", "AN", 1, 50),
               r(373, "Transaction Set Creation Date", "DT", 8, 8),
               r(337, "Transaction Set Creation Time", "TM", 4, 8),
               s(640, "Transaction Type Code", "ID", 2, 2, "18 RU"))


HL = seg("HL", "Hierarchical Level", "R", 1,
         r(628, "Hierarchical ID Number", "AN", 1, 12),
         s(734, "Hierarchical Parent ID Number", "AN", 1, 12),
         r(735, "Hierarchical Level Code", "ID", 1, 2),
         r(736, "Hierarchical Child Code", "ID", 1, 1, "0 1"),
         checks=(hl_numbers,))


def nm1(name: str, entities: str, id_codes: str, id_required: bool = True) -> Seg:
    make = r if id_required else s
    return seg("NM1", name, "R", 1,
               r(98, "Entity Identifier Code", "ID", 2, 3, entities),
               r(1065, "Entity Type Qualifier", "ID", 1, 1, "1 2"),
               r(1035, "Name Last or Organization Name", "AN", 1, 60),
               s(1036, "Name First", "AN", 1, 35),
               s(1037, "Name Middle", "AN", 1, 25),
               n(1038, "Name Prefix"),
               s(1039, "Name Suffix", "AN", 1, 10),
               make(66, "Identification Code Qualifier", "ID", 1, 2, id_codes),
               make(67, "Identification Code", "AN", 2, 80),
               n(706, "Entity Relationship Code"),
               n(98, "Entity Identifier Code"),
               n(1035, "Name Last or Organization Name"),
               qualifier=(1, entities))


def ref(name: str, codes: str, max_use: int = 9) -> Seg:
    return seg("REF", name, "S", max_use,
               r(128, "Reference Identification Qualifier", "ID", 2, 3, codes),
               r(127, "Reference Identification", "AN", 1, 50),
               n(352, "Description"), n(0, "Reference Identifier"))


N3 = seg("N3", "Address", "S", 1, r(166, "Address Information", "AN", 1, 55),
         s(166, "Address Information", "AN", 1, 55))
N4 = seg("N4", "City, State, ZIP Code", "S", 1,
         r(19, "City Name", "AN", 2, 30), s(156, "State or Province Code", "ID", 2, 2),
         s(116, "Postal Code", "ID", 3, 15), s(26, "Country Code", "ID", 2, 3),
         n(309, "Location Qualifier"), n(310, "Location Identifier"),
         s(1715, "Country Subdivision Code", "ID", 1, 3))
PER = seg("PER", "Contact Information", "S", 1,
          r(366, "Contact Function Code", "ID", 2, 2, "IC"), s(93, "Name", "AN", 1, 60),
          s(365, "Communication Number Qualifier", "ID", 2, 2, "EM FX TE UR"),
          s(364, "Communication Number", "AN", 1, 256),
          s(365, "Communication Number Qualifier", "ID", 2, 2, "EM EX FX TE UR"),
          s(364, "Communication Number", "AN", 1, 256),
          s(365, "Communication Number Qualifier", "ID", 2, 2, "EM EX FX TE UR"),
          s(364, "Communication Number", "AN", 1, 256), n(443, "Contact Inquiry Reference"))
PRV = seg("PRV", "Provider Information", "S", 1,
          r(1221, "Provider Code", "ID", 1, 3, "AD AS AT CO CV OP OR OT PC PE RF"),
          r(128, "Reference Identification Qualifier", "ID", 2, 3, "PXC"),
          r(127, "Provider Taxonomy Code", "AN", 10, 10))
DMG = seg("DMG", "Demographic Information", "S", 1,
          r(1250, "Date Time Period Format Qualifier", "ID", 2, 3, "D8"),
          r(1251, "Birth Date", "DT", 8, 8),
          s(1068, "Gender Code", "ID", 1, 1, "F M U"))
INS = seg("INS", "Insured Benefit", "S", 1,
          r(1073, "Insured Indicator", "ID", 1, 1, "N Y"),
          r(1069, "Individual Relationship Code", "ID", 2, 2, "01 18 19 20 21 39 40 53 G8"))
TRN = seg("TRN", "Trace Number", "S", 2,
          r(481, "Trace Type Code", "ID", 1, 2, "1"),
          r(127, "Trace Number", "AN", 1, 50),
          r(509, "Trace Assigning Entity Identifier", "AN", 10, 10),
          s(127, "Trace Assigning Entity Additional Identifier", "AN", 1, 50))
TRN_RESPONSE = seg("TRN", "Trace Number", "S", 3,
                   r(481, "Trace Type Code", "ID", 1, 2, "1 2"),
                   r(127, "Trace Number", "AN", 1, 50),
                   r(509, "Trace Assigning Entity Identifier", "AN", 10, 10),
                   s(127, "Trace Assigning Entity Additional Identifier", "AN", 1, 50))
AAA = seg("AAA", "Request Validation", "S", 9,
          r(1073, "Valid Request Indicator", "ID", 1, 1, "N Y"),
          n(559, "Agency Qualifier Code"),
          r(901, "Reject Reason Code", "ID", 2, 2, REJECT_REASONS),
          r(889, "Follow-up Action Code", "ID", 1, 1, FOLLOW_UP))
HCR = seg("HCR", "Health Care Services Review", "S", 1,
          r(306, "Action Code", "ID", 1, 2, ACTION_CODES),
          s(127, "Review Identification Number", "AN", 1, 50),
          s(1271, "Review Decision Reason Code", "AN", 1, 30),
          s(1073, "Second Surgical Opinion Indicator", "ID", 1, 1, "N Y"))


def um(level: str, usage: str = "R") -> Seg:
    """UM of the patient event (2000E) or service (2000F) level."""
    return seg("UM", "Health Care Services Review Information", usage, 1,
               r(1525, "Request Category Code", "ID", 1, 2, REQUEST_CATEGORY),
               r(1322, "Certification Type Code", "ID", 1, 1, CERTIFICATION_TYPE),
               (s(1365, "Service Type Code", "ID", 1, 2) if level == "E"
                else n(1365, "Service Type Code")),
               comp(0, "Health Care Service Location Information", "S",
                    r(1331, "Facility Code Value", "AN", 1, 2),
                    r(1332, "Facility Code Qualifier", "ID", 1, 2, "A B")),
               comp(0, "Related Causes Information", "S",
                    r(1362, "Related-Causes Code", "ID", 2, 3, "AA AP EM OA"),
                    s(1362, "Related-Causes Code", "ID", 2, 3, "AA AP EM OA"),
                    n(1362, "Related-Causes Code"), s(156, "State Code", "ID", 2, 2),
                    s(26, "Country Code", "ID", 2, 3)),
               s(1338, "Level of Service Code", "ID", 1, 3, LEVEL_OF_SERVICE),
               s(1213, "Current Health Condition Code", "ID", 1, 1, "1 2 3 4 5"),
               s(923, "Prognosis Code", "ID", 1, 1, "1 2 3 4 5 6 7 8"),
               s(1363, "Release of Information Code", "ID", 1, 1, "Y N"),
               s(1352, "Delay Reason Code", "ID", 1, 2))


DTP = seg("DTP", "Date", "S", 3,
          r(374, "Date Time Qualifier", "ID", 3, 3, EVENT_DATES),
          r(1250, "Date Time Period Format Qualifier", "ID", 2, 3, "D8 RD8"),
          r(1251, "Date Time Period", "AN", 1, 35), checks=(dtp_value,))


def _diagnosis(usage: str) -> object:
    return comp(0, "Health Care Code Information", usage,
                r(1270, "Code List Qualifier Code", "ID", 1, 3),
                r(1271, "Industry Code", "AN", 1, 30),
                s(1250, "Date Time Period Format Qualifier", "ID", 2, 3, "D8"),
                s(1251, "Date Time Period", "AN", 1, 35),
                n(782, "Monetary Amount"), n(380, "Quantity"), n(799, "Version Identifier"),
                n(1271, "Industry Code"), n(1073, "Present on Admission Indicator"))


HI = seg("HI", "Patient Diagnosis", "S", 1, _diagnosis("R"),
         *[_diagnosis("S") for _ in range(11)], checks=(hi_qualifiers,))  # type: ignore[arg-type]
HSD = seg("HSD", "Health Care Services Delivery", "S", 1,
          s(673, "Quantity Qualifier", "ID", 2, 2, "DY FL HS MN VS"),
          s(380, "Quantity", "R", 1, 15),
          s(355, "Unit or Basis for Measurement Code", "ID", 2, 2, "DA DY MO WK"),
          s(1167, "Sample Selection Modulus", "R", 1, 6),
          s(615, "Time Period Qualifier", "ID", 1, 2, "7 27 34 35"),
          s(616, "Number of Periods", "N0", 1, 3),
          s(678, "Ship/Delivery or Calendar Pattern Code", "ID", 1, 2),
          s(679, "Ship/Delivery Pattern Time Code", "ID", 1, 1))
CRC = seg("CRC", "Patient Condition Information", "S", 12,
          r(1136, "Code Category", "ID", 2, 2, "07 08 09 11 75 76 77 E1 E2 E3 ZV"),
          r(1073, "Certification Condition Indicator", "ID", 1, 1, "N Y"),
          r(1321, "Condition Indicator", "ID", 2, 3), s(1321, "Condition Indicator", "ID", 2, 3),
          s(1321, "Condition Indicator", "ID", 2, 3), s(1321, "Condition Indicator", "ID", 2, 3),
          s(1321, "Condition Indicator", "ID", 2, 3))
CL1 = seg("CL1", "Institutional Claim Code", "S", 1,
          s(1315, "Admission Type Code", "ID", 1, 1), s(1314, "Admission Source Code", "ID", 1, 1),
          s(1352, "Patient Status Code", "ID", 1, 2), n(1345, "Nursing Home Residential Status"))
PWK = seg("PWK", "Additional Patient Information", "S", 10,
          r(755, "Report Type Code", "ID", 2, 2, REPORT_TYPES),
          r(756, "Report Transmission Code", "ID", 1, 2, "AA BM EL EM FT FX VO"),
          n(757, "Report Copies Needed"), n(98, "Entity Identifier Code"),
          s(66, "Identification Code Qualifier", "ID", 1, 2, "AC"),
          s(67, "Attachment Control Number", "AN", 2, 80),
          s(352, "Attachment Description", "AN", 1, 80),
          n(0, "Actions Indicated"), n(1525, "Request Category Code"))
MSG = seg("MSG", "Message Text", "S", 1, r(933, "Free-form Message Text", "AN", 1, 264),
          n(934, "Printer Carriage Control Code"), n(1470, "Number"))
SV1 = seg("SV1", "Professional Service", "S", 1,
          comp(0, "Composite Medical Procedure Identifier", "R",
               r(235, "Product or Service ID Qualifier", "ID", 2, 2, "HC IV WK ZZ"),
               r(234, "Procedure Code", "AN", 1, 48),
               s(1339, "Procedure Modifier", "AN", 2, 2), s(1339, "Procedure Modifier", "AN", 2, 2),
               s(1339, "Procedure Modifier", "AN", 2, 2), s(1339, "Procedure Modifier", "AN", 2, 2),
               s(352, "Description", "AN", 1, 80), n(234, "Procedure Code")),
          s(782, "Line Item Charge Amount", "R", 1, 18),
          s(355, "Unit or Basis for Measurement Code", "ID", 2, 2, "MJ UN"),
          s(380, "Service Unit Count", "R", 1, 15),
          n(1331, "Facility Code Value"), n(1365, "Service Type Code"),
          n(0, "Composite Diagnosis Code Pointer"), n(782, "Monetary Amount"),
          n(1073, "Yes/No Condition or Response Code"), n(1073, "Multiple Procedure Code"),
          s(1073, "EPSDT Indicator", "ID", 1, 1, "N Y"))
SV2 = seg("SV2", "Institutional Service Line", "S", 1,
          s(234, "Service Line Revenue Code", "AN", 1, 48),
          comp(0, "Composite Medical Procedure Identifier", "S",
               r(235, "Product or Service ID Qualifier", "ID", 2, 2, "HC HP IV N4 WK"),
               r(234, "Procedure Code", "AN", 1, 48),
               s(1339, "Procedure Modifier", "AN", 2, 2), s(1339, "Procedure Modifier", "AN", 2, 2),
               s(1339, "Procedure Modifier", "AN", 2, 2), s(1339, "Procedure Modifier", "AN", 2, 2),
               s(352, "Description", "AN", 1, 80)),
          s(782, "Line Item Charge Amount", "R", 1, 18),
          s(355, "Unit or Basis for Measurement Code", "ID", 2, 2, "DA UN"),
          s(380, "Service Unit Count", "R", 1, 15),
          n(1371, "Service Line Rate"), n(782, "Monetary Amount"),
          n(1073, "Yes/No Condition or Response Code"), n(1345, "Nursing Home Status"),
          s(1337, "Level of Care Code", "ID", 1, 1))


# -- loops -------------------------------------------------------------------------------------
def umo(response: bool) -> Loop:
    name_loop = Loop("2010A", "Utilization Management Organization (UMO) Name", "R", 1, (
        nm1("UMO Name", "X3", "24 46 PI XV"),
        *((PER, AAA) if response else ())))
    return Loop("2000A", "Utilization Management Organization (UMO) Level", "R", 1,
                (HL, *((AAA,) if response else ()), name_loop))


def requester(response: bool) -> Loop:
    name_loop = Loop("2010B", "Requester Name", "R", 1, (
        nm1("Requester Name", "1P FA", "24 34 46 XX"),
        ref("Requester Supplemental Identification", "EI SY ZH 1G 1J N5 N7 ZB"),
        *((AAA, PRV) if response else (N3, N4, PER, PRV))))
    return Loop("2000B", "Requester Level", "R", 1, (HL, name_loop))


def person(loop: str, name: str, entity: str, response: bool, required: bool) -> Loop:
    name_loop = Loop(f"2010{loop}", f"{name} Name", "R", 1, (
        nm1(f"{name} Name", entity, "MI II" if entity == "IL" else "MI II",
            id_required=entity == "IL"),
        ref(f"{name} Supplemental Information", "6P A6 EJ SY HJ NQ 1L 3H"),
        N3, N4, *((AAA,) if response else ()), DMG, INS))
    level = "Subscriber" if entity == "IL" else "Dependent"
    return Loop(f"2000{loop}", f"{level} Level", "R" if required else "S", 1, (HL, name_loop))


def event_provider(suffix: str, name: str) -> Loop:
    return Loop(suffix, name, "S", 12, (
        nm1(name, PROVIDER_ENTITY, "24 34 46 XX", id_required=False),
        ref(f"{name} Supplemental Information", "EI SY ZH 1G 1J N5 N7 ZB"),
        N3, N4, PER, PRV))


def patient_event(response: bool, inquiry: bool) -> Loop:
    refs = "BB NT" if response or inquiry else "BB NT 9F D9 G1 NT P4 XT"
    body: tuple[Seg | Loop, ...]
    if response:
        body = (HL, TRN_RESPONSE, AAA, um("E"), HCR, ref("Patient Event Reference", refs, 9),
                DTP, HI, HSD, CRC, CL1, MSG)
    else:
        body = (HL, TRN, um("E"), ref("Patient Event Reference", refs, 9), DTP, HI, HSD, CRC,
                CL1, PWK, MSG)
    return Loop("2000E", "Patient Event Level", "R", 1, (
        *body, event_provider("2010EA", "Patient Event Provider")))


def service(response: bool, inquiry: bool) -> Loop:
    refs = "BB NT" if response or inquiry else "BB NT 9F NT"
    body: tuple[Seg | Loop, ...]
    if response:
        # a UMO may answer a service line with its HCR alone (CMS esMD does)
        body = (HL, TRN_RESPONSE, AAA, um("F", "S"), HCR, ref("Service Reference", refs, 9),
                seg("DTP", "Service Date", "S", 2, *DTP.elements, checks=DTP.checks),
                SV1, SV2, HSD, MSG)
    else:
        body = (HL, TRN, um("F"), ref("Service Reference", refs, 9),
                seg("DTP", "Service Date", "S", 2, *DTP.elements, checks=DTP.checks),
                SV1, SV2, HSD, PWK, MSG)
    return Loop("2000F", "Service Level", "S", 50, (
        *body, event_provider("2010F", "Service Provider")))


def review_guide(version: str, response: bool) -> Guide:
    inquiry = version == X215
    kind = "Inquiry " if inquiry else ""
    purpose = "11" if response else "13"
    subscriber = person("C", "Subscriber", "IL", response, True)
    dependent = person("D", "Dependent", "QC", response, False)
    return Guide(
        ident="278", version=version,
        name=f"Health Care Services Review {kind}{'Response' if response else 'Request'}",
        header=(bht(purpose),),
        levels=(
            Level("20", umo(response), frozenset()),
            Level("21", requester(response), frozenset({"20"})),
            Level("22", subscriber, frozenset({"21"})),
            Level("23", dependent, frozenset({"22"}), required=False),
            # a response stops at the subscriber when the request was refused there (AAA)
            Level("EV", patient_event(response, inquiry), frozenset({"22", "23"}),
                  required=not response),
            Level("SS", service(response, inquiry), frozenset({"EV"}), required=False),
        ),
        trailer=SE)


# -- 275 (005010X210) ----------------------------------------------------------------------------
BGN = seg("BGN", "Beginning Segment", "R", 1,
          r(353, "Transaction Set Purpose Code", "ID", 2, 2, "02 11"),
          r(127, "Reference Identification", "AN", 1, 50),
          r(373, "Date", "DT", 8, 8), s(337, "Time", "TM", 4, 8))
ATTACHMENT_BODY = Loop("1000", "Attachment", "R", 1, (
    nm1("Payer Name", "PR", "PI XV"),
    nm1("Submitter Name", "41", "46 XX 24"),
    nm1("Provider Name", "1P", "XX 24 34"),
    nm1("Patient Name", "QC", "MI II"),
    ref("Patient Control Number", "EJ", 1),
    seg("LX", "Assigned Number", "R", 1, r(554, "Assigned Number", "N0", 1, 6)),
    seg("TRN", "Attachment Control Number", "R", 1,
        r(481, "Trace Type Code", "ID", 1, 2, "2"),
        r(127, "Attachment Control Number", "AN", 2, 50)),
    seg("DTP", "Date of Submission", "S", 1,
        r(374, "Date Time Qualifier", "ID", 3, 3, "368"),
        r(1250, "Date Time Period Format Qualifier", "ID", 2, 3, "D8"),
        r(1251, "Date Time Period", "AN", 8, 8), checks=(dtp_value,)),
    seg("CAT", "Category of Patient Information Service", "R", 1,
        r(1136, "Code Category", "ID", 2, 2, "AE"),
        r(1270, "Code List Qualifier Code", "ID", 1, 3, "MB TX")),
    seg("EFI", "Electronic Format Identification", "R", 1,
        r(827, "Security Level Code", "ID", 2, 2, "05")),
    seg("BIN", "Binary Data", "R", 1, r(784, "Length of Binary Data", "N0", 1, 15),
        r(785, "Binary Data", "AN", 1, 99), checks=(bin_data,)),
))
ATTACHMENT = Guide(ident="275", version=X210,
                   name="Additional Information to Support a Health Care Services Review",
                   header=(BGN,), levels=(), trailer=SE, hierarchical=False,
                   body=ATTACHMENT_BODY)

GUIDES: dict[tuple[str, str, str], Guide] = {
    ("278", X217, "13"): review_guide(X217, False),
    ("278", X217, "11"): review_guide(X217, True),
    ("278", X215, "13"): review_guide(X215, False),
    ("278", X215, "11"): review_guide(X215, True),
    ("275", X210, ""): ATTACHMENT,
}
FUNCTIONAL_GROUP = {X217: "HI", X215: "HI", X210: "PI"}


def guide_for(ident: str, version: str, purpose: str) -> Guide | None:
    """The guide of a transaction set (``purpose`` is BHT02 for a 278)."""
    return GUIDES.get((ident, version, purpose if ident == "278" else ""))
