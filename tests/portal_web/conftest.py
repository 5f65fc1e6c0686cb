"""Fixtures of the web EHR tests: seeded task runs and logged-in clients."""

from __future__ import annotations

import logging

import pytest

from tests.portal_web.support import Ehr, SeedCache, add_rows, make_client


@pytest.fixture(scope="session")
def seeds(tmp_path_factory: pytest.TempPathFactory) -> SeedCache:
    return SeedCache(tmp_path_factory.mktemp("ehr-seeds"))


@pytest.fixture
def ehr_for(seeds: SeedCache):
    """``ehr_for("ord-01", user="nurse.kelly")``: a logged-in client on a fresh seeded run."""
    logging.getLogger("portal_web").setLevel(logging.CRITICAL)

    def make(alias: str, user: str | None = "dr.osei", variant: str | None = None,
             extra: str | None = None) -> Ehr:
        run = seeds.run(alias, variant)
        if extra:
            add_rows(run, extra)
        ehr = make_client(run)
        if user:
            ehr.login(user)
        return ehr

    return make
