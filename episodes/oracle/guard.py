"""What gold code may do: a static check of its source, and read-only Playwright proxies.

A gold solution may *locate* and *read* (build locators, read boxes, text and state) and
must *act* through the agent API only; ``check_gold_source`` refuses gold code that imports
a store, Qt, Playwright, a socket or HTTP library, ``os``, ``subprocess`` or ``importlib``,
names ``exec``, ``eval``, ``open``, ``vars`` … (called or not) or any ``__dunder__`` name or
attribute, and :class:`ReadOnly`
refuses every Playwright method that would act through the DOM.
"""

from __future__ import annotations

import ast
import asyncio
import importlib.util
from collections.abc import Callable
from pathlib import Path
from typing import Any

from episodes.oracle.errors import OracleError, OracleViolation

GOLD_FILE = "gold.py"


def gold_trace_path(task_folder: Path, variant: str = "default") -> Path:
    """Where a task's recorded gold trace of ``variant`` is kept: ``gold.trace.jsonl`` for
    the default fixture, ``gold.<variant>.trace.jsonl`` for a twin."""
    name = "gold.trace.jsonl" if variant == "default" else f"gold.{variant}.trace.jsonl"
    return Path(task_folder) / name


# Locator/page methods a gold solution may call: they build locators or only read.
READ_ONLY_METHODS = frozenset({
    "locator", "get_by_role", "get_by_text", "get_by_label", "get_by_placeholder",
    "get_by_alt_text", "get_by_title", "get_by_test_id", "nth", "filter", "and_", "or_",
    "frame_locator", "content_frame", "owner",
    "bounding_box", "is_visible", "is_hidden", "is_enabled", "is_disabled", "is_checked",
    "is_editable", "count", "text_content", "inner_text", "input_value", "get_attribute",
    "all_text_contents", "all_inner_texts", "all", "wait_for", "title",
    "wait_for_load_state", "wait_for_url",
})
READ_ONLY_PROPERTIES = frozenset({"first", "last", "url"})
FORBIDDEN_IMPORTS = ("sqlite3", "sqlalchemy", "sandbox.stores", "sandbox.seeding",
                     "desktop_ehr", "PySide6", "PyQt5", "PyQt6", "playwright", "portal_web",
                     "socket", "subprocess", "os", "shutil", "pathlib", "httpx", "requests",
                     "urllib", "http", "websockets", "Xlib", "pixel_stream", "ctypes",
                     "importlib", "builtins", "io")
# built-ins gold code may neither call nor name (``run = exec`` is refused as ``exec()``)
FORBIDDEN_CALLS = ("open", "exec", "eval", "compile", "__import__", "getattr", "setattr",
                   "delattr", "globals", "locals", "vars", "breakpoint", "input")
# Playwright methods that act: gold code never calls them (the proxies also refuse them).
ACTING_METHODS = ("fill", "dblclick", "press", "press_sequentially", "check", "uncheck",
                  "set_checked", "select_option", "select_text", "set_input_files",
                  "evaluate", "evaluate_all", "evaluate_handle", "dispatch_event", "tap",
                  "hover", "focus", "blur", "drag_to", "clear", "goto", "reload", "go_back",
                  "go_forward", "add_init_script", "route", "expose_function", "set_content",
                  "keyboard", "mouse", "element_handle", "element_handles",
                  # files: gold code reads inputs (o.input_text) and never writes
                  "write_text", "write_bytes", "unlink", "touch", "mkdir", "rmdir",
                  "symlink_to", "chmod")


