"""Local stand-ins for the model APIs: each replays a script of responses and keeps the
requests it got, so the adapters run with their real SDKs and no network.

    python -m tests.episodes.fake_model_apis anthropic --port 8911   # a short ord-01 script
    ANTHROPIC_BASE_URL=http://127.0.0.1:8911 ANTHROPIC_API_KEY=x \\
        ehr-sandbox run ord-01 --agent anthropic:fake-model

A script entry is a reply: ``{"body": {...}}`` (200 with that JSON), ``{"status": 429}``
(an error status, ``retry-after: 0``), or ``{"hang": seconds}`` (no answer for that long).
When the script runs out, the server says "done" in the API's own terms.
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

# -- replies in each API's shape ---------------------------------------------------------


def anthropic_reply(*actions: dict[str, Any], text: str = "", stop: str | None = None,
                    tokens: tuple[int, int] = (1000, 50)) -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    content += [{"type": "tool_use", "id": f"toolu_{i}_{time.monotonic_ns()}",
                 "name": "computer", "input": a} for i, a in enumerate(actions)]
    return {"body": {"id": "msg_fake", "type": "message", "role": "assistant",
                     "model": "fake-model", "content": content,
                     "stop_reason": stop or ("tool_use" if actions else "end_turn"),
                     "stop_sequence": None,
                     "usage": {"input_tokens": tokens[0], "output_tokens": tokens[1]}}}


def openai_reply(*actions: dict[str, Any], text: str = "", refusal: str | None = None,
                 checks: list[dict[str, str]] | None = None,
                 tokens: tuple[int, int] = (1000, 50)) -> dict[str, Any]:
    output: list[dict[str, Any]] = []
    if text or refusal:
        part = ({"type": "refusal", "refusal": refusal} if refusal else
                {"type": "output_text", "text": text, "annotations": []})
        output.append({"type": "message", "id": "msg_1", "role": "assistant",
                       "status": "completed", "content": [part]})
    for i, action in enumerate(actions):
        output.append({"type": "computer_call", "id": f"cu_{i}", "call_id": f"call_{i}",
                       "action": action, "pending_safety_checks": checks or [],
                       "status": "completed"})
    return {"body": {"id": f"resp_{time.monotonic_ns()}", "object": "response",
                     "created_at": 0, "model": "fake-model", "status": "completed",
                     "output": output, "parallel_tool_calls": True, "tool_choice": "auto",
                     "tools": [],
                     "usage": {"input_tokens": tokens[0], "output_tokens": tokens[1],
                               "total_tokens": sum(tokens),
                               "input_tokens_details": {"cached_tokens": 0},
                               "output_tokens_details": {"reasoning_tokens": 0}}}}


def chat_reply(text: str, tokens: tuple[int, int] = (1000, 50),
               refusal: str | None = None) -> dict[str, Any]:
    return {"body": {"id": "chatcmpl-fake", "object": "chat.completion", "created": 0,
                     "model": "fake-model",
                     "choices": [{"index": 0, "finish_reason": "stop",
                                  "message": {"role": "assistant", "content": text,
                                              "refusal": refusal}}],
                     "usage": {"prompt_tokens": tokens[0], "completion_tokens": tokens[1],
                               "total_tokens": sum(tokens)}}}


DONE = {"anthropic": lambda: anthropic_reply(text="The task is complete.", tokens=(10, 5)),
        "openai": lambda: openai_reply(text="The task is complete.", tokens=(10, 5)),
        "openai-compatible": lambda: chat_reply("Thought: finished.\nAction: done('ok')",
                                                tokens=(10, 5))}
PATHS = {"anthropic": "/v1/messages", "openai": "/v1/responses",
         "openai-compatible": "/v1/chat/completions"}


class FakeModelAPI:
    """One fake API on 127.0.0.1; ``requests`` holds the JSON bodies it received."""

    def __init__(self, api: str, script: list[dict[str, Any]], port: int = 0):
        self.api = api
        self.script = list(script)
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                if self.path.split("?")[0] != PATHS[fake.api]:
                    return self._send(404, {"error": {"message": f"no route {self.path}"}})
                with fake.lock:
                    fake.requests.append(json.loads(body or b"{}"))
                    entry = fake.script.pop(0) if fake.script else DONE[fake.api]()
                if "hang" in entry:
                    time.sleep(entry["hang"])
                    return self._send(200, DONE[fake.api]()["body"])
                if "status" in entry:
                    return self._send(entry["status"], {"type": "error", "error": {
                        "type": "rate_limit_error", "message": "slow down"}})
                return self._send(200, entry["body"])

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    self.send_header("retry-after", "0")
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:
                    pass  # the client gave up (a timeout test)

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}" + ("/v1" if self.api != "anthropic" else "")

    def env(self) -> dict[str, str]:
        """The environment that points the adapter's SDK here."""
        return {"anthropic": {"ANTHROPIC_BASE_URL": self.base_url, "ANTHROPIC_API_KEY": "k"},
                "openai": {"OPENAI_BASE_URL": self.base_url, "OPENAI_API_KEY": "k"},
                "openai-compatible": {"OPENAI_COMPATIBLE_BASE_URL": self.base_url}}[self.api]

    def __enter__(self) -> FakeModelAPI:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


# -- a short ord-01 session per API (tests and docs/agents.md) ----------------------------
def ord01_script(api: str) -> list[dict[str, Any]]:
    """Click into the page, type, press Tab; then (script over) the model says done. The
    second call is answered 429 first, so a retry is part of every run."""
    if api == "anthropic":
        return [anthropic_reply({"action": "left_click", "coordinate": [640, 362]},
                                text="I will click the page.", tokens=(1200, 40)),
                {"status": 429},
                anthropic_reply({"action": "type", "text": "120"},
                                {"action": "key", "text": "Tab"}, tokens=(2400, 60))]
    if api == "openai":
        return [openai_reply({"type": "click", "button": "left", "x": 640, "y": 362},
                             text="Clicking the page.", tokens=(1200, 40)),
                {"status": 429},
                openai_reply({"type": "type", "text": "120"}, tokens=(2400, 60)),
                openai_reply({"type": "keypress", "keys": ["TAB"]}, tokens=(100, 0))]
    return [chat_reply("Thought: click the page\nAction: click(start_box='(640,362)')",
                       tokens=(1200, 40)),
            {"status": 429},
            chat_reply('Thought: type and tab\nAction: type("120")\nAction: key("Tab")',
                       tokens=(2400, 60))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("api", choices=sorted(PATHS))
    parser.add_argument("--port", type=int, default=8911)
    parser.add_argument("--script", help="a JSON list of replies (default: the ord-01 one)")
    args = parser.parse_args()
    script = json.loads(open(args.script).read()) if args.script else ord01_script(args.api)
    with FakeModelAPI(args.api, script, args.port) as fake:
        print(f"fake {args.api} API at {fake.base_url}; environment: "
              + " ".join(f"{k}={v}" for k, v in fake.env().items()), flush=True)
        try:
            fake.thread.join()
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
