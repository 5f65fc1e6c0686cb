"""Loading a task's ``verify.py`` and holding it to the task's credit list.

The checks are the module's :class:`~verifier.checks.Check` objects in definition order (or
its explicit ``CHECKS`` list). Their names and order must equal ``TaskSpec.credit``, so a
renamed or reordered item fails here, with both lists shown, before anything is graded.

Optional module attributes:

- ``PATIENTS = {"ehr": ["402015"]}`` — the task's patients by MRN per system, when the roster
  (``tasks:`` of each patient) does not say it; used to flag writes to other patients.
- ``GRADED = [Graded(...)]`` and ``UNGRADED = [Ungraded(...)]`` — every value the checks
  grade (where it is, a wrong value, the credit item and share it moves) and the values the
  run writes that they deliberately do not grade, with the reason; checked here against
  the credit items and the store's tables, and exercised by the sensitivity suite
  (:mod:`verifier.declarations`, :mod:`verifier.sensitivity`). ``graded`` is ``None``
  for a task that declares none yet.
"""

from __future__ import annotations

import importlib.util
import sys
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

from sandbox.catalog import TaskSpec
from verifier.checks import Check
from verifier.declarations import Graded, Ungraded, validate_declarations
from verifier.errors import VerifyError

CHECK_FILE = "verify.py"


@dataclass(frozen=True)
class TaskChecks:
    """A task's checks, matched one-to-one with its credit items."""

    path: Path
    checks: tuple[Check, ...]
    patients: dict[str, list[str]] = field(default_factory=dict)
    graded: tuple[Graded, ...] | None = None
    ungraded: tuple[Ungraded, ...] = ()


_cache: dict[tuple[str, int, int], ModuleType] = {}


def _module_name(spec: TaskSpec) -> str:
    return "ehr_sandbox_task_checks." + spec.id.replace(".", "_").replace("-", "_")


def _import(path: Path, name: str) -> ModuleType:
    stat = path.stat()
    key = (str(path), stat.st_mtime_ns, stat.st_size)
    if key in _cache:
        return _cache[key]
    module_spec = importlib.util.spec_from_file_location(name, path)
    if module_spec is None or module_spec.loader is None:
        raise VerifyError(f"{path}: cannot be imported as a Python module")
    module = importlib.util.module_from_spec(module_spec)
    # registered while it runs: dataclasses and typing look the module up by name
    sys.modules[name] = module
    try:
        module_spec.loader.exec_module(module)
    except SyntaxError as exc:
        sys.modules.pop(name, None)
        raise VerifyError(f"{path}:{exc.lineno}: syntax error: {exc.msg}") from exc
    except Exception as exc:
        sys.modules.pop(name, None)
        line = next((f.lineno for f in reversed(traceback.extract_tb(exc.__traceback__))
                     if Path(f.filename) == path), None)
        where = f"{path}:{line}" if line else str(path)
        raise VerifyError(f"{where}: importing the task's checks failed: "
                          f"{type(exc).__name__}: {exc}") from exc
    sys.modules.pop(name, None)  # never shadow another task's module of the same id
    _cache[key] = module
    return module


def _declared_checks(module: ModuleType, path: Path) -> list[Check]:
    explicit = getattr(module, "CHECKS", None)
    if explicit is not None:
        checks = list(explicit)
        bad = [c for c in checks if not isinstance(c, Check)]
        if bad:
            raise VerifyError(f"{path}: CHECKS must list functions decorated with @check "
                              f"(found {type(bad[0]).__name__})")
        return checks
    seen: list[Check] = []
    for value in vars(module).values():
        if isinstance(value, Check) and all(value is not c for c in seen):
            seen.append(value)
    return seen


def _patients(module: ModuleType, path: Path) -> dict[str, list[str]]:
    declared = getattr(module, "PATIENTS", None)
    if declared is None:
        return {}
    if not isinstance(declared, dict) or not all(
            isinstance(k, str) and isinstance(v, (list, tuple)) for k, v in declared.items()):
        raise VerifyError(f"{path}: PATIENTS must map a system to a list of MRNs, "
                          "e.g. {'ehr': ['402015']}")
    return {k: [str(m) for m in v] for k, v in declared.items()}


def load_checks(spec: TaskSpec) -> TaskChecks:
    """Import ``<task folder>/verify.py`` and match its checks with the spec's credit."""
    if spec.folder is None:
        raise VerifyError(f"task {spec.id} was not loaded from a folder; its verify.py "
                          "cannot be found (load it with sandbox.catalog.load_task)")
    path = Path(spec.folder) / CHECK_FILE
    if not path.is_file():
        names = ", ".join(repr(c.name) for c in spec.credit)
        raise VerifyError(f"{path}: missing; every task folder needs a verify.py declaring "
                          f"one @check per credit item ({names})")
    module = _import(path, _module_name(spec))
    checks = _declared_checks(module, path)
    have = [c.name for c in checks]
    want = [c.name for c in spec.credit]
    if have != want:
        missing = [n for n in want if n not in have]
        extra = [n for n in have if n not in want]
        detail = []
        if missing:
            detail.append(f"missing: {missing}")
        if extra:
            detail.append(f"not in task.yaml: {extra}")
        if not detail:
            detail.append("same names in another order")
        raise VerifyError(
            f"{path}: its checks do not match the credit items of {spec.id} in task.yaml "
            f"(names and order must be equal; {'; '.join(detail)})\n"
            f"  verify.py: {have}\n  task.yaml: {want}")
    graded, ungraded = validate_declarations(spec, path, getattr(module, "GRADED", None),
                                             getattr(module, "UNGRADED", None))
    return TaskChecks(path=path, checks=tuple(checks), patients=_patients(module, path),
                      graded=graded, ungraded=ungraded)
