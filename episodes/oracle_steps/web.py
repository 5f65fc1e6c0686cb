"""Web EHR steps (emr.clinic.test), for the orders tasks' oracles.

Elements are found by role and label through read-only Playwright locators; every click
and key goes through the agent API. Waiting is done with ``wait`` actions of 0.1 s, so the
time spent is in the trace as the gap before the next input, which a replay keeps (a page
on its way changes nothing on the screen that a replay could wait for).
"""

from __future__ import annotations

import re


def arrive(o, target, timeout=15.0):
    """Wait until ``target`` shows, glancing every 0.1 s (``wait`` actions of the agent API).
    The time spent is the gap before the next input in the trace, which a replay keeps: a
    page on its way changes nothing on the screen that a replay could wait for."""
    for _ in range(int(timeout / 0.1)):
        if target.count() and target.first.is_visible():
            return
        o.wait(0.1)
    o.wait_for(target, timeout=0.1)  # fails with the locator's own message


def until(o, condition, what, timeout=15.0):
    """Glance every 0.1 s (``wait`` actions, so the time is in the trace) until
    ``condition()`` (locator reads only) is true; for what ``arrive`` cannot wait on, e.g.
    a new address after a form that shows the same elements again."""
    for _ in range(int(timeout / 0.1)):
        if condition():
            return
        o.wait(0.1)
    raise RuntimeError(f"waited {timeout:g} s for {what}")


def page(o, target):
    """Wait for the page that shows ``target``, then take it in for a moment (0.3 s): slack
    in the trace's timing for a replay on a slower server."""
    arrive(o, target)
    o.wait(0.3)


def last_look(o, target):
    """Wait for the page that shows ``target`` (the work saved) and rest the pointer on it:
    the trace's last input comes after the page, so a replay does not stop before it."""
    page(o, target)
    box = o.box(target)  # its top is on screen; a tall one may reach below
    o.act({"action": "mouse_move",
           "coordinate": [int(box.x + box.width / 2), int(box.y + min(box.height, 40) / 2)]})


def tap(o, target):
    """Click ``target`` once it shows."""
    arrive(o, target)
    o.click(target)


def put(o, target, text):
    """Click a field once it shows and type ``text``, selecting what it holds first."""
    arrive(o, target)
    o.enter_text(target, text, replace=bool(target.input_value()))


def put_long(o, target, text, timeout=30.0, slack=0.3):
    """Like ``put``, for a long text (a letter, a cover message): the keys arrive at once and
    the browser takes a while to take them in, so wait until the field holds all of it
    before the next input (the wait is in the trace, see ``arrive``), then ``slack``
    seconds more for a slower replay."""
    put(o, target, text)
    for _ in range(int(timeout / 0.1)):
        if target.input_value() == text:
            o.wait(slack)
            return
        o.wait(0.1)
    raise RuntimeError(f"the field holds {len(target.input_value())} of {len(text)} "
                       "characters")


def credentials(o, system="Web EHR"):
    """The log-in of ``system`` from input/creds.txt: ``{"URL": ..., "Username": ...,
    "Password": ...}``. A line without a colon heads a section (one per system); a file
    without the named section gives its first log-in."""
    sections = [("", {})]
    for line in o.input_text("creds.txt").splitlines():
        key, sep, value = line.partition(":")
        if not sep:
            if line.strip():
                sections.append((line.strip(), {}))
            continue
        sections[-1][1].setdefault(key.strip(), value.strip())
    logins = [(title, fields) for title, fields in sections if "Username" in fields]
    for title, fields in logins:
        if system.lower() in title.lower():
            return fields
    if not logins:
        raise ValueError("input/creds.txt holds no 'Username:' line")
    return logins[0][1]


def sign_in(o, site, *, tab, system, user_label="Username", button="Log in",
            menu="Main menu"):
    """Log in to a web site with the user of ``system`` from input/creds.txt (see
    ``credentials``): its tab shown, the user name typed into the field labelled
    ``user_label`` and the password into 'Password', ``button`` pressed; returns once the
    site's navigation ``menu`` shows."""
    fields = credentials(o, system)
    o.show_tab(tab)
    put(o, site.get_by_label(user_label), fields["Username"])
    put(o, site.get_by_label("Password"), fields["Password"])
    tap(o, site.get_by_role("button", name=button))
    page(o, site.get_by_role("navigation", name=menu))


