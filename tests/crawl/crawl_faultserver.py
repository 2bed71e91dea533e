"""A fault-injecting HTTP server on 127.0.0.1 for crawler tests and the bench.

Why a real server: the faults we guard against (drip bodies, resets, bombs, redirect games) live in
socket behaviour that a mocked client would never exercise. Bodies are generated on the fly: the
300 MiB response is streamed, never held in memory.
"""

from __future__ import annotations

import gzip
import socket
import struct
import threading
import time
import zlib
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

LATIN1_TEXT = (
    "Olá! Esta é uma página em português com acentuação: ação, coração, informação, não, são, "
    "também, você, está. Éramos felizes à noite, com café e pão de açúcar."
)
PNG_BYTES = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + bytes(range(256)) * 4

_BOMB: bytes | None = None
_BOMB_LOCK = threading.Lock()


def gzip_bomb(mib: int = 300) -> bytes:
    """`mib` MiB of zeros as one gzip member (~1.3 MB at level 1; built once, ~0.75 s)."""
    global _BOMB
    with _BOMB_LOCK:
        if _BOMB is None:
            c = zlib.compressobj(1, zlib.DEFLATED, 31)
            zeros = b"\0" * (1 << 20)
            _BOMB = b"".join([*(c.compress(zeros) for _ in range(mib)), c.flush()])
        return _BOMB


def page(n: int | str, extra: str = "") -> bytes:
    return (
        f"<html><head><title>Page {n}</title></head><body><h1>Page {n}</h1>"
        f"<p>This is test page number {n}. It has a few words of text.</p>{extra}</body></html>"
    ).encode()


class FaultServer(ThreadingHTTPServer):
    """Counts hits per path and the peak number of concurrent requests (per server)."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, host: str = "127.0.0.1", *, latency_s: float = 0.0) -> None:
        super().__init__((host, 0), Handler)
        self.hits: Counter[str] = Counter()
        self.lock = threading.Lock()
        self.active = 0
        self.max_active = 0
        self.latency_s = latency_s
        self.robots: tuple[int, str] | None = None  # (status, body); None -> 404
        self.counters: Counter[str] = Counter()
        self.host_headers: list[str] = []
        self.user_agents: list[str] = []
        self.thread = threading.Thread(target=self.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    @property
    def base(self) -> str:
        return f"http://{self.server_address[0]}:{self.port}"

    def start(self) -> FaultServer:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.shutdown()
        self.server_close()

    def handle_error(self, request: object, client_address: object) -> None:
        pass  # clients hanging up mid-body is the point of many tests


class Handler(BaseHTTPRequestHandler):
    server: FaultServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        pass

    def _send(
        self, status: int, body: bytes, ctype: str | None = "text/html", **headers: str
    ) -> None:
        self.send_response(status)
        if ctype:
            self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        for k, v in headers.items():
            self.send_header(k.replace("_", "-"), v)
        self.end_headers()
        # Leave the in-flight count before the last bytes go out: once the client has the body it
        # may legitimately send the next request while this thread is still returning.
        self._release()
        self.wfile.write(body)

    def _release(self) -> None:
        if getattr(self, "_active", False):
            self._active = False
            with self.server.lock:
                self.server.active -= 1

    def do_GET(self) -> None:
        srv = self.server
        with srv.lock:
            srv.hits[self.path] += 1
            srv.host_headers.append(self.headers.get("Host", ""))
            srv.user_agents.append(self.headers.get("User-Agent", ""))
            srv.active += 1
            srv.max_active = max(srv.max_active, srv.active)
        self._active = True
        try:
            if srv.latency_s:
                time.sleep(srv.latency_s)
            self._route()
        except (BrokenPipeError, ConnectionResetError):
            pass
        finally:
            self._release()

    def _route(self) -> None:
        srv = self.server
        parts = urlsplit(self.path)
        path, query = parts.path, parse_qs(parts.query)
        if path == "/robots.txt":
            if srv.robots is None:
                self._send(404, b"not found", "text/plain")
            else:
                status, text = srv.robots
                self._send(status, text.encode(), "text/plain")
        elif path.startswith("/page/"):
            self._send(200, page(path.rsplit("/", 1)[-1]), "text/html; charset=utf-8")
        elif path == "/latin1":
            body = f"<html><body><p>{LATIN1_TEXT}</p></body></html>".encode("latin-1")
            self._send(200, body, "text/html")
        elif path == "/binary":
            self._send(200, PNG_BYTES, "image/png")
        elif path == "/binary-as-html":
            self._send(200, PNG_BYTES, "text/html")
        elif path == "/empty":
            self._send(200, b"", "text/html")
        elif path.startswith("/status/"):
            code = int(path.rsplit("/", 1)[-1])
            self._send(code, f"status {code}".encode(), "text/plain")
        elif path.startswith("/flaky/"):
            # 503 twice, then 200 (per path)
            with srv.lock:
                srv.counters[path] += 1
                n = srv.counters[path]
            if n <= 2:
                self._send(503, b"try later", "text/plain")
            else:
                self._send(200, page("flaky"), "text/html")
        elif path.startswith("/ratelimit/"):
            with srv.lock:
                srv.counters[path] += 1
                n = srv.counters[path]
            wait = query.get("wait", ["2"])[0]
            if n == 1:
                self._send(429, b"slow down", "text/plain", Retry_After=wait)
            else:
                self._send(200, page("ratelimited"), "text/html")
        elif path == "/drip":
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", "100000")
            self.end_headers()
            for _ in range(1000):
                self.wfile.write(b"x")
                self.wfile.flush()
                time.sleep(0.05)
        elif path == "/reset":
            # SO_LINGER 0 makes close() send a RST instead of a FIN.
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.connection.close()
            self.close_connection = True
        elif path == "/huge":
            size = 300 * 1024 * 1024
            chunked = "nolength" in query
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            if not chunked:
                self.send_header("Content-Length", str(size))
            self.send_header("Connection", "close")
            self.end_headers()
            block = b"<p>" + b"a" * 65530 + b"</p>\n"
            sent = 0
            while sent < size:
                self.wfile.write(block)
                sent += len(block)
            self.close_connection = True
        elif path == "/bomb":
            self._send(200, gzip_bomb(), "text/html", Content_Encoding="gzip")
        elif path.startswith("/encoded/"):  # a page sent with the Content-Encoding in the path
            enc = path.rsplit("/", 1)[-1]
            body = gzip.compress(page(enc)) if "gzip" in enc else b"\x28\xb5\x2f\xfd" + page(enc)
            self._send(200, body, "text/html", Content_Encoding=enc)
        elif path.startswith("/loop/"):
            other = "b" if path.endswith("/a") else "a"
            self._send(302, b"", None, Location=f"/loop/{other}")
        elif path.startswith("/chain/"):
            n = int(path.rsplit("/", 1)[-1])
            if n == 0:
                self._send(200, page("chain-end"), "text/html")
            else:
                self._send(301, b"", None, Location=f"/chain/{n - 1}")
        elif path == "/redirect":
            self._send(302, b"", None, Location=query["to"][0])
        elif path.startswith("/private/"):
            self._send(200, page("private"), "text/html")
        else:
            self._send(404, b"no such fault", "text/plain")
