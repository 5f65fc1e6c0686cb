"""Delayed and bundled SCTP acknowledgements for aiortc's data channels.

aiortc acknowledges every packet that carries data at once, in a packet of its own. For a
receiver page that types, that is two SACK packets per key (its press and its release),
each a DTLS record encrypted in Python and a loopback send, on the event loop. RFC 4960
(6.2) lets a receiver delay a SACK (up to 200 ms) and bundle it with the data it sends
(6.10, control chunks first). Installed at import by ``pixel_stream.rtc``:

* a SACK that reports gaps or duplicate TSNs goes at once (loss recovery is not slowed),
  as does one while the association is not established;
* otherwise it waits until ``MAX_UNACKED`` packets with new data are unacknowledged, or
  ``SACK_DELAY_S`` passed, or this side sends a DATA chunk: then it rides in the same
  packet (for a key, the exact tiles of the change it made, a few ms later).

The peer's retransmission timer is far longer than the delay (Chromium's minimum RTO is
hundreds of ms). Everything else of aiortc's SCTP is unchanged.
"""

from __future__ import annotations

import asyncio
from typing import Any

# Longest a SACK waits for data to ride with.
SACK_DELAY_S = 0.05
# Packets with new data left unacknowledged at most (a key's press and release, and one
# more message, share one SACK).
MAX_UNACKED = 4


class _AckState:
    __slots__ = ("acked", "owed", "seen", "timer", "sent", "bundled")

    def __init__(self, tsn: int) -> None:
        self.acked = tsn  # the cumulative TSN the last SACK carried
        self.seen = tsn  # the cumulative TSN when a SACK was last asked for
        self.owed = 0  # packets with new data since the last SACK
        self.timer: asyncio.TimerHandle | None = None
        self.sent = 0  # SACKs sent in packets of their own
        self.bundled = 0  # SACKs that rode with data

    def done(self, tsn: int) -> None:
        self.acked = self.seen = tsn
        self.owed = 0
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None


class _Bundle:
    """Chunks serialized back to back, for aiortc's one-chunk ``serialize_packet``."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def __bytes__(self) -> bytes:
        return self.data


def ack_state(transport: Any) -> _AckState:
    """The acknowledgement bookkeeping of an ``RTCSctpTransport`` (made on first use)."""
    state = transport.__dict__.get("_pixel_acks")
    if state is None:
        state = transport._pixel_acks = _AckState(transport._last_received_tsn)
    return state


def install() -> None:
    from aiortc import rtcsctptransport as sctp

    transport_class = sctp.RTCSctpTransport
    if getattr(transport_class, "_pixel_stream_acks", False):
        return
    send_sack, send_chunk = transport_class._send_sack, transport_class._send_chunk
    established = transport_class.State.ESTABLISHED

    async def sack_now(self: Any, state: _AckState) -> None:
        state.done(self._last_received_tsn)
        state.sent += 1
        await send_sack(self)

    def on_timer(self: Any, state: _AckState) -> None:
        state.timer = None
        if state.owed and self._sack_needed and self._association_state == established:
            asyncio.ensure_future(sack_now(self, state))

    async def delayed_send_sack(self: Any) -> None:
        state = ack_state(self)
        tsn = self._last_received_tsn
        if self._sack_misordered or self._sack_duplicates \
                or self._association_state != established or tsn == state.acked:
            await sack_now(self, state)  # losses, set-up, or a reason other than new data
            return
        if tsn != state.seen:
            state.seen = tsn
            state.owed += 1
        if state.owed >= MAX_UNACKED:
            await sack_now(self, state)
        elif state.timer is None:
            state.timer = self._loop.call_later(SACK_DELAY_S, on_timer, self, state)

    async def send_chunk_with_sack(self: Any, chunk: Any) -> None:
        state = self.__dict__.get("_pixel_acks")
        if state is not None and state.owed and self._sack_needed \
                and isinstance(chunk, sctp.DataChunk) \
                and not self._sack_misordered and not self._sack_duplicates:
            sack = sctp.SackChunk()
            sack.cumulative_tsn = self._last_received_tsn
            sack.advertised_rwnd = max(0, self._advertised_rwnd)
            data = bytes(sack) + bytes(chunk)
            if len(data) + 12 <= sctp.SCTP_MAX_PACKET_LENGTH:
                state.done(self._last_received_tsn)
                state.bundled += 1
                self._sack_needed = False
                await self._RTCSctpTransport__transport._send_data(sctp.serialize_packet(
                    self._local_port, self._remote_port, self._remote_verification_tag,
                    _Bundle(data)))  # type: ignore[arg-type]
                return
        await send_chunk(self, chunk)

    transport_class._send_sack = delayed_send_sack  # type: ignore[method-assign]
    transport_class._send_chunk = send_chunk_with_sack  # type: ignore[method-assign]
    transport_class._pixel_stream_acks = True  # type: ignore[attr-defined]
