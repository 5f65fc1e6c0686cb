"""Finding members the way provider portals do: by member ID, or by name and date of birth.

Look-alike members exist (same name, or a near-identical member ID), so results always show
name, date of birth, member ID and plan side by side, and a name search needs the date of
birth (a real eligibility inquiry does too).
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from portal_web.common.forms import FieldReader
from sandbox.stores.acme import Member, Plan

MEMBER_ID = re.compile(r"ACM\d{9}")


@dataclass(frozen=True)
class MemberRow:
    member: Member
    plan: Plan
    active: bool


def age_on(dob: dt.date, day: dt.date) -> int:
    return day.year - dob.year - ((day.month, day.day) < (dob.month, dob.day))


def coverage_active(member: Member, day: dt.date) -> bool:
    return member.coverage_start <= day and (member.coverage_end is None
                                             or member.coverage_end >= day)


def read_search(r: FieldReader) -> dict[str, object] | None:
    """The search the form asks for (member ID; last name with date of birth or first
    name); None with inline messages when it cannot be run."""
    number = r.raw.get("member_id", "").strip().upper().replace(" ", "")
    last = r.text("last_name", "Last name", max_len=60)
    first = r.text("first_name", "First name", max_len=60)
    dob = r.date("dob", "Date of birth", earliest=dt.date(1900, 1, 1))
    if number:
        if not MEMBER_ID.fullmatch(number):
            r.fail("member_id", "Member ID is ACM followed by 9 digits, as on the member's "
                                "ID card (e.g. ACM402918331).")
            return None
        return {"member_id": number}
    if not r.ok:
        return None
    if not last and dob is None and not first:
        r.fail("member_id", "Enter the member ID, or the last name with the date of birth.")
        return None
    if not last:
        r.fail("last_name", "Last name is required when searching by name or date of birth.")
        return None
    if dob is None and not first:
        r.fail("dob", "Enter the date of birth (YYYY-MM-DD), or the first name, with the "
                      "last name.")
        return None
    return {"last_name": last, "first_name": first, "dob": dob}


def find(db: Session, search: dict[str, object], today: dt.date) -> list[MemberRow]:
    query = select(Member, Plan).join(Plan, Plan.id == Member.plan_id)
    if "member_id" in search:
        query = query.where(Member.member_number == search["member_id"])
    else:
        query = query.where(func.lower(Member.last_name) == str(search["last_name"]).lower())
        if search.get("dob") is not None:
            query = query.where(Member.dob == search["dob"])
        if search.get("first_name"):
            query = query.where(func.lower(Member.first_name)
                                .startswith(str(search["first_name"]).lower()))
    rows = db.execute(query.order_by(Member.last_name, Member.first_name, Member.dob)).all()
    return [MemberRow(m, p, coverage_active(m, today)) for m, p in rows]
