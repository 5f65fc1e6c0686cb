"""Member search: by member ID, or by last name with date of birth. Look-alike members
(same name, near-identical IDs) are told apart by date of birth, member ID and plan."""

from __future__ import annotations

import datetime as dt
import re

from sqlalchemy import func, select
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from portal_web.acme.site import guard, site_of
from portal_web.acme.typed_fields import us_date
from portal_web.common.forms import FieldReader
from sandbox.stores.acme import Member, Plan

MEMBER_ID = re.compile(r"ACM\d{9}")


def search(db, reader: FieldReader, today: dt.date) -> list[tuple[Member, Plan]] | None:  # noqa: ANN001
    """Members matching the query string's search, or None when nothing was asked."""
    number = reader.raw.get("member_id", "").strip().upper().replace(" ", "")
    last = reader.text("last_name", "Last name", max_len=60)
    dob = us_date(reader, "dob", "Date of birth", earliest=dt.date(1900, 1, 1), latest=today)
    if not (number or last or reader.raw.get("dob")):
        return None
    query = select(Member, Plan).join(Plan, Plan.id == Member.plan_id)
    if number:
        if not MEMBER_ID.fullmatch(number):
            reader.fail("member_id", "Member ID is ACM followed by 9 digits, as on the "
                                     "member's ID card.")
            return None
        query = query.where(Member.member_number == number)
    else:
        if not last or dob is None:
            if "dob" not in reader.errors:
                reader.fail("last_name" if not last else "dob",
                            "Enter the last name and the date of birth (MM/DD/YYYY), or the "
                            "member ID.")
            return None
        query = query.where(func.lower(Member.last_name) == last.lower(), Member.dob == dob)
    return list(db.execute(query.order_by(Member.last_name, Member.first_name)))


@guard
async def members(request: Request) -> Response:
    site = site_of(request)
    reader = FieldReader(request.query_params)
    with site.reader() as db:
        found = search(db, reader, site.today())
    return site.render(request, "members.html", {
        "page_title": "Member search", "results": found, "values": reader.raw,
        "errors": reader.errors, "start": request.query_params.get("start") == "1",
        "today": site.today(), "breadcrumbs": [("Member search", None)]},
        area="new" if request.query_params.get("start") == "1" else "members")


routes = [Route("/members", members, methods=["GET"])]
