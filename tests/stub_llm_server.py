"""A loopback HTTP server that speaks the chat-completions JSON of OpenAI and Mistral, for SDK tests.

Each request pops the next scripted reply: ``(status, headers, body)`` where ``body`` is a dict (sent as
JSON), a str (sent as is), or a callable of the request's JSON body returning either (a reply that must echo
something of the request, such as its nonce: :meth:`StubLLMServer.reply_with`). Requests are recorded. Binds
127.0.0.1 only.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def completion(text: str, *, prompt_tokens: int = 11, completion_tokens: int = 7,
               logprobs: list[tuple[str, float, list[tuple[str, float]]]] | None = None) -> dict:
    """An OpenAI chat completion; ``logprobs``: (token, logprob, [(alternative, logprob), ...]) per token."""
    choice: dict = {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
    if logprobs is not None:
        choice["logprobs"] = {"content": [
            {"token": t, "logprob": lp, "bytes": list(t.encode()),
             "top_logprobs": [{"token": a, "logprob": alp, "bytes": list(a.encode())} for a, alp in alts]}
            for t, lp, alts in logprobs
        ]}
    return {
        "id": "cmpl-stub",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": "stub-model",
        "choices": [choice],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens},
    }


class StubLLMServer:
    def __init__(self) -> None:
        self.script: list[tuple[int, dict, object]] = []
        self.requests: list[dict] = []
        self.delay = 0.0
        self.trickle = 0.0  # seconds between bytes of the body: a server that never quite times out
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output clean
                pass

            def do_POST(self):  # noqa: N802 - http.server API
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                with server._lock:
                    server.requests.append({"path": self.path, "body": body})
                    status, headers, reply = server.script.pop(0) if server.script else (500, {}, {"error": "empty script"})
                if callable(reply):
                    reply = reply(body)
                if server.delay:
                    time.sleep(server.delay)
                data = reply if isinstance(reply, str) else json.dumps(reply)
                self.send_response(status)
                self.send_header("content-type", "application/json")
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("content-length", str(len(data.encode())))
                self.end_headers()
                try:
                    if server.trickle:
                        for byte in data.encode():
                            self.wfile.write(bytes([byte]))
                            self.wfile.flush()
                            time.sleep(server.trickle)
                    else:
                        self.wfile.write(data.encode())
                except (BrokenPipeError, ConnectionResetError):  # the client timed out and left
                    pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )  # a short poll: shutdown() returns at once, not after half a second

    def __enter__(self) -> StubLLMServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def reply(self, text: str, **kw) -> None:
        self.script.append((200, {}, completion(text, **kw)))

    def reply_with(self, make) -> None:
        """A reply made from the request: ``make(body)`` returns a completion dict (see :func:`completion`)."""
        self.script.append((200, {}, make))

    def error(self, status: int, headers: dict | None = None) -> None:
        self.script.append((status, headers or {}, {"error": {"message": f"stub {status}", "type": "stub"}}))
