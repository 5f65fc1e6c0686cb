"""Confining the workstation's browser to the episode's own folders.

Chromium's GTK file chooser (how a user attaches a file in a portal or the Workspace) can
browse any folder the browser process can read, URL blocklists notwithstanding. So the
browser runs in a private mount and PID namespace (``unshare``, we run as root) where every
top-level folder except the system's own (``/usr``, ``/etc``, ``/dev``, ``/run``, ``/var``
…) is an empty tmpfs — the repository (task seeds, gold facts), the stores, ``/tmp``,
``/root``, ``/work``, ``/opt`` … — and only the episode's folders the user should see are
bound back at their own paths: the browser's HOME (its profile), Documents (``input/``,
read-only), Output (read-only), Downloads and the X socket folder (read-only).

The PID namespace with its own ``/proc`` matters as much as the mounts: otherwise
``/proc/1/root/…`` would lead back to the machine's file system.

``Confinement.launcher()`` writes a two-line shell script used as Playwright's
``executable_path``: it ``exec``\\s ``unshare`` (the namespaces), which ``exec``\\s
``episodes/confine_exec.py`` (a script: the mounts, by system call), which ``exec``\\s
the real browser with the same arguments — so the ``--remote-debugging-pipe`` file
descriptors 3 and 4 reach Chromium untouched. ``EHR_SANDBOX_CONFINE=0`` switches confinement off (for
debugging); when the namespace cannot be made (no privilege), the caller falls back to the
plain browser with a warning.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from episodes import confine_exec
from sandbox.paths import REPO_ROOT

# Top-level folders the browser keeps: the system it runs on. Every other top-level folder
# is hidden (default deny), whatever the machine has there.
KEPT_TOP_LEVEL = frozenset({"bin", "sbin", "lib", "lib32", "lib64", "libx32", "usr", "etc",
                            "dev", "proc", "sys", "run", "var"})
# Hidden even when they are somewhere the rules above keep.
ALWAYS_HIDDEN = ("/root", "/home", "/tmp", "/var/tmp", "/work", "/opt", "/srv", "/mnt")
X11_SOCKETS = Path("/tmp/.X11-unix")
UNSHARE = ("unshare", "--mount", "--propagation", "private", "--pid", "--fork",
           "--kill-child", "--mount-proc")
SWITCH = "EHR_SANDBOX_CONFINE"


class ConfinementError(RuntimeError):
    """The browser cannot be confined on this machine (no mount namespace)."""


@dataclass(frozen=True)
class Bind:
    """A folder bound back into the confined view at its own path."""

    path: Path
    writable: bool = False


def enabled() -> bool:
    """False when ``EHR_SANDBOX_CONFINE`` is ``0``/``no``/``off``/``false``."""
    return os.environ.get(SWITCH, "1").strip().lower() not in ("0", "no", "off", "false")


def _under(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def hidden_folders(root: Path = Path("/")) -> list[Path]:
    """The folders covered by an empty tmpfs: every top-level folder not in
    ``KEPT_TOP_LEVEL``, ``ALWAYS_HIDDEN`` and the repository; none nested in another."""
    found = {p for p in root.iterdir() if p.is_dir() and not p.is_symlink()
             and p.name not in KEPT_TOP_LEVEL}
    found |= {Path(p) for p in ALWAYS_HIDDEN} | {REPO_ROOT.resolve()}
    found = {p for p in found if p.is_dir() and p != Path("/")}
    return sorted(p for p in found if not any(q != p and _under(p, q) for q in found))


@dataclass(frozen=True)
class Confinement:
    """What the confined program sees: ``hidden`` folders are empty, ``visible`` ones are
    bound back on top of them (read-only unless writable)."""

    hidden: tuple[Path, ...]
    visible: tuple[Bind, ...]

    @classmethod
    def for_browser(cls, *, home: Path, documents: Path, downloads: Path,
                    output: Path | None = None) -> Confinement:
        """The workstation browser's view: its HOME, Documents, Downloads, Output, X."""
        binds = [Bind(Path(home).resolve(), True), Bind(Path(documents).resolve()),
                 Bind(Path(downloads).resolve(), True)]
        if output is not None:
            binds.append(Bind(Path(output).resolve()))
        binds.append(Bind(X11_SOCKETS))
        return cls.of(binds)

    @classmethod
    def of(cls, binds: list[Bind]) -> Confinement:
        visible = tuple(sorted((b for b in binds if b.path.is_dir()),
                               key=lambda b: (len(b.path.parts), str(b.path))))
        return cls(tuple(hidden_folders()), visible)

    def _stage(self) -> Path:
        """A hidden folder holding none of the visible ones: the sources are bound there
        before the tmpfs mounts cover them."""
        for folder in self.hidden:
            if not any(_under(b.path, folder) for b in self.visible):
                return folder
        raise ConfinementError("no hidden folder is free to stage the episode's folders in")

    def mount_plan(self) -> list[list[str]]:
        """The mounts made inside the new namespace, in order, as ``[op, path...]``:
        stage the visible folders, cover the hidden ones, move the visible ones back."""
        stage = self._stage()
        plan = [["tmpfs", str(stage)]]
        plan += [["bind", str(b.path), f"{stage}/{i}"] for i, b in enumerate(self.visible)]
        plan += [["tmpfs", str(folder)] for folder in self.hidden if folder != stage]
        for i, bind in enumerate(self.visible):
            plan.append(["move", f"{stage}/{i}", str(bind.path)])
            if not bind.writable:
                plan.append(["readonly", str(bind.path)])
        plan.append(["readonly", str(stage)])
        return plan

    def command(self, program: str) -> list[str]:
        """argv that runs ``program`` (arguments follow) inside the confined view: unshare
        makes the namespaces, ``episodes/confine_exec.py`` (a script) mounts and ``exec``\\s
        the program."""
        steps = [part for step in self.mount_plan() for part in step]
        return [*UNSHARE, "--", os.path.realpath(sys.executable), "-I", "-S",
                os.path.realpath(confine_exec.__file__), *steps, "--", program]

    def launcher(self, path: Path, program: str, stderr_log: Path | None = None) -> Path:
        """Write an executable script at ``path`` that runs ``program`` confined, with the
        arguments it is given (Playwright's ``executable_path``); its standard error is
        appended to ``stderr_log`` when given."""
        argv = " ".join(shlex.quote(a) for a in self.command(program))
        redirect = f" 2>>{shlex.quote(str(stderr_log))}" if stderr_log is not None else ""
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("#!/bin/sh\n# The episode's browser in its own mount and PID "
                        "namespace (episodes.confine).\n"
                        f'exec {argv} "$@"{redirect}\n')
        path.chmod(0o755)
        return path

    def check(self, timeout: float = 10.0) -> None:
        """Make the same namespace once with ``/bin/true`` as the program; raise
        ConfinementError if it cannot be made (no privilege, a mount refused)."""
        try:
            done = subprocess.run(self.command("/bin/true"), capture_output=True, text=True,
                                  timeout=timeout)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise ConfinementError(f"unshare could not run: {exc}") from exc
        if done.returncode != 0:
            raise ConfinementError(
                f"unshare failed (status {done.returncode}): {done.stderr.strip()[-400:]}")

