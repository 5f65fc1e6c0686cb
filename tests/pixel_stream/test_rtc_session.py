"""An aiortc client against a live session: signalling on /rtc, decoded frames of the
real display, input over the data channel changing what the frames show."""

import asyncio
import json

import pytest
import websockets
from aiortc import RTCPeerConnection, RTCSessionDescription

from pixel_stream.session import PixelSession

pytestmark = pytest.mark.slow


async def patch_colour(queue: asyncio.Queue, x: int, y: int, other_than=None, timeout=10.0):
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        frame = await asyncio.wait_for(queue.get(), max(0.01, deadline - loop.time()))
        rgb = frame.to_image().getpixel((x, y))
        if other_than is None or sum(abs(a - b) for a, b in zip(rgb, other_than, strict=True)) > 60:
            return rgb


async def test_client_peer_sees_frames_and_drives_input(display, board):
    session = await PixelSession(display, token="rtc-session-token").start()
    client = RTCPeerConnection()
    try:
        client.addTransceiver("video", direction="recvonly")
        channel = client.createDataChannel("input")
        frames: asyncio.Queue = asyncio.Queue()

        @client.on("track")
        def on_track(track):
            async def pump():
                while True:
                    try:
                        await frames.put(await track.recv())
                    except Exception:  # noqa: BLE001 - track ended
                        return
            asyncio.ensure_future(pump())

        await client.setLocalDescription(await client.createOffer())
        url = session.base_url.replace("http", "ws") + "/rtc?token=" + session.token
        async with websockets.connect(url) as ws:
            await ws.send(json.dumps({"type": "offer", "sdp": client.localDescription.sdp,
                                      "client_id": "aiortc-client"}))
            answer = json.loads(await ws.recv())
            assert answer["type"] == "answer" and answer["codec"] == "H264"
            assert answer["role"] == "controller" and answer["client_id"] == "aiortc-client"
            await client.setRemoteDescription(RTCSessionDescription(answer["sdp"], "answer"))

            first = await asyncio.wait_for(frames.get(), 15)
            assert (first.width, first.height) == (1280, 800)
            x, y = board.center("patch")
            before = await patch_colour(frames, x, y)

            while channel.readyState != "open":
                await asyncio.sleep(0.01)
            presses = board.status()["presses"]
            for down in (True, False):
                channel.send(json.dumps({"t": "button", "button": 1, "down": down,
                                         "x": x, "y": y}))
            after = await patch_colour(frames, x, y, other_than=before)
            assert after != before
            assert board.status()["presses"] == presses + 1

            errors: asyncio.Queue = asyncio.Queue()
            channel.on("message", lambda m: errors.put_nowait(json.loads(m)))
            channel.send(json.dumps({"t": "move", "x": 99999, "y": 1}))
            reply = await asyncio.wait_for(errors.get(), 5)
            while reply.get("t") != "error":
                reply = await asyncio.wait_for(errors.get(), 5)
            assert reply["code"] == "bad_coordinate"
            assert session.describe()["encoders"]["H264"]["subscribers"] == 1
    finally:
        await client.close()
        await session.stop()
