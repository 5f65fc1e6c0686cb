"""Each clinical screen writes exactly the expected rows, audited as the browser user."""

from __future__ import annotations

from tests.portal_web.support import changes, feedback, form_tokens_for


def assert_browser(entries: list[dict], actor: str) -> None:
    assert entries, "nothing was written"
    for entry in entries:
        assert (entry["channel"], entry["episode_id"], entry["actor"]) == (
            "browser", "ep-test", actor), entry


def test_vitals_metric_entry_is_stored_imperial_with_bmi(ehr_for):
    ehr = ehr_for("ord-01", user="nurse.kelly")
    mark = ehr.audit_mark()
    response = ehr.submit("/patient/1/encounter/1001/vitals/new", {
        "date": "2026-10-19 09:00", "bps": "128", "bpd": "82", "pulse": "76",
        "temperature_c": "37.1", "oxygen_saturation": "97", "weight_kg": "81.4",
        "height_cm": "176"})
    assert response.status_code == 303
    assert response.headers["location"] == "/patient/1/encounter/1001"
    entries = ehr.audit_since(mark)
    assert changes(entries) == [("insert", "form_vitals"), ("insert", "forms")]
    assert_browser(entries, "nurse.kelly")
    row = ehr.query("select bps, bpd, pulse, temperature, oxygen_saturation, weight, height, "
                    "BMI, BMI_status, user from form_vitals where id = ?",
                    entries[0]["pk"]["id"])[0]
    assert row == ("128", "82", 76.0, 98.78, 97.0, 179.46, 69.29, 26.3, "Overweight",
                   "nurse.kelly")
    form = ehr.query("select encounter, formdir, form_name, form_id from forms where id = ?",
                     entries[1]["pk"]["id"])[0]
    assert form == (1001, "vitals", "Vitals", entries[0]["pk"]["id"])
    assert "179.46 lb" in ehr.client.get("/patient/1/encounter/1001").text


def test_vitals_bad_values_get_inline_messages_and_write_nothing(ehr_for):
    ehr = ehr_for("ord-01", user="nurse.kelly")
    mark = ehr.audit_mark()
    response = ehr.submit("/patient/1/encounter/1001/vitals/new", {
        "date": "2026-10-19 09:00", "bps": "82", "bpd": "128", "weight_kg": "81.4",
        "weight_lb": "200", "temperature_c": "98.6", "oxygen_saturation": "abc"})
    assert response.status_code == 200
    messages = " | ".join(feedback(response.text))
    assert "lower than BP Systolic" in messages
    assert "does not match" in messages  # kg and lb disagree
    assert "Temperature" in messages and "must be a number" in messages
    assert ehr.audit_since(mark) == []


def test_allergy_added_and_outdated_one_inactivated_never_deleted(ehr_for):
    ehr = ehr_for("ord-04", user="nurse.kelly")
    mark = ehr.audit_mark()
    added = ehr.submit("/patient/7/issue/new?type=allergy", {
        "type": "allergy", "title": "Penicillin", "reaction": "hives",
        "severity_al": "moderate", "begdate": "2026-09-30", "outcome": "0"},
        action="/patient/7/issue/new")
    assert added.status_code == 303
    sulfa = ehr.client.get("/patient/7/issue/1001")
    assert 'value="Sulfa"' in sulfa.text
    form = {"type": "allergy", "title": "Sulfa", "reaction": "rash", "severity_al": "moderate",
            "begdate": "2014-06-01", "enddate": "2026-10-19", "outcome": "0",
            "comments": "Tolerated TMP-SMX 2025 per pharmacy"}
    assert ehr.submit("/patient/7/issue/1001", form).status_code == 303
    entries = ehr.audit_since(mark)
    assert changes(entries) == [("insert", "lists"), ("update", "lists")]
    assert_browser(entries, "nurse.kelly")
    rows = ehr.query("select title, reaction, severity_al, begdate, enddate, activity, comments "
                     "from lists where pid = 7 and type = 'allergy' order by id")
    assert ("Penicillin", "hives", "moderate", "2026-09-30", None, 1, None) in rows
    assert ("Sulfa", "rash", "moderate", "2014-06-01", "2026-10-19", 1,
            "Tolerated TMP-SMX 2025 per pharmacy") in rows
    page = ehr.client.get("/patient/7/issues?type=allergy").text
    assert "Inactive" in page and "Penicillin" in page


