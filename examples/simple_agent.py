"""A minimal agent for ``ehr-sandbox serve``: look, decide, act, say done.

    ehr-sandbox serve ord-01 | tee serve.out &        # prints one JSON line, then waits
    python examples/simple_agent.py serve.out          # or pass the JSON line itself

Replace ``decide`` with your model: it gets the instruction, the screenshot (PNG bytes)
and the step number, and returns actions of the agent API (docs/agent-api.md; the
Anthropic computer-use vocabulary, in screen pixels) and whether the task is done.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from pixel_stream.client import AgentAPIError, AgentClient

MAX_STEPS = 20


def decide(instruction: str, screenshot: bytes, step: int, size: tuple[int, int]
           ) -> tuple[list[dict], bool]:
    """A stand-in policy: open the first tab, scroll a little, then stop."""
    width, height = size
    if step == 1:
        return [{"action": "left_click", "coordinate": [width // 2, height // 2]}], False
    if step == 2:
        return [{"action": "scroll", "coordinate": [width // 2, height // 2],
                 "scroll_direction": "down", "scroll_amount": 2}], False
    return [], True


def connection(arg: str) -> dict:
    """The JSON line ``serve`` printed: given as is, or the file it was written to."""
    text = arg if arg.lstrip().startswith("{") else Path(arg).read_text()
    for line in text.splitlines():
        if line.lstrip().startswith("{") and "agent_url" in line:
            return json.loads(line)
    raise SystemExit(f"no connection line (JSON with agent_url) in {arg!r}")


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        raise SystemExit("usage: python examples/simple_agent.py SERVE_OUTPUT_OR_JSON")
    info = connection(argv[0])
    with AgentClient(info["agent_url"], info["token"], client_id="example",
                     control="take") as agent:
        for step in range(1, MAX_STEPS + 1):
            shot = agent.screenshot(format="png")
            actions, done = decide(info["instruction"], shot.data, step,
                                   (agent.width, agent.height))
            for action in actions:
                try:
                    agent.act_and_observe(action, quiet_ms=300, format="jpeg", quality=30)
                except AgentAPIError as exc:  # a bad action: the connection stays up
                    print(f"step {step}: {exc}", file=sys.stderr)
            print(f"step {step}: {json.dumps(actions)}", file=sys.stderr)
            if done:
                break
        agent.done(message=f"stopped after {step} steps")
    print("done sent; the episode is being graded", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
