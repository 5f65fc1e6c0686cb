"""Encounters and the forms charted in them, the issue lists, and immunizations.

OpenEMR's shape: ``form_encounter`` is the visit, ``forms`` indexes every form of a visit
(``forms.encounter`` joins ``form_encounter.encounter``, not its ``id``; ``forms.form_id`` is
the row id in the form's own table; ``formdir`` names that table), and layout-based forms keep
their field definitions in ``layout_options`` and their values in ``lbf_data``.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import ForeignKey, Text
from sqlalchemy.orm import Mapped, mapped_column

from sandbox.stores.ehr._base import Base


class FormEncounter(Base):
    """A visit or admission (``form_encounter``); ``encounter`` is the number forms use."""

    __tablename__ = "form_encounter"

    id: Mapped[int] = mapped_column(primary_key=True)
    uuid: Mapped[str | None]
    encounter: Mapped[int] = mapped_column(unique=True)
    pid: Mapped[int] = mapped_column(ForeignKey("patient_data.pid"))
    date: Mapped[dt.datetime]
    date_end: Mapped[dt.datetime | None]  # discharge, for inpatient stays
    reason: Mapped[str | None] = mapped_column(Text)
    onset_date: Mapped[dt.datetime | None]
    facility: Mapped[str | None]
    facility_id: Mapped[int | None] = mapped_column(ForeignKey("facility.id"))
    billing_facility: Mapped[int | None] = mapped_column(ForeignKey("facility.id"))
    provider_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    supervisor_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    pc_catid: Mapped[int | None]
    sensitivity: Mapped[str] = mapped_column(default="normal")
    pos_code: Mapped[str | None]  # 11 office, 21 inpatient, 23 emergency room
    class_code: Mapped[str] = mapped_column(default="AMB")  # AMB | IMP | EMER
    referral_source: Mapped[str | None]
    billing_note: Mapped[str | None] = mapped_column(Text)


class Form(Base):
    """The index of every form in an encounter (``forms``)."""

    __tablename__ = "forms"

    id: Mapped[int] = mapped_column(primary_key=True)
    date: Mapped[dt.datetime]
    encounter: Mapped[int] = mapped_column(ForeignKey("form_encounter.encounter"))
    form_name: Mapped[str]  # "Vitals", "SOAP", "Joint Injection Procedure", ...
    form_id: Mapped[int]  # row id in the form's own table (or lbf_data.form_id)
    pid: Mapped[int] = mapped_column(ForeignKey("patient_data.pid"))
    user: Mapped[str | None]  # username
    groupname: Mapped[str] = mapped_column(default="Default")
    authorized: Mapped[int] = mapped_column(default=1)
    deleted: Mapped[int] = mapped_column(default=0)
    formdir: Mapped[str]  # vitals | soap | newpatient | procedure_order | LBF<id>
    provider_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))


class FormVitals(Base):
    """A vitals set (``form_vitals``), stored in imperial units whatever was entered.

    weight lb, height in, temperature °F, circumferences in; ``bps``/``bpd`` are text;
    empty numerics are 0; ``BMI`` is computed from weight and height.
    """

    __tablename__ = "form_vitals"

    id: Mapped[int] = mapped_column(primary_key=True)
    uuid: Mapped[str | None]
    date: Mapped[dt.datetime]
    pid: Mapped[int] = mapped_column(ForeignKey("patient_data.pid"))
    user: Mapped[str | None]
    groupname: Mapped[str] = mapped_column(default="Default")
    authorized: Mapped[int] = mapped_column(default=1)
    activity: Mapped[int] = mapped_column(default=1)
    bps: Mapped[str | None]
    bpd: Mapped[str | None]
    weight: Mapped[float] = mapped_column(default=0.0)
    height: Mapped[float] = mapped_column(default=0.0)
    temperature: Mapped[float] = mapped_column(default=0.0)
    temp_method: Mapped[str | None]  # Oral | Tympanic | Axillary | Temporal
    pulse: Mapped[float] = mapped_column(default=0.0)
    respiration: Mapped[float] = mapped_column(default=0.0)
    note: Mapped[str | None] = mapped_column(Text)
    BMI: Mapped[float] = mapped_column(default=0.0)
    BMI_status: Mapped[str | None]
    waist_circ: Mapped[float] = mapped_column(default=0.0)
    head_circ: Mapped[float] = mapped_column(default=0.0)
    oxygen_saturation: Mapped[float] = mapped_column(default=0.0)
    oxygen_flow_rate: Mapped[float] = mapped_column(default=0.0)
    inhaled_oxygen_concentration: Mapped[float] = mapped_column(default=0.0)


class FormSoap(Base):
    """A SOAP note (``form_soap``)."""

    __tablename__ = "form_soap"

    id: Mapped[int] = mapped_column(primary_key=True)
    date: Mapped[dt.datetime]
    pid: Mapped[int] = mapped_column(ForeignKey("patient_data.pid"))
    user: Mapped[str | None]
    groupname: Mapped[str] = mapped_column(default="Default")
    authorized: Mapped[int] = mapped_column(default=1)
    activity: Mapped[int] = mapped_column(default=1)
    subjective: Mapped[str | None] = mapped_column(Text)
    objective: Mapped[str | None] = mapped_column(Text)
    assessment: Mapped[str | None] = mapped_column(Text)
    plan: Mapped[str | None] = mapped_column(Text)


class EsignSignature(Base):
    """A signature on a form or a whole encounter (``esign_signatures``).

    ``tid`` is ``forms.id`` when ``table`` is ``forms``, or ``form_encounter.encounter`` when
    it is ``form_encounter``; ``is_lock=1`` locks the signed item against editing.
    """

    __tablename__ = "esign_signatures"

    id: Mapped[int] = mapped_column(primary_key=True)
    tid: Mapped[int]
    table: Mapped[str]  # forms | form_encounter
    uid: Mapped[int] = mapped_column(ForeignKey("users.id"))
    datetime: Mapped[dt.datetime]
    is_lock: Mapped[int] = mapped_column(default=0)
    amendment: Mapped[str | None] = mapped_column(Text)
    hash: Mapped[str | None]
    signature_hash: Mapped[str | None]


class LayoutGroupProperties(Base):
    """A layout-based form's title and its field groups (``layout_group_properties``).

    The row with an empty ``grp_group_id`` carries the form's own title (what the
    encounter's form menu shows); the others name its sections.
    """

    __tablename__ = "layout_group_properties"

    grp_form_id: Mapped[str] = mapped_column(primary_key=True)  # LBFjoint_inj, LBFio, LBTref
    grp_group_id: Mapped[str] = mapped_column(primary_key=True, default="")
    grp_title: Mapped[str]
    grp_subtitle: Mapped[str | None]
    grp_mapping: Mapped[str | None]  # form menu category, e.g. "Clinical"
    grp_seq: Mapped[int] = mapped_column(default=0)
    grp_activity: Mapped[int] = mapped_column(default=1)
    grp_columns: Mapped[int] = mapped_column(default=4)


class LayoutOption(Base):
    """One field of a layout (``layout_options``): a layout-based form or the referral.

    ``data_type`` follows OpenEMR: 1 list, 2 text, 3 textarea, 4 date, 21 checkbox(es);
    ``list_id`` names the ``list_options`` list of a list field.
    """

    __tablename__ = "layout_options"

    form_id: Mapped[str] = mapped_column(primary_key=True)
    field_id: Mapped[str] = mapped_column(primary_key=True)
    group_id: Mapped[str] = mapped_column(default="1")
    title: Mapped[str]
    seq: Mapped[int] = mapped_column(default=0)
    data_type: Mapped[int] = mapped_column(default=2)
    uor: Mapped[int] = mapped_column(default=1)  # 0 unused, 1 optional, 2 required
    fld_length: Mapped[int] = mapped_column(default=20)
    max_length: Mapped[int] = mapped_column(default=255)
    fld_rows: Mapped[int] = mapped_column(default=0)
    list_id: Mapped[str | None]
    titlecols: Mapped[int] = mapped_column(default=1)
    datacols: Mapped[int] = mapped_column(default=1)
    default_value: Mapped[str | None]
    edit_options: Mapped[str | None]
    description: Mapped[str | None] = mapped_column(Text)
    validation: Mapped[str | None]  # sandbox: e.g. "int:0:5000" for numeric cells


class LbfData(Base):
    """The value of one field of one layout-based form instance (``lbf_data``)."""

    __tablename__ = "lbf_data"

    form_id: Mapped[int] = mapped_column(primary_key=True)  # = forms.form_id
    field_id: Mapped[str] = mapped_column(primary_key=True)
    field_value: Mapped[str | None] = mapped_column(Text)


class Lists(Base):
    """Allergies, problems, medications (``lists``; ``type`` says which).

    Inactive = ``enddate`` set with ``activity=1``; ``activity=0`` means deleted.
    ``reaction`` and ``severity_al`` hold ``list_options`` ids (lists ``reaction`` and
    ``severity_ccda``).
    """

    __tablename__ = "lists"

    id: Mapped[int] = mapped_column(primary_key=True)
    uuid: Mapped[str | None]
    date: Mapped[dt.datetime]  # when entered
    type: Mapped[str]  # allergy | medical_problem | medication | surgery
    subtype: Mapped[str | None]
    title: Mapped[str]
    begdate: Mapped[dt.date | None]  # onset / start
    enddate: Mapped[dt.date | None]  # resolved / stopped / inactivated
    occurrence: Mapped[int] = mapped_column(default=0)
    classification: Mapped[int] = mapped_column(default=0)
    referredby: Mapped[str | None]
    diagnosis: Mapped[str | None]  # e.g. ICD10:E11.9 (problems), RXCUI:617312 (meds)
    activity: Mapped[int] = mapped_column(default=1)
    comments: Mapped[str | None] = mapped_column(Text)
    pid: Mapped[int] = mapped_column(ForeignKey("patient_data.pid"))
    user: Mapped[str | None]
    groupname: Mapped[str] = mapped_column(default="Default")
    outcome: Mapped[int] = mapped_column(default=0)
    reaction: Mapped[str | None]
    verification: Mapped[str | None]  # confirmed | unconfirmed
    severity_al: Mapped[str | None]
    list_option_id: Mapped[str | None]
    modifydate: Mapped[dt.datetime | None]
    erx_source: Mapped[str] = mapped_column(default="0")
    erx_uploaded: Mapped[str] = mapped_column(default="0")


class IssueEncounter(Base):
    """Links a problem (``lists`` row) to an encounter it was addressed in (``issue_encounter``).

    This is how an encounter's diagnoses are recorded (e.g. an admission's ICD-10 codes).
    """

    __tablename__ = "issue_encounter"

    pid: Mapped[int] = mapped_column(ForeignKey("patient_data.pid"), primary_key=True)
    list_id: Mapped[int] = mapped_column(ForeignKey("lists.id"), primary_key=True)
    encounter: Mapped[int] = mapped_column(ForeignKey("form_encounter.encounter"),
                                           primary_key=True)
    resolved: Mapped[int] = mapped_column(default=0)


class HistoryData(Base):
    """Social and family history (``history_data``; the latest row per patient is current).

    Family columns hold free text per relative (``history_mother``) and per condition
    (``relatives_cancer`` = who had it, e.g. "mother: medullary thyroid carcinoma").
    """

    __tablename__ = "history_data"

    id: Mapped[int] = mapped_column(primary_key=True)
    pid: Mapped[int] = mapped_column(ForeignKey("patient_data.pid"))
    date: Mapped[dt.datetime]
    tobacco: Mapped[str | None]  # e.g. "never", "former|quit 2015", "current|1 ppd"
    alcohol: Mapped[str | None]
    recreational_drugs: Mapped[str | None]
    coffee: Mapped[str | None]
    exercise_patterns: Mapped[str | None]
    sleep_patterns: Mapped[str | None]
    occupation: Mapped[str | None]  # sandbox: OpenEMR keeps it in patient_data
    history_mother: Mapped[str | None]
    history_father: Mapped[str | None]
    history_siblings: Mapped[str | None]
    history_offspring: Mapped[str | None]
    history_spouse: Mapped[str | None]
    relatives_cancer: Mapped[str | None]
    relatives_diabetes: Mapped[str | None]
    relatives_high_blood_pressure: Mapped[str | None]
    relatives_heart_problems: Mapped[str | None]
    relatives_stroke: Mapped[str | None]
    relatives_mental_illness: Mapped[str | None]
    additional_history: Mapped[str | None] = mapped_column(Text)


class Immunization(Base):
    """A vaccine given, refused or recorded from history (``immunizations``)."""

    __tablename__ = "immunizations"

    id: Mapped[int] = mapped_column(primary_key=True)
    uuid: Mapped[str | None]
    patient_id: Mapped[int] = mapped_column(ForeignKey("patient_data.pid"))
    administered_date: Mapped[dt.datetime | None]
    cvx_code: Mapped[str | None]
    manufacturer: Mapped[str | None]
    lot_number: Mapped[str | None]
    expiration_date: Mapped[dt.date | None]
    amount_administered: Mapped[float | None]
    amount_administered_unit: Mapped[str | None]  # drug_units option id, e.g. mL
    route: Mapped[str | None]  # drug_route option id, e.g. IM
    administration_site: Mapped[str | None]  # proc_body_site option id, e.g. left_deltoid
    administered_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    administered_by: Mapped[str | None]  # free text when not a user
    education_date: Mapped[dt.date | None]
    vis_date: Mapped[dt.date | None]  # edition date of the Vaccine Information Statement
    note: Mapped[str | None] = mapped_column(Text)
    create_date: Mapped[dt.datetime | None]
    update_date: Mapped[dt.datetime | None]
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    updated_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    added_erroneously: Mapped[int] = mapped_column(default=0)
    completion_status: Mapped[str | None]  # Completed | Refused | Not Administered ...
    information_source: Mapped[str | None]  # new_immunization_record | hist_inf_src_unspecified
    refusal_reason: Mapped[str | None]
    ordering_provider: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    encounter_id: Mapped[int | None] = mapped_column(ForeignKey("form_encounter.encounter"))
    reason_code: Mapped[str | None]
    reason_description: Mapped[str | None]
    consent_obtained: Mapped[int] = mapped_column(default=0)  # sandbox: 1 = consent documented