def test_allergy_end_date_before_onset_is_refused(ehr_for):
    ehr = ehr_for("ord-04", user="nurse.kelly")
    response = ehr.submit("/patient/7/issue/1001", {
        "type": "allergy", "title": "Sulfa", "begdate": "2014-06-01", "enddate": "2010-01-01",
        "outcome": "0"})
    assert response.status_code == 200
    assert "cannot be before the begin date" in " ".join(feedback(response.text))


def test_delete_is_a_soft_delete(ehr_for):
    ehr = ehr_for("ord-04", user="nurse.kelly")
    response = ehr.submit("/patient/7/issue/1001/delete", {})
    assert response.status_code == 303
    assert ehr.query("select activity from lists where id = 1001") == [(0,)]


def test_interaction_alert_is_logged_acknowledged_and_cancelled(ehr_for):
    ehr = ehr_for("ord-08", user="dr.osei")
    mark = ehr.audit_mark()
    clarithromycin = {
        "drug": "clarithromycin 500 mg tablet", "dosage": "500", "unit": "mg", "route": "PO",
        "interval": "1", "drug_dosage_instructions": "500 mg PO twice daily x 7 days",
        "quantity": "14", "refills": "0", "start_date": "2026-10-19", "pharmacy_id": "2",
        "provider_id": "10", "substitute": "1"}
    shown = ehr.submit("/patient/9/rx/new", clarithromycin)
    assert shown.status_code == 303 and "/rx/alert/" in shown.headers["location"]
    alert_url = shown.headers["location"]
    page = ehr.client.get(alert_url)
    assert "Drug Interaction Alert" in page.text and "contraindicated" in page.text
    assert ehr.query("select count(*) from prescriptions where drug like 'clarith%'") == [(0,)]
    logged = ehr.query("select drugs, severity, acknowledged, shown_to from cds_alert_log "
                       "where pid = 9")
    assert logged == [("clarithromycin + simvastatin", "contraindicated", 0, 10)]
    cancel = ehr.client.post(alert_url, data={**form_tokens_for(page.text, alert_url),
                                              "action": "cancel"}, follow_redirects=False)
    assert cancel.status_code == 303
    assert ehr.query("select acknowledged, action_taken, acknowledged_by, prescription_id "
                     "from cds_alert_log where pid = 9") == [(1, "cancel", 10, None)]
    azithromycin = {
        "drug": "azithromycin 250 mg tablet", "dosage": "250", "unit": "mg", "route": "PO",
        "interval": "9", "drug_dosage_instructions": "Take 2 tablets (500 mg) by mouth on day "
        "1, then 1 tablet (250 mg) by mouth once daily on days 2 through 5.",
        "quantity": "6 tablets", "refills": "0", "days_supply": "5",
        "start_date": "2026-10-19", "pharmacy_id": "2", "provider_id": "10",
        "substitute": "1", "diagnosis": "J01.90"}
    saved = ehr.submit("/patient/9/rx/new", azithromycin)
    assert saved.status_code == 303 and "/rx/alert/" not in saved.headers["location"]
    entries = ehr.audit_since(mark)
    assert changes(entries) == [("insert", "cds_alert_log"), ("update", "cds_alert_log"),
                                ("insert", "prescriptions")]
    assert_browser(entries, "dr.osei")
    rx = ehr.query("select drug, quantity, days_supply, diagnosis, erx_uploaded, active "
                   "from prescriptions where patient_id = 9 and drug like 'azith%'")
    assert rx == [("azithromycin 250 mg tablet", "6 tablets", 5, "ICD10:J01.90", 0, 1)]


