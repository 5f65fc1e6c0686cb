"""``run.json``: which task, variant and episode a run directory or extract belongs to."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from verifier.errors import VerifyError


@dataclass(frozen=True)
class RunInfo:
    """``run.json``: which task, variant and episode the stores belong to."""

    task: str
    alias: str
    variant: str
    episode_id: str
    engine_version: str

    @classmethod
    def load(cls, path: Path) -> RunInfo:
        if not path.is_file():
            raise VerifyError(f"{path}: missing; an extract holds the run.json of its run "
                              "(make one with 'ehr-sandbox extract RUN_DIR --out DIR')")
        try:
            data = json.loads(path.read_text())
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise VerifyError(f"{path}: not readable JSON ({exc})") from exc
        if not isinstance(data, dict):
            raise VerifyError(f"{path}: must be a JSON object with task and episode_id")
        missing = [k for k in ("task", "episode_id") if not isinstance(data.get(k), str)]
        if missing:
            raise VerifyError(f"{path}: lacks {', '.join(missing)}")
        return cls(task=data["task"], alias=str(data.get("alias", "")),
                   variant=str(data.get("variant") or "default"),
                   episode_id=data["episode_id"],
                   engine_version=str(data.get("engine_version", "")))

    def to_json(self) -> dict[str, str]:
        return {"task": self.task, "alias": self.alias, "variant": self.variant,
                "episode_id": self.episode_id, "engine_version": self.engine_version}
