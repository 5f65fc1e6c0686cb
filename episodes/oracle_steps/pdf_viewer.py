"""Chromium's own PDF viewer: open a PDF of the Workspace's Documents, fill its form and save
the copy with the changes into Downloads, as a person does on a workstation without PDF
tools (docs/fax-and-external-review.md).

The viewer draws the form itself: its fields are not elements of any page the oracle can
read, so they are reached the way a keyboard user reaches them. A click on the first page's
blank top margin gives the document the focus; Tab then moves to the page's first field and
each further Tab to the next one in the form's order (PDFium's tab order), the value typed
before each Tab. Ctrl+S saves 'with your changes' through GTK's 'Save File' dialog, which
opens in Downloads: Ctrl+A selects the proposed name, the new name is typed and Alt+S
presses Save (Enter in the name box does not save here).

Every click and key goes through the agent API (see ``web.py`` for the waiting rules).
"""

from __future__ import annotations

import re

from episodes.oracle_steps.web import page, tap, wait_for_download, window_titled

SAVE_DIALOG = "Save File"
BROWSER_TITLE = " - Chromium"
# The viewer's toolbar above the pages (56 px in Chromium 156). The click lands 30 px below
# it, in the middle of the viewport: on the first page's blank top margin (the page starts
# 3 px below the toolbar; its margin is 96 px at 100 % and still 48 px at 50 %), whether or
# not the thumbnail side bar is shown — checked on screenshots of the workstation.
TOOLBAR_PX = 56
MARGIN_CLICK_PX = 30


def open_document_pdf(o, ws, name, timeout=20.0):
    """Open ``name`` from the Workspace's Documents in the browser's PDF viewer (the same
    tab) and wait until the viewer has loaded it: it then names the window after the
    document (its title, else its file name) instead of the address."""
    o.show_tab("workspace")
    tap(o, ws.get_by_role("navigation", name="Folders").get_by_role(
        "link", name=re.compile(r"^Documents\b")))
    link = ws.get_by_role("link", name=name, exact=True)
    page(o, link)
    tap(o, link)
    for _ in range(int(timeout / 0.1)):
        title = o.active_window()[1] or ""
        if ws.url.endswith(f"/{name}") and title.endswith(BROWSER_TITLE) \
                and not title.startswith(("workspace.local/", "Documents")):
            o.wait(0.5)  # the page is drawn just after the title is set
            return
        o.wait(0.1)
    raise RuntimeError(f"the PDF viewer did not load {name} (window: {o.active_window()})")


def fill_form(o, ws, values):
    """Type ``values`` into the open form's fields, in the form's own order (the first value
    into the first field): click the first page's top margin, Tab into the first field, then
    each value followed by Tab (which also commits it)."""
    viewport = o.box(ws.locator("body"))
    o.click((int(viewport.x + viewport.width / 2), int(viewport.y + TOOLBAR_PX +
                                                       MARGIN_CLICK_PX)))
    o.key("Tab")
    for value in values:
        if value:
            o.type(value)
        o.key("Tab")


def save_copy(o, name):
    """Save the filled form into Downloads as ``name`` (Ctrl+S, GTK's 'Save File' dialog)
    and wait until the file is there."""
    if name in o.downloads():
        raise RuntimeError(f"{name!r} is in Downloads already (the dialog would ask to "
                           "replace it)")
    o.key("ctrl+s")
    window_titled(o, SAVE_DIALOG)
    o.wait(0.3)  # the dialog lists the folder before it takes keys
    o.key("ctrl+a")
    o.type(name)
    o.wait(0.3)
    o.key("alt+s")
    window_titled(o, SAVE_DIALOG, present=False)
    wait_for_download(o, name)


def back_to_documents(o, ws):
    """Leave the viewer for the Workspace's Documents it was opened from (Alt+Left, the
    browser's Back), so the next document can be opened there. The key is pressed again
    when the viewer is still there after 3 s: once in a gold run on a loaded machine it
    was not taken (the download bubble that had just shown took it)."""
    url = ws.url
    for _ in range(3):  # a key taken by a popup of the browser's (the download bubble)
        o.key("alt+Left")
        for _ in range(30):
            if ws.url != url:
                page(o, ws.get_by_role("navigation", name="Folders"))
                return
            o.wait(0.1)
    raise RuntimeError(f"Alt+Left did not leave the PDF viewer ({url})")
