#!/usr/bin/env python3
"""Loopback HTTP server for the PreloadKitFoundation end-to-end tests.

Binds 127.0.0.1 on an ephemeral port and prints "PORT <n>" on stdout once listening. Bounded:
exits by itself after --lifetime-seconds and stops serving after --max-requests.

Routes (GET unless noted):
  /asset/<profile>/<name>.<ext>?bytes=<n>  body = magic bytes of <ext> + filler, correct type;
                               profile: fresh (max-age=300), swr (max-age=0, stale-while-revalidate=600),
                               etag (as swr, with an ETag; a matching If-None-Match gets 304, no body)
  /slow/<ms>/<name>.png        sleeps <ms> ms, then serves a PNG (the client has usually given up)
  /error/<name>.png            500
  /truncated/<name>.png        Content-Length 20000, sends 3000 bytes, closes the connection
  /oversized/<name>.png?bytes=<n>&cl=0|1   a PNG of n bytes, with or without Content-Length
                                           (without: the connection close ends the body)
  /wrongtype/<name>.png        PNG bytes served as text/html
  /wrongmagic/<name>.png       HTML bytes served as image/png
  /redirect/<name>.png         302 to /asset/<name>.png
  /doc/<name>                  a document stored with PUT /doc/<name> (served as application/json;
                               names ending .m3u8 as application/vnd.apple.mpegurl, .ts as video/mp2t,
                               .mp4 as video/mp4). A `Range: bytes=<first>-<last>` header is honoured
                               (206 with Content-Range; 416 when unsatisfiable) unless the query has
                               ignore-range=1 (then the whole document, 200, as a server without
                               range support answers)
  /__log                       JSON list of {"method","path","bodyBytes","sha256","range"} (range: the
                               request's Range header or null; not logged itself)
"""
import argparse
import hashlib
import json
import os
import socket
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MAGIC = {
    "png": (b"\x89PNG\r\n\x1a\n", "image/png"),
    "jpg": (b"\xff\xd8\xff\xe0\x00\x10JFIF\x00", "image/jpeg"),
    "gif": (b"GIF89a", "image/gif"),
}
PROFILES = {"fresh": "max-age=300", "swr": "max-age=0, stale-while-revalidate=600",
            "etag": "max-age=0, stale-while-revalidate=600"}
LOG_MAX = 1000
DOC_BYTES_MAX = 65536


