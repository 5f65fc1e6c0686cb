"""The workstation's taskbar: one button per window and the sandbox date and time.

A bottom dock (``_NET_WM_WINDOW_TYPE_DOCK`` with a strut, so maximized windows stay above
it). The window manager has no key bindings — every key goes to the applications — so
this is how an agent or an annotator switches between the browser and the Citrix window.
It reacts to X property changes and to its clock file being written (no polling), and
publishes where each button is on the root window (``_EHR_TASKBAR_BUTTONS``) for the
oracle's locator, like a screen reader.

Run by the episode as ``python -m episodes.taskbar --clock RUN/clock.json``.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from pixel_stream.xprops import whole_property

TASKBAR_HEIGHT = 30
# Buttons in a fixed order whatever order the windows were mapped in (they start in
# parallel), so a trace recorded in one episode clicks the same button in another.
BROWSER_CLASS = "Chromium"            # WM_CLASS of the workstation's tab browser
RECEIVER_CLASS = "CitrixWorkspace"     # WM_CLASS of the Citrix Workspace receiver window
BUTTON_ORDER = (BROWSER_CLASS, RECEIVER_CLASS)
# Root-window property where the taskbar publishes its buttons (window id and box each),
# read by the oracle's locator like a screen reader would.
BUTTONS_PROPERTY = "_EHR_TASKBAR_BUTTONS"
# Root-window property the taskbar sets when a file chooser window (GTK's "Open File",
# "Save File") appears: Chromium keeps the folder it was left in for as long as it runs, so
# a reset after one starts the browser anew (``file_dialog_seen``, ``Workstation``).
FILE_DIALOG_PROPERTY = "_EHR_FILE_DIALOG_SEEN"
FILE_DIALOG_ROLE = b"GtkFileChooserDialog"  # its WM_WINDOW_ROLE


def run_taskbar(clock_path: Path, height: int = TASKBAR_HEIGHT) -> int:
    """A bottom dock: one button per top-level window, the sandbox date and time.

    It is how the agent switches between the browser and the Citrix Workspace window (the
    window manager has no key bindings: every key goes to the applications).
    """
    from PySide6.QtCore import QFileSystemWatcher, QSocketNotifier, Qt, QTimer
    from PySide6.QtGui import QFont
    from PySide6.QtWidgets import QApplication, QHBoxLayout, QLabel, QPushButton, QWidget
    from Xlib import X, Xatom
    from Xlib import display as xdisplay
    from Xlib.protocol import event as xevent

    from sandbox.clock import SharedClock

    app = QApplication(["taskbar"])
    screen = app.primaryScreen().geometry()
    conn = xdisplay.Display()
    root = conn.screen().root
    atom = conn.intern_atom
    client_list, active = atom("_NET_CLIENT_LIST"), atom("_NET_ACTIVE_WINDOW")
    net_name, utf8 = atom("_NET_WM_NAME"), atom("UTF8_STRING")
    buttons_atom = atom(BUTTONS_PROPERTY)
    dialog_atom, role_atom = atom(FILE_DIALOG_PROPERTY), atom("WM_WINDOW_ROLE")
    root.change_attributes(event_mask=X.PropertyChangeMask)
    clock = SharedClock(clock_path)

    bar = QWidget(None, Qt.WindowType.FramelessWindowHint | Qt.WindowType.WindowStaysOnTopHint
                  | Qt.WindowType.WindowDoesNotAcceptFocus)
    bar.setObjectName("taskbar")
    bar.setAccessibleName("Taskbar")
    bar.setAttribute(Qt.WidgetAttribute.WA_X11NetWmWindowTypeDock)
    bar.setStyleSheet(
        "QWidget#taskbar { background: #1f2a36; }"
        "QPushButton { color: #f0f4f8; background: #34475c; border: 1px solid #4d6580;"
        " border-radius: 3px; padding: 2px 10px; text-align: left; }"
        "QPushButton:checked { background: #5a7a9c; }"
        "QLabel { color: #f0f4f8; padding: 0 10px; }")
    layout = QHBoxLayout(bar)
    layout.setContentsMargins(4, 3, 4, 3)
    layout.setSpacing(4)
    buttons: dict[int, QPushButton] = {}
    stretch = QWidget()
    layout.addWidget(stretch, 1)
    time_label = QLabel()
    time_label.setObjectName("taskbar-clock")
    time_label.setFont(QFont("DejaVu Sans", 9))
    layout.addWidget(time_label)
    bar.setGeometry(0, screen.height() - height, screen.width(), height)
    bar.show()
    wid = int(bar.winId())
    window = conn.create_resource_object("window", wid)
    window.change_property(atom("_NET_WM_STRUT_PARTIAL"), Xatom.CARDINAL, 32,
                           [0, 0, 0, height, 0, 0, 0, 0, 0, 0, 0, screen.width() - 1])
    window.change_property(atom("_NET_WM_STRUT"), Xatom.CARDINAL, 32, [0, 0, 0, height])
    conn.flush()

    def title_of(win_id: int) -> str:
        win = conn.create_resource_object("window", win_id)
        try:
            prop = whole_property(win, net_name, utf8)
            if prop is not None and prop.value:
                value = prop.value
                return value.decode("utf-8", "replace") if isinstance(value, bytes) else value
            return win.get_wm_name() or "window"
        except Exception:  # noqa: BLE001 - the window is gone
            return ""

    def activate(win_id: int) -> None:
        win = conn.create_resource_object("window", win_id)
        message = xevent.ClientMessage(window=win, client_type=active,
                                       data=(32, [2, X.CurrentTime, 0, 0, 0]))
        root.send_event(message, event_mask=X.SubstructureRedirectMask
                        | X.SubstructureNotifyMask)
        conn.flush()

    def rank(win_id: int) -> int:
        try:
            cls = conn.create_resource_object("window", win_id).get_wm_class()
        except Exception:  # noqa: BLE001 - the window is gone
            cls = None
        name = cls[1] if cls else ""
        return BUTTON_ORDER.index(name) if name in BUTTON_ORDER else len(BUTTON_ORDER)

    def refresh() -> None:
        prop = whole_property(root, client_list, X.AnyPropertyType)
        ids = [w for w in (list(prop.value) if prop is not None else []) if w != wid]
        mapped = list(ids)
        ids.sort(key=lambda w: (rank(w), mapped.index(w)))
        prop = whole_property(root, active, X.AnyPropertyType)
        current = prop.value[0] if prop is not None and len(prop.value) else 0
        for gone in set(buttons) - set(ids):
            buttons.pop(gone).deleteLater()
        for position, win_id in enumerate(ids):
            button = buttons.get(win_id)
            if button is None:
                button = QPushButton()
                button.setCheckable(True)
                button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
                button.setMaximumWidth(260)
                button.clicked.connect(lambda _=False, w=win_id: activate(w))
                try:  # title changes arrive as PropertyNotify on the window itself
                    win = conn.create_resource_object("window", win_id)
                    win.change_attributes(event_mask=X.PropertyChangeMask)
                    role = whole_property(win, role_atom, Xatom.STRING)
                    value = role.value if role is not None else b""
                    if isinstance(value, str):
                        value = value.encode()
                    if value.rstrip(b"\0") == FILE_DIALOG_ROLE:
                        root.change_property(dialog_atom, Xatom.STRING, 8, b"1")
                except Exception:  # noqa: BLE001 - it vanished meanwhile
                    pass
                buttons[win_id] = button
            if layout.indexOf(button) != position:  # (re)placed in the fixed order
                layout.removeWidget(button)
                layout.insertWidget(position, button)
            title = title_of(win_id)
            short = title if len(title) <= 34 else title[:33] + "…"
            if button.text() != short:
                button.setText(short)
                button.setObjectName(f"taskbar-window-{position}")
                button.setAccessibleName(title)
            button.setChecked(win_id == current)
        publish_soon.start()

    published = {"value": b""}

    def publish() -> None:
        """Where each button is, for the oracle's locator (read-only, like a screen reader);
        written only when it changed (the write itself is a property change we hear)."""
        layout_of = []
        for win_id, button in buttons.items():
            top_left = button.mapToGlobal(button.rect().topLeft())
            layout_of.append({"window": win_id, "box": [top_left.x(), top_left.y(),
                                                        button.width(), button.height()],
                              "lit": button.isChecked()})
        value = json.dumps(layout_of).encode()
        if value != published["value"]:
            published["value"] = value
            root.change_property(buttons_atom, Xatom.STRING, 8, value)
            conn.flush()
        on_x_events()

    watched = {client_list, active, net_name, atom("WM_NAME")}

    def on_x_events() -> None:
        """Every event python-xlib has read, also those it read from the socket while it
        waited for a reply (a refresh's property reads): the socket notifier fires only for
        bytes still unread, so an active-window change read during a refresh would wait
        for the next X event to be seen, and the taskbar would show the old window lit."""
        while True:
            changed = False
            while conn.pending_events():
                event = conn.next_event()
                if event.type == X.PropertyNotify and event.atom in watched:
                    changed = True
            if not changed:
                return
            refresh()

    notifier = QSocketNotifier(conn.fileno(), QSocketNotifier.Type.Read)
    notifier.activated.connect(on_x_events)

    def tick() -> None:
        now = clock.now()
        label = now.strftime("%a %m/%d/%Y  %I:%M %p").replace("  0", "  ")
        if time_label.text() != label:
            time_label.setText(label)
        timer.start((60 - now.second) * 1000 - now.microsecond // 1000 + 5)

    timer = QTimer()
    timer.setSingleShot(True)
    timer.timeout.connect(tick)
    publish_soon = QTimer()  # after the layout has placed the buttons
    publish_soon.setSingleShot(True)
    publish_soon.setInterval(0)
    publish_soon.timeout.connect(publish)
    # the episode writes its clock by replacing the file: a reset starts it again (and a
    # runner may move it on), and the bar shows that time at once, not at its next minute
    watcher = QFileSystemWatcher([str(clock_path), str(clock_path.parent)])

    def clock_written(_path: str) -> None:
        if str(clock_path) not in watcher.files() and clock_path.exists():
            watcher.addPath(str(clock_path))
        tick()

    watcher.fileChanged.connect(clock_written)
    watcher.directoryChanged.connect(clock_written)
    refresh()
    tick()
    return app.exec()


# -- the reader (the oracle's side) ---------------------------------------------------------
@dataclass(frozen=True)
class TaskbarState:
    active_class: str | None
    buttons: dict[str, tuple[int, int, int, int]]  # WM_CLASS -> taskbar button box
    active_title: str | None = None  # e.g. "Open File" while the file chooser is up
    lit_class: str | None = None  # the window whose button the taskbar shows pressed


def taskbar_state(display_name: str) -> TaskbarState:
    """The active window's class and the taskbar buttons (read from X, like a screen
    reader would); the taskbar publishes each button's window and box on the root window."""
    from Xlib import X
    from Xlib import display as xdisplay

    conn = xdisplay.Display(display_name)
    try:
        root = conn.screen().root
        active = whole_property(root, conn.intern_atom("_NET_ACTIVE_WINDOW"),
                                X.AnyPropertyType)
        active_class = active_title = None
        if active is not None and len(active.value) and active.value[0]:
            win = conn.create_resource_object("window", active.value[0])
            try:
                cls = win.get_wm_class()
                active_class = cls[1] if cls else None
                name = whole_property(win, conn.intern_atom("_NET_WM_NAME"),
                                      conn.intern_atom("UTF8_STRING"))
                if name is not None:
                    raw = name.value
                    active_title = raw.decode("utf-8", "replace") if isinstance(
                        raw, bytes) else str(raw)
            except Exception:  # noqa: BLE001 - the window went away meanwhile
                active_class = None
        buttons: dict[str, tuple[int, int, int, int]] = {}
        lit_class = None
        prop = whole_property(root, conn.intern_atom(BUTTONS_PROPERTY),
                              X.AnyPropertyType)
        value = prop.value if prop is not None else b"[]"
        for entry in json.loads(value.decode() if isinstance(value, bytes) else str(value)):
            target = conn.create_resource_object("window", entry["window"])
            try:
                cls = target.get_wm_class()
            except Exception:  # noqa: BLE001 - the window is gone
                continue
            if cls:
                buttons.setdefault(cls[1], tuple(entry["box"]))
                if entry.get("lit"):
                    lit_class = cls[1]
        return TaskbarState(active_class, buttons, active_title, lit_class)
    finally:
        conn.close()


