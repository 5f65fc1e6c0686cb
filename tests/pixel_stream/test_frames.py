"""The latest-frame slot: newest frame only, waiting from threads and asyncio."""

import asyncio
import threading

from pixel_stream.frames import Frame, FrameSlot, Rect


def frame(seq: int) -> Frame:
    return Frame(seq=seq, width=2, height=1, pixels=bytearray(8), region=Rect(0, 0, 2, 1),
                 damaged_at=0.0, captured_at=0.0)


def test_slot_keeps_only_the_newest_frame():
    slot = FrameSlot()
    for seq in range(1, 6):
        slot.publish(frame(seq))
    tick, latest = slot.wait_next(0, timeout=0)
    assert latest.seq == 5 and tick == 5


def test_heartbeat_advances_tick_not_seq():
    slot = FrameSlot()
    slot.publish(frame(1))
    slot.heartbeat()
    tick, latest = slot.wait_next(1, timeout=0)
    assert tick == 2 and latest.seq == 1


def test_thread_waiter_is_woken_by_publish():
    slot = FrameSlot()
    slot.publish(frame(1))
    seen = []
    waiter = threading.Thread(target=lambda: seen.append(slot.wait_next(1, timeout=10)))
    waiter.start()
    slot.publish(frame(2))
    waiter.join(10)
    assert seen and seen[0][1].seq == 2


def test_wake_if_condition():
    slot = FrameSlot()
    slot.publish(frame(1))
    flag = threading.Event()
    result = []
    waiter = threading.Thread(
        target=lambda: result.append(slot.wait_next(1, timeout=10, wake_if=flag.is_set)))
    waiter.start()
    flag.set()
    slot.wake_waiters()
    waiter.join(10)
    assert result and result[0][0] == 1


def test_async_waiter_woken_from_another_thread():
    async def main():
        slot = FrameSlot()
        slot.publish(frame(1))
        waiting = asyncio.create_task(slot.next_content_async(1, timeout=10))
        await asyncio.sleep(0)
        threading.Thread(target=slot.publish, args=(frame(2),)).start()
        return await waiting

    assert asyncio.run(main()).seq == 2


def test_async_wait_times_out_with_none():
    async def main():
        slot = FrameSlot()
        slot.publish(frame(1))
        return await slot.next_content_async(1, timeout=0.01)

    assert asyncio.run(main()) is None


def test_close_wakes_everyone():
    slot = FrameSlot()
    slot.publish(frame(1))
    slot.close()
    assert slot.wait_next(1, timeout=10)[1].seq == 1
