"""Acme's X12 278 API: pa-18 solved through it, acknowledgements for what is wrong, channels.

Every reply is checked with :func:`assert_conforming_reply` (true counts, and each 278 passes
the same guide checks as a request).
"""

from __future__ import annotations

import logging

import pytest

from portal_web.common.sessions import Principal
from tests.portal_web.payer_support import (
    CLIENT,
    assert_conforming_reply,
    find,
    payer_run,
    reference_of,
    scores,
)
from tests.portal_web.payer_x12 import (
    GOLD_ANSWERS,
    Request278,
    attachment_275,
    interchange,
    questionnaire_document,
    request_with_attachments,
    seg,
)


@pytest.fixture
def payer(seeds):
    logging.getLogger("portal_web").setLevel(logging.CRITICAL)
    return payer_run(seeds)


def gold_request(payer, **changes) -> Request278:
    return Request278(documents=payer.gold_documents(GOLD_ANSWERS), **changes)


def test_a_browser_gets_a_plain_api_only_answer(payer):
    for path in ("/", "/login", "/x12/278"):
        response = payer.client.get(path)
        assert response.headers["content-type"].startswith("text/plain")
        assert "API only" in response.text and "<html" not in response.text.lower()


def test_credentials_and_content_type_are_required(payer):
    body = request_with_attachments(gold_request(payer))
    missing = payer.post(body, auth=None)
    assert missing.status_code == 401 and missing.headers["www-authenticate"].startswith("Basic")
    wrong = payer.post(body, auth=(CLIENT[0], "guess"))
    assert wrong.status_code == 401
    text = payer.client.post("/x12/278", content=body, auth=CLIENT,
                             headers={"Content-Type": "text/plain"})
    assert text.status_code == 415 and "application/EDI-X12" in text.text
    assert payer.query("acme", "select count(*) from x12_transactions") == [(0,)]


def test_gold_278_with_answers_and_notes_earns_full_credit(payer):
    response = payer.post(request_with_attachments(gold_request(payer)))
    assert response.status_code == 200
    assert response.headers["content-type"].lower().startswith("application/edi-x12")
    reply = response.text
    assert_conforming_reply(reply)
    assert find(reply, "TA1*000000101*") == ["TA1*000000101*261019*0915*A*000"]
    assert find(reply, "AK9*") == ["AK9*A*1*1*1", "AK9*A*3*3*3"]
    assert find(reply, "HCR*") == ["HCR*A4", "HCR*A4"]
    reference = reference_of(reply)
    assert find(reply, "TRN*1*") == [f"TRN*1*{reference}*9ACMEHLTH0"]
    assert payer.cases() == [(payer.cases()[0][0], reference, "in_review", "72148", "M51.16")]
    channels = payer.query("acme", "select distinct channel, actor from audit_log "
                                   "where channel != 'seed'")
    assert channels == [("api", CLIENT[0])]
    logged = payer.query("acme", "select direction, transaction_set, status from "
                                 "x12_transactions order by id")
    assert logged == [("inbound", "278", "accepted"), *[("inbound", "275", "accepted")] * 3,
                      ("outbound", "TA1", "accepted"), ("outbound", "999", "accepted"),
                      ("outbound", "999", "accepted"), ("outbound", "278", "accepted")]
    payer.write_output("ref.txt", reference + "\n")
    report = payer.grade()
    assert scores(report) == {"codes": 1.0, "answers": 1.0, "attachments": 1.0,
                              "reference": 1.0}
    assert report.score == 1.0


def test_resending_the_same_request_makes_a_second_case_not_a_changed_one(payer):
    first = reference_of(payer.post(request_with_attachments(gold_request(payer))).text)
    second = reference_of(payer.post(request_with_attachments(gold_request(payer),
                                                              control=102)).text)
    assert first != second and len(payer.cases()) == 2


