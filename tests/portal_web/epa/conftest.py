"""Fixtures of the ePA portal tests: pa-20 seeded once, a logged-in client per test."""

from __future__ import annotations

import logging

import pytest

from tests.portal_web.epa.support import EPISODE, Epa, make_epa
from tests.portal_web.support import SeedCache


@pytest.fixture(scope="session")
def pa20_runs(tmp_path_factory: pytest.TempPathFactory) -> SeedCache:
    """pa-20 seeded once (with the ePA tests' episode id); ``run("pa-20")`` copies it."""
    return SeedCache(tmp_path_factory.mktemp("epa-pa20"), EPISODE)


@pytest.fixture
def epa_for(pa20_runs: SeedCache):
    """``epa_for()``: a logged-in client on a fresh copy of the seeded pa-20 run."""
    logging.getLogger("portal_web").setLevel(logging.CRITICAL)

    def make(login: bool = True) -> Epa:
        epa = make_epa(pa20_runs.run("pa-20"))
        if login:
            epa.login()
        return epa

    return make
