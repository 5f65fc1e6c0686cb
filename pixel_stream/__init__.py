"""pixel_stream: Citrix-like pixel sessions for agents and people.

An X display (``display.Display``) is captured once (``capture``), streamed to people over
WebRTC (``video``, ``rtc``, the receiver page) and to agents over a WebSocket API
(``agent_api``, client in ``client``), and driven with XTEST input (``xinput``); inputs can
be recorded and replayed (``recording``, ``replay``). ``session.PixelSession`` ties it
together on one port. See docs/pixel-stream.md and docs/agent-api.md.
"""