def test_an_inquiry_returns_the_current_decision(payer):
    from portal_web.common.episode import EpisodeStores
    from portal_web.settings import PortalSettings
    from sandbox.stores.acme import PaCase

    reference = reference_of(payer.post(request_with_attachments(gold_request(payer))).text)
    inquiry = [
        seg("BHT", "0007", "13", "RFM-INQ-1", "20261019", "1000"),
        seg("HL", "1", "", "20", "1"), seg("NM1", "X3", "2", "ACME HEALTH", "", "", "", "",
                                           "PI", "ACME1"),
        seg("HL", "2", "1", "21", "1"), seg("NM1", "1P", "2", "RIVERSIDE", "", "", "", "", "XX",
                                            "1497758544"),
        seg("HL", "3", "2", "22", "1"), seg("NM1", "IL", "1", "ALVAREZ", "TOMAS", "", "", "",
                                            "MI", "ACM402918331"),
        seg("HL", "4", "3", "EV", "0"), seg("TRN", "1", "RFM-INQ-1", "1364829175"),
        seg("UM", "HS", "I"), seg("REF", "NT", reference)]
    body = interchange([("HI", "005010X215", "278", [inquiry])], control=103)
    pended = payer.post(body).text
    assert_conforming_reply(pended)
    assert find(pended, "HCR*") == ["HCR*A4"]
    stores = EpisodeStores(PortalSettings(run_dir=payer.run_dir, episode_id="ep-payer-api"))
    with stores.writer("acme", Principal("reviewer", 0, "UM reviewer", "seed")) as db:
        case = db.query(PaCase).filter_by(reference_number=reference).one()
        case.status, case.auth_number = "approved", "A260000417"
        case.approved_units = 1
    approved = payer.post(interchange([("HI", "005010X215", "278", [inquiry])], control=104))
    assert_conforming_reply(approved.text)
    assert find(approved.text, "HCR*") == ["HCR*A1*A260000417"]
    assert "Authorization A260000417" in find(approved.text, "MSG*")[0]
    unknown = [s if not s.startswith("REF*NT") else seg("REF", "NT", "PA26-999999")
               for s in inquiry]
    missing = payer.post(interchange([("HI", "005010X215", "278", [unknown])], control=105))
    assert_conforming_reply(missing.text)
    assert find(missing.text, "AAA*") == ["AAA*N**AA*C"]


def test_a_note_sent_after_the_request_is_attached_to_its_case(payer):
    request = gold_request(payer)
    later = request.documents.pop()
    request.documents.append(later)
    body = interchange([("HI", "005010X217", "278", [request.segments()]),
                        ("PI", "005010X210", "275",
                         [attachment_275(d) for d in request.documents[:2]])])
    reply = payer.post(body).text
    assert_conforming_reply(reply)
    assert "Awaiting attachment(s) RFM-DOC-1003" in find(reply, "MSG*")[0]
    case_id = payer.cases()[0][0]
    assert payer.query("acme", "select count(*) from attachments where case_id = ?",
                       case_id) == [(1,)]
    followup = payer.post(interchange([("PI", "005010X210", "275", [attachment_275(later)])],
                                      control=102))
    assert_conforming_reply(followup.text)
    assert find(followup.text, "IK5*") == ["IK5*A"]
    assert payer.query("acme", "select count(*) from attachments where case_id = ?",
                       case_id) == [(2,)]
    stray = payer.note(1003, "M1", control="NOBODY-ASKED")
    refused = payer.post(interchange([("PI", "005010X210", "275", [attachment_275(stray)])],
                                     control=103)).text
    assert find(refused, "IK3*TRN*") and find(refused, "IK5*R")
    assert "no 278 request of this client names" in payer.post(interchange(
        [("PI", "005010X210", "275", [attachment_275(stray)])], control=104)
    ).headers["x-acme-result"]


# -- malformed and non-conforming requests --------------------------------------------------------
def _mutate(body: bytes, old: str, new: str) -> bytes:
    text = body.decode("latin-1")
    assert old in text, old
    return text.replace(old, new, 1).encode("latin-1")