def log_in(o, ehr):
    """Log in to the web EHR with its user from input/creds.txt."""
    sign_in(o, ehr, tab="ehr", system="Web EHR", button="Login")


def menu_entry(o, site, area, entry):
    """Open the drop-down ``area`` of the site's 'Main menu' (the web EHR's Admin,
    Worklists ...; Acme's Authorizations & Referrals, Appeals ...) and click its link
    ``entry``."""
    menu = site.get_by_role("navigation", name="Main menu")
    tap(o, menu.get_by_text(area, exact=True))
    tap(o, menu.get_by_role("link", name=entry, exact=True))


def open_chart(o, ehr, mrn):
    """Finder by MRN (never by name: look-alike patients share names and birth dates)."""
    tap(o, ehr.get_by_role("navigation", name="Main menu").get_by_role("link", name="Finder"))
    page(o, ehr.get_by_role("searchbox", name="Search patients"))
    put(o, ehr.get_by_role("searchbox", name="Search patients"), mrn)
    # the button, not Enter: a key that navigates shows nothing until the page arrives, so
    # a replay of the trace would not know to wait for it
    tap(o, ehr.get_by_role("search").get_by_role("button", name="Search"))
    found = ehr.get_by_role("row").filter(has_text=mrn).get_by_role("link")
    page(o, found)
    tap(o, found)
    page(o, ehr.get_by_role("region", name="Selected patient").filter(has_text=mrn))


def open_chart_by_name(o, ehr, name, dob=None):
    """Finder by 'Last, First' when the work names no MRN: the row whose name reads exactly
    ``name`` and whose birth date is ``dob`` (YYYY-MM-DD); a look-alike whose first name only
    begins the same, or another birth date, is not opened. Without ``dob`` (the work names
    only the patient), exactly one patient may have that name. Returns the chart's MRN."""
    tap(o, ehr.get_by_role("navigation", name="Main menu").get_by_role("link", name="Finder"))
    page(o, ehr.get_by_role("searchbox", name="Search patients"))
    put(o, ehr.get_by_role("searchbox", name="Search patients"), name)
    tap(o, ehr.get_by_role("search").get_by_role("button", name="Search"))
    rows = ehr.get_by_role("row").filter(has=ehr.get_by_role("link", name=name, exact=True))
    if dob is not None:
        rows = rows.filter(has_text=dob)
    page(o, rows)
    if rows.count() != 1:
        raise RuntimeError(f"the Finder lists {rows.count()} patients {name} born {dob or 'on any day'}")
    headers = [h.strip() for h in ehr.get_by_role("columnheader").all_inner_texts()]
    column = next(i for i, h in enumerate(headers) if "MRN" in h)
    mrn = rows.get_by_role("cell").nth(column).inner_text().strip()
    tap(o, rows.get_by_role("link", name=name, exact=True))
    page(o, ehr.get_by_role("region", name="Selected patient").filter(has_text=mrn))
    return mrn


def open_encounter_form(o, ehr, group, form):
    """Today's encounter of the open chart, then ``form`` from the ``group`` menu of its
    'Encounter forms' toolbar (Clinical, Orders ...)."""
    tap(o, ehr.get_by_role("link", name="Today's Encounter"))
    toolbar = ehr.get_by_role("toolbar", name="Encounter forms")
    page(o, toolbar)
    tap(o, toolbar.get_by_text(group, exact=True))
    tap(o, toolbar.get_by_role("link", name=form, exact=True))


def label_pattern(label):
    """The accessible name of what is labelled ``label``: the label, then ' *' when it is
    required ('/' escaped too: Playwright hands a pattern to the page as /.../)."""
    pattern = re.escape(label).replace("/", r"\/")
    return re.compile(rf"^{pattern}( \*)?$")


def field(screen, label):
    """The form field whose label is ``label`` (a required field's label ends with '*')."""
    return screen.get_by_label(label_pattern(label))


