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


def log_in(o, ehr):
    """Log in to the web EHR with its user from input/creds.txt."""
    fields = credentials(o, "Web EHR")
    o.show_tab("ehr")
    put(o, ehr.get_by_label("Username"), fields["Username"])
    put(o, ehr.get_by_label("Password"), fields["Password"])
    tap(o, ehr.get_by_role("button", name="Login"))
    page(o, ehr.get_by_role("navigation", name="Main menu"))


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


def open_encounter_form(o, ehr, group, form):
    """Today's encounter of the open chart, then ``form`` from the ``group`` menu of its
    'Encounter forms' toolbar (Clinical, Orders ...)."""
    tap(o, ehr.get_by_role("link", name="Today's Encounter"))
    toolbar = ehr.get_by_role("toolbar", name="Encounter forms")
    page(o, toolbar)
    tap(o, toolbar.get_by_text(group, exact=True))
    tap(o, toolbar.get_by_role("link", name=form, exact=True))


def field(screen, label):
    """The form field whose label is ``label`` (a required field's label ends with '*')."""
    return screen.get_by_label(re.compile(rf"^{re.escape(label)}( \*)?$"))


def choose(o, select, label):
    """Pick an option of a drop-down by its text. A click on the field's label focuses the
    list without opening it (an opened list may drop under the pointer and take the click's
    release as a choice); typing the text selects it; arrow keys correct a near miss. A list
    without a label element is opened with a click instead (type, Enter, wait until shut)."""
    options = select.locator("option")
    texts = [t.strip() for t in options.all_inner_texts()]
    values = [options.nth(i).get_attribute("value") for i in range(len(texts))]
    values = [t if v is None else v for v, t in zip(values, texts, strict=True)]
    matches = ([i for i, t in enumerate(texts) if t == label]
               or [i for i, t in enumerate(texts) if t.startswith(label)])
    if not matches:
        raise RuntimeError(f"no option {label!r} among {texts}")
    wanted = matches[0]
    caption = select.locator("xpath=preceding-sibling::label[1]")
    if caption.count():
        tap(o, caption)
        o.type(label)
    else:
        listed = select.locator(":scope:open")
        tap(o, select)
        o.wait_for(listed)
        o.type(label)
        o.key("Return")
        o.wait_for(listed, state="hidden")
    current = values.index(select.input_value())
    step = "Down" if wanted > current else "Up"
    for _ in range(abs(wanted - current)):
        o.key(step)
    if select.input_value() != values[wanted]:
        raise RuntimeError(f"could not choose {label!r} (got {select.input_value()!r})")
    return texts[wanted]


def enter_suggested(o, screen, target, text):
    """Type into a field that offers suggestions, then click the page's heading: the list
    closes (left open, it covers the fields below it and takes their clicks)."""
    put(o, target, text)
    tap(o, screen.get_by_role("heading", level=2).first)
    if target.input_value() != text:
        raise RuntimeError(f"{text!r} did not stay in the field (got {target.input_value()!r})")


# -- files: the OS file chooser and downloads --------------------------------------------------
FILE_CHOOSER = "Open File"


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
    Enter in the location entry closes the dialog without choosing the file)."""
    tap(o, control)
    window_titled(o, FILE_CHOOSER)
    # the dialog lists the folder before it takes keys; the glance is long because a replay
    # keeps this gap and GTK's first dialog of a browser can take a second more to open
    # on a busy machine (a Ctrl+L before it would go to the address bar)
    o.wait(1.0)
    o.key("ctrl+l")
    o.type(path)
    o.wait(0.3)
    o.key("alt+o")
    window_titled(o, FILE_CHOOSER, present=False)
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
