"""The workstation browser's confined view: the plan, the namespace it makes (an empty root
where only the system, read-only, and the episode's folders are bound back), the refusal to
run a browser that cannot be confined, and a real episode whose Chromium sees neither the
repository (the task seeds) nor any regular file of the machine's root, with a minimal
environment that still carries the leak check's marker."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from types import SimpleNamespace

import pytest

from episodes import confine, confine_exec
from episodes.confine import Confinement
from episodes.lockdown import WorkstationError
from episodes.processes import alive, pids_with_argument, with_argument_and_descendants
from sandbox.paths import REPO_ROOT, TASKS_DIR
from tests.requirements import requires

# what the confined root may hold at its top level: the system, /proc, /dev, /tmp, the
# clinic's /home and the first folder of the run's own path
SYSTEM_NAMES = {"bin", "sbin", "lib", "lib32", "lib64", "libx32", "usr", "etc", "var", "proc",
                "dev", "tmp", "home"}


def _run_folders(root: Path) -> dict[str, Path]:
    folders = {name: root / name for name in ("home", "input", "downloads", "output")}
    for folder in folders.values():
        folder.mkdir(parents=True, exist_ok=True)
    for piece in confine.HOME_PIECES:
        (folders["home"] / piece).mkdir()
    return folders


def _view(run: dict[str, Path]) -> Confinement:
    return Confinement.for_browser(home=run["home"], documents=run["input"],
                                   downloads=run["downloads"], output=run["output"])


def test_the_plan_starts_from_an_empty_root_and_binds_back_only_what_the_browser_needs(
        tmp_path):
    run = _run_folders(tmp_path / "run")
    plan = _view(run).mount_plan()
    assert plan[0] == ["root", str((tmp_path / "run" / ".browser-root").resolve())]
    assert plan[-1] == ["pivot"]
    binds = {step[2]: step[0] for step in plan if step[0] in ("bind", "robind")}
    sources = {step[2]: step[1] for step in plan if step[0] in ("bind", "robind")}
    # the run's home at its own path (the profiles' paths), writable
    assert binds[str(run["home"].resolve())] == "bind"
    # the run's folders in the clinic's home: Downloads writable, Documents and Output not
    clinic = confine.CLINIC_HOME
    assert ["tmpfs", str(clinic), "0755"] in plan
    for name, folder, op in (("Documents", "input", "robind"),
                             ("Downloads", "downloads", "bind"),
                             ("Output", "output", "robind"),
                             (".config", "home/.config", "bind")):
        target = str(clinic / name)
        assert binds[target] == op and sources[target] == str(
            (tmp_path / "run" / folder).resolve()), name
    # and nowhere else: not at their own paths
    for folder in ("input", "downloads", "output"):
        assert str(run[folder].resolve()) not in binds
    # the system read-only; nothing else of the machine: not /, not a whole /etc, /root,
    # /work, /home, /opt, the repository, the stores or the host's /tmp
    assert binds["/usr"] == "robind"
    for target, op in binds.items():
        if target == str(run["home"].resolve()) or target.startswith(
                ("/dev/", f"{clinic}/")):
            continue
        assert op == "robind", target
        assert target == "/usr" or target.startswith(("/etc/", "/var/cache/", "/tmp/.X11")), \
            target
    assert "/etc/shadow" not in binds and "/etc/gshadow" not in binds
    assert not any(REPO_ROOT.resolve() == Path(t) or REPO_ROOT.resolve() in Path(t).parents
                   for t in binds)
    # new, empty folders rather than the machine's
    assert ["proc", "/proc"] in plan and ["tmpfs", "/tmp", "1777"] in plan
    assert ["tmpfs", "/dev", "0755"] in plan
    # the new /tmp and home come before the binds that may lie under them (a run under
    # /tmp, the run's folders in the home)
    first_bind = min(i for i, step in enumerate(plan) if step[0] in ("bind", "robind")
                     and not step[1].startswith("/dev/"))
    assert plan.index(["tmpfs", "/tmp", "1777"]) < first_bind
    assert plan.index(["tmpfs", str(clinic), "0755"]) < first_bind


def test_a_browser_outside_usr_gets_its_own_folder_bound_read_only(tmp_path):
    run = _run_folders(tmp_path / "run")
    program = tmp_path / "opt" / "chrome" / "chrome"
    program.parent.mkdir(parents=True)
    program.write_text("#!/bin/sh\n")
    view = Confinement.for_browser(home=run["home"], documents=run["input"],
                                   downloads=run["downloads"], program=str(program))
    assert ["robind", str(program.parent), str(program.parent)] in view.mount_plan()


def test_the_launcher_passes_the_plan_and_the_program_apart(tmp_path):
    view = _view(_run_folders(tmp_path / "run"))
    argv = view.command("/usr/lib/chromium/chromium")
    script = argv.index(os.path.realpath(confine_exec.__file__))
    steps, program = confine_exec.parse([*argv[script + 1:], "--remote-debugging-pipe"])
    assert steps == view.mount_plan()
    assert program == ["/usr/lib/chromium/chromium", "--remote-debugging-pipe"]
    with pytest.raises(ValueError):
        confine_exec.parse(["root", "/srv", "pivot", "--"])  # no program
    with pytest.raises(ValueError):
        confine_exec.parse(["root", "/srv", "chmod", "/srv", "pivot", "--", "/bin/true"])
    with pytest.raises(ValueError):  # a plan that would not leave the machine's root
        confine_exec.parse(["root", "/srv", "--", "/bin/true"])


def test_the_switch_turns_confinement_off(monkeypatch):
    monkeypatch.setenv(confine.SWITCH, "0")
    assert not confine.enabled()
    monkeypatch.setenv(confine.SWITCH, "1")
    assert confine.enabled()


def _workstation(tmp_path: Path):
    from episodes.workstation import Workstation

    run = _run_folders(tmp_path / "run")
    return Workstation(display=SimpleNamespace(name=":99"), home=run["home"],
                       documents=run["input"], downloads=run["downloads"], portal_port=1,
                       sites=[], tabs=[], clock_path=tmp_path / "clock",
                       logs_dir=tmp_path / "run" / "logs")


def test_a_browser_that_cannot_be_confined_is_refused_unless_switched_off(
        tmp_path, monkeypatch):
    def no_namespace(self, timeout=10.0):
        raise confine.ConfinementError("unshare failed (status 1): Operation not permitted")

    monkeypatch.setattr(Confinement, "check", no_namespace)
    monkeypatch.delenv(confine.SWITCH, raising=False)
    with pytest.raises(WorkstationError) as refused:
        _workstation(tmp_path)._confined("/usr/lib/chromium/chromium")
    assert f"{confine.SWITCH}=0" in str(refused.value)
    assert "Operation not permitted" in str(refused.value)
    # explicitly allowed: the plain launcher, noted in the run's logs
    monkeypatch.setenv(confine.SWITCH, "0")
    station = _workstation(tmp_path / "allowed")
    launcher = station._confined("/usr/lib/chromium/chromium")
    assert Path(launcher).name == "chromium-launch.sh"
    assert "not confined" in (station.logs_dir / "confinement.log").read_text()


class _Launcher:
    """Playwright's chromium launcher: either starts (returns a context) or fails."""

    def __init__(self, fails: bool):
        self.fails, self.launched = fails, []

    async def launch_persistent_context(self, profile, executable_path, **_kwargs):
        self.launched.append(executable_path)
        if self.fails:
            raise RuntimeError("Browser.launch: Target page, context or browser has been closed")
        return "context"