def choose(o, select, label):
    """Pick an option of a drop-down by its text. A click on the field's label focuses the
    list without opening it (an opened list may drop under the pointer and take the click's
    release as a choice); typing the text selects it; arrow keys correct a near miss. A list
    without a label element is opened with a click instead (type, Enter, wait until shut)."""
    texts, values, wanted = _options(o, select, label)
    caption = select.locator("xpath=preceding-sibling::label[1]")
    if caption.count():
        arrive(o, caption)
        o.click_into(select, via=caption)  # typed keys reach the list only once it has the focus
        o.type(label)
    else:
        listed = select.locator(":scope:open")
        tap(o, select)
        o.wait_for(listed)
        o.type(label)
        o.key("Return")
        o.wait_for(listed, state="hidden")
    _make_sure(o, select, label, values, wanted)
    return texts[wanted]


def choose_focused(o, select, label):
    """Pick option ``label`` of the drop-down that has the focus, by typing it (arrow keys
    correct a near miss); for a list with no caption to click."""
    texts, values, wanted = _options(o, select, label)
    o.type(label)
    _make_sure(o, select, label, values, wanted)
    return texts[wanted]


def _options(o, select, label, tries=3):
    """(option texts, values, index of ``label``: exact, else the first it begins). A page
    that reloads (a form posted again, an upload) replaces the list under the reads: each
    read of an option may wait 2 s, and the whole list is read again once it shows."""
    for attempt in range(1, tries + 1):
        arrive(o, select)
        options = select.locator("option")
        texts = [t.strip() for t in options.all_inner_texts()]
        try:
            values = [options.nth(i).get_attribute("value", timeout=2000)
                      for i in range(len(texts))]
            break
        except Exception:  # noqa: BLE001 - Playwright's timeout: the list was replaced
            if attempt == tries:
                raise
    values = [t if v is None else v for v, t in zip(values, texts, strict=True)]
    matches = ([i for i, t in enumerate(texts) if t == label]
               or [i for i, t in enumerate(texts) if t.startswith(label)])
    if not matches:
        raise RuntimeError(f"no option {label!r} among {texts}")
    return texts, values, matches[0]


def _make_sure(o, select, label, values, wanted):
    """Once the typed keys are in, correct a near miss with the arrow keys; fail saying
    what the list shows when it is still not ``label``."""
    def chosen():
        return select.input_value() == values[wanted]

    # the browser takes the typed keys in its own time: a value read at once may still be
    # the one before (on a loaded machine the empty first option)
    _settle(o, chosen)
    if not chosen():
        current = values.index(select.input_value())
        step = "Down" if wanted > current else "Up"
        for _ in range(abs(wanted - current)):
            o.key(step)
        _settle(o, chosen)
    if not chosen():
        raise RuntimeError(f"could not choose {label!r} (got {select.input_value()!r})")


def _settle(o, condition, timeout=2.0):
    """``until`` without the error: glance until ``condition()`` or ``timeout``."""
    try:
        until(o, condition, "the page to take the keys", timeout=timeout)
    except RuntimeError:
        pass


def enter_suggested(o, screen, target, text):
    """Type into a field that offers suggestions, then click the page's heading: the list
    closes (left open, it covers the fields below it and takes their clicks)."""
    put(o, target, text)
    tap(o, screen.get_by_role("heading", level=2).first)
    if target.input_value() != text:
        raise RuntimeError(f"{text!r} did not stay in the field (got {target.input_value()!r})")


# -- files: the OS file chooser and downloads --------------------------------------------------
FILE_CHOOSER = "Open File"
FILES_CHOOSER = "Open Files"  # the same dialog for a control that takes several files


def window_titled(o, title, present=True, timeout=15.0):
    """Wait until the focused window's title is ``title`` (or, ``present=False``, is not),
    glancing every 0.1 s; the time spent is in the trace (see ``arrive``)."""
    for _ in range(int(timeout / 0.1)):
        if (o.active_window()[1] == title) == present:
            return
        o.wait(0.1)
    raise RuntimeError(f"waited {timeout:g} s for the window {title!r} to "
                       f"{'open' if present else 'close'} (focused: {o.active_window()})")


