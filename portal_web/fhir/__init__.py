"""The web EHR's FHIR R4 API (``/apis/default/fhir``) with OAuth2 client credentials
(``/oauth2/default/token``); writes through it are audited with channel ``api``."""