MALFORMED = [
    # (what, old, new, segments the reply must have, what X-Acme-Result must name)
    ("bad segment count", "SE*22*0001~", "SE*21*0001~", ["IK5*R*4", "AK9*R*1*1*0"],
     ["SE count of 21"]),
    ("wrong interchange version", "*00501*000000101*", "*00401*000000101*",
     ["TA1*000000101*261019*0915*R*017"], ["ISA12", "00501"]),
    ("wrong implementation guide", "X*005010X217~\nST*278*0001*005010X217~",
     "X*004010X094A1~\nST*278*0001*004010X094A1~", ["AK9*R*1*1*0*2"], ["GS08 004010X094A1"]),
    ("ST03 differs from GS08", "ST*278*0001*005010X217~", "ST*278*0001*005010X212~",
     ["IK5*R*I6"], ["ST03 005010X212"]),
    ("missing subscriber NM1", "NM1*IL*1*ALVAREZ*TOMAS****MI*ACM402918331~\n", "",
     ["IK3*NM1*9*2010*3", "IK5*R"], ["loop 2010C (Subscriber Name) is missing", "NM1*IL"]),
    ("missing UMO NM1", "NM1*X3*2*ACME HEALTH*****PI*ACME1~\n", "",
     ["IK3*NM1*3*2010*3", "IK5*R"], ["loop 2010A", "NM1*X3"]),
    ("invalid request category", "UM*HS*I*62", "UM*ZZ*I*62", ["IK3*UM*", "IK4*1*1525*7*ZZ"],
     ["UM01", "'ZZ'"]),
    ("invalid date", "DTP*472*RD8*20261026-20261125~\nHI", "DTP*472*RD8*20261332-20261125~\nHI",
     ["IK3*DTP*", "IK4*3*1251*8"], ["DTP03 '20261332-20261125'"]),
    ("HL under the wrong parent", "HL*4*3*EV*1", "HL*4*1*EV*1", ["IK3*HL*", "IK4*2*734*7"],
     ["HL02"]),
    ("unknown segment", "UM*HS*I~", "UM*HS*I~\nZZZ*1~", ["IK3*ZZZ*20*2000*2"],
     ["ZZZ is not expected in loop 2000F"]),
    ("receiver is not Acme", "*ZZ*ACME1          *", "*ZZ*OTHERPAYER     *",
     ["TA1*000000101*261019*0915*R*008"], ["ISA08"]),
    ("no ISA", "ISA*00*", "XSA*00*", ["TA1*", "*R*022"], ["ISA"]),
]


@pytest.mark.parametrize(("what", "old", "new", "expected", "named"), MALFORMED,
                         ids=[m[0] for m in MALFORMED])
def test_malformed_requests_get_an_acknowledgement_naming_the_problem(payer, what, old, new,
                                                                       expected, named):
    body = request_with_attachments(Request278())
    response = payer.post(_mutate(body, old, new))
    assert response.status_code == 200, response.text
    reply = response.text
    assert_conforming_reply(reply)
    for fragment in expected:
        assert any(fragment in s for s in reply.split("~")), (fragment, reply)
    assert payer.cases() == []
    assert response.headers.get("x-acme-result")
    for fragment in named:
        assert fragment in response.headers["x-acme-result"], response.headers["x-acme-result"]
    inbound = payer.query("acme", "select status, error_text from x12_transactions "
                                  "where direction = 'inbound'")
    assert inbound and all(status == "rejected" and error for status, error in inbound)


def test_no_ta1_is_sent_unless_asked_for(payer):
    body = _mutate(request_with_attachments(gold_request(payer)), "*1*T*:~", "*0*T*:~")
    reply = payer.post(body).text
    assert not find(reply, "TA1*") and find(reply, "HCR*A4")


# -- business rejects: AAA in the loop at fault ----------------------------------------------------
REJECTS = [
    ("unknown member", {"member": "ACM000000000"}, "2010C", "AAA*N**75*C", "No Acme member"),
    ("birth date differs", {"dob": "19810119"}, "2010C", "AAA*N**71*C", "birth date"),
    ("look-alike's ID with this name's birth date", {"member": "ACM402918313"}, "2010C",
     "AAA*N**71*C", "birth date"),
    ("ICD-10 sent with its dot", {"diagnoses": ("M51.16",)}, "2000E", "AAA*N**AF*C",
     "without the decimal point"),
    ("not an ICD-10-CM code", {"diagnoses": ("M5199X",)}, "2000E", "AAA*N**AF*C",
     "not an ICD-10-CM code"),
    ("no diagnosis", {"diagnoses": ()}, "2000E", "AAA*N**AF*C", "diagnosis is required"),
    ("not a CPT code", {"cpt": "MRI1"}, "2000F", "AAA*N**AG*C", "not a CPT or HCPCS"),
]


