"""A published app's interpreter started early (``episodes.prestart``): it waits on its pipe,
then runs the app as ``python SCRIPT``/``python -m MODULE`` would, with the display's
variables; an episode that ends first closes the pipe and the app never runs."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from episodes import prestart
from episodes.warm import warm_up

APP = """import json, os, sys
from pathlib import Path
Path(sys.argv[1]).write_text(json.dumps({"argv": sys.argv[1:], "name": __name__,
    "display": os.environ.get("DISPLAY"), "warm": "colorsys" in sys.modules}))
sys.exit(3)
"""


def _prestarted(tmp_path: Path, *command: str) -> tuple[subprocess.Popen, int]:
    read_fd, write_fd = os.pipe()
    proc = subprocess.Popen(
        [sys.executable, "-m", "episodes.prestart", "--go", str(read_fd), "--warm", "colorsys",
         "--", *command], pass_fds=(read_fd,), env={**os.environ, "DISPLAY": ":0"})
    os.close(read_fd)
    return proc, write_fd


def test_the_app_runs_once_told_with_the_display_it_is_given(tmp_path):
    script, out = tmp_path / "app.py", tmp_path / "out.json"
    script.write_text(APP)
    proc, go = _prestarted(tmp_path, str(script), str(out), "--flag")
    os.write(go, json.dumps({"DISPLAY": ":57"}).encode() + b"\n")
    os.close(go)
    assert proc.wait(30) == 3  # the app's own exit status
    seen = json.loads(out.read_text())
    assert seen == {"argv": [str(out), "--flag"], "name": "__main__", "display": ":57",
                    "warm": True}


def test_an_app_never_told_to_go_does_not_run(tmp_path):
    script, out = tmp_path / "app.py", tmp_path / "out.json"
    script.write_text(APP)
    proc, go = _prestarted(tmp_path, str(script), str(out))
    os.close(go)
    assert proc.wait(30) == 0
    assert not out.exists()


def test_its_command_line_is_checked():
    assert prestart.parse(["--go", "5", "--warm", "a", "--", "-m", "mod", "x"]) == (
        5, ["a"], ["-m", "mod", "x"])
    for bad in (["--go", "5"], ["--", "app.py"], ["--go", "5", "--", "-m"],
                ["--go", "5", "--odd", "--", "app.py"]):
        with pytest.raises(ValueError):
            prestart.parse(bad)
    assert prestart.main(["--", "app.py"]) == 2


FD_APP = """import json, os, socket, sys
from pathlib import Path
sock = socket.socket(fileno=int(sys.argv[2]))
Path(sys.argv[1]).write_text(json.dumps({"port": sock.getsockname()[1],
    "warm": "colorsys" in sys.modules, "extra": os.environ.get("EXTRA")}))
"""


def test_spawn_passes_its_descriptors_and_runs_once_told(tmp_path):
    """How an episode prestarts its web server: the listening socket bound for it goes
    through the waiting interpreter to the server it becomes."""
    import socket

    script, out = tmp_path / "server.py", tmp_path / "out.json"
    script.write_text(FD_APP)
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        fd = listener.fileno()
        process, go = prestart.spawn([sys.executable, str(script), str(out), str(fd)],
                                     ["colorsys"], name="server", env=dict(os.environ),
                                     log_path=tmp_path / "server.log", pass_fds=(fd,))
        try:
            assert not out.exists()
            prestart.go(go, {"EXTRA": "yes"})
            for _ in range(3000):
                if process.poll() is not None:
                    break
                time.sleep(0.01)
            assert process.poll() == 0
        finally:
            process.stop()
        assert json.loads(out.read_text()) == {"port": listener.getsockname()[1],
                                               "warm": True, "extra": "yes"}


def test_warming_imports_modules_and_calls_the_functions_named_after_them(tmp_path,
                                                                          monkeypatch):
    (tmp_path / "warmed_here.py").write_text("CALLS = []\ndef ready():\n    CALLS.append(1)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    # what cannot be warmed is left for the app to report when it runs
    warm_up(["warmed_here:ready", "no_such_module_here", "warmed_here:nothing",
             "warmed_here:ready"])
    assert sys.modules["warmed_here"].CALLS == [1, 1]


def test_every_warm_entry_an_episode_names_exists():
    """``warm_up`` ignores a failure (so a misspelt entry would only be slower): each name
    the portal and the published apps warm must import, and name a function."""
    from episodes.config import DESKTOP_SYSTEMS
    from episodes.episode import portal_warm_imports, warm_pool_modules
    from episodes.published_apps import WARM_IMPORTS, warm_imports
    from episodes.workstation import SITE_HOSTS

    names = {*portal_warm_imports(list(SITE_HOSTS)), *warm_pool_modules(),
             *(name for module in WARM_IMPORTS for system in DESKTOP_SYSTEMS
               for name in warm_imports(module, system))}
    assert "desktop_ehr.personas.powerchart" in names
    calls = [name for name in names if ":" in name]
    assert {"portal_web.ehr.app:warm", "sqlalchemy.orm:configure_mappers"} <= set(calls)
    for name in sorted(names):
        module, _, function = name.partition(":")
        imported = importlib.import_module(module)
        assert not function or callable(getattr(imported, function)), name
    # the pool calls after it imported everything (the mappers of every store module)
    pool = warm_pool_modules()
    first_call = next(i for i, name in enumerate(pool) if ":" in name)
    assert all(":" in name for name in pool[first_call:])