def body_for(ext, name, size):
    magic, _ = MAGIC[ext]
    seed = hashlib.sha256(name.encode()).digest()
    filler = (seed * (size // len(seed) + 1))[: max(0, size - len(magic))]
    return (magic + filler)[:size] if size >= len(magic) else magic


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "PreloadTestServer/1"

    def log_message(self, fmt, *args):  # quiet
        pass

    def record(self, body):
        state = self.server.state
        with state["lock"]:
            if len(state["log"]) < LOG_MAX:
                state["log"].append({
                    "method": self.command,
                    "path": self.path,
                    "bodyBytes": len(body),
                    "sha256": hashlib.sha256(body).hexdigest(),
                    "range": self.headers.get("Range"),
                })

    def send_body(self, status, ctype, body, cc=None, content_length=True, close=False, etag=None, content_range=None):
        self.record(body)
        self.send_response(status)
        if ctype:
            self.send_header("Content-Type", ctype)
        if content_range:
            self.send_header("Content-Range", content_range)
        if cc:
            self.send_header("Cache-Control", cc)
        if etag:
            self.send_header("ETag", etag)
        if content_length:
            self.send_header("Content-Length", str(len(body)))
        if close or not content_length:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        try:
            for i in range(0, len(body), 65536):
                self.wfile.write(body[i:i + 65536])
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def count_request(self):
        state = self.server.state
        with state["lock"]:
            state["requests"] += 1
            return state["requests"] <= state["max_requests"]

    def do_PUT(self):
        if not self.count_request():
            self.send_error(503)
            return
        parts = urllib.parse.urlsplit(self.path)
        length = int(self.headers.get("Content-Length", "0"))
        if not parts.path.startswith("/doc/") or length > DOC_BYTES_MAX:
            self.send_error(400)
            return
        data = self.rfile.read(length)
        with self.server.state["lock"]:
            self.server.state["docs"][parts.path] = data
        self.send_response(204)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self):
        parts = urllib.parse.urlsplit(self.path)
        query = dict(urllib.parse.parse_qsl(parts.query))
        segments = parts.path.strip("/").split("/")
        if parts.path == "/__log":
            with self.server.state["lock"]:
                data = json.dumps(self.server.state["log"]).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return
        if not self.count_request():
            self.send_error(503)
            return
        kind = segments[0]
        name = segments[-1]
        ext = name.rsplit(".", 1)[-1] if "." in name else ""
        if kind == "asset" and ext in MAGIC and len(segments) == 3 and segments[1] in PROFILES:
            size = min(int(query.get("bytes", "2000")), 8_000_000)
            body = body_for(ext, name, size)
            etag = None
            if segments[1] == "etag":
                etag = '"' + hashlib.sha256(body).hexdigest()[:16] + '"'
                if self.headers.get("If-None-Match") == etag:
                    self.record(b"")
                    self.send_response(304)
                    self.send_header("Cache-Control", PROFILES["etag"])
                    self.send_header("ETag", etag)
                    self.end_headers()
                    return
            self.send_body(200, MAGIC[ext][1], body, cc=PROFILES[segments[1]], etag=etag)
        elif kind == "slow" and len(segments) == 3:
            time.sleep(min(int(segments[1]), 20000) / 1000.0)
            self.send_body(200, "image/png", body_for("png", name, 2000), cc="max-age=300")
        elif kind == "error":
            self.send_body(500, "text/plain", b"internal error")
        elif kind == "truncated":
            body = body_for("png", name, 20000)
            self.record(body[:3000])
            self.send_response(200)
            self.send_header("Content-Type", "image/png")
            self.send_header("Cache-Control", "max-age=300")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            try:
                self.wfile.write(body[:3000])
                self.wfile.flush()
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            self.close_connection = True
        elif kind == "oversized":
            size = min(int(query.get("bytes", "100000")), 8_000_000)
            self.send_body(200, "image/png", body_for("png", name, size), cc="max-age=300",
                           content_length=query.get("cl", "1") == "1")
        elif kind == "wrongtype":
            self.send_body(200, "text/html", body_for("png", name, 2000), cc="max-age=300")
        elif kind == "wrongmagic":
            self.send_body(200, "image/png", b"<html><body>not an image</body></html>" * 10, cc="max-age=300")
        elif kind == "redirect":
            self.record(b"")
            self.send_response(302)
            self.send_header("Location", "/asset/fresh/" + name)
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif kind == "doc":
            with self.server.state["lock"]:
                data = self.server.state["docs"].get(parts.path)
            if data is None:
                self.send_body(404, "text/plain", b"no such document")
            else:
                ctype = ("application/vnd.apple.mpegurl" if parts.path.endswith(".m3u8")
                         else "video/mp2t" if parts.path.endswith(".ts")
                         else "video/mp4" if parts.path.endswith(".mp4") else "application/json")
                wanted = self.headers.get("Range")
                if wanted and query.get("ignore-range") != "1":
                    first, last = parse_range(wanted, len(data))
                    if first is None:
                        self.send_body(416, "text/plain", b"", content_range="bytes */%d" % len(data))
                    else:
                        self.send_body(206, ctype, data[first:last + 1], cc="max-age=60",
                                       content_range="bytes %d-%d/%d" % (first, last, len(data)))
                else:
                    self.send_body(200, ctype, data, cc="max-age=60")
        else:
            self.send_body(404, "text/plain", b"not found")


def parse_range(header, size):
    """(first, last) of a single `bytes=<first>-<last>` range within `size` bytes (last clamped to
    the end, RFC 9110 §14.1.2), or (None, None) when malformed or unsatisfiable."""
    unit, _, spec = header.partition("=")
    first, dash, last = spec.strip().partition("-")
    if unit.strip().lower() != "bytes" or not dash or not first.isdigit() or (last and not last.isdigit()):
        return None, None
    first = int(first)
    last = min(int(last), size - 1) if last else size - 1
    if first >= size or last < first:
        return None, None
    return first, last


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lifetime-seconds", type=float, default=120.0)
    parser.add_argument("--max-requests", type=int, default=500)
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.state = {"lock": threading.Lock(), "log": [], "docs": {}, "requests": 0, "max_requests": args.max_requests}
    timer = threading.Timer(args.lifetime_seconds, lambda: os._exit(0))
    timer.daemon = True
    timer.start()
    print("PORT %d" % server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
