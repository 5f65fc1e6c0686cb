"""The hand-off from the Acme provider portal to the DME portal: one log-in for both.

The provider portal's "DME Orders" link signs a short-lived, single-use ticket (user name,
expiry on the sandbox clock, a nonce) with the episode's secret; the DME portal checks the
signature, the expiry and that the nonce was not used before, then logs the same user in —
if ``portal_users.sites`` lets that user into the DME portal. A ticket carries no password
and is useless after one use or two minutes.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import hmac
import json
import secrets

TICKET_TTL = dt.timedelta(minutes=2)


class TicketError(ValueError):
    """The ticket is forged, expired or used; the message says which."""


def _sign(secret: str, payload: bytes) -> str:
    digest = hmac.new(secret.encode("utf-8"), payload, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).decode("ascii").rstrip("=")


def make_ticket(secret: str, username: str, now: dt.datetime) -> str:
    """A signed ticket for ``username`` valid until ``now + TICKET_TTL`` (sandbox time)."""
    body = json.dumps({"u": username, "exp": (now + TICKET_TTL).isoformat(),
                       "n": secrets.token_urlsafe(12)}, separators=(",", ":")).encode()
    payload = base64.urlsafe_b64encode(body).decode("ascii").rstrip("=")
    return f"{payload}.{_sign(secret, payload.encode('ascii'))}"


def read_ticket(secret: str, ticket: str, now: dt.datetime, used: set[str]) -> str:
    """The user name of a valid ticket (its nonce is then spent); TicketError otherwise."""
    payload, _, signature = ticket.partition(".")
    if not payload or not signature or len(ticket) > 1000:
        raise TicketError("The sign-in link is incomplete.")
    expected = _sign(secret, payload.encode("utf-8", "replace")).encode("ascii")
    if not hmac.compare_digest(expected, signature.encode("utf-8", "replace")):
        raise TicketError("The sign-in link is not valid.")
    try:
        data = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
        username, expires, nonce = str(data["u"]), dt.datetime.fromisoformat(data["exp"]), \
            str(data["n"])
    except (ValueError, KeyError, TypeError) as exc:
        raise TicketError("The sign-in link is not valid.") from exc
    if now > expires:
        raise TicketError("The sign-in link has expired.")
    if nonce in used:
        raise TicketError("The sign-in link was already used.")
    used.add(nonce)
    return username
