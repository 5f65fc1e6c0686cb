"""The client's one main window: the log-in screen, then the persona's shell.

:meth:`EhrMainWindow.reset` brings it back to the log-in screen without restarting: open
dialogs are cancelled, charts closed (pending orders discarded, nothing written) and the
store reopened, so a runner can restore the store files in place between episodes.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QDialog, QMainWindow, QMenu, QStackedWidget

from desktop_ehr.personas import Persona
from desktop_ehr.services.catalog import load_reference
from desktop_ehr.session import EhrContext, UserInfo
from desktop_ehr.widgets.login import LoginPage


def close_popups_and_dialogs() -> int:
    """Reject every open modal dialog and close popups; returns how many were open."""
    closed = 0
    for widget in QApplication.topLevelWidgets():
        if isinstance(widget, QMenu) and widget.isVisible():
            widget.close()
            closed += 1
    for _ in range(20):
        modal = QApplication.activeModalWidget()
        if modal is None:
            break
        if isinstance(modal, QDialog):
            modal.reject()
        else:
            modal.close()
        modal.setVisible(False)
        closed += 1
    return closed


class EhrMainWindow(QMainWindow):
    def __init__(self, ctx: EhrContext, persona: Persona, username: str | None = None,
                 parent=None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.persona = persona
        self.setObjectName("mainWindow")
        self.setAccessibleName(persona.vocab.window_title)
        self.setWindowTitle(persona.vocab.window_title)
        self.setStyleSheet(persona.stylesheet)
        self.central = QStackedWidget()
        self.central.setObjectName("mainWindowCentral")
        self.setCentralWidget(self.central)
        self.login = LoginPage(ctx, persona.vocab, persona.name, username)
        self.login.logged_in.connect(self._logged_in)
        self.central.addWidget(self.login)
        self.shell = None
        self.login.reset()

    @property
    def screen_name(self) -> str:
        return "workspace" if self.shell is not None else "login"

    def _logged_in(self, user: UserInfo) -> None:
        self.ctx.user = user
        ref = load_reference(self.ctx)
        self.shell = self.persona.build_shell(self.ctx, ref)
        self.shell.logout_requested.connect(lambda: self.logout(ask=True))
        self.central.addWidget(self.shell)
        self.central.setCurrentWidget(self.shell)

    def logout(self, ask: bool = True) -> bool:
        if self.shell is not None:
            if not self.shell.close_all(ask=ask):
                return False
            self.central.removeWidget(self.shell)
            self.shell.deleteLater()
            self.shell = None
        self.ctx.user = None
        self.central.setCurrentWidget(self.login)
        self.login.reset()
        return True

    def reset(self) -> None:
        """Back to the log-in screen with nothing pending, reconnected to the store."""
        close_popups_and_dialogs()
        self.logout(ask=False)
        self.ctx.reopen()
        self.login.reset()

    def reset_when_idle(self, done) -> None:
        """Cancel open dialogs, let their event loops unwind, then reset and call ``done``."""
        attempts = {"n": 0}

        def step() -> None:
            if close_popups_and_dialogs() and attempts["n"] < 10:
                attempts["n"] += 1
                QTimer.singleShot(0, step)
                return
            self.reset()
            done()

        close_popups_and_dialogs()
        QTimer.singleShot(0, step)

    def fill_screen(self) -> None:
        """Frameless, covering the whole display (the published app is one window)."""
        self.setWindowFlag(Qt.WindowType.FramelessWindowHint, True)
        screen = QApplication.primaryScreen()
        if screen is not None:
            self.setGeometry(screen.geometry())
