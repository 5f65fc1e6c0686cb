"""OAuth2 client credentials for the FHIR API (``/oauth2/default/token``) and bearer checks.

Clients are rows of ``oauth_clients``: ``client_secret`` holds
``sandbox.stores.ehr.hash_password(client_id, secret)``, ``scope`` the scopes the client may
ask for (space-separated, SMART style: ``system/Observation.write``, ``system/Patient.read``
or v2 ``system/Observation.cruds``). The API answers only when the global ``rest_fhir_api``
is ``1`` (as OpenEMR, it is off by default). Tokens live in memory and expire after an hour of
sandbox time; a request authenticated by one writes with channel ``api``.
"""

from __future__ import annotations

import base64
import datetime as dt
import secrets
import threading
from dataclasses import dataclass
from urllib.parse import unquote

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from portal_web.common.requests import read_form
from portal_web.common.sessions import Principal
from sandbox.stores.ehr import Global, OAuthClient, check_password

TOKEN_TTL = dt.timedelta(hours=1)
ACTIONS = {"read": {"r", "s"}, "write": {"c", "u", "d"}, "*": {"c", "r", "u", "d", "s"}}


@dataclass(frozen=True)
class AccessToken:
    client_id: str
    client_name: str
    scopes: frozenset[str]
    expires: dt.datetime

    @property
    def principal(self) -> Principal:
        return Principal(username=self.client_id, user_id=0, display_name=self.client_name,
                         channel="api")


def scope_allows(scopes: frozenset[str], resource: str, action: str) -> bool:
    """Whether any granted scope allows ``action`` (``r``/``s``/``c``/``u``/``d``)."""
    for scope in scopes:
        context, _, rest = scope.partition("/")
        if context not in ("system", "user", "patient") or "." not in rest:
            continue
        res, perm = rest.split(".", 1)
        if res not in (resource, "*"):
            continue
        allowed = ACTIONS.get(perm) or set(perm)
        if action in allowed:
            return True
    return False


class TokenStore:
    """Issued access tokens of one app (in memory, thread-safe)."""

    def __init__(self) -> None:
        self._tokens: dict[str, AccessToken] = {}
        self._lock = threading.Lock()

    def issue(self, client: OAuthClient, scopes: frozenset[str], now: dt.datetime) -> str:
        token = secrets.token_urlsafe(32)
        with self._lock:
            self._tokens = {k: v for k, v in self._tokens.items() if v.expires > now}
            self._tokens[token] = AccessToken(client.client_id, client.client_name, scopes,
                                              now + TOKEN_TTL)
        return token

    def lookup(self, token: str, now: dt.datetime) -> AccessToken | None:
        with self._lock:
            found = self._tokens.get(token)
        return found if found is not None and found.expires > now else None


def api_enabled(db) -> bool:  # noqa: ANN001
    row = db.get(Global, ("rest_fhir_api", 0))
    return row is not None and row.gl_value.strip() == "1"


def _oauth_error(status: int, error: str, description: str) -> JSONResponse:
    headers = {"Cache-Control": "no-store"}
    if status == 401:
        headers["WWW-Authenticate"] = 'Basic realm="OpenEMR"'
    return JSONResponse({"error": error, "error_description": description},
                        status_code=status, headers=headers)


def _basic_credentials(request: Request) -> tuple[str, str] | None:
    header = request.headers.get("authorization", "")
    if not header.lower().startswith("basic "):
        return None
    try:
        decoded = base64.b64decode(header[6:].strip(), validate=True).decode()
    except (ValueError, UnicodeDecodeError):
        return None
    client_id, sep, secret = decoded.partition(":")
    return (unquote(client_id), unquote(secret)) if sep else None


async def token_endpoint(request: Request) -> Response:
    """``POST /oauth2/default/token`` (grant_type=client_credentials)."""
    site = request.app.state.ehr
    tokens: TokenStore = request.app.state.fhir_tokens
    form = await read_form(request)
    grant = str(form.get("grant_type") or "")
    if grant != "client_credentials":
        return _oauth_error(400, "unsupported_grant_type",
                            "Only grant_type=client_credentials is supported.")
    basic = _basic_credentials(request)
    client_id, secret = basic if basic else (str(form.get("client_id") or ""),
                                             str(form.get("client_secret") or ""))
    with site.reader() as db:
        if not api_enabled(db):
            return _oauth_error(403, "access_denied", "The FHIR REST API is turned off in "
                                "Administration > Globals > Connectors.")
        client = db.get(OAuthClient, client_id[:200]) if client_id else None
    if client is None or not client.is_enabled or not check_password(client.client_secret,
                                                                      secret[:500]):
        return _oauth_error(401, "invalid_client", "Unknown client or wrong client secret.")
    registered = frozenset(client.scope.split())
    requested = frozenset(str(form.get("scope") or "").split()) or registered
    if not requested <= registered:
        extra = " ".join(sorted(requested - registered))
        return _oauth_error(400, "invalid_scope",
                            f"The client is not registered for: {extra[:300]}")
    token = tokens.issue(client, requested, site.now())
    return JSONResponse({"access_token": token, "token_type": "Bearer",
                         "expires_in": int(TOKEN_TTL.total_seconds()),
                         "scope": " ".join(sorted(requested))},
                        headers={"Cache-Control": "no-store"})


def bearer(request: Request) -> AccessToken | None:
    header = request.headers.get("authorization", "")
    if not header.lower().startswith("bearer "):
        return None
    site = request.app.state.ehr
    return request.app.state.fhir_tokens.lookup(header[7:].strip(), site.now())
