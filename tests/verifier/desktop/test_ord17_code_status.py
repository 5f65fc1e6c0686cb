"""ord-17 (PowerChart code status, proxy, advance directive) graded on client-like runs.

Split from the seed: 45% code status order (two equal parts); 25% proxy (four equal parts);
30% document attached correctly (nothing unless ad.pdf is filed to her chart, then two
equal parts).
"""

from __future__ import annotations

import pytest

from tests.verifier.desktop.runs import NOW, DesktopRun, flagged, seeded, sign_orders
from verifier import OTHER_PATIENT

HELEN, HELENA = 5, 6
AD_SCAN, HELENA_AD = 1001, 1002
CODE, PROXY, DOCUMENT = 0.45, 0.25, 0.30
CODE_STATUS = {"orderable_id": 302, "order_name": "Code Status", "order_type": "code_status",
               "code_status": "DNR/DNI, full medical treatment otherwise"}
MARGARET = {"name": "Margaret Lowell", "relationship": "Daughter", "phone": "217-555-0147"}


@pytest.fixture(scope="module")
def task(tmp_path_factory):
    return seeded("ord-17", tmp_path_factory)


def order_code_status(run: DesktopRun, patient: int = HELEN, **changes) -> None:
    with run.write() as s:
        sign_orders(run, s, patient, patient, [{**CODE_STATUS, **changes}])


def record_proxy(run: DesktopRun, patient: int = HELEN, **write_and_fields) -> None:
    write = {k: write_and_fields.pop(k) for k in ("channel", "episode")
             if k in write_and_fields}
    with run.write(**write) as s:
        m = run.m
        for other in s.query(m.Proxy).filter_by(patient_id=patient, is_primary=True):
            other.is_primary = False
        s.add(m.Proxy(patient_id=patient, is_primary=True, documented_at=NOW,
                      documented_by_user_id=run.user_row(s).id,
                      **{"proxy_type": "Health Care Proxy", "status": "active", **MARGARET,
                         **write_and_fields}))


def file_scan(run: DesktopRun, document: int = AD_SCAN, patient: int = HELEN,
              document_type: str = "Advance Directive", **write) -> None:
    with run.write(**write) as s:
        doc = s.get(run.m.Document, document)
        doc.patient_id, doc.encounter_id = patient, patient
        doc.document_type, doc.status = document_type, "filed"
        doc.filed_at, doc.filed_by_user_id = NOW, run.user_row(s).id


def document_all(run: DesktopRun) -> None:
    order_code_status(run)
    record_proxy(run)
    file_scan(run)


def test_scan_in_the_inbox_is_the_input_pdf(task):
    run = task.run()
    with run.read() as s:
        digest = s.get(run.m.Document, AD_SCAN).sha256
    import hashlib
    assert digest == hashlib.sha256((run.root / "input" / "ad.pdf").read_bytes()).hexdigest()


def test_documented_goals_of_care_score_one(task):
    run = task.run()
    document_all(run)
    report = run.grade()
    assert report.score == pytest.approx(1.0)
    assert report.footprint["counts"] == {"insert": 2, "update": 1, "delete": 0, "stray": 0}


def test_untouched_run_scores_zero(task):
    assert task.run().grade().score == pytest.approx(0.0)


@pytest.mark.parametrize("changes, lost", [
    ({"code_status": "DNR/DNI, comfort measures only"}, CODE / 2),
    ({"code_status": "Full Code"}, CODE / 2),
    ({"status": "pending", "signed_at": None, "signed_by_user_id": None}, CODE / 2),
], ids=["comfort-measures", "full-code", "not-signed"])
def test_code_status(task, changes, lost):
    run = task.run()
    order_code_status(run, **changes)
    record_proxy(run)
    file_scan(run)
    assert run.grade().score == pytest.approx(1.0 - lost)


@pytest.mark.parametrize("fields, lost", [
    ({"name": "Margaret Zztest"}, PROXY / 4),
    ({"relationship": "Son"}, PROXY / 4),
    ({"phone": "217-555-0163"}, PROXY / 4),
    ({"proxy_type": "Legal Guardian"}, PROXY / 4),
    ({"proxy_type": "Surrogate Decision Maker"}, PROXY / 4),
    ({"proxy_type": "Durable Power of Attorney for Health Care"}, 0.0),
    ({"phone": "(217) 555-0147", "relationship": "daughter"}, 0.0),
    ({"status": "inactive"}, PROXY),
], ids=["name", "relationship", "phone", "legal-guardian", "surrogate", "dpoa-accepted",
        "formatting-ignored", "inactive"])