@pytest.mark.parametrize(("what", "changes", "loop", "aaa", "message"), REJECTS,
                         ids=[r[0] for r in REJECTS])
def test_business_problems_get_an_aaa_in_the_loop_at_fault(payer, what, changes, loop, aaa,
                                                           message):
    reply = payer.post(request_with_attachments(gold_request(payer, **changes))).text
    assert_conforming_reply(reply)
    assert find(reply, "AAA*") == [aaa]
    assert not find(reply, "HCR*")
    lines = reply.split("~")
    aaa_at = next(i for i, s in enumerate(lines) if s.strip().startswith("AAA*"))
    hl = [s.strip() for s in lines[:aaa_at] if s.strip().startswith("HL*")][-1]
    assert hl.split("*")[3] == {"2010C": "22", "2000E": "EV", "2000F": "SS"}[loop]
    assert message in (find(reply, "MSG*") or [""])[0] + \
        payer.query("acme", "select error_text from x12_transactions where "
                            "transaction_set = '278' and direction = 'inbound'")[0][0]
    assert payer.cases() == []
    assert payer.query("acme", "select count(*) from attachments") == [(0,)]


@pytest.mark.parametrize(("answers", "message"), [
    ({**GOLD_ANSWERS, "pt_weeks": "six"}, "linkId pt_weeks needs a number"),
    ({k: v for k, v in GOLD_ANSWERS.items() if k != "red_flags"},
     "linkId red_flags ('Red-flag findings"),
    ({**GOLD_ANSWERS, "physical_therapy": False}, "linkId pt_weeks is answered but not enabled"),
    ({**GOLD_ANSWERS, "prior_imaging": {"code": "pet"}}, "'pet' is not an option"),
    ({**GOLD_ANSWERS, "favourite_colour": "blue"}, "favourite_colour is not a question"),
])
def test_questionnaire_answers_are_checked_like_the_portal(payer, answers, message):
    documents = [questionnaire_document(answers), payer.note(1002, "PN"), payer.note(1003, "M1")]
    reply = payer.post(request_with_attachments(Request278(documents=documents))).text
    assert_conforming_reply(reply)
    assert find(reply, "AAA*") == ["AAA*N**AO*C"]
    assert message in find(reply, "MSG*")[0]
    assert payer.cases() == []


def test_without_a_questionnaire_response_the_request_is_refused(payer):
    request = Request278(documents=[payer.note(1002, "PN"), payer.note(1003, "M1")])
    reply = payer.post(request_with_attachments(request)).text
    assert find(reply, "AAA*") == ["AAA*N**AO*C"]
    assert "Advanced imaging of the lumbar spine" in find(reply, "MSG*")[0]


# -- channels: API rows count only for the API task, browser rows only for the GUI task ------------
API_CLIENT_ROW = """
api_clients:
  - {id: 1000, client_id: riverside-278-client, secret_sha256: a81f9214571320fe5e12891f26d525fc1b098ce63c1d873c652c11355892776e, name: Riverside EHR integration, organization_npi: "1497758544", organization_tin: "36-4829175", scopes: "278 275 status"}
"""


def test_the_same_request_written_through_the_browser_channel_earns_nothing_on_pa18(payer):
    from portal_web.common.episode import EpisodeStores
    from portal_web.payer_api.edi import read_interchange
    from portal_web.payer_api.exchange import Exchange
    from portal_web.settings import PortalSettings
    from sandbox.stores.acme import ApiClient

    body = request_with_attachments(gold_request(payer))
    stores = EpisodeStores(PortalSettings(run_dir=payer.run_dir, episode_id="ep-payer-api"))
    portal_user = Principal("riverside.pa", 1, "Dana Whitfield", "browser")
    with stores.writer("acme", portal_user) as db:
        client = db.get(ApiClient, 1000)
        outcome = Exchange(db, client, read_interchange(body), body, stores.now()).run()
    reference = reference_of(outcome.body)
    assert payer.query("acme", "select distinct channel from audit_log where channel != "
                               "'seed'") == [("browser",)]
    assert [c[1] for c in payer.cases()] == [reference]
    payer.write_output("ref.txt", reference + "\n")
    report = payer.grade()
    assert scores(report) == {"codes": 0.0, "answers": 0.0, "attachments": 0.0,
                              "reference": 0.0}
    assert report.channel["exclusions"], report.channel


