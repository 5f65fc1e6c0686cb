"""The hyperspace store: the Epic Hyperspace training look-alike.

Models are the shared inpatient structure (sandbox/stores/inpatient.py) on this store's own
Base. The client shows them in Hyperspace words: Storyboard, Order Composer, order sets,
Discharge Navigator, In Basket (messages), Media (documents).
"""

from __future__ import annotations

from sqlalchemy.orm import DeclarativeBase

from sandbox.stores import inpatient as cols
from sandbox.stores.base import system_metadata


class Base(DeclarativeBase):
    metadata = system_metadata("hyperspace")


class Department(cols.DepartmentColumns, Base):
    __tablename__ = "departments"


class Provider(cols.ProviderColumns, Base):
    __tablename__ = "providers"


class User(cols.UserColumns, Base):
    __tablename__ = "users"


class Frequency(cols.FrequencyColumns, Base):
    __tablename__ = "frequencies"


class Route(cols.RouteColumns, Base):
    __tablename__ = "routes"


class DocumentType(cols.DocumentTypeColumns, Base):
    __tablename__ = "document_types"


class Patient(cols.PatientColumns, Base):
    __tablename__ = "patients"


class Encounter(cols.EncounterColumns, Base):
    __tablename__ = "encounters"


class Allergy(cols.AllergyColumns, Base):
    __tablename__ = "allergies"


class Problem(cols.ProblemColumns, Base):
    __tablename__ = "problems"


class HomeMedication(cols.HomeMedicationColumns, Base):
    __tablename__ = "home_medications"


class VitalSign(cols.VitalSignColumns, Base):
    __tablename__ = "vital_signs"


class Orderable(cols.OrderableColumns, Base):
    __tablename__ = "orderables"


class OrderSentence(cols.OrderSentenceColumns, Base):
    __tablename__ = "order_sentences"


class OrderSet(cols.OrderSetColumns, Base):
    __tablename__ = "order_sets"


class OrderSetSection(cols.OrderSetSectionColumns, Base):
    __tablename__ = "order_set_sections"


class OrderSetItem(cols.OrderSetItemColumns, Base):
    __tablename__ = "order_set_items"


class Order(cols.OrderColumns, Base):
    __tablename__ = "orders"


class OrderScaleRange(cols.OrderScaleRangeColumns, Base):
    __tablename__ = "order_scale_ranges"


class OrderDetail(cols.OrderDetailColumns, Base):
    __tablename__ = "order_details"


class MarAdministration(cols.MarAdministrationColumns, Base):
    __tablename__ = "mar_administrations"


class Result(cols.ResultColumns, Base):
    __tablename__ = "results"


class Note(cols.NoteColumns, Base):
    __tablename__ = "notes"


class NoteAddendum(cols.NoteAddendumColumns, Base):
    __tablename__ = "note_addenda"


class MedRec(cols.MedRecColumns, Base):
    __tablename__ = "med_recs"


class MedRecItem(cols.MedRecItemColumns, Base):
    __tablename__ = "med_rec_items"


class Discharge(cols.DischargeColumns, Base):
    __tablename__ = "discharges"


class DischargeSection(cols.DischargeSectionColumns, Base):
    __tablename__ = "discharge_sections"


class AvsEvent(cols.AvsEventColumns, Base):
    __tablename__ = "avs_events"


class InstructionTemplate(cols.InstructionTemplateColumns, Base):
    __tablename__ = "instruction_templates"


class InstructionTemplateSection(cols.InstructionTemplateSectionColumns, Base):
    __tablename__ = "instruction_template_sections"


class PatientInstruction(cols.PatientInstructionColumns, Base):
    __tablename__ = "patient_instructions"


class PatientInstructionSection(cols.PatientInstructionSectionColumns, Base):
    __tablename__ = "patient_instruction_sections"


class Document(cols.DocumentColumns, Base):
    __tablename__ = "documents"


class Proxy(cols.ProxyColumns, Base):
    __tablename__ = "proxies"


class Message(cols.MessageColumns, Base):
    __tablename__ = "messages"


class Appointment(cols.AppointmentColumns, Base):
    __tablename__ = "appointments"
