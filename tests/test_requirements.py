"""A missing requirement skips a test locally and fails it under CI=true."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from tests import conftest
from tests.requirements import import_or_missing, missing, requires


@pytest.mark.parametrize("ci, outcome", [("", pytest.skip.Exception),
                                         ("false", pytest.skip.Exception),
                                         ("true", pytest.fail.Exception)])
def test_missing_skips_locally_and_fails_under_ci(monkeypatch, ci, outcome):
    monkeypatch.setenv("CI", ci)
    with pytest.raises(outcome, match="chromium is not installed"):
        missing("chromium is not installed")
    with pytest.raises(outcome, match="no_such_module_here"):
        import_or_missing("no_such_module_here")
    assert import_or_missing("json").dumps([]) == "[]"


def test_the_requirement_mark_is_checked_before_the_test_runs(monkeypatch):
    absent, present = requires(False, "no Qt library"), requires(True, "unused")
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="no Qt library"):
        conftest.pytest_runtest_setup(SimpleNamespace(iter_markers=lambda name: [absent.mark]))
    conftest.pytest_runtest_setup(SimpleNamespace(iter_markers=lambda name: [present.mark]))
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception, match="no Qt library"):
        conftest.pytest_runtest_setup(SimpleNamespace(iter_markers=lambda name: [absent.mark]))
