"""Session policy: the few knobs a Citrix farm administrator would set, typed and checked.

Defaults are a farm's defaults: no idle logoff, a 180 s reconnect grace after a network
drop, clipboard and drive mapping (file transfer) disabled. Clipboard and file transfer
cannot be switched on: the sandbox is pixel-only by design, and the keys exist so a config
that asks for them fails loudly instead of being silently ignored.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

MODES = ("desktop", "published")


class PolicyError(ValueError):
    """A policy value or key that is not accepted."""


@dataclass(frozen=True)
class SessionPolicy:
    """How a pixel session treats its clients."""

    mode: str = "desktop"
    idle_timeout_s: float | None = None
    disconnect_grace_s: float = 180.0
    max_fps: float = 30.0
    heartbeat_s: float = 1.0
    video_quality: int = 22
    # a region with no damage for this long is sent exactly (PNG tiles over the video);
    # None: lossy video only
    lossless_delay_s: float | None = 0.15
    # a change whose area (the bounding box of the damage since the last video frame) is at
    # most this many pixels goes to viewers that show exact tiles as tiles only, at once,
    # not as a video frame (typing, a caret, a checkbox); None: every change is video
    tile_changes_px: int | None = 128 * 128
    clipboard: str = "disabled"
    file_transfer: str = "disabled"

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise PolicyError(f"mode must be 'desktop' or 'published', got {self.mode!r}")
        if self.idle_timeout_s is not None and not self.idle_timeout_s > 0:
            raise PolicyError(
                f"idle_timeout_s must be a positive number of seconds or None (no idle "
                f"logoff), got {self.idle_timeout_s!r}"
            )
        if not self.disconnect_grace_s >= 0:
            raise PolicyError(
                f"disconnect_grace_s must be >= 0 seconds, got {self.disconnect_grace_s!r}"
            )
        if not 1 <= self.max_fps <= 60:
            raise PolicyError(f"max_fps must be between 1 and 60, got {self.max_fps!r}")
        if not 0.1 <= self.heartbeat_s <= 10:
            raise PolicyError(f"heartbeat_s must be between 0.1 and 10, got {self.heartbeat_s!r}")
        if not 0 <= self.video_quality <= 51:
            raise PolicyError(
                f"video_quality is an x264 quantizer between 0 (best) and 51, "
                f"got {self.video_quality!r}"
            )
        if self.lossless_delay_s is not None and not 0.02 <= self.lossless_delay_s <= 10:
            raise PolicyError(
                f"lossless_delay_s must be between 0.02 and 10 seconds or None (no lossless "
                f"refresh), got {self.lossless_delay_s!r}"
            )
        if self.tile_changes_px is not None and (
                not isinstance(self.tile_changes_px, int)
                or not 0 < self.tile_changes_px <= 1 << 22):
            raise PolicyError(
                f"tile_changes_px must be a number of pixels between 1 and {1 << 22} or None "
                f"(every change as video), got {self.tile_changes_px!r}"
            )
        for key in ("clipboard", "file_transfer"):
            if getattr(self, key) != "disabled":
                raise PolicyError(
                    f"{key} can only be 'disabled' in a pixel session (the sandbox is "
                    f"pixel-only, like a Citrix farm with {key.replace('_', ' ')} blocked)"
                )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SessionPolicy:
        """Build from a mapping (e.g. YAML); unknown keys are an error, not ignored."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise PolicyError(
                f"unknown session policy key(s): {', '.join(unknown)}; "
                f"known keys: {', '.join(sorted(known))}"
            )
        return cls(**data)

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}
