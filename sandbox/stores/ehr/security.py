"""Password hashing for the web EHR's log-in users (``users_secure.password``).

PBKDF2-HMAC-SHA256 from the standard library. The salt is derived from the username so the
world fixture can carry a fixed hash and seeding stays byte-identical; that is acceptable for
a sandbox whose passwords are printed in the task's ``input/creds.txt`` anyway.
"""

from __future__ import annotations

import hashlib
import hmac

ALGORITHM = "pbkdf2_sha256"
ITERATIONS = 120_000


def username_salt(username: str) -> str:
    """The deterministic salt of one user (hex)."""
    return hashlib.sha256(f"ehr-sandbox:{username.lower()}".encode()).hexdigest()[:32]


def hash_password(username: str, password: str, iterations: int = ITERATIONS) -> str:
    """``pbkdf2_sha256$<iterations>$<salt>$<hash>`` for a username/password pair."""
    salt = username_salt(username)
    digest = hashlib.pbkdf2_hmac("sha256", password.encode(), salt.encode(), iterations)
    return f"{ALGORITHM}${iterations}${salt}${digest.hex()}"


def check_password(stored: str, password: str) -> bool:
    """Whether ``password`` matches a stored hash (constant-time compare)."""
    try:
        algorithm, iterations, salt, expected = stored.split("$")
        rounds = int(iterations)
    except ValueError:
        return False
    if algorithm != ALGORITHM:
        return False
    digest = hashlib.pbkdf2_hmac("sha256", password.encode(), salt.encode(), rounds)
    return hmac.compare_digest(digest.hex(), expected)
