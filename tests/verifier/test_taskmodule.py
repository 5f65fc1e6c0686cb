"""verify.py must declare exactly the seed's credit items, in order; errors name the file."""

from __future__ import annotations

import pytest

from tests.verifier.builders import make_task
from verifier import VerifyError
from verifier.taskmodule import load_checks

CREDIT = [("correct encounter", 15), ("six values (proportional)", 70), ("no stray writes", 15)]
THREE = '''
from verifier import check

@check("correct encounter")
def a(ex): return True

@check("six values (proportional)")
def b(ex): return 1.0

@check("no stray writes")
def c(ex): return False
'''


def test_checks_are_taken_in_definition_order(tmp_path):
    spec = make_task(tmp_path, THREE, credit=CREDIT)
    loaded = load_checks(spec)
    assert [c.name for c in loaded.checks] == [n for n, _ in CREDIT]
    assert loaded.path == spec.folder / "verify.py"


def test_explicit_checks_list_wins(tmp_path):
    helper = '\n@check("a helper, not a credit item")\ndef d(ex): return True\n'
    spec = make_task(tmp_path / "a", THREE + helper, credit=CREDIT)
    with pytest.raises(VerifyError, match="not in task.yaml"):
        load_checks(spec)
    spec = make_task(tmp_path / "b", THREE + helper + "CHECKS = [a, b, c]\n", credit=CREDIT)
    assert [c.name for c in load_checks(spec).checks] == [n for n, _ in CREDIT]


def test_missing_verify_py_names_the_file(tmp_path):
    spec = make_task(tmp_path, THREE, credit=CREDIT)
    (spec.folder / "verify.py").unlink()
    with pytest.raises(VerifyError, match=r"T01/verify.py: missing.*'correct encounter'"):
        load_checks(spec)


def test_a_renamed_item_is_refused_with_both_lists(tmp_path):
    spec = make_task(tmp_path, THREE.replace("no stray writes", "no stray write"), credit=CREDIT)
    with pytest.raises(VerifyError) as err:
        load_checks(spec)
    message = str(err.value)
    assert "verify.py" in message and "missing: ['no stray writes']" in message
    assert "not in task.yaml: ['no stray write']" in message


def test_a_reordered_list_is_refused(tmp_path):
    spec = make_task(tmp_path, THREE, credit=[CREDIT[1], CREDIT[0], CREDIT[2]])
    with pytest.raises(VerifyError, match="same names in another order"):
        load_checks(spec)


def test_syntax_and_import_errors_name_file_and_line(tmp_path):
    spec = make_task(tmp_path / "a", THREE + "\ndef broken(:\n", credit=CREDIT)
    with pytest.raises(VerifyError, match=r"verify.py:\d+: syntax error"):
        load_checks(spec)
    spec = make_task(tmp_path / "b", "import no_such_module_here\n" + THREE, credit=CREDIT)
    with pytest.raises(VerifyError, match=r"verify.py:1: importing the task's checks failed: "
                                          r"ModuleNotFoundError"):
        load_checks(spec)


def test_patients_override_is_validated(tmp_path):
    spec = make_task(tmp_path / "a", THREE + "\nPATIENTS = {'ehr': ['402051']}\n", credit=CREDIT)
    assert load_checks(spec).patients == {"ehr": ["402051"]}
    spec = make_task(tmp_path / "b", THREE + "\nPATIENTS = '402051'\n", credit=CREDIT)
    with pytest.raises(VerifyError, match="PATIENTS must map"):
        load_checks(spec)


def test_a_verify_module_may_define_dataclasses(tmp_path):
    source = "from dataclasses import dataclass\n\n@dataclass\nclass Case:\n    n: int\n" + THREE
    spec = make_task(tmp_path, source, credit=CREDIT)
    assert len(load_checks(spec).checks) == 3