def test_override_needs_a_reason_and_links_the_prescription(ehr_for):
    ehr = ehr_for("ord-08", user="dr.osei")
    shown = ehr.submit("/patient/9/rx/new", {
        "drug": "clarithromycin 500 mg tablet", "dosage": "500", "unit": "mg", "route": "PO",
        "interval": "1", "drug_dosage_instructions": "500 mg PO BID", "quantity": "14",
        "start_date": "2026-10-19", "pharmacy_id": "2", "provider_id": "10"})
    url = shown.headers["location"]
    page = ehr.client.get(url)
    data = {**form_tokens_for(page.text, url), "action": "override"}
    refused = ehr.client.post(url, data=data)
    assert refused.status_code == 200 and "clinical reason" in refused.text
    done = ehr.client.post(url, data={**data, "override_reason": "ID consult"},
                           follow_redirects=False)
    assert done.status_code == 303
    rx_id = ehr.query("select id from prescriptions where drug like 'clarith%'")[0][0]
    assert ehr.query("select action_taken, override_reason, prescription_id from "
                     "cds_alert_log") == [("override", "ID consult", rx_id)]


def test_erx_is_left_pending_and_only_a_prescriber_transmits(ehr_for):
    ehr = ehr_for("ord-14", user="nurse.kelly")
    form = ehr.client.get("/patient/14/rx/new").text
    assert 'value="1" selected' in form.split('name="pharmacy_id"')[1][:600]  # preferred
    saved = ehr.submit("/patient/14/rx/new", {
        "drug": "atorvastatin 20 mg tablet", "dosage": "1", "unit": "tab", "route": "PO",
        "interval": "16", "drug_dosage_instructions": "1 tab PO nightly", "quantity": "90",
        "refills": "3", "start_date": "2026-10-19", "pharmacy_id": "1", "provider_id": "10",
        "substitute": "1"})
    assert saved.status_code == 303
    rx_id = ehr.query("select id from prescriptions where drug = 'atorvastatin 20 mg tablet'"
                      " and patient_id = 14")[0][0]
    review = f"/patient/14/rx/{rx_id}/erx"
    page = ehr.client.get(review)
    assert "NewRx" in page.text and "1422117" in page.text
    nurse_transmit = ehr.client.post(review, data={
        **form_tokens_for(page.text, review), "action": "transmit"})
    assert nurse_transmit.status_code == 200 and "Only a prescriber" in nurse_transmit.text
    page = ehr.client.get(review)
    pending = ehr.client.post(review, data={**form_tokens_for(page.text, review),
                                            "action": "pending"}, follow_redirects=False)
    assert pending.status_code == 303
    assert ehr.query("select erx_uploaded, erx_status, quantity, refills, pharmacy_id from "
                     "prescriptions where id = ?", rx_id) == [(0, "pending_signature", "90", 3,
                                                               1)]
    assert ehr.query("select count(*) from erx_gateway_log where prescription_id = ?",
                     rx_id) == [(0,)]
    doctor = ehr_for("ord-14", user="dr.osei")
    doctor.submit("/patient/14/rx/new", {
        "drug": "atorvastatin 20 mg tablet", "dosage": "1", "unit": "tab", "route": "PO",
        "interval": "16", "drug_dosage_instructions": "1 tab PO nightly", "quantity": "90",
        "refills": "3", "start_date": "2026-10-19", "pharmacy_id": "1", "provider_id": "10"})
    rx2 = doctor.query("select max(id) from prescriptions")[0][0]
    url = f"/patient/14/rx/{rx2}/erx"
    page = doctor.client.get(url)
    sent = doctor.client.post(url, data={**form_tokens_for(page.text, url),
                                         "action": "transmit"}, follow_redirects=False)
    assert sent.status_code == 303
    assert doctor.query("select message_type, pharmacy_ncpdp, sent_by from erx_gateway_log "
                        "where prescription_id = ?", rx2) == [("NewRx", "1422117", 10)]
    assert doctor.query("select erx_uploaded from prescriptions where id = ?", rx2) == [(1,)]


def test_rx_screen_shows_the_charted_weight_and_package_sizes(ehr_for):
    ehr = ehr_for("ord-16", user="dr.osei")
    page = ehr.client.get("/patient/15/rx/new").text
    assert "Charted weight:</b> 18.60 kg" in page
    assert "100 mL bottle" in page


