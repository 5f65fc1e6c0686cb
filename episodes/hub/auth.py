"""Who may use the hub: accounts, sign-in sessions, the start secret and CSRF tokens.

The hub keeps its own small SQLite database (``hub.sqlite`` under ``--runs-dir``):
``users`` (name, role, scrypt password hash) and ``sessions`` (a random id held in an
HttpOnly, SameSite=Strict cookie, with the session's CSRF token). With no account at all
the hub runs in single-user mode: it makes a random secret at start, prints it, and whoever
signs in with it is an admin for as long as that hub runs.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROLES = ("annotator", "reviewer", "admin")
NAME_RE = re.compile(r"[a-z][a-z0-9._-]{0,39}")
SESSION_COOKIE = "hub_session"
SESSION_DAYS = 7
MIN_PASSWORD = 8
# scrypt cost: 16 MiB of memory and ~50 ms per check on one core
SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**14, 8, 1

SCHEMA = """
CREATE TABLE IF NOT EXISTS users (
    name TEXT PRIMARY KEY, role TEXT NOT NULL, password_hash TEXT NOT NULL,
    created REAL NOT NULL);
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY, name TEXT NOT NULL, role TEXT NOT NULL, csrf TEXT NOT NULL,
    created REAL NOT NULL, expires REAL NOT NULL);
