"""Acme's companion guide, served as plain text at ``/companion-guide``.

Payers publish a companion guide beside the X12 implementation guides: what their trading
partners must send in the elements the guides leave open. A client of this API has only its
credentials and the host name, so the guide is served from the host itself (the "API only"
answer points to it). ``docs/payer-api.md`` is the long form.
"""

from __future__ import annotations

GUIDE = """\
ACME HEALTH - X12 278 COMPANION GUIDE (trading partners)            version 2026.1

1. CONNECTION
   POST http://api.acmehealth.test/x12/278
   Content-Type: application/EDI-X12; HTTP Basic with your client_id / client_secret.
   One interchange (ISA..IEA) per request, ISA12 00501, ISA08 ACME1 (ISA07 ZZ).
   The reply is an interchange: TA1 (when ISA14=1 or the interchange is rejected),
   one 999 per functional group, one 278 response per accepted 278.
   Header X-Acme-Result repeats in words what was found.

2. GROUPS
   GS01 HI, GS08 005010X217  - 278 requests (BHT*0007*13)
   GS01 HI, GS08 005010X215  - 278 inquiries (current decision of a case)
   GS01 PI, GS08 005010X210  - 275 attachments

3. 278 REQUEST (005010X217)
   2010A  NM1*X3*2*ACME HEALTH*****PI*ACME1
   2010B  NM1*1P or FA, NM108 XX, NM109 the requesting NPI (your organization's, or a
          provider of your organization in Acme's directory)
   2010C  NM1*IL*1*<LAST>*<FIRST>****MI*<Acme member ID>; DMG*D8*<birth date>*<F|M|U>
          (members are always the subscriber: no 2000D loop)
   2000E  TRN*1*<your trace>*<1 + your EIN>
          UM*HS*I*<service type>*<place of service>:B**<E elective|U urgent>
          DTP*472*RD8*<CCYYMMDD-CCYYMMDD>   (or in 2000F)
          HI*ABK:<ICD-10-CM without the decimal point>[*ABF:<code>...]
          PWK*<report type>*EL***AC*<attachment control number>*<description>
              one per attachment and one for the questionnaire response (PWK01 OZ)
          MSG*<clinical summary>            (optional)
          2010EA NM1*SJ|DK|71...*1*<last>*<first>****XX*<NPI>; PRV*RF*PXC*<taxonomy>
   2000F  exactly one service: UM*HS*I; DTP*472*RD8*...; SV1*HC:<CPT or HCPCS>**UN*<units>

4. ATTACHMENTS (275, 005010X210), one document per 275
   BGN*02*<ref>*<date>; NM1*PR (ACME1); NM1*41 (you); NM1*1P (provider NPI);
   NM1*QC*1*<last>*<first>****MI*<member ID>; LX*1; TRN*2*<attachment control number>;
   DTP*368*D8*<date>; CAT*AE*MB; EFI*05; BIN*<length>*<MIME entity>
   BIN01 is the exact number of bytes of BIN02. BIN02 is a MIME entity:
       Content-Type: application/pdf
       Content-Transfer-Encoding: base64
       Content-Disposition: attachment; filename="<file name>"
       <blank line>
       <base64 of the file>
   The file is stored exactly as decoded. Send the 275s in the same interchange as the 278
   (their TRN02 = the 278's PWK06), or later: a later 275 is filed on the case whose 278
   named its control number.

5. QUESTIONNAIRE ANSWERS (required when the service has an Acme questionnaire)
   Send a FHIR R4 QuestionnaireResponse as one more 275: Content-Type
   application/fhir+json (plain JSON, no transfer encoding), announced by PWK*OZ*EL***AC*<n>.
   Find the questionnaire:  GET http://api.acmehealth.test/fhir/Questionnaire?context=<CPT>
   (same Basic credentials). Then:
     "questionnaire": the Questionnaire's url;  "status": "completed";
     one item per answered question, linkId = the question's linkId;
     boolean -> valueBoolean; integer -> valueInteger; decimal -> valueDecimal;
     date -> valueDate; string -> valueString; choice -> valueCoding {"code": <option>}
     (one answer per selected option when the item repeats); ICD-10-CM -> valueCoding
     {"system": "http://hl7.org/fhir/sid/icd-10-cm", "code": "<code with its dot>"}.
   Answer every enabled required question; do not answer questions that enableWhen
   disables. Refusals come back as AAA*N**AO*C with a MSG naming the linkId.

6. 278 RESPONSE
   2000E REF*NT = the tracking reference (PA26-NNNNNN): record it. TRN*1 carries it too.
   HCR01 A1 certified (HCR02 = authorization number), A2 partially certified, A3 not
   certified, A4 pended / in clinical review, C cancelled. MSG: the decision in words.
   AAA*N**<reason>*<follow-up> in the loop whose data was refused; a refused request
   creates no case: correct it and send it again.

7. INQUIRY (005010X215)
   Same hierarchy; 2000E UM*HS*I and REF*NT*<tracking reference> (or REF*BB*<auth number>).
   The response carries the case's current HCR and MSG.

8. DA VINCI PAS
   POST http://api.acmehealth.test/fhir/Claim/$submit (application/fhir+json): a PAS
   request Bundle (collection; Claim use=preauthorization first; Patient, Coverage with
   subscriberId = member ID, requesting Organization/Practitioner with NPI,
   QuestionnaireResponse, DocumentReference per attachment with inline base64 data).
   The ClaimResponse's preAuthRef is the tracking reference.
"""
