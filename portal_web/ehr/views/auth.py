"""Log-in and log-out against ``users``/``users_secure`` (OpenEMR's password table)."""

from __future__ import annotations

from sqlalchemy import select

from portal_web.common.login import LoginPage, login_routes
from portal_web.common.sessions import Principal
from portal_web.ehr.site import site_of
from sandbox.stores.ehr import User, UserSecure, check_password

HOME = "/main/calendar"
PAGE = LoginPage(
    home=HOME, username_field="authUser", password_field="clearPass",
    missing="Enter both your username and password.",
    refused="Invalid username or password. Check the credentials you were given "
            "(input/creds.txt) and try again.")


def authenticate(site, username: str, password: str) -> Principal | None:  # noqa: ANN001
    with site.reader() as db:
        secure = db.scalar(select(UserSecure).where(UserSecure.username == username))
        if secure is None or not check_password(secure.password, password):
            return None
        user = db.get(User, secure.id)
        if user is None or not user.active:
            return None
        name = " ".join(p for p in (user.fname, user.lname) if p) or username
        return Principal(username=username, user_id=user.id, display_name=name)


# Log-ins are not written to the `log` table: a task's footprint would count them as stray
# writes. The store's audit trail records who wrote what.
routes = login_routes(authenticate, site_of=site_of, page=PAGE)
