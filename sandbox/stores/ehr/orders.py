"""Prescriptions with e-prescribing and decision support, lab orders and results, the MAR.

``prescriptions`` is OpenEMR's; ``erx_uploaded=0`` means not transmitted. The sandbox eRx
gateway writes one ``erx_gateway_log`` row per message it receives (a NewRx only when the
user transmits), and the drug-interaction checker logs every alert it shows in
``cds_alert_log``. Lab orders are OpenEMR's ``procedure_*`` tables: the catalog
(``procedure_type``) per lab (``procedure_providers``), the order and its tests with their
diagnosis links (``procedure_order_code.diagnoses`` like ``ICD10:E11.9;ICD10:E78.5``), and
reports with results.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import ForeignKey, Text
from sqlalchemy.orm import Mapped, mapped_column

from sandbox.stores.ehr._base import Base


class Drug(Base):
    """A formulary entry the prescription screen searches (``drugs``)."""

    __tablename__ = "drugs"

    drug_id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str]  # "atorvastatin 20 mg tablet"
    generic_name: Mapped[str | None]  # sandbox: "atorvastatin", used by the interaction check
    ndc_number: Mapped[str | None]
    drug_code: Mapped[str | None]  # RxNorm RXCUI
    form: Mapped[str | None]  # drug_form option id: tablet, suspension, solution ...
    size: Mapped[str | None]  # strength, e.g. "20" or "400/5"
    unit: Mapped[str | None]  # drug_units option id: mg, mg/5mL, g ...
    route: Mapped[str | None]  # drug_route option id
    package_size: Mapped[str | None]  # sandbox: what is dispensed, e.g. "100 mL bottle"
    related_code: Mapped[str | None]  # e.g. HCPCS:J0897 for clinic-administered drugs
    active: Mapped[int] = mapped_column(default=1)


class DrugInteraction(Base):
    """A rule of the sandbox drug-interaction checker (sandbox table)."""

    __tablename__ = "drug_interactions"

    id: Mapped[int] = mapped_column(primary_key=True)
    drug_a: Mapped[str]  # generic names, lower case
    drug_b: Mapped[str]
    severity: Mapped[str]  # contraindicated | major | moderate | minor
    description: Mapped[str] = mapped_column(Text)
    recommendation: Mapped[str | None] = mapped_column(Text)
    active: Mapped[int] = mapped_column(default=1)


class Prescription(Base):
    """A prescription or medication order (``prescriptions``).

    ``dosage`` + ``unit`` is the dose (``2`` + ``g``), ``quantity`` is text ("90", "6",
    "250 mL"), ``interval`` a ``drug_interval`` option id (``1`` b.i.d., ``9`` q.d., ...),
    ``drug_dosage_instructions`` the sig. ``erx_uploaded`` 0 = not transmitted.
    """

    __tablename__ = "prescriptions"

    id: Mapped[int] = mapped_column(primary_key=True)
    uuid: Mapped[str | None]
    patient_id: Mapped[int] = mapped_column(ForeignKey("patient_data.pid"))
    encounter: Mapped[int | None] = mapped_column(ForeignKey("form_encounter.encounter"))
    provider_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    pharmacy_id: Mapped[int | None] = mapped_column(ForeignKey("pharmacies.id"))
    date_added: Mapped[dt.datetime]
    date_modified: Mapped[dt.datetime | None]
    start_date: Mapped[dt.date | None]
    end_date: Mapped[dt.date | None]
    drug: Mapped[str]
    drug_id: Mapped[int | None] = mapped_column(ForeignKey("drugs.drug_id"))
    rxnorm_drugcode: Mapped[str | None]
    form: Mapped[str | None]  # drug_form option id
    dosage: Mapped[str | None]  # dose amount per administration, e.g. "2", "10.5", "1"
    unit: Mapped[str | None]  # dose unit option id: g, mg, mL, tab
    size: Mapped[str | None]  # strength of the product, e.g. "400/5"
    quantity: Mapped[str | None]
    route: Mapped[str | None]  # drug_route option id: PO, IV, IM ...
    interval: Mapped[str | None]  # drug_interval option id
    refills: Mapped[int] = mapped_column(default=0)
    per_refill: Mapped[int | None]
    substitute: Mapped[int] = mapped_column(default=0)  # 1 substitution allowed, 2 not
    drug_dosage_instructions: Mapped[str | None] = mapped_column(Text)  # the sig
    diagnosis: Mapped[str | None]  # e.g. ICD10:J01.90
    indication: Mapped[str | None]
    note: Mapped[str | None] = mapped_column(Text)
    medication: Mapped[int] = mapped_column(default=0)  # also on the medication list
    active: Mapped[int] = mapped_column(default=1)
    prn: Mapped[str | None]
    days_supply: Mapped[int | None]  # sandbox: duration of therapy in days
    infusion_minutes: Mapped[int | None]  # sandbox: infusion time of an IV dose
    scheduled_at: Mapped[dt.datetime | None]  # sandbox: first dose time of an inpatient order
    care_setting: Mapped[str] = mapped_column(default="outpatient")  # sandbox: | inpatient
    user: Mapped[str | None]  # username who entered it
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    updated_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    erx_source: Mapped[int] = mapped_column(default=0)
    erx_uploaded: Mapped[int] = mapped_column(default=0)  # 0 = pending / not transmitted
    erx_status: Mapped[str | None]  # sandbox: draft | pending_signature | transmitted


class ErxGatewayLog(Base):
    """A message the sandbox e-prescribing gateway received (sandbox table)."""

    __tablename__ = "erx_gateway_log"

    id: Mapped[int] = mapped_column(primary_key=True)
    prescription_id: Mapped[int | None] = mapped_column(ForeignKey("prescriptions.id"))
    pid: Mapped[int | None] = mapped_column(ForeignKey("patient_data.pid"))
    message_type: Mapped[str]  # NewRx | CancelRx | RxChangeResponse
    pharmacy_ncpdp: Mapped[str | None]
    sent_at: Mapped[dt.datetime]
    sent_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    status: Mapped[str] = mapped_column(default="accepted")
    payload: Mapped[str | None] = mapped_column(Text)  # the NCPDP SCRIPT-like message


class CdsAlertLog(Base):
    """One decision-support alert shown to a user and what they did (sandbox table)."""

    __tablename__ = "cds_alert_log"

    id: Mapped[int] = mapped_column(primary_key=True)
    pid: Mapped[int] = mapped_column(ForeignKey("patient_data.pid"))
    prescription_id: Mapped[int | None] = mapped_column(ForeignKey("prescriptions.id"))
    alert_type: Mapped[str]  # drug-drug | drug-allergy | dose-range
    severity: Mapped[str | None]
    drugs: Mapped[str]  # the interacting pair, e.g. "clarithromycin + simvastatin"
    message: Mapped[str | None] = mapped_column(Text)
    shown_at: Mapped[dt.datetime]
    shown_to: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    acknowledged: Mapped[int] = mapped_column(default=0)
    acknowledged_at: Mapped[dt.datetime | None]
    acknowledged_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    action_taken: Mapped[str | None]  # cancel | override | modify
    override_reason: Mapped[str | None] = mapped_column(Text)


class ProcedureProvider(Base):
    """A lab or other order recipient (``procedure_providers``)."""

    __tablename__ = "procedure_providers"

    ppid: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str]
    npi: Mapped[str | None]
    send_app_id: Mapped[str | None]
    send_fac_id: Mapped[str | None]
    recv_app_id: Mapped[str | None]
    recv_fac_id: Mapped[str | None]
    DorP: Mapped[str] = mapped_column(default="D")
    direction: Mapped[str] = mapped_column(default="B")
    protocol: Mapped[str] = mapped_column(default="INT")  # INT in-house | DL download ...
    lab_director: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    notes: Mapped[str | None] = mapped_column(Text)
    active: Mapped[int] = mapped_column(default=1)
    type: Mapped[str | None]  # sandbox: in-house | send-out


class ProcedureType(Base):
    """The orderable catalog of a lab (``procedure_type``): groups, orders, results."""

    __tablename__ = "procedure_type"

    procedure_type_id: Mapped[int] = mapped_column(primary_key=True)
    parent: Mapped[int] = mapped_column(default=0)
    name: Mapped[str]
    lab_id: Mapped[int | None] = mapped_column(ForeignKey("procedure_providers.ppid"))
    procedure_code: Mapped[str | None]  # the lab's order code (CPT-like)
    procedure_type: Mapped[str]  # grp | ord | res
    body_site: Mapped[str | None]
    specimen: Mapped[str | None]
    description: Mapped[str | None]
    standard_code: Mapped[str | None]  # LOINC:2601-3
    units: Mapped[str | None]
    range: Mapped[str | None]
    seq: Mapped[int] = mapped_column(default=0)
    activity: Mapped[int] = mapped_column(default=1)
    notes: Mapped[str | None] = mapped_column(Text)
    fasting_recommended: Mapped[int] = mapped_column(default=0)  # sandbox


class ProcedureOrder(Base):
    """A lab/procedure order (``procedure_order``).

    ``date_collected`` is the planned collection (the "scheduled date" of a future order);
    ``scheduled_date`` mirrors it for orders placed ahead of time; ``specimen_fasting`` is
    ``YES``/``NO``.
    """

    __tablename__ = "procedure_order"

    procedure_order_id: Mapped[int] = mapped_column(primary_key=True)
    uuid: Mapped[str | None]
    provider_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    patient_id: Mapped[int] = mapped_column(ForeignKey("patient_data.pid"))
    encounter_id: Mapped[int | None] = mapped_column(ForeignKey("form_encounter.encounter"))
    lab_id: Mapped[int] = mapped_column(ForeignKey("procedure_providers.ppid"))
    date_ordered: Mapped[dt.datetime]
    date_collected: Mapped[dt.datetime | None]
    scheduled_date: Mapped[dt.datetime | None]
    date_transmitted: Mapped[dt.datetime | None]
    order_priority: Mapped[str] = mapped_column(default="normal")  # ord_priority: normal | high | stat
    order_status: Mapped[str] = mapped_column(default="pending")  # ord_status
    patient_instructions: Mapped[str | None] = mapped_column(Text)
    activity: Mapped[int] = mapped_column(default=1)
    control_id: Mapped[str | None]
    specimen_type: Mapped[str | None]
    specimen_fasting: Mapped[str | None]  # YES | NO
    clinical_hx: Mapped[str | None] = mapped_column(Text)
    order_diagnosis: Mapped[str | None]  # primary diagnosis, e.g. ICD10:E11.9
    procedure_order_type: Mapped[str] = mapped_column(default="laboratory_test")
    collector_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    history_order: Mapped[str] = mapped_column(default="0")


class ProcedureOrderCode(Base):
    """One test of an order with its diagnosis links (``procedure_order_code``)."""

    __tablename__ = "procedure_order_code"

    procedure_order_id: Mapped[int] = mapped_column(
        ForeignKey("procedure_order.procedure_order_id"), primary_key=True)
    procedure_order_seq: Mapped[int] = mapped_column(primary_key=True)
    procedure_code: Mapped[str]
    procedure_name: Mapped[str]
    procedure_source: Mapped[str] = mapped_column(default="1")
    diagnoses: Mapped[str | None] = mapped_column(Text)  # ICD10:E11.9;ICD10:E78.5
    do_not_send: Mapped[int] = mapped_column(default=0)
    procedure_order_title: Mapped[str | None]
    procedure_type: Mapped[str | None]


class ProcedureReport(Base):
    """A lab report for one test of an order (``procedure_report``)."""

    __tablename__ = "procedure_report"

    procedure_report_id: Mapped[int] = mapped_column(primary_key=True)
    uuid: Mapped[str | None]
    procedure_order_id: Mapped[int] = mapped_column(
        ForeignKey("procedure_order.procedure_order_id"))
    procedure_order_seq: Mapped[int] = mapped_column(default=1)
    date_collected: Mapped[dt.datetime | None]
    date_report: Mapped[dt.datetime | None]
    source: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    specimen_num: Mapped[str | None]
    report_status: Mapped[str] = mapped_column(default="final")
    review_status: Mapped[str] = mapped_column(default="received")  # received | reviewed
    report_notes: Mapped[str | None] = mapped_column(Text)


class ProcedureResult(Base):
    """One result value of a report (``procedure_result``)."""

    __tablename__ = "procedure_result"

    procedure_result_id: Mapped[int] = mapped_column(primary_key=True)
    uuid: Mapped[str | None]
    procedure_report_id: Mapped[int] = mapped_column(
        ForeignKey("procedure_report.procedure_report_id"))
    result_data_type: Mapped[str] = mapped_column(default="N")  # N numeric, S string
    result_code: Mapped[str | None]  # LOINC
    result_text: Mapped[str | None]  # "Magnesium, serum"
    date: Mapped[dt.datetime | None]
    units: Mapped[str | None]
    result: Mapped[str | None]
    range: Mapped[str | None]
    abnormal: Mapped[str | None]  # no | low | high | vlow | vhigh
    comments: Mapped[str | None] = mapped_column(Text)
    result_status: Mapped[str] = mapped_column(default="final")


class MedicationAdministration(Base):
    """A dose given in clinic or on the ward: the MAR (sandbox table).

    ``billing_units`` is the number of HCPCS units billed (e.g. J0897 is per 1 mg, so a
    60 mg dose is 60 units).
    """

    __tablename__ = "medication_administration"

    id: Mapped[int] = mapped_column(primary_key=True)
    pid: Mapped[int] = mapped_column(ForeignKey("patient_data.pid"))
    encounter: Mapped[int | None] = mapped_column(ForeignKey("form_encounter.encounter"))
    prescription_id: Mapped[int | None] = mapped_column(ForeignKey("prescriptions.id"))
    drug: Mapped[str]
    ndc: Mapped[str | None]
    hcpcs_code: Mapped[str | None]
    dose: Mapped[float]
    dose_unit: Mapped[str]
    billing_units: Mapped[int | None]
    route: Mapped[str | None]
    site: Mapped[str | None]
    lot_number: Mapped[str | None]
    administered_at: Mapped[dt.datetime]
    administered_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    status: Mapped[str] = mapped_column(default="given")  # given | held | refused
    notes: Mapped[str | None] = mapped_column(Text)