# -- static guard ----------------------------------------------------------------------------
def check_gold_source(source: str, filename: str = GOLD_FILE) -> list[str]:
    """Problems that make gold code act around the agent API; empty when it is clean."""
    problems = []
    tree = ast.parse(source, filename)
    for node in ast.walk(tree):
        where = f"{filename}:{getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [
                node.module or ""]
            for name in names:
                if any(name == f or name.startswith(f + ".") for f in FORBIDDEN_IMPORTS):
                    problems.append(f"{where}: imports {name} (gold code acts only through "
                                    "the Oracle it is given)")
        elif isinstance(node, ast.Name) and node.id in FORBIDDEN_CALLS:
            problems.append(f"{where}: calls {node.id}()")
        elif isinstance(node, ast.Name) and node.id.startswith("__"):
            problems.append(f"{where}: names {node.id} (the module's or the "
                            "interpreter's internals)")
        elif isinstance(node, ast.Attribute):
            if node.attr.startswith("_"):
                problems.append(f"{where}: reaches into the private attribute {node.attr}")
            elif node.attr in ("click", "type") and not isinstance(node.value, ast.Name):
                problems.append(f"{where}: .{node.attr} on a locator — use o.{node.attr}(locator)")
            elif node.attr in ACTING_METHODS:
                problems.append(f"{where}: uses .{node.attr} — act through the agent API "
                                "(o.click, o.type, o.key, o.enter_text ...)")
    return problems


def load_gold(task_folder: Path) -> Callable[[Any], None]:
    """The ``solve`` function of a task's ``gold.py``, after the static guard."""
    path = Path(task_folder) / GOLD_FILE
    if not path.is_file():
        raise OracleError(f"{path} does not exist: this task has no oracle yet")
    problems = check_gold_source(path.read_text(), str(path))
    if problems:
        raise OracleViolation("gold code acts around the agent API:\n" + "\n".join(problems))
    spec = importlib.util.spec_from_file_location(f"gold_{path.parent.name}", path)
    if spec is None or spec.loader is None:
        raise OracleError(f"{path} cannot be imported as a Python module")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    solve = getattr(module, "solve", None)
    if not callable(solve):
        raise OracleError(f"{path} must define solve(o)")
    return solve


# -- read-only locators ----------------------------------------------------------------------
class ReadOnly:
    """A Playwright page or locator that only builds locators and reads.

    It lives in the gold solution's thread; every read runs on the episode's event loop.
    """

    __slots__ = ("__target", "__run", "__where")

    def __init__(self, target: Any, run: Callable[[Any], Any], where: str):
        self.__target = target
        self.__run = run
        self.__where = where

    def __getattr__(self, name: str) -> Any:
        if name in READ_ONLY_PROPERTIES:
            value = getattr(self.__target, name)
            return ReadOnly(value, self.__run, self.__where) if _is_locatorish(value) else value
        if name not in READ_ONLY_METHODS:
            raise OracleViolation(
                f"{self.__where}.{name} is not available to the oracle: it may locate and "
                "read, and must act through the agent API (o.click, o.type, o.key, ...)")
        method = getattr(self.__target, name)

        def call(*args: Any, **kwargs: Any) -> Any:
            # locators given as arguments (filter(has=...), and_, or_) are proxies too
            args = tuple(_unwrap(a) for a in args)
            kwargs = {k: _unwrap(v) for k, v in kwargs.items()}
            value = method(*args, **kwargs)
            if asyncio.iscoroutine(value):
                value = self.__run(value)
            if isinstance(value, list):
                return [ReadOnly(v, self.__run, self.__where) if _is_locatorish(v) else v
                        for v in value]
            return ReadOnly(value, self.__run, self.__where) if _is_locatorish(value) else value

        return call

    def __repr__(self) -> str:
        return f"<read-only {self.__where}>"

    def unwrap_for_driver(self, key: object) -> Any:
        """The Playwright object, for the driver's own geometry code (not for gold code)."""
        if key is not DRIVER_KEY:
            raise OracleViolation("only the oracle driver may unwrap a locator")
        return self.__target


DRIVER_KEY = object()


def _unwrap(value: Any) -> Any:
    """The Playwright object behind a read-only proxy passed back into a locator method."""
    return value.unwrap_for_driver(DRIVER_KEY) if isinstance(value, ReadOnly) else value


def _is_locatorish(value: Any) -> bool:
    return type(value).__name__ in ("Locator", "FrameLocator", "Page", "Frame")
