"""A webhook receiver for the tests: verifies every delivery with the `standardwebhooks`
package (Standard Webhooks' own Python library, independent of gpumarket's signing code)
and records it.

    receiver.py SECRETS_DIR LOG [--fail-first N]

Listens on 127.0.0.1 on a free port and prints it on the first line of its output. A
delivery to `/<name>` is verified with the secrets in `SECRETS_DIR/<name>.secret`, one a
line, newest first (read at every request, so a test writes it once the endpoint is
registered, and again after a rotation, when the old secret still verifies as during its
overlap); before that file exists the receiver answers 503. Each request appends one JSON
line to LOG: the path, `webhook-id`, whether it verified, the answer given and the payload.
With `--fail-first N` the first N attempts of each `webhook-id` at each path are answered
500. With `--delay-first-ms MS` the first attempt of each `webhook-id` at each path is held
MS milliseconds (a line `{"path", "id", "arrived": true}` is logged when it arrives); if the
sender is gone by then, its line says `"answered": "cut"` and no answer is sent.
"""

import argparse
import json
import os
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from standardwebhooks.webhooks import Webhook, WebhookVerificationError

parser = argparse.ArgumentParser()
parser.add_argument("secrets")
parser.add_argument("log")
parser.add_argument("--fail-first", type=int, default=0)
parser.add_argument("--delay-first-ms", type=int, default=0)
args = parser.parse_args()

lock = threading.Lock()
seen = {}


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length)
        name = self.path.strip("/")
        headers = {k.lower(): v for k, v in self.headers.items()}
        record = {"path": name, "id": headers.get("webhook-id"), "verified": False}
        secret_file = os.path.join(args.secrets, name + ".secret")
        if not os.path.exists(secret_file):
            status = 503
        else:
            with open(secret_file) as f:
                secrets = [line.strip() for line in f if line.strip()]
            # The newest secret first; one still in its overlap verifies too.
            for secret in secrets:
                try:
                    record["payload"] = Webhook(secret).verify(body, headers)
                    record["verified"] = True
                    record.pop("error", None)
                    break
                except WebhookVerificationError as e:
                    record["error"] = str(e)
            key = (name, record["id"])
            with lock:
                seen[key] = seen.get(key, 0) + 1
                attempt = seen[key]
            if not record["verified"]:
                status = 400
            elif attempt <= args.fail_first:
                status = 500
            else:
                status = 200
        if status == 200 and args.delay_first_ms and attempt == 1:
            with lock, open(args.log, "a") as log:
                log.write(json.dumps({"path": name, "id": record["id"], "arrived": True}) + "\n")
            time.sleep(args.delay_first_ms / 1000)
            if sender_gone(self.connection):
                status = "cut"
        record["answered"] = status
        with lock, open(args.log, "a") as log:
            log.write(json.dumps(record) + "\n")
        if status == "cut":
            return
        answer = b"ok" if status == 200 else b"not now"
        self.send_response(status)
        self.send_header("content-length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *_):
        pass


def sender_gone(connection):
    """Whether the sender closed the connection (it reads as ended, not as would-block)."""
    connection.setblocking(False)
    try:
        return connection.recv(1, socket.MSG_PEEK) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True
    finally:
        connection.setblocking(True)


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
sys.stdout.close()
server.serve_forever()