def test_the_confinement_is_checked_only_when_the_browser_does_not_start(
        tmp_path, monkeypatch):
    checks: list[Path] = []

    def no_namespace(self, timeout=10.0):
        checks.append(self.stage)
        raise confine.ConfinementError("unshare failed (status 1): Operation not permitted")

    monkeypatch.setattr(Confinement, "check", no_namespace)
    monkeypatch.delenv(confine.SWITCH, raising=False)

    def launch(station, fails: bool):
        station.display = SimpleNamespace(name=":99", width=1280, height=800)
        chromium = SimpleNamespace(chromium=_Launcher(fails))
        return asyncio.run(station._launch(
            chromium, "/usr/lib/chromium/chromium", station.home / ".config" / "chromium",
            "MAP * ~NOTFOUND", [], [], "about:blank")), chromium.chromium

    # a browser that starts is confined by its launcher (unshare fails before it could
    # start otherwise): no extra namespace made first, on the start's path
    context, launcher = launch(_workstation(tmp_path / "starts"), fails=False)
    assert context == "context" and checks == []
    assert Path(launcher.launched[0]).name == "chromium-confined.sh"
    # one that does not start: then the check says why, naming the switch
    with pytest.raises(WorkstationError) as refused:
        launch(_workstation(tmp_path / "fails"), fails=True)
    assert f"{confine.SWITCH}=0" in str(refused.value)
    assert "Operation not permitted" in str(refused.value)
    assert len(checks) == 1