def test_inpatient_magnesium_order_and_repeat_level(ehr_for):
    ehr = ehr_for("ord-03", user="dr.osei")
    mark = ehr.audit_mark()
    rx = ehr.submit("/patient/5/rx/new", {
        "drug": "magnesium sulfate 2 g/50 mL IV premix", "dosage": "2", "unit": "g",
        "route": "IV", "interval": "19", "drug_dosage_instructions": "2 g IV over 1 hour once",
        "infusion_minutes": "60", "start_date": "2026-10-19", "provider_id": "10",
        "scheduled_at": "2026-10-19 10:00"})
    assert rx.status_code == 303, feedback(rx.text)
    order = ehr.submit("/patient/5/orders/new", {
        "lab_id": "1", "provider_id": "10", "date_collected": "2026-10-20",
        "time_collected": "06:00", "order_priority": "normal", "specimen_fasting": "NO",
        "test_1": "130", "dx_1": "E83.42"})
    assert order.status_code == 303, feedback(order.text)
    entries = ehr.audit_since(mark)
    assert_browser(entries, "dr.osei")
    tables = [t for _, t in changes(entries)]
    assert tables.count("prescriptions") == 1 and tables.count("procedure_order") == 1
    assert ehr.query("select dosage, unit, route, infusion_minutes, care_setting from "
                     "prescriptions where drug like 'magnesium%'") == [
        ("2", "g", "IV", 60, "inpatient")]
    assert ehr.query("select substr(date_collected, 1, 19) from procedure_order where patient_id = 5 "
                     "order by procedure_order_id desc limit 1") == [("2026-10-20 06:00:00",)]


def test_fasting_lab_order_with_diagnosis_links(ehr_for):
    ehr = ehr_for("ord-09", user="dr.osei")
    mark = ehr.audit_mark()
    bad = ehr.submit("/patient/10/orders/new", {
        "lab_id": "1", "provider_id": "10", "date_collected": "2026-10-28",
        "order_priority": "normal", "specimen_fasting": "YES", "test_1": "110",
        "dx_1": "E11.9, E99.99", "test_2": "120", "dx_2": ""})
    assert bad.status_code == 200
    text = " ".join(feedback(bad.text))
    assert "E99.99" in text and "link at least one ICD-10 diagnosis" in text
    assert ehr.audit_since(mark) == []
    good = ehr.submit("/patient/10/orders/new", {
        "lab_id": "1", "provider_id": "10", "date_collected": "2026-10-28",
        "time_collected": "08:00", "order_priority": "normal", "specimen_fasting": "YES",
        "patient_instructions": "12-hour fast", "encounter": "1001",
        "test_1": "110", "dx_1": "E11.9, E78.5", "test_2": "120", "dx_2": "e119;E78.5"})
    assert good.status_code == 303
    entries = ehr.audit_since(mark)
    assert changes(entries) == [("insert", "procedure_order"), ("insert", "forms"),
                                ("insert", "procedure_order_code"),
                                ("insert", "procedure_order_code")]
    assert_browser(entries, "dr.osei")
    order_id = entries[0]["pk"]["procedure_order_id"]
    assert ehr.query("select lab_id, substr(date_collected, 1, 19), specimen_fasting, "
                     "patient_instructions, "
                     "encounter_id from procedure_order where procedure_order_id = ?",
                     order_id) == [(1, "2026-10-28 08:00:00", "YES", "12-hour fast", 1001)]
    assert ehr.query("select procedure_code, diagnoses from procedure_order_code where "
                     "procedure_order_id = ? order by procedure_order_seq", order_id) == [
        ("80061", "ICD10:E11.9;ICD10:E78.5"), ("83036", "ICD10:E11.9;ICD10:E78.5")]


def test_a_test_from_another_lab_is_refused(ehr_for):
    ehr = ehr_for("ord-09", user="dr.osei")
    response = ehr.submit("/patient/10/orders/new", {
        "lab_id": "1", "provider_id": "10", "date_collected": "2026-10-28",
        "order_priority": "normal", "specimen_fasting": "YES", "test_1": "210",
        "dx_1": "E78.5"})
    assert "not offered by the chosen lab" in " ".join(feedback(response.text))


