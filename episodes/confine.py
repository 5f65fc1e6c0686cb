"""Confining the workstation's browser to the episode's own folders.

Chromium's GTK file chooser (how a user attaches a file in a portal or the Workspace) can
browse any folder the browser process can read, URL blocklists notwithstanding. So the
browser runs in a private mount and PID namespace (``unshare``, we run as root) whose root
is an **empty** tmpfs: nothing of the machine is there unless it is bound back (default
deny, whatever the machine has at ``/``). Bound back (at their own paths unless said):

* read-only: ``/usr`` (with the ``/bin``, ``/lib*``, ``/sbin`` links or folders of the
  machine), the pieces of ``/etc`` Chromium, GTK and fontconfig read (``ETC_PIECES``), the
  font cache, the folder of the browser binary when it is not under ``/usr``;
* the run's home folder at its own path (writable: the profiles, whose paths Playwright
  hands the browser) and the X socket folder;
* new and empty: ``/proc`` (of the new PID namespace), ``/dev`` with only ``null``,
  ``zero``, ``full``, ``random``, ``urandom``, ``tty`` and its own ``shm``, ``/tmp`` and
  the user's home ``/home/clinic`` (``CLINIC_HOME``), into which the run's folders are
  bound: ``.config``, ``.cache`` and ``.local`` of the run's home, ``Documents``
  (``input/``, read-only), ``Downloads`` (writable) and ``Output`` (read-only).

So the browser's HOME is ``/home/clinic`` on every machine: the file chooser's path bar
reads "clinic / Documents" wherever the run lives (the run's own path would tell the agent
the machine's layout and make every dialog's picture differ between runs, which a recorded
trace's checkpoints cannot match). ``BrowserFolders`` names the folders as the browser sees
them (``browser_folders``: the clinic's when confined, the run's own otherwise).

The root itself is read-only, and the old root is detached (``pivot_root``), so the view
has no way back to the machine's file system; the PID namespace with its own ``/proc``
matters as much (otherwise ``/proc/1/root/…`` would lead back).

``Confinement.launcher()`` writes a two-line shell script used as Playwright's
``executable_path``: it ``exec``\\s ``setpriv`` (the browser is killed when the driver
that launched it dies: ``PARENT_DEATH``), which ``exec``\\s ``unshare`` (the namespaces),
which ``exec``\\s ``episodes/confine_exec.py`` (a script: the mounts, by system call),
which ``exec``\\s the real browser with the same arguments — so the
``--remote-debugging-pipe`` file descriptors 3 and 4 reach Chromium untouched.

An unconfined browser is refused (``ConfinementError`` names the switch): only
``EHR_SANDBOX_CONFINE=0`` (or ``Workstation(confine=False)``) runs it unconfined, e.g. on a
machine without mount namespaces, for debugging.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from episodes import confine_exec

# The system the browser runs on: bound read-only (folders) or linked (merged /usr links).
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
# What Chromium, GTK, fontconfig and the C library read in /etc (none holds a secret:
# no shadow, no keys).
ETC_PIECES = ("alternatives", "chromium", "chromium.d", "fonts", "gtk-3.0", "group",
              "host.conf", "hosts", "ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime",
              "machine-id", "mime.types", "nsswitch.conf", "os-release", "passwd", "ssl",
              "timezone", "xdg")
OTHER_READ_ONLY = ("/var/cache/fontconfig",)
DEVICES = ("null", "zero", "full", "random", "urandom", "tty")
X11_SOCKETS = Path("/tmp/.X11-unix")
UNSHARE = ("unshare", "--mount", "--propagation", "private", "--pid", "--fork",
           "--kill-child")
# The launcher's first step: the browser dies with the process that launched it (Playwright's
# driver). A launch still under way when an episode stops is not seen by the stop's last look
# for its processes; once the episode's process ends, its driver ends, and with it unshare,
# its child (--kill-child) and so everything in the browser's PID namespace (Chromium's crash
# handlers, which leave Chromium's process group and session, included).
PARENT_DEATH = ("setpriv", "--pdeathsig", "KILL", "--")
SWITCH = "EHR_SANDBOX_CONFINE"
# Environment variables the browser keeps from its launcher besides the ones it is given:
# the process marker the leak checks find an episode's processes by.
PASSED_ENVIRONMENT = ("EHR_TEST_MARK",)
BROWSER_VARIABLES = frozenset({
    "HOME", "DISPLAY", "PATH", "LANG", "TZ", "TMPDIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME",
    "XDG_DATA_HOME", "XDG_DOWNLOAD_DIR", "XDG_DOCUMENTS_DIR"})


CLINIC_HOME = Path("/home/clinic")
# the run's home's folders bound into the clinic's home (the profiles, caches, GTK bookmarks)
HOME_PIECES = (".config", ".cache", ".local")


class ConfinementError(RuntimeError):
    """The browser cannot be confined on this machine (no mount namespace)."""


@dataclass(frozen=True)
class Bind:
    """A folder (or file) bound into the confined view, at ``at`` or at its own path."""

    path: Path
    writable: bool = False
    at: Path | None = None

    @property
    def target(self) -> Path:
        return self.path if self.at is None else self.at


@dataclass(frozen=True)
class BrowserFolders:
    """The episode's folders as the browser sees them (its HOME, the file chooser's
    bookmarks, its download folder, the ``file://`` it may open)."""

    home: Path
    documents: Path
    downloads: Path
    output: Path


