"""URL convertors: ``{pid:id}`` matches a row id of at most 9 digits, so an absurdly long
number is a 404 page instead of an integer SQLite cannot bind."""

from __future__ import annotations

from starlette.convertors import Convertor, register_url_convertor


class RowIdConvertor(Convertor[int]):
    regex = "[0-9]{1,9}"

    def convert(self, value: str) -> int:
        return int(value)

    def to_string(self, value: int) -> str:
        return str(int(value))


register_url_convertor("id", RowIdConvertor())
