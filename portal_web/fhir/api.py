"""The FHIR R4 API at ``/apis/default/fhir``: route table, CapabilityStatement, SMART config.

Reads and searches of every registered type go through :mod:`portal_web.fhir.search`
(types in :mod:`portal_web.fhir.types`); ``Binary`` through :mod:`portal_web.fhir.documents`;
creating vital-sign Observations through :mod:`portal_web.fhir.vitals`. A read needs a
``.read`` (or v2 ``r``/``s``) scope for the type, a create a ``.write`` (v2 ``c``) scope,
from a bearer token of ``/oauth2/default/token``; without a token: 401.
"""

from __future__ import annotations

from functools import partial

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from portal_web.fhir import search
from portal_web.fhir.common import BASE, FhirResponse, base_url, outcome, site_of
from portal_web.fhir.conformance import negotiated
from portal_web.fhir.documents import binary_read
from portal_web.fhir.oauth import token_endpoint
from portal_web.fhir.types import TYPES
from portal_web.fhir.vitals import observation_create

SECURITY_SERVICE = "http://terminology.hl7.org/CodeSystem/restful-security-service"
OAUTH_URIS = "http://fhir-registry.smarthealthit.org/StructureDefinition/oauth-uris"


def capability_statement(request: Request) -> dict:
    """What this server does, generated from the registry (so it cannot drift)."""
    origin = f"{request.url.scheme}://{request.url.netloc}"
    resources = []
    for kind in TYPES:
        entry = {"type": kind.name,
                 "interaction": [{"code": "read"}, {"code": "search-type"}],
                 "searchParam": [{"name": "_id", "type": "token"},
                                 *[{"name": n, "type": t} for n, t in kind.params]]}
        if kind.profile:
            entry["supportedProfile"] = [kind.profile]
        if kind.includes:
            entry["searchInclude"] = [f"{kind.name}:{t}" for t in kind.includes]
        if kind.name == "Observation":
            entry["interaction"].append({"code": "create"})
        resources.append(entry)
    resources.append({"type": "Binary", "interaction": [{"code": "read"}]})
    return {
        "resourceType": "CapabilityStatement", "status": "active", "kind": "instance",
        "date": site_of(request).today().isoformat(), "fhirVersion": "4.0.1",
        "format": ["application/fhir+json"],
        "software": {"name": "OpenEMR (sandbox)", "version": "7.0.2"},
        "implementation": {"description": "Sandbox OpenEMR FHIR R4 API",
                           "url": base_url(request)},
        "rest": [{"mode": "server", "security": {
            "cors": False,
            "service": [{"coding": [{"system": SECURITY_SERVICE, "code": "SMART-on-FHIR"}]}],
            "extension": [{"url": OAUTH_URIS, "extension": [
                {"url": "token", "valueUri": f"{origin}/oauth2/default/token"}]}]},
            "resource": resources}]}


async def metadata(request: Request) -> Response:
    return FhirResponse(capability_statement(request))


async def smart_configuration(request: Request) -> Response:
    origin = f"{request.url.scheme}://{request.url.netloc}"
    scopes = [f"system/{k.name}.read" for k in TYPES] + ["system/Binary.read",
                                                          "system/Observation.write"]
    return JSONResponse({
        "token_endpoint": f"{origin}/oauth2/default/token",
        "grant_types_supported": ["client_credentials"],
        "token_endpoint_auth_methods_supported": ["client_secret_post", "client_secret_basic"],
        "scopes_supported": ["openid", "api:fhir", *scopes],
        "capabilities": ["client-confidential-symmetric", "permission-v1", "permission-v2"]})


async def not_allowed(request: Request) -> Response:
    return outcome(405, "not-supported", f"{request.method} is not supported on "
                                         f"{request.url.path[:80]}: this server is read-only "
                                         "except for creating vital-sign Observations.")


def fhir_routes() -> list[BaseRoute]:
    """The API's routes; every FHIR interaction behind the format checks (406 / 415)."""
    fhir, binary = negotiated, partial(negotiated, raw_content=True)
    return [
        Route("/oauth2/default/token", token_endpoint, methods=["POST"]),
        Route(f"{BASE}/metadata", fhir(metadata), methods=["GET"]),
        Route(f"{BASE}/.well-known/smart-configuration", smart_configuration, methods=["GET"]),
        Route(f"{BASE}/Observation", fhir(observation_create), methods=["POST"]),
        Route(f"{BASE}/Binary/{{rid:str}}", binary(binary_read), methods=["GET"]),
        Route(f"{BASE}/{{rtype:str}}", fhir(search.search), methods=["GET"]),
        Route(f"{BASE}/{{rtype:str}}/{{rid:str}}", fhir(search.read), methods=["GET"]),
        Route(f"{BASE}/{{rtype:str}}", fhir(not_allowed),
              methods=["POST", "PUT", "PATCH", "DELETE"]),
        Route(f"{BASE}/{{rtype:str}}/{{rid:str}}", fhir(not_allowed),
              methods=["POST", "PUT", "PATCH", "DELETE"]),
    ]
