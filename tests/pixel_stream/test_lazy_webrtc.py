"""A session without viewers never loads WebRTC or video (aiortc, PyAV): an episode's
browser-only sessions save their memory and import time."""

import subprocess
import sys


def test_importing_a_session_loads_no_webrtc_or_video() -> None:
    code = ("import sys, pixel_stream.session, episodes.episode; "
            "print(sorted(m for m in ('aiortc', 'av') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=120)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr
