"""The kernel's error base: every error a user can cause in the kernel (a bad task folder,
seed, store, extract, input file or clock setting) is a :class:`SandboxError`, so a front
end (the CLI, the hub) can report it in one line without knowing each module's errors."""

from __future__ import annotations


class SandboxError(Exception):
    """Something the user asked of the kernel cannot be done; the message says why."""
