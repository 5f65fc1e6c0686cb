"""Server-side validation of posted forms, collecting one inline message per field.

A :class:`FieldReader` wraps the posted values; each typed accessor returns the parsed value
(or ``None``) and records a message naming the field, what was wrong and what to enter.
Views re-render the form with ``reader.raw`` (what the user typed) and ``reader.errors``
when anything failed, so no input is lost and nothing is written.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Iterable, Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

from portal_web.common import icd10cm
from portal_web.common.params import parse_int

FORM_ERROR = "_form"  # key of messages about the whole form
MAX_TEXT = 20_000
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def clean_text(value: str) -> str:
    """Strip control characters (NUL and friends break SQLite text and PDFs) and ends."""
    return _CONTROL.sub("", value).replace("\r\n", "\n").strip()


def npi_is_valid(npi: str) -> bool:
    """NPI check digit: Luhn over ``80840`` + the 10 digits; first digit 1 or 2."""
    if not re.fullmatch(r"[12]\d{9}", npi):
        return False
    digits = [int(c) for c in "80840" + npi]
    total = 0
    for i, d in enumerate(reversed(digits)):
        if i % 2 == 1:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


def icd10cm_normalise(code: str) -> str:
    """``e119`` / ``ICD10:E11.9`` / ``E11.9`` → ``E11.9`` (dot after the category)."""
    code = code.strip().upper()
    if code.startswith("ICD10:"):
        code = code[6:]
    code = code.replace(".", "").replace(" ", "")
    return code if len(code) <= 3 else f"{code[:3]}.{code[3:]}"


def icd10cm_description(code: str) -> str | None:
    """The ICD-10-CM description of a billable or category code, or None if unknown."""
    return icd10cm.description(code)


def icd10cm_is_billable(code: str) -> bool:
    """Whether a valid ICD-10-CM code is a leaf (billable) code."""
    return icd10cm.is_leaf(code)


class FieldReader:
    """Typed access to posted form values with inline error messages."""

    def __init__(self, form: Mapping[str, Any], errors: dict[str, str] | None = None):
        self.raw: dict[str, str] = {}
        for key in form:
            value = form.get(key)
            self.raw[key] = value if isinstance(value, str) else ""
        self._lists = {key: [v for v in form.getlist(key) if isinstance(v, str)]
                       for key in form} if hasattr(form, "getlist") else {}
        self.errors: dict[str, str] = dict(errors or {})

    # -- bookkeeping ----------------------------------------------------------------------
    @property
    def ok(self) -> bool:
        return not self.errors

    def fail(self, name: str, message: str) -> None:
        self.errors.setdefault(name, message)

    def _get(self, name: str) -> str:
        return clean_text(self.raw.get(name, ""))

    def getlist(self, name: str) -> list[str]:
        return [clean_text(v) for v in self._lists.get(name, [])]

    # -- accessors ------------------------------------------------------------------------
    def text(self, name: str, label: str, *, required: bool = False,
             max_len: int = 255) -> str | None:
        value = self._get(name)
        if not value:
            if required:
                self.fail(name, f"{label} is required.")
            return None
        if len(value) > max_len:
            self.fail(name, f"{label} is too long ({len(value)} characters); "
                            f"shorten it to {max_len} or fewer.")
            return None
        return value

    def number(self, name: str, label: str, *, unit: str = "", low: float, high: float,
               required: bool = False, decimals: int = 2) -> float | None:
        """A decimal number within [low, high] (inclusive), at most ``decimals`` places."""
        value = self._get(name).replace(",", "")
        if not value:
            if required:
                self.fail(name, f"{label} is required.")
            return None
        try:
            number = Decimal(value)
        except InvalidOperation:
            self.fail(name, f"{label} must be a number{' in ' + unit if unit else ''} "
                            f"(you entered '{value[:20]}').")
            return None
        if not number.is_finite():
            self.fail(name, f"{label} must be a number{' in ' + unit if unit else ''}.")
            return None
        if number.as_tuple().exponent < -decimals:  # type: ignore[operator]
            self.fail(name, f"{label}: enter at most {decimals} decimal places.")
            return None
        as_float = float(number)
        if not (low <= as_float <= high) or math.isnan(as_float):
            suffix = f" {unit}" if unit else ""
            self.fail(name, f"{label} must be between {_fmt(low)} and {_fmt(high)}{suffix}.")
            return None
        return as_float

    def integer(self, name: str, label: str, *, low: int, high: int,
                required: bool = False, unit: str = "") -> int | None:
        value = self._get(name)
        if not value:
            if required:
                self.fail(name, f"{label} is required.")
            return None
        number = parse_int(value) if len(value.lstrip("+-")) <= 9 else None
        if number is None:
            self.fail(name, f"{label} must be a whole number (you entered '{value[:20]}').")
            return None
        if not low <= number <= high:
            suffix = f" {unit}" if unit else ""
            self.fail(name, f"{label} must be between {low} and {high}{suffix}.")
            return None
        return number

    def date(self, name: str, label: str, *, required: bool = False,
             earliest: dt.date | None = None, latest: dt.date | None = None) -> dt.date | None:
        value = self._get(name)
        if not value:
            if required:
                self.fail(name, f"{label} is required (YYYY-MM-DD).")
            return None
        try:
            day = dt.date.fromisoformat(value) if re.fullmatch(
                r"\d{4}-\d{2}-\d{2}", value) else None
        except ValueError:
            day = None
        if day is None:
            self.fail(name, f"{label} must be a date written YYYY-MM-DD "
                            f"(you entered '{value[:20]}').")
            return None
        if earliest is not None and day < earliest:
            self.fail(name, f"{label} cannot be before {earliest.isoformat()}.")
            return None
        if latest is not None and day > latest:
            self.fail(name, f"{label} cannot be after {latest.isoformat()}.")
            return None
        return day

    def time(self, name: str, label: str, *, required: bool = False) -> dt.time | None:
        value = self._get(name)
        if not value:
            if required:
                self.fail(name, f"{label} is required (HH:MM, 24-hour).")
            return None
        match = re.fullmatch(r"(\d{1,2}):(\d{2})", value)
        if not match or int(match[1]) > 23 or int(match[2]) > 59:
            self.fail(name, f"{label} must be a time written HH:MM, 24-hour "
                            f"(you entered '{value[:20]}').")
            return None
        return dt.time(int(match[1]), int(match[2]))

    def choice(self, name: str, label: str, options: Iterable[str], *,
               required: bool = False) -> str | None:
        value = self._get(name)
        if not value:
            if required:
                self.fail(name, f"Choose a {label.lower()}.")
            return None
        if value not in set(options):
            self.fail(name, f"{label}: '{value[:30]}' is not one of the offered choices; "
                            "pick one from the list.")
            return None
        return value

    def checkbox(self, name: str) -> bool:
        return self._get(name).lower() in ("1", "on", "yes", "true")

    def icd10(self, name: str, label: str, *, required: bool = False,
              billable: bool = True) -> str | None:
        """An ICD-10-CM code that exists in the 2026 release, normalised (``E11.9``)."""
        value = self._get(name)
        if not value:
            if required:
                self.fail(name, f"{label} is required (an ICD-10-CM code such as E11.9).")
            return None
        code = icd10cm_normalise(value)
        if not re.fullmatch(r"[A-Z][0-9][0-9A-Z](\.[0-9A-Z]{1,4})?", code) \
                or icd10cm_description(code) is None:
            self.fail(name, f"{label}: '{value[:20]}' is not a valid ICD-10-CM code; "
                            "check it in the code search (e.g. E11.9).")
            return None
        if billable and not icd10cm_is_billable(code):
            self.fail(name, f"{label}: {code} is a category, not a billable code; choose a "
                            f"more specific code under {code}.")
            return None
        return code

    def npi(self, name: str, label: str, *, required: bool = False) -> str | None:
        value = self._get(name).replace(" ", "").replace("-", "")
        if not value:
            if required:
                self.fail(name, f"{label} is required (10 digits).")
            return None
        if not npi_is_valid(value):
            self.fail(name, f"{label}: '{value[:20]}' is not a valid NPI (10 digits starting "
                            "with 1 or 2, with a correct check digit).")
            return None
        return value


def _fmt(number: float) -> str:
    return f"{number:g}"
