"""Fixtures for pixel_stream tests that need an X display (marked slow by their modules)."""

import shutil

import pytest

from pixel_stream.display import Display
from pixel_stream.testapp import PatchBoardProcess

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync",
]


def require(program: str) -> None:
    if shutil.which(program) is None:
        pytest.fail(f"{program} is not installed; the pixel_stream slow tests need it")


@pytest.fixture(scope="module")
def display():
    require("Xvfb")
    require("openbox")
    with Display(1280, 800) as started:
        yield started


@pytest.fixture(scope="module")
def board(display, tmp_path_factory):
    """The PatchBoard test app on the module's display."""
    with PatchBoardProcess(display, tmp_path_factory.mktemp("board") / "board.json") as app:
        yield app