def test_the_browser_gets_a_minimal_environment_not_its_launchers(tmp_path, monkeypatch):
    monkeypatch.setenv("EHR_PLANTED_SECRET", "s3cret")
    monkeypatch.setenv("PYTHONPATH", "/work")
    monkeypatch.setenv("EHR_TEST_MARK", "m")
    monkeypatch.delenv(confine.SWITCH, raising=False)
    station = _workstation(tmp_path)
    env = station.browser_environment()
    assert "EHR_PLANTED_SECRET" not in env and "PYTHONPATH" not in env
    assert set(env) <= confine.BROWSER_VARIABLES | set(confine.PASSED_ENVIRONMENT)
    assert env["DISPLAY"] == ":99"
    assert env["EHR_TEST_MARK"] == "m"  # the leak checks still find the browser
    # confined, the browser's folders are the clinic's, the same on every machine
    assert env["HOME"] == "/home/clinic"
    assert env["XDG_DOCUMENTS_DIR"] == "/home/clinic/Documents"
    assert env["XDG_DOWNLOAD_DIR"] == "/home/clinic/Downloads"
    station._prepare_home()
    bookmarks = (station.home / ".config" / "gtk-3.0" / "bookmarks").read_text().split("\n")
    assert bookmarks[:3] == ["file:///home/clinic/Documents Documents",
                             "file:///home/clinic/Downloads Downloads",
                             "file:///home/clinic/Output Output"]
    gtk = (station.home / ".config" / "gtk-3.0" / "settings.ini").read_text()
    assert "gtk-recent-files-enabled = false" in gtk  # nothing carried over a reset
    # unconfined, they are the run's own
    monkeypatch.setenv(confine.SWITCH, "0")
    env = station.browser_environment()
    assert env["HOME"] == str(station.home.resolve())
    assert env["XDG_DOCUMENTS_DIR"] == str(station.documents.resolve())


def _namespaces_allowed() -> bool:
    try:
        return subprocess.run(["unshare", "--mount", "--propagation", "private", "--pid",
                               "--fork", "true"], capture_output=True,
                              timeout=10).returncode == 0
    except OSError:
        return False


needs_namespaces = requires(_namespaces_allowed(),
                            "no mount namespaces here (not root, or a default container)")


