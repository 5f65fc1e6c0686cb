"""Who is calling ``api.acmehealth.test`` and what they sent: the API's state, HTTP Basic
client authentication against ``api_clients`` (secrets stored as sha256), the principal a
client's writes are made as (channel ``api``), and a request body read within its limit.

The X12 endpoint (:mod:`portal_web.payer_api.app`) and the PAS operation
(:mod:`portal_web.payer_api.pas`) both use it.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from dataclasses import dataclass

from sqlalchemy import select
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

from portal_web.common.episode import EpisodeStores
from portal_web.common.params import parse_int
from portal_web.common.sessions import Principal
from portal_web.settings import PortalSettings
from sandbox.stores.acme import ApiClient

SYSTEM = "acme"
MAX_BODY = 30 * 1024 * 1024
REALM = 'Basic realm="Acme Health API"'


@dataclass
class PayerApi:
    settings: PortalSettings
    stores: EpisodeStores

    def now(self):  # noqa: ANN201 - naive sandbox-local datetime
        return self.stores.now().replace(microsecond=0)


def api_of(request: Request) -> PayerApi:
    return request.app.state.payer_api


def principal_for(client: ApiClient) -> Principal:
    return Principal(username=client.client_id, user_id=client.id, display_name=client.name,
                     channel="api")


def basic_credentials(request: Request) -> tuple[str, str] | None:
    header = request.headers.get("authorization", "")
    if not header.lower().startswith("basic "):
        return None
    try:
        decoded = base64.b64decode(header[6:].strip(), validate=True).decode("utf-8")
    except (ValueError, UnicodeDecodeError):
        return None
    client_id, sep, secret = decoded.partition(":")
    return (client_id, secret) if sep else None


def authenticate(request: Request, scope: str) -> ApiClient | Response:
    """The API client of the request, or a 401/403 plain-text answer."""
    credentials = basic_credentials(request)
    if credentials is None:
        return PlainTextResponse("Authentication required: send HTTP Basic credentials "
                                 "(client_id as user name, client_secret as password).\n",
                                 status_code=401, headers={"WWW-Authenticate": REALM})
    client_id, secret = credentials
    with api_of(request).stores.reader(SYSTEM) as db:
        client = db.scalar(select(ApiClient).where(ApiClient.client_id == client_id[:60]))
    digest = hashlib.sha256(secret[:500].encode("utf-8")).hexdigest()
    if client is None or not client.active or not hmac.compare_digest(
            digest, client.secret_sha256):
        return PlainTextResponse("Unknown client or wrong client secret.\n", status_code=401,
                                 headers={"WWW-Authenticate": REALM})
    if scope not in client.scopes.split():
        return PlainTextResponse(f"This client is not enabled for '{scope}' transactions.\n",
                                 status_code=403)
    return client


async def read_body(request: Request, limit: int = MAX_BODY) -> bytes:
    declared = parse_int(request.headers.get("content-length", ""))
    if declared is not None and declared > limit:
        raise HTTPException(413, f"The request is larger than {limit // (1024 * 1024)} MB.")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise HTTPException(413, f"The request is larger than {limit // (1024 * 1024)} MB.")
        chunks.append(chunk)
    return b"".join(chunks)