def file_dialog_seen(display_name: str) -> bool:
    """Whether a file chooser window appeared since the last call (the taskbar's mark on
    the root window, ``FILE_DIALOG_PROPERTY``, is taken away)."""
    from Xlib import X
    from Xlib import display as xdisplay

    conn = xdisplay.Display(display_name)
    try:
        root = conn.screen().root
        mark = conn.intern_atom(FILE_DIALOG_PROPERTY)
        if whole_property(root, mark, X.AnyPropertyType) is None:
            return False
        root.delete_property(mark)
        conn.sync()
        return True
    finally:
        conn.close()


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m episodes.taskbar",
                                     description="the workstation's taskbar (on $DISPLAY)")
    parser.add_argument("--clock", type=Path, required=True, help="the episode's clock.json")
    parser.add_argument("--height", type=int, default=TASKBAR_HEIGHT)
    args = parser.parse_args(argv)
    return run_taskbar(args.clock, args.height)


if __name__ == "__main__":
    sys.exit(main())


def activate_window(display_name: str, wm_class: str, timeout: float = 5.0) -> bool:
    """Ask the window manager to focus and raise the first window of class ``wm_class``
    (what a click on its taskbar button does); True once it is the active window."""

    from Xlib import X
    from Xlib import display as xdisplay
    from Xlib.protocol import event as xevent

    conn = xdisplay.Display(display_name)
    try:
        root = conn.screen().root
        clients, active = conn.intern_atom("_NET_CLIENT_LIST"), conn.intern_atom(
            "_NET_ACTIVE_WINDOW")
        deadline = time.monotonic() + timeout
        while True:
            prop = whole_property(root, clients, X.AnyPropertyType)
            for wid in list(prop.value) if prop is not None else []:
                window = conn.create_resource_object("window", wid)
                try:
                    cls = window.get_wm_class()
                except Exception:  # noqa: BLE001 - gone meanwhile
                    continue
                if not cls or cls[1] != wm_class:
                    continue
                current = whole_property(root, active, X.AnyPropertyType)
                if current is not None and len(current.value) and current.value[0] == wid:
                    return True
                message = xevent.ClientMessage(window=window, client_type=active,
                                               data=(32, [2, X.CurrentTime, 0, 0, 0]))
                root.send_event(message, event_mask=X.SubstructureRedirectMask
                                | X.SubstructureNotifyMask)
                conn.flush()
                break
            if time.monotonic() > deadline:
                return False
            time.sleep(0.02)
    finally:
        conn.close()
