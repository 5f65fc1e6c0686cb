"""Server-side browser sessions with CSRF tokens and one-time form tokens.

A session lives in the server's memory, keyed by a random cookie value; the cookie carries
nothing else. Every visitor gets a session (anonymous until log-in) so the log-in form is
CSRF-protected too; logging in replaces the session id (no fixation). Sessions expire after
``ttl_s`` seconds without a request, measured on the sandbox clock, and a site can expire
them all at once (a payer portal that "times out" mid-task does that).

One-time form tokens make double submits and back-button re-posts harmless: each rendered
form carries a fresh token; the first POST that succeeds marks it *done* with the page it
redirected to, and any later POST of the same token is sent to that page instead of
writing again.
"""

from __future__ import annotations

import secrets
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import Enum
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

MAX_FORM_TOKENS = 300


class TokenState(Enum):
    """What a submitted one-time form token allows."""

    FRESH = "fresh"  # first use: go ahead and write
    DONE = "done"  # already written: redirect to where the first submit went
    PENDING = "pending"  # the first submit is still being written
    UNKNOWN = "unknown"  # not issued in this session (expired session, forged, stale page)


@dataclass
class Principal:
    """Who is logged in, and through which channel they authenticated."""

    username: str
    user_id: int
    display_name: str
    channel: str = "browser"


@dataclass
class BrowserSession:
    """One browser's state on one site."""

    sid: str
    csrf_token: str
    last_seen: datetime
    principal: Principal | None = None
    data: dict[str, Any] = field(default_factory=dict)
    form_tokens: OrderedDict[str, tuple[TokenState, str | None]] = field(
        default_factory=OrderedDict)

    # -- one-time form tokens ---------------------------------------------------------
    def issue_form_token(self) -> str:
        token = secrets.token_urlsafe(16)
        self.form_tokens[token] = (TokenState.FRESH, None)
        while len(self.form_tokens) > MAX_FORM_TOKENS:
            self.form_tokens.popitem(last=False)
        return token

    def claim_form_token(self, token: str) -> tuple[TokenState, str | None]:
        """Claim a token for one write; returns its state before the claim."""
        state, target = self.form_tokens.get(token, (TokenState.UNKNOWN, None))
        if state is TokenState.FRESH:
            self.form_tokens[token] = (TokenState.PENDING, None)
        return state, target

    def release_form_token(self, token: str) -> None:
        """The write did not happen (validation failed): the token may be used again."""
        if token in self.form_tokens:
            self.form_tokens[token] = (TokenState.FRESH, None)

    def complete_form_token(self, token: str, target: str) -> None:
        """The write committed; later submits of this token go to ``target``."""
        self.form_tokens[token] = (TokenState.DONE, target)


class SessionStore:
    """Every browser session of one site, in memory, thread-safe."""

    def __init__(self, cookie_name: str, ttl_s: int | Callable[[], int],
                 now: Callable[[], datetime]):
        """``ttl_s`` may be a callable (a site setting read when first needed)."""
        self.cookie_name = cookie_name
        self._ttl_s = ttl_s
        self.now = now
        self._sessions: dict[str, BrowserSession] = {}
        self._lock = threading.RLock()

    @property
    def ttl(self) -> timedelta:
        seconds = self._ttl_s() if callable(self._ttl_s) else self._ttl_s
        return timedelta(seconds=seconds)

    @property
    def lock(self) -> threading.RLock:
        return self._lock

    def _new(self) -> BrowserSession:
        session = BrowserSession(sid=secrets.token_urlsafe(24),
                                 csrf_token=secrets.token_urlsafe(24), last_seen=self.now())
        self._sessions[session.sid] = session
        return session

    def load(self, request: Request) -> tuple[BrowserSession, bool]:
        """The request's session (a new anonymous one if absent or expired).

        Returns ``(session, expired)``: ``expired`` is True when the browser presented a
        session that timed out, so the site can say so on the log-in page.
        """
        sid = request.cookies.get(self.cookie_name, "")
        now = self.now()
        with self._lock:
            session = self._sessions.get(sid)
            expired = False
            if session is not None and now - session.last_seen > self.ttl:
                del self._sessions[sid]
                expired = session.principal is not None
                session = None
            if session is None:
                session = self._new()
            session.last_seen = max(session.last_seen, now)
            return session, expired

    def login(self, old: BrowserSession, principal: Principal) -> BrowserSession:
        """A new session id for the logged-in user (the anonymous one is dropped)."""
        with self._lock:
            self._sessions.pop(old.sid, None)
            session = self._new()
            session.principal = principal
            return session

    def logout(self, session: BrowserSession) -> BrowserSession:
        with self._lock:
            self._sessions.pop(session.sid, None)
            return self._new()

    def expire_all(self) -> int:
        """Drop every session (forced time-out); returns how many were logged in."""
        with self._lock:
            count = sum(1 for s in self._sessions.values() if s.principal is not None)
            self._sessions.clear()
            return count

    def set_cookie(self, response: Response, session: BrowserSession) -> None:
        response.set_cookie(self.cookie_name, session.sid, httponly=True, samesite="lax",
                            path="/")


def csrf_matches(session: BrowserSession, submitted: str | None) -> bool:
    """Constant-time check of a submitted CSRF token against the session's."""
    return bool(submitted) and secrets.compare_digest(session.csrf_token, str(submitted))
