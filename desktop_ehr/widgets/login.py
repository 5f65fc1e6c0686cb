"""The log-in screen (the client's start screen)."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFormLayout, QFrame, QLabel, QLineEdit, QVBoxLayout, QWidget

from desktop_ehr.personas.vocabulary import Vocabulary
from desktop_ehr.services.auth import LoginRefused, authenticate
from desktop_ehr.session import EhrContext, UserInfo
from desktop_ehr.widgets.common import button, error_label, line_edit, named, show_error


class LoginPage(QWidget):
    logged_in = Signal(object)  # UserInfo

    def __init__(self, ctx: EhrContext, vocab: Vocabulary, persona: str,
                 username: str | None = None, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("page.login")
        self.setProperty("role", "loginBackground")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.ctx = ctx
        self._default_user = username or ""
        card = QFrame()
        card.setObjectName("login.card")
        card.setProperty("role", "loginCard")
        card.setFixedWidth(420)
        title = QLabel(vocab.window_title)
        title.setProperty("role", "loginTitle")
        title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        sub = QLabel("Riverside Memorial Hospital — TRAINING ENVIRONMENT\n"
                     "Synthetic patients only")
        sub.setProperty("role", "caption")
        sub.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.username = line_edit("login.username", "User ID", "User ID", self._default_user)
        self.password = line_edit("login.password", "Password", "Password")
        self.password.setEchoMode(QLineEdit.EchoMode.Password)
        self.department = named(QLabel("4W MEDICINE" if persona == "hyperspace"
                                       else "Riverside Memorial — Acute Care"),
                                "login.department", "Department")
        self.error = error_label("login.error")
        self.submit = button(vocab.log_in, "login.submit", "Log in", role="primary",
                             slot=self.attempt)
        self.submit.setDefault(True)
        self.username.returnPressed.connect(self.password.setFocus)
        self.password.returnPressed.connect(self.attempt)
        form = QFormLayout()
        form.addRow("User ID:", self.username)
        form.addRow("Password:", self.password)
        form.addRow("Department:" if persona == "hyperspace" else "Domain:", self.department)
        cl = QVBoxLayout(card)
        cl.setContentsMargins(28, 24, 28, 24)
        cl.setSpacing(10)
        cl.addWidget(title)
        cl.addWidget(sub)
        cl.addSpacing(8)
        cl.addLayout(form)
        cl.addWidget(self.error)
        cl.addWidget(self.submit)
        layout = QVBoxLayout(self)
        layout.addStretch(2)
        layout.addWidget(card, 0, Qt.AlignmentFlag.AlignHCenter)
        layout.addStretch(3)

    def reset(self, username: str | None = None) -> None:
        self.username.setText(username if username is not None else self._default_user)
        self.password.clear()
        show_error(self.error, None)
        (self.password if self.username.text() else self.username).setFocus()

    def attempt(self) -> UserInfo | None:
        try:
            user = authenticate(self.ctx, self.username.text(), self.password.text())
        except LoginRefused as refused:
            show_error(self.error, str(refused))
            self.password.selectAll()
            self.password.setFocus()
            return None
        show_error(self.error, None)
        self.logged_in.emit(user)
        return user