def test_immunization_with_vis_picker(ehr_for):
    ehr = ehr_for("ord-11", user="nurse.kelly")
    mark = ehr.audit_mark()
    page = ehr.client.get("/patient/12/immunizations/new").text
    assert "edition 2026-08-06" in page
    data = {"cvx_code": "150", "administered_date": "2026-10-19 09:00",
            "completion_status": "Completed", "amount_administered": "0.5",
            "amount_administered_unit": "mL", "manufacturer": "Sanofi Pasteur",
            "lot_number": "NB26F417", "expiration_date": "2027-06-30", "route": "IM",
            "administration_site": "left_deltoid", "administered_by_id": "11",
            "vis_edition": "influenza_inactivated_2026", "consent_obtained": "1",
            "information_source": "new_immunization_record", "encounter_id": "1001"}
    expired = ehr.submit("/patient/12/immunizations/new", {**data,
                                                           "expiration_date": "2026-06-30"},
                         action="/patient/12/immunizations/new")
    assert "expired" in " ".join(feedback(expired.text))
    saved = ehr.submit("/patient/12/immunizations/new", data,
                       action="/patient/12/immunizations/new")
    assert saved.status_code == 303
    entries = ehr.audit_since(mark)
    assert changes(entries) == [("insert", "immunizations")]
    assert_browser(entries, "nurse.kelly")
    assert ehr.query(
        "select cvx_code, lot_number, expiration_date, amount_administered, "
        "amount_administered_unit, route, administration_site, vis_date, administered_by_id, "
        "consent_obtained, encounter_id from immunizations where patient_id = 12 and "
        "lot_number = 'NB26F417'") == [("150", "NB26F417", "2027-06-30", 0.5, "mL", "IM",
                                         "left_deltoid", "2026-08-06", 11, 1, 1001)]


def test_referral_with_recipient_reason_urgency_and_document(ehr_for):
    ehr = ehr_for("ord-02", user="dr.osei")
    mark = ehr.audit_mark()
    page = ehr.client.get("/patient/3/transactions/new?type=LBTref").text
    assert "Cardio" in page and "Cardiology-Lakes" in page  # both in the address book
    doc = ehr.query("select id from documents where foreign_id = 3 and docdate = "
                    "'2026-10-08'")[0][0]
    saved = ehr.submit("/patient/3/transactions/new?type=LBTref", {
        "type": "LBTref", "form_refer_date": "2026-10-19", "form_refer_from": "10",
        "form_refer_to": "40", "form_body": "Exertional chest pressure, abnormal stress ECG "
        "2026-10-08", "form_refer_urgency": "urgent", "form_refer_document": str(doc)},
        action="/patient/3/transactions/new")
    assert saved.status_code == 303
    entries = ehr.audit_since(mark)
    assert changes(entries)[0] == ("insert", "transactions")
    assert_browser(entries, "dr.osei")
    tid = entries[0]["pk"]["id"]
    assert dict(ehr.query("select field_id, field_value from lbt_data where form_id = ?",
                          tid)) == {
        "refer_date": "2026-10-19", "refer_from": "10", "refer_to": "40",
        "body": "Exertional chest pressure, abnormal stress ECG 2026-10-08",
        "refer_urgency": "urgent", "refer_document": str(doc)}
    listing = ehr.client.get("/patient/3/transactions").text
    assert "Cardio" in listing and "Urgent" in listing
    assert ehr.client.get(f"/patient/3/transactions/{tid}").status_code == 200


def test_referral_document_must_belong_to_the_patient(ehr_for):
    ehr = ehr_for("ord-02", user="dr.osei")
    other = ehr.query("select id from documents where foreign_id != 3 limit 1")
    doc = str(other[0][0]) if other else "999999"
    response = ehr.submit("/patient/3/transactions/new?type=LBTref", {
        "type": "LBTref", "form_refer_date": "2026-10-19", "form_refer_from": "10",
        "form_refer_to": "40", "form_body": "x", "form_refer_urgency": "urgent",
        "form_refer_document": doc}, action="/patient/3/transactions/new")
    assert response.status_code == 200
    assert "not one of the offered choices" in " ".join(feedback(response.text))


