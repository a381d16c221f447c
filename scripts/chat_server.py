"""Serve a GGUF chat model over the OpenAI-compatible /v1/chat/completions API.

The answers come from llama.cpp's own server code (tools/server), which the
xllamacpp wheel embeds: each request body goes to its chat-completions handler
and its JSON answer goes back as is. Only the HTTP transport is Python's: the
wheel's built-in listener did not answer requests here. scripts/llm.sh installs
the wheel and the model. Used by the AI-cleanup tests and benchmark:

    $CACHE/llm/venv/bin/python scripts/chat_server.py --model $CACHE/llm/model.gguf --port 8080

It prints "listening on URL" once the model is loaded, and runs until SIGTERM
or SIGINT. Loopback only by default.
"""

import argparse
import json
import signal
import sys
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import xllamacpp as xlc


def make_handler(server, alias):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):  # quiet: the tests read the answers, not a log
            pass

        def reply(self, status, body):
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            if self.path == "/health":
                self.reply(200, {"status": "ok"})
            elif self.path == "/v1/models":
                self.reply(200, {"object": "list", "data": [{"id": alias, "object": "model"}]})
            else:
                self.reply(404, {"error": {"message": "not found", "code": 404}})

        def do_POST(self):
            if self.path.rstrip("/") not in ("/v1/chat/completions", "/chat/completions"):
                self.reply(404, {"error": {"message": "not found", "code": 404}})
                return
            try:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
            except ValueError as e:
                self.reply(400, {"error": {"message": f"bad JSON: {e}", "code": 400}})
                return
            body["stream"] = False
            result = server.handle_chat_completions(body)
            err = result.get("error") if isinstance(result, dict) else None
            status = err.get("code", 500) if isinstance(err, dict) else 200
            try:
                self.reply(status if isinstance(status, int) else 500, result)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up waiting (a timeout test)

    return Handler


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", required=True, help="GGUF model file")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, required=True)
    # One thread: on a busy machine two spin-waiting threads run many times slower.
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--ctx", type=int, default=2048)
    ap.add_argument("--alias", default="local-model", help="model name /v1/models reports")
    a = ap.parse_args()

    p = xlc.CommonParams()
    p.model.path = a.model
    p.n_ctx = a.ctx
    p.n_parallel = 1
    p.cpuparams.n_threads = a.threads
    p.cpuparams_batch.n_threads = a.threads
    server = xlc.Server(p)  # loads the model
    httpd = HTTPServer((a.host, a.port), make_handler(server, a.alias))
    print(f"listening on http://{a.host}:{httpd.server_address[1]}", flush=True)

    def stop(*_):
        threading.Thread(target=httpd.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    httpd.serve_forever()
    httpd.server_close()
    del server
    return 0


if __name__ == "__main__":
    sys.exit(main())
