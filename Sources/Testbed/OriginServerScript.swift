/// The testbed's origin (Python 3 standard library), written to the run directory and started
/// with its JSON configuration as the only argument.
///
/// `ThreadingHTTPServer` with `request_queue_size = 1024` (the default listen backlog of 5 resets
/// connections under a burst) and `daemon_threads`. Like the model's origin pool
/// (``InfraModel/OriginConfig``): `workers` requests are served at once, each holding a worker for
/// one `serviceSeconds` draw; up to `queueMax` more wait; an arrival finding every worker busy and
/// the queue full gets 503 at once. Before admission each request spends one `toOriginSeconds`
/// draw (the shield → origin round trip over TLS, which occupies no worker). Draws come from
/// lists the testbed sampled from the scenario's distributions, used in order.
///
/// Objects (`objects`, by path without query) are served with their Content-Type, Content-Length,
/// Cache-Control, a strong ETag (If-None-Match → 304) and surrogate keys in `xkey`; the body starts
/// with the media type's magic bytes (PreloadKit sniffs them). `GET /__testbed/stats` returns the
/// counters as JSON; `GET /__testbed/health` answers 200. It exits when its parent dies.
enum OriginServerScript {
    static let fileName = "origin.py"
    static let source = #"""
import json, os, sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

with open(sys.argv[1]) as f:
    CONFIG = json.load(f)

LOCK = threading.Lock()
WORKERS = threading.Semaphore(CONFIG["workers"])
STATE = {"busy": 0, "waiting": 0, "service": 0, "toOrigin": 0}
STATS = {"requests": 0, "served": 0, "notModified": 0, "rejected503": 0, "notFound": 0,
         "queueLengthMax": 0, "bytes": 0}
SERVICE = CONFIG["serviceSeconds"] or [0.0]
TO_ORIGIN = CONFIG["toOriginSeconds"] or [0.0]
OBJECTS = CONFIG["objects"]
VALIDATORS = CONFIG.get("sendsValidators", True)

def draw(values, key):
    with LOCK:
        i = STATE[key]
        STATE[key] = i + 1
    return values[i % len(values)]

class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, status, headers, body=b""):
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if body and self.command != "HEAD":
            self.wfile.write(body)

    def do_HEAD(self):
        self.do_GET()

    def do_GET(self):
        path = self.path.split("?", 1)[0]
        if path == "/__testbed/health":
            return self.reply(200, [("Content-Type", "text/plain")], b"OK")
        if path == "/__testbed/stats":
            with LOCK:
                body = json.dumps(STATS, sort_keys=True).encode()
            return self.reply(200, [("Content-Type", "application/json"), ("Cache-Control", "no-store")], body)
        with LOCK:
            STATS["requests"] += 1
        time.sleep(draw(TO_ORIGIN, "toOrigin"))
        with LOCK:
            if STATE["busy"] >= CONFIG["workers"] and STATE["waiting"] >= CONFIG["queueMax"]:
                STATS["rejected503"] += 1
                full = True
            else:
                full = False
                STATE["waiting"] += 1
                STATS["queueLengthMax"] = max(STATS["queueLengthMax"], STATE["waiting"] - max(0, CONFIG["workers"] - STATE["busy"]))
        if full:
            return self.reply(503, [("Content-Type", "text/plain"), ("Cache-Control", "no-store"), ("Retry-After", "1")], b"origin queue full")
        WORKERS.acquire()
        with LOCK:
            STATE["waiting"] -= 1
            STATE["busy"] += 1
        try:
            time.sleep(draw(SERVICE, "service"))
        finally:
            with LOCK:
                STATE["busy"] -= 1
            WORKERS.release()
        obj = OBJECTS.get(path)
        if obj is None:
            with LOCK:
                STATS["notFound"] += 1
            return self.reply(404, [("Content-Type", "text/plain"), ("Cache-Control", "no-store")], b"not found")
        etag = '"' + obj["etag"] + '"'
        headers = [("Cache-Control", obj["cacheControl"]), ("xkey", obj["xkey"])]
        if VALIDATORS:
            headers.append(("ETag", etag))
        if VALIDATORS and self.headers.get("If-None-Match") == etag:
            with LOCK:
                STATS["notModified"] += 1
            self.send_response(304)
            for k, v in headers:
                self.send_header(k, v)
            self.end_headers()
            return
        prefix = bytes.fromhex(obj["prefixHex"])
        size = obj["bytes"]
        with LOCK:
            STATS["served"] += 1
            STATS["bytes"] += size
        self.send_response(200)
        self.send_header("Content-Type", obj["contentType"])
        self.send_header("Content-Length", str(size))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        if self.command == "HEAD":
            return
        body = prefix[:size] + b"\0" * max(0, size - len(prefix))
        view = memoryview(body)
        for i in range(0, size, 65536):
            self.wfile.write(view[i:i + 65536])

class Server(ThreadingHTTPServer):
    request_queue_size = 1024
    daemon_threads = True
    allow_reuse_address = True

def watch_parent(parent, server):
    while True:
        if os.getppid() != parent:
            os._exit(0)
        time.sleep(0.25)

if __name__ == "__main__":
    server = Server(("127.0.0.1", CONFIG["port"]), Handler)
    threading.Thread(target=watch_parent, args=(CONFIG["parentPid"], server), daemon=True).start()
    with open(CONFIG["readyFile"], "w") as f:
        f.write("ready\n")
    try:
        server.serve_forever(poll_interval=0.1)
    except KeyboardInterrupt:
        pass
"""#
}