def test_pa01_solved_through_the_api_earns_nothing_on_its_gui_parts(seeds):
    run = payer_run(seeds, "pa-01", extra_acme=API_CLIENT_ROW)
    documents = run.gold_documents(GOLD_ANSWERS)
    reply = run.post(request_with_attachments(Request278(documents=documents))).text
    assert find(reply, "HCR*") == ["HCR*A4", "HCR*A4"]
    report = run.grade()
    assert scores(report) == {"correct codes": 0.0, "questionnaire answers": 0.0,
                              "attachments": 0.0, "reference recorded in EHR": 0.0}
    assert report.score == 0.0


def test_notes_of_a_rejected_request_are_not_filed_on_an_earlier_case(payer):
    """The same control numbers resent with a broken 278 must not land on the first case."""
    body = request_with_attachments(gold_request(payer))
    payer.post(body)
    attached = payer.query("acme", "select count(*) from attachments")
    broken = _mutate(body, "NM1*IL*1*ALVAREZ*TOMAS****MI*ACM402918331~\n", "")
    reply = payer.post(broken).text
    assert_conforming_reply(reply)
    assert find(reply, "IK3*TRN*") and find(reply, "AK9*R*3*3*0")
    assert payer.query("acme", "select count(*) from attachments") == attached
    assert len(payer.cases()) == 1


def test_scopes_are_per_client(payer):
    from portal_web.common.episode import EpisodeStores
    from portal_web.settings import PortalSettings
    from sandbox.stores.acme import ApiClient

    stores = EpisodeStores(PortalSettings(run_dir=payer.run_dir, episode_id="ep-payer-api"))
    with stores.writer("acme", Principal("acme.admin", 0, "Acme EDI desk", "seed")) as db:
        db.get(ApiClient, 1000).scopes = "278"
    with_notes = payer.post(request_with_attachments(gold_request(payer)))
    assert with_notes.status_code == 403 and "275" in with_notes.text
    inquiry = [seg("BHT", "0007", "13", "Q1", "20261019", "1000"),
               seg("HL", "1", "", "20", "1"), seg("NM1", "X3", "2", "ACME HEALTH", "", "", "",
                                                  "", "PI", "ACME1"),
               seg("HL", "2", "1", "21", "1"), seg("NM1", "1P", "2", "RIVERSIDE", "", "", "", "",
                                                   "XX", "1497758544"),
               seg("HL", "3", "2", "22", "1"), seg("NM1", "IL", "1", "ALVAREZ", "TOMAS", "", "",
                                                   "", "MI", "ACM402918331"),
               seg("HL", "4", "3", "EV", "0"), seg("UM", "HS", "I"),
               seg("REF", "NT", "PA26-100001")]
    reply = payer.post(interchange([("HI", "005010X215", "278", [inquiry])], control=110)).text
    assert_conforming_reply(reply)
    assert find(reply, "AAA*") == ["AAA*N**41*N"]


def test_the_companion_guide_is_served_to_whoever_finds_the_host(payer):
    root = payer.client.get("/").text
    assert "http://api.acmehealth.test/companion-guide" in root
    guide = payer.client.get("/companion-guide")
    assert guide.headers["content-type"].startswith("text/plain")
    for needed in ("PWK*OZ*EL***AC", "application/fhir+json", "Questionnaire?context=",
                   "REF*NT", "BIN01 is the exact number of bytes"):
        assert needed in guide.text


def test_each_received_transaction_set_is_kept_exactly_as_sent(payer):
    body = request_with_attachments(gold_request(payer))
    payer.post(body)
    kept = payer.query("acme", "select transaction_set, raw from x12_transactions "
                               "where direction = 'inbound' order by id")
    assert [kind for kind, _ in kept] == ["278", "275", "275", "275"]
    for _, raw in kept:
        assert raw.startswith("ST*") and raw.encode("latin-1") in body
