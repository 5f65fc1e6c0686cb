"""Fuzz Acme's API with mutated requests: never a 500, every reply a conforming interchange,
and a case only where the reply carries a tracking reference (a refused request writes none)."""

from __future__ import annotations

import json
import logging

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.portal_web.payer_pas import pas_bundle
from tests.portal_web.payer_support import CLIENT, assert_conforming_reply, payer_run
from tests.portal_web.payer_x12 import (
    GOLD_ANSWERS,
    Request278,
    questionnaire_document,
    request_with_attachments,
)

SEPARATORS = "*:~^\n"
junk = st.one_of(
    st.text(max_size=12),
    st.text(alphabet=SEPARATORS + "ABZ019 -.", max_size=12),
    st.sampled_from(["", "HC:72148", "ABK:M5116", "20261332", "RD8", "XX", "IL", "EV", "SS",
                     "99999999999999999999", "BINARY-DATA-000", "-1", "1e9", "\x00", "Ω"]),
)


def mutations():  # noqa: ANN201
    drop = st.tuples(st.just("drop"), st.integers(0, 200), st.just(0), st.just(""))
    dup = st.tuples(st.just("dup"), st.integers(0, 200), st.just(0), st.just(""))
    swap = st.tuples(st.just("swap"), st.integers(0, 200), st.integers(0, 200), st.just(""))
    edit = st.tuples(st.just("edit"), st.integers(0, 200), st.integers(0, 16), junk)
    insert = st.tuples(st.just("insert"), st.integers(0, 200), st.just(0), junk)
    cut = st.tuples(st.just("cut"), st.integers(0, 20000), st.just(0), st.just(""))
    return st.lists(st.one_of(drop, dup, swap, edit, insert, cut), min_size=1, max_size=3)


def mutate(body: bytes, steps: list[tuple[str, int, int, str]]) -> bytes:
    text = body.decode("latin-1")
    for kind, a, b, value in steps:
        if kind == "cut":
            text = text[:a % (len(text) + 1)]
            continue
        segs = text.split("~")
        if not segs:
            continue
        i, j = a % len(segs), b % len(segs)
        if kind == "drop":
            del segs[i]
        elif kind == "dup":
            segs.insert(i, segs[i])
        elif kind == "swap":
            segs[i], segs[j] = segs[j], segs[i]
        elif kind == "insert":
            segs.insert(i, "\n" + value)
        elif kind == "edit":
            parts = segs[i].split("*")
            parts[b % len(parts)] = value
            segs[i] = "*".join(parts)
        text = "~".join(segs)
    return text.encode("latin-1", "replace")


@pytest.fixture(scope="module")
def payer(seeds):
    logging.getLogger("portal_web").setLevel(logging.CRITICAL)
    return payer_run(seeds)


@pytest.fixture(scope="module")
def base_request() -> bytes:
    # one small PDF-like document keeps the interchange short enough to fuzz quickly
    note = questionnaire_document(GOLD_ANSWERS)
    return request_with_attachments(Request278(documents=[note]))


@settings(max_examples=80, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(steps=mutations())
def test_mutated_278_interchanges_never_fail_the_server(payer, base_request, steps):
    body = mutate(base_request, steps)
    before = len(payer.cases())
    response = payer.post(body)
    assert response.status_code == 200, (steps, response.text[:300])
    reply = response.text
    assert_conforming_reply(reply)
    created = len(payer.cases()) - before
    references = {s.split("*")[2] for s in reply.split("~") if s.strip().startswith("REF*NT*")}
    assert created == len(references), (steps, reply)


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(path=st.lists(st.one_of(st.integers(0, 12), st.sampled_from(
    ["entry", "resource", "item", "coding", "code", "use", "patient", "reference"])),
    min_size=1, max_size=5), value=st.one_of(st.none(), st.integers(), st.text(max_size=8),
                                             st.booleans(), st.just({}), st.just([])))
def test_mutated_pas_bundles_never_fail_the_server(payer, path, value):
    bundle = pas_bundle([])
    target = bundle
    for step in path[:-1]:
        if isinstance(target, dict) and isinstance(step, str) and step in target:
            target = target[step]
        elif isinstance(target, list) and isinstance(step, int) and target:
            target = target[step % len(target)]
    last = path[-1]
    if isinstance(target, dict) and isinstance(last, str):
        target[last] = value
    elif isinstance(target, list) and isinstance(last, int) and target:
        target[last % len(target)] = value
    response = payer.client.post("/fhir/Claim/$submit", content=json.dumps(bundle),
                                 headers={"Content-Type": "application/fhir+json"},
                                 auth=CLIENT)
    assert response.status_code in (200, 400), response.text[:300]
    assert response.json()["resourceType"] in ("Bundle", "OperationOutcome")
