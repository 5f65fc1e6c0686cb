"""A local stand-in for an OpenAI-compatible chat endpoint (nothing calls the internet)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class FakeChatEndpoint:
    """Serves ``POST /v1/chat/completions`` with scripted answers, in turn; records requests.

    An answer of ``None`` makes the endpoint reply HTTP 500 for that call.
    """

    def __init__(self, answers: list[str | None]):
        self.answers = list(answers)
        self.requests: list[dict] = []
        self.headers: list[dict] = []
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                endpoint.requests.append(body)
                endpoint.headers.append(dict(self.headers))
                index = len(endpoint.requests) - 1
                answer = endpoint.answers[index % len(endpoint.answers)]
                if answer is None or self.path != "/v1/chat/completions":
                    self.send_response(500)
                    self.end_headers()
                    return
                payload = json.dumps({"choices": [{"message": {"role": "assistant",
                                                               "content": answer}}]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *_args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever,
                                       kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> FakeChatEndpoint:
        self.thread.start()
        return self

    def __exit__(self, *_exc) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()
