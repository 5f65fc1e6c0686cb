"""The browser's lock-down, the same for the tab browser and the Citrix receiver window.

Per episode (Debian's Chromium reads managed policies only from
``/etc/chromium/policies/managed``, which is machine-wide, so everything here is done with
command-line switches and the profile's ``Preferences`` — the same preference keys the
policies set):

* its own profile and HOME under the run directory;
* ``policy.url_blocklist: ["*"]`` with an allowlist of the episode's sandbox hosts, the
  built-in PDF viewer and ``file://`` under the episode's Documents only — so no
  ``chrome://`` pages, no ``devtools://`` (DevTools opens empty), no ``view-source:``, no
  other ``file://`` path;
* host-resolver rules that map each sandbox host to the episode's web server and every
  other name (``localhost``, IP literals included) to "not found": the browser cannot reach
  the hub, a pixel session's agent API or anything else on the machine;
* downloads go to the episode's Downloads without a prompt;
* the browser runs in its own mount and PID namespace (``episodes.confine``) where the
  machine's folders are empty and only its HOME (``/home/clinic``), Documents, Downloads
  and Output are there, so the file chooser cannot upload the task's seed or anything
  else outside them. The paths given here are the ones the browser sees
  (``Workstation.browser_folders``).

The browser is launched by Playwright over ``--remote-debugging-pipe`` (never a TCP port):
the pipe is how the oracle driver *locates* elements (``episodes.oracle``) and how reset
clears cookies and tabs. DevTools' own availability switch is left on because turning it
off also closes that pipe to page targets.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterable
from pathlib import Path
from typing import Any

CHROMIUM_CANDIDATES = ("/usr/lib/chromium/chromium", "/usr/bin/chromium",
                       "/usr/bin/chromium-browser", "/usr/bin/google-chrome")
PDF_VIEWER = "chrome-extension://mhjfbmdgcfjbbpaeojofohoefgiehjai"
BLOCKED_SCHEMES = ("chrome://*", "chrome-untrusted://*", "chrome-search://*", "devtools://*",
                   "view-source:*", "file://*", "chrome-extension://*", "filesystem:*")


class WorkstationError(RuntimeError):
    """The workstation's browser or taskbar could not start."""


def find_chromium(explicit: str | Path | None = None) -> str:
    """The Chromium binary (Debian's, never one downloaded by Playwright)."""
    for candidate in ([str(explicit)] if explicit else []) + list(CHROMIUM_CANDIDATES):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    raise WorkstationError(
        "Chromium is not installed; run installer/bootstrap.sh (Debian package 'chromium') "
        "or set the episode's chromium path")


def host_resolver_rules(hosts: Iterable[str], port: int) -> str:
    """Map the sandbox hosts to the episode's web server; every other name fails."""
    rules = [f"MAP {host} 127.0.0.1:{port}" for host in hosts]
    return ", ".join([*rules, "MAP * ~NOTFOUND"])


def browser_preferences(*, allowed_hosts: Iterable[str], documents: Path, downloads: Path,
                        homepage: str, startup_urls: Iterable[str] = ()) -> dict[str, Any]:
    """The profile's ``Default/Preferences``: the lock-down and the quiet defaults. The
    browser opens ``startup_urls`` (``homepage`` when empty) as its first tabs."""
    allow = [*allowed_hosts, PDF_VIEWER, f"file://{Path(documents)}/"]
    return {
        # "*" alone leaves the browser's own schemes open: name them
        "policy": {"url_blocklist": ["*", *BLOCKED_SCHEMES], "url_allowlist": allow},
        "download": {"default_directory": str(downloads), "prompt_for_download": False,
                     "directory_upgrade": True},
        # no downloads panel dropping open by itself over the page when a download is done
        # (the toolbar's download button stays): it opened or not depending on how long the
        # download took, and took the next click when it was open
        "download_bubble": {"partial_view_enabled": False},
        "savefile": {"default_directory": str(downloads)},
        "selectfile": {"last_directory": str(documents)},
        "profile": {"password_manager_enabled": False, "exit_type": "Normal",
                    "exited_cleanly": True,
                    "default_content_setting_values": {"notifications": 2, "geolocation": 2,
                                                       "media_stream": 2}},
        "credentials_enable_service": False,
        # no browsing history kept: nothing of an attempt in the omnibox's suggestions or
        # in the colour of a visited link after a reset (back/forward works without it)
        "history": {"saving_disabled": True},
        "autofill": {"profile_enabled": False, "credit_card_enabled": False},
        "translate": {"enabled": False},
        "browser": {"has_seen_welcome_page": True, "check_default_browser": False,
                    "show_home_button": True},
        "homepage": homepage,
        "homepage_is_newtabpage": False,
        "session": {"restore_on_startup": 4, "startup_urls": list(startup_urls) or [homepage]},
        "bookmark_bar": {"show_on_all_tabs": False},
        "signin": {"allowed": False},
        "search": {"suggest_enabled": False},
        "net": {"network_prediction_options": 2},
        "safebrowsing": {"enabled": False},
        "alternate_error_pages": {"enabled": False},
        "printing": {"enabled": False},
        "incognito": {"mode_availability": 1},  # no private window without the lock-down
    }


# The browser-wide half of the lock-down: no guest window and no new profile, which would
# start without the profile's preferences.
LOCAL_STATE = {"profile": {"browser_guest_enabled": False,
                           "browser_add_person_enabled": False},
               "browser": {"has_seen_welcome_page": True}}


def chromium_switches(rules: str, *, width: int, height: int) -> list[str]:
    """Command-line switches common to the tab browser and the receiver window."""
    return [
        f"--host-resolver-rules={rules}",
        "--no-proxy-server",
        "--window-position=0,0",
        f"--window-size={width},{height}",
        "--lang=en-US",
        "--no-first-run",
        "--no-default-browser-check",
        "--hide-crash-restore-bubble",
        "--disable-session-crashed-bubble",
        "--disable-features=Translate,DownloadBubble,DownloadBubbleV2,MediaRouter,"
        "OptimizationHints,AutofillServerCommunication,PrivacySandboxSettings4",
        "--deny-permission-prompts",
        "--disable-gpu",
        "--force-device-scale-factor=1",
        # a wheel click or Ctrl+Home lands at once: an animated scroll that the next input
        # interrupts on a loaded machine ends elsewhere (a replayed trace then saw other
        # screens), and a screenshot right after a scroll shows where it ends
        "--disable-smooth-scrolling",
        # no "unsupported command-line flag" bar (it would show --no-sandbox, which running
        # as root needs, and the resolver rules with the server's port)
        "--test-type",
    ]


# Playwright's defaults that change what the user sees or can do; everything else it adds
# (no background networking, no component updates, no sync...) suits a sandbox.
IGNORED_PLAYWRIGHT_ARGS = ["--enable-automation", "--disable-popup-blocking",
                           "--allow-pre-commit-input", "about:blank"]


def prepare_profile(profile: Path, preferences: dict[str, Any]) -> Path:
    """A fresh profile directory holding only our ``Preferences``."""
    if profile.exists():
        shutil.rmtree(profile)
    (profile / "Default").mkdir(parents=True)
    (profile / "Default" / "Preferences").write_text(json.dumps(preferences, indent=1))
    (profile / "First Run").write_text("")
    (profile / "Local State").write_text(json.dumps(LOCAL_STATE, indent=1))
    return profile