def browser_folders(*, confined: bool, home: Path, documents: Path, downloads: Path,
                    output: Path) -> BrowserFolders:
    """The clinic's fixed folders when the browser is confined; else the run's own."""
    if confined:
        return BrowserFolders(CLINIC_HOME, CLINIC_HOME / "Documents",
                              CLINIC_HOME / "Downloads", CLINIC_HOME / "Output")
    return BrowserFolders(*(Path(p).resolve() for p in (home, documents, downloads, output)))


def enabled() -> bool:
    """False when ``EHR_SANDBOX_CONFINE`` is ``0``/``no``/``off``/``false``."""
    return os.environ.get(SWITCH, "1").strip().lower() not in ("0", "no", "off", "false")


def refusal(reason: object) -> str:
    """The one-line message of a browser that cannot be confined here."""
    return (f"the workstation browser cannot be confined on this machine ({reason}); "
            f"set {SWITCH}=0 to run it unconfined (its file chooser then sees the machine's "
            "files)")


def browser_environment(*, home: Path, display: str, documents: Path, downloads: Path,
                        base: dict[str, str] | None = None) -> dict[str, str]:
    """The whole environment the browser gets: none of its launcher's variables but the
    process marker (``PASSED_ENVIRONMENT``)."""
    source: dict[str, str] | os._Environ[str] = os.environ if base is None else base
    env = {key: source[key] for key in PASSED_ENVIRONMENT if key in source}
    env.update({
        "HOME": str(home),
        "DISPLAY": display,
        "PATH": "/usr/bin:/bin",
        "LANG": "en_US.UTF-8",
        "TZ": "America/New_York",
        "TMPDIR": "/tmp",
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_DOWNLOAD_DIR": str(downloads),
        "XDG_DOCUMENTS_DIR": str(documents),
    })
    return env


def _under(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


@dataclass(frozen=True)
class Confinement:
    """What the confined program sees: an empty root where only ``visible`` is bound back
    (read-only unless writable), plus system links, a new /proc, /dev and /tmp and the new,
    empty ``scratch`` folders (writable). ``stage`` is a host folder the new root is
    mounted on (in the namespace only)."""

    visible: tuple[Bind, ...]
    links: tuple[tuple[str, str], ...]
    stage: Path
    scratch: tuple[Path, ...] = ()

    @classmethod
    def for_browser(cls, *, home: Path, documents: Path, downloads: Path,
                    output: Path | None = None, program: str | None = None,
                    stage: Path | None = None) -> Confinement:
        """The workstation browser's view: the system read-only, the run's home, the X
        socket folder, and the clinic's home with the run's Documents, Downloads and
        Output in it."""
        home = Path(home).resolve()
        binds = [Bind(home, True), Bind(X11_SOCKETS)]
        binds += [Bind(home / piece, True, CLINIC_HOME / piece) for piece in HOME_PIECES]
        binds += [Bind(Path(documents).resolve(), at=CLINIC_HOME / "Documents"),
                  Bind(Path(downloads).resolve(), True, CLINIC_HOME / "Downloads")]
        if output is not None:
            binds.append(Bind(Path(output).resolve(), at=CLINIC_HOME / "Output"))
        if program is not None:
            folder = Path(os.path.realpath(program)).parent
            if not any(_under(folder, Path(s)) for s in SYSTEM):
                binds.append(Bind(folder))
        return cls.of(binds, stage=stage or home.parent / ".browser-root",
                      scratch=(CLINIC_HOME,))

    @classmethod
    def of(cls, binds: list[Bind], *, stage: Path,
           scratch: tuple[Path, ...] = ()) -> Confinement:
        system, links = [], []
        for name in SYSTEM:
            path = Path(name)
            if path.is_symlink():
                links.append((os.readlink(path), name))
            elif path.is_dir():
                system.append(Bind(path))
        system += [Bind(Path("/etc") / piece) for piece in ETC_PIECES]
        system += [Bind(Path(p)) for p in OTHER_READ_ONLY]
        wanted = [b for b in [*system, *binds] if b.path.exists()]
        visible = tuple(sorted(wanted, key=lambda b: (len(b.target.parts), str(b.target))))
        return cls(visible, tuple(links), Path(stage), tuple(Path(p) for p in scratch))

    def mount_plan(self) -> list[list[str]]:
        """The steps made inside the new namespace, in order, as ``[op, args...]``; paths
        other than ``root``'s and ``bind``'s first are inside the new root."""
        plan = [["root", str(self.stage)]]
        for target, name in self.links:
            plan.append(["symlink", target, name])
        # the new folders first: a run folder under /tmp is bound on top of the new /tmp,
        # the run's Documents into the new home
        plan += [["proc", "/proc"], ["tmpfs", "/dev", "0755"]]
        plan += [["bind", f"/dev/{d}", f"/dev/{d}"] for d in DEVICES
                 if Path(f"/dev/{d}").exists()]
        plan += [["tmpfs", "/dev/shm", "1777"], ["symlink", "/proc/self/fd", "/dev/fd"]]
        plan += [["tmpfs", "/tmp", "1777"]]
        plan += [["tmpfs", str(folder), "0755"] for folder in self.scratch]
        plan += [["bind" if b.writable else "robind", str(b.path), str(b.target)]
                 for b in self.visible]
        plan.append(["pivot"])
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
        arguments it is given (Playwright's ``executable_path``), killed when its parent
        dies (``PARENT_DEATH``); its standard error is appended to ``stderr_log`` when
        given."""
        argv = " ".join(shlex.quote(a) for a in (*PARENT_DEATH, *self.command(program)))
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
                                  timeout=timeout, env={"PATH": "/usr/bin:/bin"})
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise ConfinementError(f"unshare could not run: {exc}") from exc
        if done.returncode != 0:
            raise ConfinementError(
                f"unshare failed (status {done.returncode}): {done.stderr.strip()[-400:]}")
