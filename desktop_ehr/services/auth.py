"""Log-in against the store's training users."""

from __future__ import annotations

import hmac

from sqlalchemy import func, select

from desktop_ehr.session import EhrContext, UserInfo
from sandbox.stores.inpatient import password_digest


class LoginRefused(Exception):
    """Wrong user ID or password, or an inactive account; the message says which to fix."""


def authenticate(ctx: EhrContext, username: str, password: str) -> UserInfo:
    """The user whose password matches; sets nothing (the caller decides to log in)."""
    name = (username or "").strip()
    if not name:
        raise LoginRefused("Enter your user ID (it is on the training handout, creds.txt).")
    if not password:
        raise LoginRefused("Enter your password.")
    m = ctx.models
    with ctx.reader() as s:
        user = s.scalars(select(m.User).where(func.upper(m.User.username) == name.upper())
                         ).first()
        if user is None or not hmac.compare_digest(
                user.password_sha256, password_digest(user.username, password)):
            raise LoginRefused("The user ID or password is not correct. Check both (passwords "
                               "are case-sensitive) and try again.")
        if not user.active:
            raise LoginRefused(f"User {user.username} is inactive; use another training log-in.")
        return UserInfo(user.id, user.username, user.display_name, user.role, user.provider_id,
                        bool(user.can_sign_orders))
