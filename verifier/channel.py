"""The channel rule: only writes through the task's channel, in this run's episode, count.

GUI tasks are solved in the browser (web systems) or the streamed desktop EHR, so they accept
``browser`` and ``desktop``; the API control pairs accept ``api``. Every task also accepts
``fax``: that channel is the fax sink recording a transmission the agent sent from the
browser, not a way for the agent to reach a system. Seed rows are the starting state.

A row that any other channel or any other episode wrote is *tainted*: checks see it as it was
seeded (or not at all, if the seed did not have it), exactly as if the forbidden writes had
never happened. The report counts every tainted row with its reason.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from sandbox.catalog import TaskSpec
from verifier.history import AuditEntry

GUI_CHANNELS = frozenset({"browser", "desktop"})
API_CHANNELS = frozenset({"api"})
SYSTEM_CHANNELS = frozenset({"fax"})


def accepted_channels(spec: TaskSpec) -> frozenset[str]:
    """The channels whose writes count for a task."""
    agent = API_CHANNELS if spec.channel == "api" else GUI_CHANNELS
    return agent | SYSTEM_CHANNELS


@dataclass(frozen=True)
class ChannelRule:
    """Which writes count: an accepted channel and this run's episode id."""

    channels: frozenset[str]
    episode_id: str
    task: str

    def reason(self, entry: AuditEntry) -> str | None:
        """Why an entry does not count, or ``None`` when it does."""
        if entry.channel not in self.channels:
            return (f"written through {entry.channel}; {self.task} accepts "
                    f"{', '.join(sorted(self.channels))}")
        if entry.episode_id != self.episode_id:
            return f"written by episode {entry.episode_id}, not this run's {self.episode_id}"
        return None

    def to_json(self) -> dict:
        return {"accepted": sorted(self.channels), "episode_id": self.episode_id}


@dataclass(frozen=True)
class Exclusion:
    """Rows of one table that a check will not see as written, and why."""

    system: str
    table: str
    reason: str
    rows: int
    entries: int

    def to_json(self) -> dict:
        return {"system": self.system, "table": self.table, "reason": self.reason,
                "rows": self.rows, "entries": self.entries}


def tainted_rows(rule: ChannelRule, entries: list[AuditEntry]) -> dict[tuple[str, str], str]:
    """(table, row pk) → the first reason its writes do not count, for every tainted row."""
    tainted: dict[tuple[str, str], str] = {}
    for entry in entries:
        reason = rule.reason(entry)
        if reason is not None and entry.key not in tainted:
            tainted[entry.key] = reason
    return tainted


def exclusions(system: str, rule: ChannelRule, entries: list[AuditEntry]) -> list[Exclusion]:
    """Every write that does not count, grouped by table and reason."""
    rows: dict[tuple[str, str], set[str]] = defaultdict(set)
    counts: dict[tuple[str, str], int] = defaultdict(int)
    for entry in entries:
        reason = rule.reason(entry)
        if reason is None:
            continue
        rows[(entry.table_name, reason)].add(entry.row_pk)
        counts[(entry.table_name, reason)] += 1
    return [Exclusion(system, table, reason, len(rows[(table, reason)]), counts[(table, reason)])
            for table, reason in sorted(rows)]
