"""Fixtures of the Acme portal tests: logged-in clients on fresh seeded runs."""

from __future__ import annotations

import logging

import pytest

from tests.portal_web.acme.support import Portal, make_portal
from tests.portal_web.support import SeedCache


@pytest.fixture
def portal_for(seeds: SeedCache):
    """``portal_for("pa-01", user="riverside.billing")``: a client on a fresh seeded run."""
    logging.getLogger("portal_web").setLevel(logging.CRITICAL)

    def make(alias: str, user: str | None = "riverside.pa", variant: str | None = None) -> Portal:
        portal = make_portal(seeds.run(alias, variant))
        if user:
            portal.login(user)
        return portal

    return make


@pytest.fixture(scope="session")
def task_seeds(tmp_path_factory: pytest.TempPathFactory):
    from tests.portal_web.acme.tasks import TaskSeeds

    return TaskSeeds(tmp_path_factory.mktemp("acme-tasks"))