def test_joint_injection_layout_form(ehr_for):
    ehr = ehr_for("ord-13", user="dr.osei")
    mark = ehr.audit_mark()
    values = {"ji_joint": "knee", "ji_side": "left", "ji_indication": "Primary OA, left knee",
              "ji_consent": "written", "ji_prep": "chlorhexidine",
              "ji_medication": "triamcinolone", "ji_dose": "40 mg", "ji_lot": "TR2291",
              "ji_ultrasound": "NO", "ji_complications": "None",
              "ji_post_instructions": "Ice 20 min; avoid strenuous activity 48 h."}
    url = "/patient/13/encounter/1001/lbf/LBFjoint_inj/new"
    saved = ehr.submit(url, {f"form_{k}": v for k, v in values.items()})
    assert saved.status_code == 303
    entries = ehr.audit_since(mark)
    assert changes(entries) == [("insert", "forms")] + [("insert", "lbf_data")] * 11
    assert_browser(entries, "dr.osei")
    form_id = entries[0]["after"]["form_id"]
    assert entries[0]["after"]["encounter"] == 1001
    assert entries[0]["after"]["formdir"] == "LBFjoint_inj"
    assert dict(ehr.query("select field_id, field_value from lbf_data where form_id = ?",
                          form_id)) == values


def test_io_flowsheet_keeps_unknown_cells_empty(ehr_for):
    ehr = ehr_for("ord-19", user="nurse.kelly")
    page = ehr.client.get("/patient/17/encounter/1001/lbf/LBFio/new").text
    assert page.count('class="form-control" id="form_io_') >= 32
    cells = {f"form_io_{h:02d}00_{col}": "100" for h in range(8, 16)
             for col in ("iv", "po", "urine", "drain")}
    cells["form_io_1100_po"] = ""
    cells["form_io_1400_drain"] = ""
    bad = ehr.submit("/patient/17/encounter/1001/lbf/LBFio/new",
                     {**cells, "form_io_0900_iv": "1OO"})
    assert bad.status_code == 200 and "whole number" in " ".join(feedback(bad.text))
    saved = ehr.submit("/patient/17/encounter/1001/lbf/LBFio/new", {
        **cells, "form_io_total_intake": "1500", "form_io_total_output": "1500",
        "form_io_net_balance": "0", "form_io_nursing_note": "11:00 PO and 14:00 drain "
        "illegible on the paper sheet; left blank."})
    assert saved.status_code == 303
    form_id = ehr.query("select max(form_id) from forms where formdir = 'LBFio'")[0][0]
    stored = dict(ehr.query("select field_id, field_value from lbf_data where form_id = ?",
                            form_id))
    assert len([k for k in stored if k[3:7].isdigit()]) == 30
    assert "io_1100_po" not in stored and stored["io_net_balance"] == "0"


def test_soap_note_signed_and_locked(ehr_for):
    ehr = ehr_for("ord-05", user="dr.osei")
    url = "/patient/8/encounter/1001/soap/new"
    saved = ehr.submit(url, {"subjective": "S", "objective": "BP 148/92", "assessment":
                             "1. T2DM 2. HTN", "plan": "1. metformin 2. lisinopril"})
    assert saved.status_code == 303
    forms_id, form_id = ehr.query("select id, form_id from forms where formdir = 'soap' and "
                                  "encounter = 1001")[0]
    esign = f"/patient/8/encounter/1001/esign?form={forms_id}"
    page = ehr.client.get(esign).text
    action = "/patient/8/encounter/1001/esign"
    wrong = ehr.client.post(action, data={**form_tokens_for(page, action), "form": forms_id,
                                          "password": "nope", "lock": "1"})
    assert "not correct" in wrong.text
    signed = ehr.client.post(action, data={**form_tokens_for(page, action),
                                           "form": forms_id, "password": "Riverside!Osei26",
                                           "lock": "1"}, follow_redirects=False)
    assert signed.status_code == 303
    assert ehr.query("select tid, \"table\", uid, is_lock from esign_signatures") == [
        (forms_id, "forms", 10, 1)]
    edit = f"/patient/8/encounter/1001/soap/{form_id}"
    refused = ehr.submit(edit, {"subjective": "changed", "objective": "o", "assessment": "a",
                                "plan": "p"})
    assert refused.status_code == 200 and "locked" in refused.text
    assert ehr.query("select subjective from form_soap where id = ?", form_id) == [("S",)]