@pytest.mark.slow
@needs_namespaces
def test_a_command_through_the_launcher_sees_only_the_episode_folders(tmp_path):
    run = _run_folders(tmp_path / "run")
    (run["input"] / "referral.txt").write_text("the referral\n")
    marker = tmp_path / "gold-marker.yaml"
    marker.write_text("secret: 42\n")
    view = _view(run)
    view.check()
    launcher = view.launcher(tmp_path / "logs" / "confined.sh", "/bin/sh")
    seed = next(TASKS_DIR.glob("*/seed/*.yaml"), REPO_ROOT / "pyproject.toml")
    host_files = [p for p in Path("/").iterdir() if p.is_file() and not p.is_symlink()]
    probe = f"""
        cat /home/clinic/Documents/referral.txt
        for p in {marker} {seed} {REPO_ROOT}/pyproject.toml /proc/1/root{seed} \\
                 /root /work /opt /etc/shadow {launcher} {run['input']} \\
                 {run['downloads']} {run['output']} \\
                 {' '.join(str(p) for p in host_files)}; do
            [ -e "$p" ] && [ -n "$(ls -A "$p" 2>/dev/null || echo file)" ] && echo "SEEN $p"
        done
        for p in /* /proc/1/root/*; do [ -f "$p" ] && echo "FILE AT ROOT $p"; done
        echo "TOP $(ls -A / | tr '\\n' ' ')"
        touch /home/clinic/Documents/new.txt 2>/dev/null && echo "WROTE input"
        touch /home/clinic/Output/new.txt 2>/dev/null && echo "WROTE output"
        touch /new.txt 2>/dev/null && echo "WROTE root"
        echo "HOME $(ls -A /home | tr '\\n' ' ')"
        touch /home/clinic/Downloads/saved.txt && echo "downloads writable"
        touch /tmp/scratch && echo "tmp writable"
        echo pipe-ok >&4
        true
    """
    read_end, write_end = os.pipe()

    def as_fds_3_and_4() -> None:  # the way Playwright hands Chromium its pipe
        high_r, high_w = os.dup(read_end), os.dup(write_end)
        os.dup2(high_r, 3)
        os.dup2(high_w, 4)

    done = subprocess.run([str(launcher), "-c", probe], capture_output=True, text=True,
                          timeout=30, preexec_fn=as_fds_3_and_4, pass_fds=(3, 4))
    os.close(write_end)
    with os.fdopen(read_end) as pipe:
        through_pipe = pipe.read()
    assert done.returncode == 0, done.stderr
    assert "the referral" in done.stdout
    assert "SEEN" not in done.stdout, done.stdout
    assert "FILE AT ROOT" not in done.stdout, done.stdout
    top = set(done.stdout.split("TOP ", 1)[1].split("\n", 1)[0].split())
    assert top <= SYSTEM_NAMES | {tmp_path.resolve().parts[1]}, top
    assert "WROTE" not in done.stdout
    assert done.stdout.split("HOME ", 1)[1].split("\n", 1)[0].split() == ["clinic"]
    assert "downloads writable" in done.stdout and "tmp writable" in done.stdout
    assert (run["downloads"] / "saved.txt").exists()  # the same folder, not a copy
    assert through_pipe == "pipe-ok\n"
    assert marker.read_text() == "secret: 42\n"  # nothing outside was touched


@pytest.mark.slow
@needs_namespaces
def test_what_the_launcher_runs_dies_with_the_process_that_launched_it(tmp_path):
    """As Chromium's crash handler does, the program leaves its session; when the process
    that ran the launcher (Playwright's driver) is killed, nothing of it is left."""
    view = _view(_run_folders(tmp_path / "run"))
    launcher = view.launcher(tmp_path / "logs" / "confined.sh", "/bin/sh")
    token = uuid.uuid4().hex
    # the detached one's mark is made when it runs: no other command line holds it
    probe = f"M={token}; setsid sh -c \"sleep 600; : $M-detached\" & sleep 600"
    driver = subprocess.Popen(
        [sys.executable, "-c", "import subprocess, sys, time; "
         "subprocess.Popen(sys.argv[1:]); time.sleep(600)", str(launcher), "-c", probe])
    try:
        deadline = time.monotonic() + 15
        while not pids_with_argument(f"{token}-detached"):
            assert time.monotonic() < deadline, "the launcher's program never ran"
            time.sleep(0.05)
        (detached,) = pids_with_argument(f"{token}-detached")
        launched = with_argument_and_descendants(token) - {driver.pid}
        # unshare, the program, its sleep, the detached one and its sleep
        assert len(launched) >= 5, launched
        assert os.getsid(detached) != os.getsid(driver.pid)  # out of the launcher's session
    finally:
        driver.kill()
        driver.wait()
    deadline = time.monotonic() + 10
    while any(alive(p) for p in launched) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = [p for p in launched if alive(p)]
    for pid in left:  # not to leave them to the other tests
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    assert not left, "the launched program outlived its launcher"


