"""Desktop EHR steps (Hyperspace and PowerChart), as seen through the Citrix window.

Widgets are located by ``objectName`` through the client's inspector; every click and key
goes through the agent API. Waiting polls the inspector without touching the screen: the
time spent shows in the recorded trace as the gap before the next input, which a replay by
coordinates keeps.
"""

from __future__ import annotations

from episodes.oracle import OracleError

# A dialog or list shown a moment ago may still be being placed on the screen: the first
# look waits this long per ``at_least``.
PLACE_S = 0.2


def check(o, condition):
    """``condition()`` now, or None (desktop locators inside it do not wait)."""
    try:
        return o.wait_until(condition, "a check", 0)
    except OracleError:
        return None


def wait(o, condition, what, timeout=20, at_least=0):
    """Wait until ``condition()`` holds, as the client's inspector reports it, and the
    screen shows it (``Oracle.wait_shown``); returns its value. ``at_least`` pauses of
    0.2 s (recorded ``wait`` actions) come first.

    The inspector knows of a new dialog or screen before its picture has come through the
    Citrix window: an agent sees it before it clicks into it, and so must the screens the
    recorded trace keeps for a replay to wait for."""
    if at_least:
        o.wait(PLACE_S * at_least)
    value = o.wait_until(condition, what, timeout)
    o.wait_shown()
    return value


def wait_active(o, window):
    """Wait until ``window`` has the keyboard focus (a new dialog is placed by then)."""
    wait(o, lambda: o.app_state()["active"] == window, f"{window} in front", at_least=1)


def focus(o, name):
    o.click(o.widget(name))
    wait(o, lambda: o.widget_info(name)["focused"], f"the keyboard focus in {name}")


def type_into(o, name, text, secret=False):
    """Click a field, replace its content with ``text`` and wait until the app shows it."""
    shown = "•" * len(text) if secret else text
    focus(o, name)
    o.key("ctrl+a")
    o.key("BackSpace")
    wait(o, lambda: o.widget_info(name)["text"] == "", f"{name} cleared")
    o.type(text)
    try:
        wait(o, lambda: o.widget_info(name)["text"] == shown, f"{name} typed", timeout=10)
    except OracleError as exc:
        now = o.widget_info(name)["text"]
        raise OracleError(f"{name} shows {now!r} after typing {shown!r}") from exc


def visible_row(o, view, *cell_texts):
    """The first shown row of ``view`` with cells reading each of ``cell_texts``, or None."""
    for row in o.items(view):
        cells = [c["text"] for c in row.get("cells", [])]
        if row.get("visible") and all(text in cells for text in cell_texts):
            return row
    return None


def select_row(o, view, *cell_texts):
    """Click a row (on its first cell: a wide row may reach past the viewport) and wait
    until it is selected."""
    row = wait(o, lambda: visible_row(o, view, *cell_texts), f"{cell_texts} in {view}")
    o.click(row["cells"][0]["box"])
    wait(o, lambda: (visible_row(o, view, *cell_texts) or {}).get("selected"),
         f"{cell_texts} selected")


def choose_tab(o, bar, text):
    o.click(o.item(bar, text))
    wait(o, lambda: any(t["selected"] and t["text"] == text for t in o.items(bar)),
         f"the {text} tab")


def choose_entry(o, combo, text):
    """Open a drop-down, click the entry reading ``text`` and wait until it is chosen."""
    o.click(o.widget(combo))
    wait(o, lambda: any(e["visible"] for e in o.items(combo)), f"the {combo} list open",
         at_least=1)
    o.click(o.item(combo, text))
    wait(o, lambda: o.widget_info(combo)["text"] == text, f"{text!r} in {combo}")


def drag(o, source, target):
    """Press on ``source``, move over ``target`` in steps (past the drag distance) and
    release there: plain mouse events, as a hand makes them."""
    (x0, y0), (x1, y1) = source.center, target.center
    o.act({"action": "mouse_move", "coordinate": [x0, y0]})
    o.act({"action": "left_mouse_down"})
    for step in (1, 2, 3, 4):
        o.act({"action": "mouse_move", "coordinate": [x0 + (x1 - x0) * step // 4,
                                                      y0 + (y1 - y0) * step // 4]})
    o.act({"action": "left_mouse_up"})


def log_in(o):
    """The training log-in from input/creds.txt (both personas)."""
    fields = {}
    for line in o.input_text("creds.txt").splitlines():
        key, sep, value = line.partition(":")
        if sep:
            fields[key.strip()] = value.strip()
    o.show_desktop_app(click=True)  # recorded, so a replay starts in the same window
    wait_active(o, "mainWindow")
    type_into(o, "login.username", fields.get("User ID") or fields["Username"])
    type_into(o, "login.password", fields["Password"], secret=True)
    o.key("Return")
    wait(o, lambda: o.app_state()["screen"] == "workspace", "the log-in")


def open_chart_hyperspace(o, mrn):
    """Hyperspace: search the patient list by MRN (look-alikes share names and birth
    dates), open the chart and wait for its storyboard."""
    type_into(o, "patientList.query", mrn)
    o.key("Return")
    select_row(o, "patientList.results", mrn)
    o.click(o.widget("patientList.open"))
    wait(o, lambda: o.widget_info("storyboard.mrn")["text"] == f"MRN: {mrn}",
         f"the chart of {mrn}")


def open_chart_powerchart(o, mrn):
    """PowerChart: search by MRN in the Organizer, open the chart from the lookup dialog
    and wait for its banner."""
    type_into(o, "patientSearch.query", mrn)
    o.key("Return")
    wait_active(o, "patientLookup")
    select_row(o, "patientLookup.results", mrn)
    o.click(o.widget("patientLookup.open"))
    wait_active(o, "mainWindow")
    wait(o, lambda: o.widget_info("banner.mrn")["text"].endswith(mrn), f"the chart of {mrn}")
