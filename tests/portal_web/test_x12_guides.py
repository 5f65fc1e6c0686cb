"""The 005010X217 rules against 278s written by others: what conforms passes, what does not
is named. (Shapes follow published examples: a CMS esMD-style response with several event
providers and service lines, and a request with HSD visits and an RD8 range.)"""

from __future__ import annotations

from portal_web.payer_api.edi import read_interchange
from portal_web.payer_api.guides import guide_for
from portal_web.payer_api.rules import check_transaction

ESMD_STYLE_RESPONSE = (
    "ISA*00*          *00*          *ZZ*111222001      *ZZ*360373         *190718*1938*^*00501"
    "*000000038*0*T*+~\n"
    "GS*HI*111222001*360373*20190718*19385828*121901*X*005010X217~\n"
    "ST*278*121901*005010X217~\nBHT*0007*11*000121901*20190718*19385828*18~\n"
    "HL*1**20*1~\nNM1*X3*2*CGS*****PI*15004~\nHL*2*1*21*1~\n"
    "NM1*1P*2*Unitypoint at Home*****XX*1427351956~\nHL*3*2*22*1~\n"
    "NM1*IL*1*Martin*Suzan****MI*513325515C1~\nHL*4*3*EV*1~\n"
    "TRN*1*FSP000000008824*9ESMDSYSTM~\nUM*HS*I**32+A~\nHCR*A2*15H00000000336~\n"
    "HI*ABK+R130~\nMSG*HH07F~\nNM1*DK*1*Weber*Kathleen****XX*1285612259~\n"
    "NM1*FA*2*Unitypoint at Home*****XX*1427351956~\n"
    "NM1*71*1*Weber*Kathleen****XX*1285612259~\nHL*5*4*SS*0~\nHCR*A1*15H00000000336~\n"
    "DTP*472*RD8*20190201-20190401~\nSV2**HC+G0299**UN*10~\nHL*6*4*SS*0~\nHCR*A3~\n"
    "REF*NT*15H00000000336~\nDTP*472*RD8*20190201-20190401~\nSV2**HC+G0156**UN*4~\n"
    "MSG*HH07F~\nSE*28*121901~\nGE*1*121901~\nIEA*1*000000038~\n")

THERAPY_REQUEST = (
    "ISA*00*          *00*          *ZZ*COASTALPHYSICAL*ZZ*CORVELCORPORATI*260205*1137*^*00501"
    "*397478787*0*T*:~\n"
    "GS*HI*COASTALPHYSICAL*CORVELCORPORATI*20260205*1137*5821*X*005010X217~\n"
    "ST*278*3433*005010X217~\nBHT*0007*13*6525808631*20260205*1137~\nHL*1**20*1~\n"
    "NM1*X3*2*CORVEL CORPORATION*****46*CORVEL~\nHL*2*1*21*1~\n"
    "NM1*1P*1*BROWN*PATRICIA*PT***XX*1117550026~\nREF*EI*930086875~\nN3*111 BIRCH CT~\n"
    "N4*DALLAS*TX*75201~\nPER*IC*PATRICIA BROWN*TE*5555918715~\nHL*3*2*22*1~\n"
    "NM1*IL*1*MARTINEZ*SARAH*L***MI*VQW570220212~\nDMG*D8*19850622*F~\nHL*4*3*EV*1~\n"
    "UM*HS*I**11:B~\nHI*ABK:S83511A~\nHSD*VS*24*DA*53*7~\nHL*5*4*SS*0~\nUM*HS*I~\n"
    "DTP*472*RD8*20260219-20260413~\nSV1*HC:97530*40.00*UN*1~\nSE*22*3433~\nGE*1*5821~\n"
    "IEA*1*397478787~\n")


def findings(text: str) -> list[str]:
    interchange = read_interchange(text.encode())
    assert interchange.problems == []
    ts = interchange.groups[0].transactions[0]
    guide = guide_for("278", ts.version, ts.segments[1].value(2))
    assert guide is not None
    return [p.message for p in ts.problems] + [e.describe() for e in
                                               check_transaction(ts, guide)]


def test_an_esmd_style_response_conforms():
    assert findings(ESMD_STYLE_RESPONSE) == []


def test_a_therapy_request_conforms():
    assert findings(THERAPY_REQUEST) == []


def test_what_others_get_wrong_is_named():
    # segments out of order, and a required segment left out
    shuffled = THERAPY_REQUEST.replace("HI*ABK:S83511A~\nHSD*VS*24*DA*53*7~",
                                       "HSD*VS*24*DA*53*7~\nHI*ABK:S83511A~")
    assert any("HI is out of order in loop 2000E" in f for f in findings(shuffled))
    no_um = THERAPY_REQUEST.replace("UM*HS*I**11:B~\n", "").replace("SE*22*", "SE*21*")
    assert any("Required Health Care Services Review Information is missing" in f
               and "2000E" in f for f in findings(no_um))
