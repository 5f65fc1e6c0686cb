"""The worked example of docs/payer-api.md is what the API accepts and answers."""

from __future__ import annotations

import re
from pathlib import Path

from tests.portal_web.payer_support import assert_conforming_reply, payer_run

DOC = Path(__file__).resolve().parents[2] / "docs" / "payer-api.md"
TIMES = re.compile(r"(\*2610\d\d\*|\*20261\d{3}\*)\d{4}\*")


def block(marker: str) -> str:
    text = DOC.read_text()
    start = text.index(f"<!-- {marker} -->\n```x12\n") + len(f"<!-- {marker} -->\n```x12\n")
    return text[start:text.index("```", start)]


def test_the_worked_example_gets_the_documented_reply(seeds):
    run = payer_run(seeds)
    response = run.post(block("worked-example-request").encode("latin-1"))
    assert response.status_code == 200
    assert_conforming_reply(response.text)
    # the reply's own creation times follow the sandbox clock; everything else is as documented
    assert TIMES.sub(r"\1HHMM*", response.text) == \
        TIMES.sub(r"\1HHMM*", block("worked-example-reply"))
    assert run.cases()[0][1:] == ("PA26-100001", "in_review", "72148", "M51.16")
