"""The workstation browser's confined view: the plan, the namespace it makes, and a real
episode whose Chromium cannot see the repository (the task seeds) while it sees Documents."""

from __future__ import annotations

import asyncio
import os
import subprocess
from pathlib import Path

import pytest

from episodes import confine, confine_exec
from episodes.confine import Confinement
from episodes.processes import pids_with_argument
from sandbox.paths import REPO_ROOT, TASKS_DIR


def _run_folders(root: Path) -> dict[str, Path]:
    folders = {name: root / name for name in ("home", "input", "downloads", "output")}
    for folder in folders.values():
        folder.mkdir(parents=True, exist_ok=True)
    return folders


def _view(run: dict[str, Path]) -> Confinement:
    return Confinement.for_browser(home=run["home"], documents=run["input"],
                                   downloads=run["downloads"], output=run["output"])


def _covered(path: Path, view: Confinement) -> bool:
    return any(path == h or h in path.parents for h in view.hidden)


def test_the_plan_hides_the_repository_and_the_machine_and_binds_back_the_run(tmp_path):
    view = _view(_run_folders(tmp_path / "run"))
    for secret in (REPO_ROOT / "fixtures", TASKS_DIR, Path("/root"), Path("/tmp")):
        assert _covered(secret.resolve(), view), secret
    for kept in ("/usr", "/etc", "/dev", "/proc", "/sys", "/run"):
        assert not _covered(Path(kept), view), kept
    # no hidden folder inside another (a tmpfs would hide the mount point of the next)
    assert not any(a != b and a in b.parents for a in view.hidden for b in view.hidden)
    binds = {b.path: b.writable for b in view.visible}
    assert binds[(tmp_path / "run" / "input").resolve()] is False
    assert binds[(tmp_path / "run" / "output").resolve()] is False
    assert binds[(tmp_path / "run" / "home").resolve()] is True
    assert binds[(tmp_path / "run" / "downloads").resolve()] is True
    plan = view.mount_plan()
    assert ["readonly", str((tmp_path / "run" / "input").resolve())] in plan
    assert ["readonly", str((tmp_path / "run" / "home").resolve())] not in plan
    # every visible folder is staged before the tmpfs that would cover it, and moved after
    order = [step[0] for step in plan]
    assert order.index("move") > max(i for i, op in enumerate(order) if op == "tmpfs")
    assert order.index("bind") < order.index("tmpfs", 1)


def test_the_launcher_passes_the_plan_and_the_program_apart(tmp_path):
    view = _view(_run_folders(tmp_path / "run"))
    argv = view.command("/usr/lib/chromium/chromium")
    script = argv.index(os.path.realpath(confine_exec.__file__))
    steps, program = confine_exec.parse([*argv[script + 1:], "--remote-debugging-pipe"])
    assert steps == view.mount_plan()
    assert program == ["/usr/lib/chromium/chromium", "--remote-debugging-pipe"]
    with pytest.raises(ValueError):
        confine_exec.parse(["tmpfs", "/srv", "--"])  # no program
    with pytest.raises(ValueError):
        confine_exec.parse(["chmod", "/srv", "--", "/bin/true"])


def test_the_switch_turns_confinement_off(monkeypatch):
    monkeypatch.setenv(confine.SWITCH, "0")
    assert not confine.enabled()
    monkeypatch.setenv(confine.SWITCH, "1")
    assert confine.enabled()


def _namespaces_allowed() -> bool:
    try:
        return subprocess.run(["unshare", "--mount", "--propagation", "private", "true"],
                              capture_output=True, timeout=10).returncode == 0
    except OSError:
        return False


needs_namespaces = pytest.mark.skipif(not _namespaces_allowed(),
                                      reason="no mount namespaces here (not root?)")


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
    probe = f"""
        cat {run['input']}/referral.txt
        for p in {marker} {seed} {REPO_ROOT}/pyproject.toml /proc/1/root{seed} \\
                 /root /work/shared {launcher}; do
            [ -e "$p" ] && [ -n "$(ls -A "$p" 2>/dev/null || echo file)" ] && echo "SEEN $p"
        done
        touch {run['input']}/new.txt 2>/dev/null && echo "WROTE input"
        touch {run['downloads']}/saved.txt && echo "downloads writable"
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
    assert "WROTE input" not in done.stdout
    assert "downloads writable" in done.stdout
    assert (run["downloads"] / "saved.txt").exists()  # the same folder, not a copy
    assert through_pipe == "pipe-ok\n"
    assert marker.read_text() == "secret: 42\n"  # nothing outside was touched


@pytest.mark.slow
@needs_namespaces
def test_a_real_episode_browser_cannot_see_the_task_seeds(tmp_path, demo_catalog, no_leaks,
                                                          monkeypatch):
    from episodes.episode import Episode

    monkeypatch.delenv(confine.SWITCH, raising=False)
    seed = next(TASKS_DIR.glob("*/seed/*.yaml"))

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
                assert not (view / seed.relative_to("/")).exists()
                assert not (view / "work" / "shared").exists()
                assert not (view / (run / "stores").relative_to("/")).exists()
                seen = sorted(p.name for p in (view / (run / "input").relative_to("/"))
                              .iterdir())
                assert seen == documents
            # and the browser works: the Workspace tab loaded through the pipe
            page = episode.workstation.page_for("workspace")
            assert "Workspace" in await page.title()
        finally:
            await episode.stop()

    asyncio.run(scenario())
