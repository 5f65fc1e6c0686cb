"""The web EHR store (``ehr``): OpenEMR's tables and columns, plus the clinic's PA desk.

The web EHR imitates OpenEMR, so its tables carry OpenEMR's names and stored units
(``patient_data.pubpid`` is the MRN, ``form_vitals`` keeps pounds/inches/°F, ``lists`` holds
allergies, problems and medications with OpenEMR's ``activity``/``enddate`` semantics).
Where OpenEMR has no table (the e-prescribing gateway log, the decision-support alert log,
the MAR, provider tasks, PA worklists, authorization records) a sandbox table follows the
same conventions. Columns with no OpenEMR equivalent are marked *sandbox* in the models.

Modules: :mod:`.people` (patients, users/address book, facility, pharmacies, payers, code
lists), :mod:`.chart` (encounters, forms, layout-based forms, issue lists and their encounter
links, social/family history, immunizations),
:mod:`.orders` (prescriptions, eRx, CDS alerts, lab orders/results, MAR), :mod:`.records`
(referrals, documents, messages, calendar, access log), :mod:`.admin` (tasks, worklists,
authorizations). Every model is registered on :data:`Base`.
"""

from sandbox.stores.ehr._base import Base
from sandbox.stores.ehr.admin import EhrTask, PaWorklist, PaWorklistItem, PriorAuthorization
from sandbox.stores.ehr.chart import (
    EsignSignature,
    Form,
    FormEncounter,
    FormSoap,
    FormVitals,
    HistoryData,
    Immunization,
    IssueEncounter,
    LayoutGroupProperties,
    LayoutOption,
    LbfData,
    Lists,
)
from sandbox.stores.ehr.orders import (
    CdsAlertLog,
    Drug,
    DrugInteraction,
    ErxGatewayLog,
    MedicationAdministration,
    Prescription,
    ProcedureOrder,
    ProcedureOrderCode,
    ProcedureProvider,
    ProcedureReport,
    ProcedureResult,
    ProcedureType,
)
from sandbox.stores.ehr.people import (
    Code,
    Facility,
    Global,
    InsuranceCompany,
    InsuranceData,
    ListOption,
    OAuthClient,
    PatientData,
    Pharmacy,
    User,
    UserSecure,
)
from sandbox.stores.ehr.records import (
    CalendarCategory,
    CalendarEvent,
    Category,
    CategoryToDocument,
    Document,
    LbtData,
    Log,
    Pnote,
    Transaction,
)
from sandbox.stores.ehr.security import check_password, hash_password

__all__ = [
    "Base", "CalendarCategory", "CalendarEvent", "Category", "CategoryToDocument",
    "CdsAlertLog", "Code", "Document", "Drug", "DrugInteraction", "EhrTask", "ErxGatewayLog",
    "EsignSignature", "Facility", "Form", "FormEncounter", "FormSoap", "FormVitals", "Global",
    "HistoryData", "Immunization", "InsuranceCompany", "IssueEncounter", "InsuranceData", "LayoutGroupProperties",
    "LayoutOption", "LbfData", "LbtData", "ListOption", "Lists", "Log",
    "MedicationAdministration", "OAuthClient", "PaWorklist", "PaWorklistItem", "PatientData",
    "Pharmacy", "Pnote", "Prescription", "PriorAuthorization", "ProcedureOrder",
    "ProcedureOrderCode", "ProcedureProvider", "ProcedureReport", "ProcedureResult",
    "ProcedureType", "Transaction", "User", "UserSecure", "check_password", "hash_password",
]