"""


class AuthError(Exception):
    """A bad name, role or password (the message says which)."""


@dataclass(frozen=True)
class User:
    name: str
    role: str
    csrf: str = ""
    session: str = ""

    @property
    def is_admin(self) -> bool:
        return self.role == "admin"

    @property
    def is_reviewer(self) -> bool:
        return self.role in ("reviewer", "admin")


def hash_password(password: str) -> str:
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P,
                            dklen=32)
    return f"scrypt${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}${salt.hex()}${digest.hex()}"


def check_password(password: str, stored: str) -> bool:
    try:
        kind, n, r, p, salt, digest = stored.split("$")
        if kind != "scrypt":
            return False
        got = hashlib.scrypt(password.encode(), salt=bytes.fromhex(salt), n=int(n), r=int(r),
                             p=int(p), dklen=len(digest) // 2)
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(got.hex(), digest)


class Accounts:
    """The hub's accounts and sign-in sessions in ``<runs_dir>/hub.sqlite``."""

    def __init__(self, runs_dir: Path):
        runs_dir.mkdir(parents=True, exist_ok=True)
        self.path = runs_dir / "hub.sqlite"
        with self._db() as db:
            db.executescript(SCHEMA)
        self.start_secret: str | None = None

    def _db(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=10, isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        return db

    # -- accounts -------------------------------------------------------------------------
    def add(self, name: str, role: str, password: str) -> None:
        if not NAME_RE.fullmatch(name):
            raise AuthError(f"bad account name {name!r}: lower-case letters, digits, . _ -, "
                            "starting with a letter, at most 40")
        if role not in ROLES:
            raise AuthError(f"unknown role {role!r}; one of {', '.join(ROLES)}")
        if len(password) < MIN_PASSWORD:
            raise AuthError(f"the password must have at least {MIN_PASSWORD} characters")
        with self._db() as db:
            db.execute("INSERT INTO users VALUES (?, ?, ?, ?) ON CONFLICT(name) DO UPDATE "
                       "SET role = excluded.role, password_hash = excluded.password_hash",
                       (name, role, hash_password(password), time.time()))
            db.execute("DELETE FROM sessions WHERE name = ?", (name,))

    def remove(self, name: str) -> bool:
        with self._db() as db:
            db.execute("DELETE FROM sessions WHERE name = ?", (name,))
            return db.execute("DELETE FROM users WHERE name = ?", (name,)).rowcount > 0

    def users(self) -> list[User]:
        with self._db() as db:
            rows = db.execute("SELECT name, role FROM users ORDER BY name").fetchall()
        return [User(name, role) for name, role in rows]

    @property
    def single_user(self) -> bool:
        """No account exists: the start secret is the only way in."""
        with self._db() as db:
            return db.execute("SELECT COUNT(*) FROM users").fetchone()[0] == 0

    def new_start_secret(self) -> str:
        """A fresh secret for single-user mode; sessions of an earlier start end."""
        self.start_secret = secrets.token_urlsafe(24)
        with self._db() as db:
            db.execute("DELETE FROM sessions WHERE name = 'admin' AND name NOT IN "
                       "(SELECT name FROM users)")
        return self.start_secret

    # -- sign-in --------------------------------------------------------------------------
    def sign_in(self, name: str, password: str) -> User | None:
        """A new session for the right name and password (or the start secret), else None."""
        if self.single_user:
            if self.start_secret is None or not hmac.compare_digest(
                    password.encode(), self.start_secret.encode()):
                return None
            name, role = "admin", "admin"
        else:
            with self._db() as db:
                row = db.execute("SELECT role, password_hash FROM users WHERE name = ?",
                                 (name,)).fetchone()
            if row is None:
                check_password(password, hash_password("x" * MIN_PASSWORD))  # same time
                return None
            if not check_password(password, row[1]):
                return None
            role = row[0]
        session, csrf = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
        now = time.time()
        with self._db() as db:
            db.execute("DELETE FROM sessions WHERE expires < ?", (now,))
            db.execute("INSERT INTO sessions VALUES (?, ?, ?, ?, ?, ?)",
                       (session, name, role, csrf, now, now + SESSION_DAYS * 86400))
        return User(name, role, csrf, session)

    def session_user(self, session: str | None) -> User | None:
        if not session or len(session) > 100:
            return None
        with self._db() as db:
            row = db.execute("SELECT name, role, csrf, expires FROM sessions WHERE id = ?",
                             (session,)).fetchone()
        if row is None or row[3] < time.time():
            return None
        if row[0] != "admin" or not self.single_user:
            with self._db() as db:  # an account removed or changed since sign-in
                current = db.execute("SELECT role FROM users WHERE name = ?",
                                     (row[0],)).fetchone()
            if current is None or current[0] != row[1]:
                return None
        elif self.start_secret is None:
            return None
        return User(row[0], row[1], row[2], session)

    def sign_out(self, session: str) -> None:
        with self._db() as db:
            db.execute("DELETE FROM sessions WHERE id = ?", (session,))


class SignInThrottle:
    """Failed sign-ins counted per client address and per user name: after ``limit``
    failures within ``window_s`` either one is refused until the oldest of them is
    ``window_s`` old, so a password (or the start secret) cannot be guessed at the speed
    of the network. A success forgets that name's and that address's failures."""

    def __init__(self, limit: int = 5, window_s: float = 300.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.limit, self.window_s, self._clock = limit, window_s, clock
        self._failures: dict[tuple[str, str], list[float]] = {}

    def _recent(self, key: tuple[str, str]) -> list[float]:
        now = self._clock()
        times = [t for t in self._failures.get(key, []) if now - t < self.window_s]
        if times:
            self._failures[key] = times
        else:
            self._failures.pop(key, None)
        return times

    def retry_after(self, address: str, name: str) -> float:
        """Seconds until a sign-in from ``address`` as ``name`` is taken again; 0 now."""
        waits = [self.window_s - (self._clock() - times[-self.limit])
                 for key in _keys(address, name)
                 if len(times := self._recent(key)) >= self.limit]
        return max(waits, default=0.0)

    def failed(self, address: str, name: str) -> None:
        if len(self._failures) > 10_000:  # forget the oldest keys rather than grow
            for key in list(self._failures)[:5_000]:
                del self._failures[key]
        for key in _keys(address, name):
            self._failures.setdefault(key, []).append(self._clock())

    def succeeded(self, address: str, name: str) -> None:
        for key in _keys(address, name):
            self._failures.pop(key, None)


def _keys(address: str, name: str) -> list[tuple[str, str]]:
    return [("address", address), ("name", name.casefold()[:100])]