@pytest.mark.slow
@needs_namespaces
def test_a_real_episode_browser_sees_neither_the_seeds_nor_the_machines_root(
        tmp_path, demo_catalog, no_leaks, monkeypatch):
    from episodes.episode import Episode

    monkeypatch.delenv(confine.SWITCH, raising=False)
    monkeypatch.setenv("EHR_PLANTED_SECRET", "s3cret")
    seed = next(TASKS_DIR.glob("*/seed/*.yaml"))
    host_files = [p.name for p in Path("/").iterdir() if p.is_file()]

    async def scenario() -> None:
        episode = Episode(demo_catalog.get("demo-01"), run_dir=tmp_path / "run")
        try:
            await episode.start()
            run = episode.run_dir
            assert not (run / "logs" / "confinement.log").exists()
            browsers = [pid for pid in pids_with_argument(str(run / "home" / ".config"))
                        if Path(f"/proc/{pid}/comm").read_text().strip() == "chromium"]
            assert browsers
            documents = sorted(p.name for p in (run / "input").iterdir())
            assert documents
            for pid in browsers:
                view = Path(f"/proc/{pid}/root")
                top = {p.name for p in view.iterdir()}
                assert top <= SYSTEM_NAMES | {run.resolve().parts[1]}, top
                assert not [p for p in view.iterdir() if p.is_file()]
                assert not set(host_files) & top
                assert not (view / seed.relative_to("/")).exists()
                assert not (view / "work" / "shared").exists()
                assert not (view / (run / "stores").relative_to("/")).exists()
                seen = sorted(p.name for p in (view / "home" / "clinic" / "Documents")
                              .iterdir())
                assert seen == documents
                assert not (view / (run / "input").relative_to("/")).exists()
            # the environment of each main browser process (its helpers write their titles
            # over theirs)
            mains = [pid for pid in browsers if _parent_name(pid) != "chromium"]
            assert mains
            for pid in mains:
                environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
                names = {e.split(b"=", 1)[0].decode() for e in environ if e}
                assert "EHR_PLANTED_SECRET" not in names
                assert b"HOME=/home/clinic" in environ
                # PWD: the launcher's sh; LC_CTYPE: Python's locale coercion in confine_exec
                assert names <= confine.BROWSER_VARIABLES | set(confine.PASSED_ENVIRONMENT) \
                    | {"PWD", "LC_CTYPE"}, names
            # the leak check's positive control: while the episode runs, the marker it looks
            # for is on the episode's processes (the display, the confined browser)
            marked = {pid for pid, _ in no_leaks(0)}
            assert set(mains) | set(episode.display.pids) <= marked, marked
            # and the browser works: the Workspace tab loaded through the pipe
            page = episode.workstation.page_for("workspace")
            assert "Workspace" in await page.title()
        finally:
            await episode.stop()

    asyncio.run(scenario())


def _parent_name(pid: int) -> str:
    stat = Path(f"/proc/{pid}/stat").read_text()
    parent = stat[stat.rfind(")") + 2:].split()[1]
    return Path(f"/proc/{parent}/comm").read_text().strip()
