"""Shared test setup: Qt runs offscreen unless a test starts its own display."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