def attach_file(o, control, path):
    """Choose the file ``path`` (``~/Documents/…``, ``~/Downloads/…``) for an upload control
    through the OS file chooser, as a person does: click the control; in the GTK 'Open File'
    dialog, Ctrl+L opens its location entry, the path is typed and Alt+O presses Open (here
    Enter in the location entry closes the dialog without choosing the file). For a
    control that takes several files the dialog is titled 'Open Files'; one is chosen."""
    tap(o, control)
    chooser = FILES_CHOOSER if control.get_attribute("multiple") is not None else FILE_CHOOSER
    window_titled(o, chooser)
    # the dialog lists the folder before it takes keys; the slack is also what a replay has
    # when the dialog opens slower than it did when recorded (nothing on the screen changes
    # while it is on its way, so a replay cannot wait for it)
    o.wait(1.0)
    o.key("ctrl+l")
    o.type(path)
    o.wait(0.3)
    o.key("alt+o")
    window_titled(o, chooser, present=False)
    name = path.rsplit("/", 1)[-1]
    for _ in range(50):
        if control.input_value().endswith(name):
            return
        o.wait(0.1)
    raise RuntimeError(f"the file chooser did not set {name!r} (the control holds "
                       f"{control.input_value()!r})")


def wait_for_download(o, name, timeout=15.0):
    """Wait until ``name`` is in Downloads (a link or button that downloads a file shows
    nothing on the page that a replay could wait for, so the wait is in the trace)."""
    for _ in range(int(timeout / 0.1)):
        if name in o.downloads():
            return
        o.wait(0.1)
    raise RuntimeError(f"{name!r} did not arrive in Downloads (there: {o.downloads()})")


# -- the Workspace (workspace.local): input tables and output files ---------------------------
def open_document(o, ws, name):
    """Open ``name`` from the Workspace's Documents (the task's input files) and wait for
    its page."""
    o.show_tab("workspace")
    folder = ws.get_by_role("heading", name="Documents", exact=True)
    if not folder.count():  # the Workspace opens on Documents
        tap(o, ws.get_by_role("navigation", name="Folders").get_by_role(
            "link", name=re.compile(r"^Documents\b")))
        page(o, folder)
    tap(o, ws.get_by_role("link", name=name, exact=True))
    page(o, ws.get_by_role("heading", name=name, exact=True))


def table_rows(table, complete=False):
    """The body rows of a table on the page, each a dict of header -> cell text. With
    ``complete``, only the rows with a cell per column: not a 'No entries' line, nor a
    totals row."""
    header = [t.strip() for t in table.locator("thead th").all_inner_texts()]
    rows = []
    for row in table.locator("tbody tr").all():
        cells = [t.strip() for t in row.locator("td").all_inner_texts()]
        if complete and len(cells) != len(header):
            continue
        rows.append(dict(zip(header, cells, strict=False)))
    return rows


def input_table(o, ws, name):
    """A CSV of the task's Documents as the Workspace shows it: its rows as dicts."""
    open_document(o, ws, name)
    return table_rows(ws.locator("table.csv-view"))


def csv_text(rows):
    """Rows (lists of cells) as CSV text; cells with a comma or a quote are quoted."""
    def cell(value):
        value = str(value)
        if any(c in value for c in ',"\n'):
            return '"' + value.replace('"', '""') + '"'
        return value
    return "\n".join(",".join(cell(v) for v in row) for row in rows) + "\n"


def save_csv(o, ws, name, rows):
    """Write ``rows`` (header first) to Output as ``name`` with the Workspace's New file:
    a CSV table, filled in 'Edit as text' (one line a row), saved."""
    o.show_tab("workspace")
    tap(o, ws.get_by_role("link", name="New file"))
    page(o, ws.get_by_role("heading", name="New file in Output"))
    put(o, ws.get_by_label("File name"), name)
    tap(o, ws.get_by_label("CSV table"))
    tap(o, ws.get_by_role("button", name="Create"))
    page(o, ws.get_by_role("link", name="Edit as text"))
    tap(o, ws.get_by_role("link", name="Edit as text"))
    editor = ws.get_by_label("Comma-separated text")
    page(o, editor)
    put(o, editor, csv_text(rows))
    tap(o, ws.get_by_role("button", name="Save"))
    last_look(o, ws.get_by_role("status").filter(has_text="Saved"))