def test_proxy(task, fields, lost):
    run = task.run()
    order_code_status(run)
    record_proxy(run, **fields)
    file_scan(run)
    assert run.grade().score == pytest.approx(1.0 - lost)


def test_wrong_document_type_loses_half_the_document_item(task):
    run = task.run()
    order_code_status(run)
    record_proxy(run)
    file_scan(run, document_type="POLST")
    assert run.grade().score == pytest.approx(1.0 - DOCUMENT / 2)


def test_the_look_alikes_directive_filed_to_her_chart_instead(task):
    run = task.run()
    order_code_status(run)
    record_proxy(run)
    file_scan(run, document=HELENA_AD)
    assert run.grade().score == pytest.approx(1.0 - DOCUMENT)


def test_both_directives_filed_to_her_chart(task):
    run = task.run()
    document_all(run)
    file_scan(run, document=HELENA_AD)
    assert run.grade().score == pytest.approx(1.0 - DOCUMENT / 2)


def test_her_directive_filed_to_the_look_alike_earns_nothing_and_is_flagged(task):
    run = task.run()
    order_code_status(run)
    record_proxy(run)
    file_scan(run, patient=HELENA)
    report = run.grade()
    assert report.score == pytest.approx(1.0 - DOCUMENT)
    assert flagged(report, OTHER_PATIENT) == [f"powerchart.documents#{AD_SCAN}"]


def test_everything_on_the_look_alike_earns_nothing_and_is_flagged(task):
    run = task.run()
    order_code_status(run, patient=HELENA)
    record_proxy(run, patient=HELENA)
    file_scan(run, patient=HELENA)
    report = run.grade()
    assert report.score == pytest.approx(0.0)
    assert sorted(flagged(report, OTHER_PATIENT)) == [
        f"powerchart.documents#{AD_SCAN}", "powerchart.orders#1021",
        "powerchart.proxies#1020", "powerchart.proxies#1021"]


@pytest.mark.parametrize("write", [{"channel": "api"}, {"episode": "ep-other"}],
                         ids=["api", "other-episode"])
def test_rows_from_another_channel_or_episode_do_not_count(task, write):
    run = task.run()
    with run.write(**write) as s:
        sign_orders(run, s, HELEN, HELEN, [CODE_STATUS])
    record_proxy(run, **write)
    file_scan(run, **write)
    report = run.grade()
    assert report.score == pytest.approx(0.0)
    assert {e["table"] for e in report.channel["exclusions"]} == {
        "orders", "proxies", "documents"}


def test_the_clients_own_charting_scores_one(task):
    """Contract with desktop_ehr: its Sign, save_proxy and file_document grade as above."""
    run = task.run()
    with run.client() as (ctx, ref):
        from desktop_ehr.services import charting, orders, signing

        draft = orders.draft_for(ref.orderables[302], ctx.now(), ref)
        draft.code_status = CODE_STATUS["code_status"]
        signing.sign_orders(ctx, HELEN, HELEN, [draft], ref)
        charting.save_proxy(ctx, HELEN, MARGARET["name"], MARGARET["relationship"],
                            MARGARET["phone"])
        charting.file_document(ctx, AD_SCAN, HELEN, HELEN, "Advance Directive")
    assert run.grade().score == pytest.approx(1.0)


@pytest.mark.parametrize("proxy_type, score", [
    ("Legal Guardian", 1.0 - PROXY / 4),
    ("Health Care Proxy", 1.0),
], ids=["legal-guardian", "health-care-proxy"])
def test_proxy_type_chosen_in_the_client(task, proxy_type, score):
    """Issue 14: a proxy recorded as 'Legal Guardian' on the Patient Information page (the
    client's own save, as its Proxy type box calls it) scored 1.0."""
    run = task.run()
    order_code_status(run)
    file_scan(run)
    with run.client() as (ctx, _ref):
        from desktop_ehr.services.charting import save_proxy

        save_proxy(ctx, HELEN, "Margaret Lowell", "Daughter", "217-555-0147",
                   proxy_type=proxy_type)
    report = run.grade()
    assert [c.fraction for c in report.checks] == pytest.approx(
        [1.0, 0.75 if score < 1 else 1.0, 1.0])
    assert report.score == pytest.approx(score)
