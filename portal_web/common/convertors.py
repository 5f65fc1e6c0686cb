"""URL convertors: ``{pid:id}`` matches a row id of at most 9 digits, so an absurdly long
number is a 404 page instead of an integer SQLite cannot bind."""

from __future__ import annotations

from starlette.convertors import Convertor, register_url_convertor

from portal_web.common.params import parse_id


class RowIdConvertor(Convertor[int]):
    regex = "[0-9]{1,9}"

    def convert(self, value: str) -> int:
        number = parse_id(value)
        assert number is not None  # the regex admits only ASCII digits, at most 9
        return number

    def to_string(self, value: int) -> str:
        return str(int(value))


register_url_convertor("id", RowIdConvertor())
