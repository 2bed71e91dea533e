"""WARC/1.1 output of every HTTP exchange (request + response records), via warcio.

Why store the decoded body: the fetcher decompresses as it reads (that is how the body cap holds), so
the raw transfer bytes are gone. Content-Encoding/Transfer-Encoding are renamed `X-Crawler-*` and
Content-Length rewritten, so any WARC reader (ours, warcio, pywb) reads the body as-is. Each record is
its own gzip member; on resume the file is cut back to the size the journal last committed, so a
killed run never leaves half a record behind.
"""

from __future__ import annotations

import io
import os
import uuid
from pathlib import Path
from typing import BinaryIO

from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from trustaudit import __version__
from trustaudit.crawl.fetch import Exchange

__all__ = ["WarcSink"]

_RENAMED = {"content-encoding", "transfer-encoding", "content-length"}


class WarcSink:
    """Append exchanges to one WARC file; `sync()` returns the durable size for the journal."""

    def __init__(self, path: Path, *, committed_bytes: int | None = None) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        exists = self.path.exists()
        self._fh: BinaryIO = open(self.path, "r+b" if exists else "w+b")  # noqa: SIM115
        if exists:
            size = self.path.stat().st_size
            keep = size if committed_bytes is None else min(size, committed_bytes)
            self._fh.truncate(keep)
            self._fh.seek(keep)
        self._writer = WARCWriter(self._fh, gzip=True, warc_version="WARC/1.1")
        if self._fh.tell() == 0:
            info = {"software": f"trustaudit/{__version__}", "format": "WARC File Format 1.1"}
            self._writer.write_record(self._writer.create_warcinfo_record(self.path.name, info))

    def write(self, ex: Exchange) -> None:
        """Write the request record and the response record of one exchange."""
        date = ex.fetched_at.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        path = ex.url.split("://", 1)[-1]
        path = "/" + path.split("/", 1)[1] if "/" in path else "/"
        req_headers = StatusAndHeaders(
            f"{ex.method} {path} HTTP/1.1", list(ex.request_headers), is_http_request=True
        )
        resp_id = f"<urn:uuid:{uuid.uuid4()}>"
        headers: list[tuple[str, str]] = []
        for k, v in ex.response_headers:
            if k.lower() in _RENAMED:
                headers.append((f"X-Crawler-{k}", v))
            else:
                headers.append((k, v))
        headers.append(("Content-Length", str(len(ex.body))))
        version = ex.http_version if ex.http_version.startswith("HTTP/") else "HTTP/1.1"
        resp_headers = StatusAndHeaders(
            f"{ex.status} {ex.reason}".strip(), headers, protocol=version
        )
        warc_common = {"WARC-Date": date, "WARC-IP-Address": ex.ip}
        resp_extra = {"WARC-Record-ID": resp_id}
        if ex.truncated:
            resp_extra["WARC-Truncated"] = ex.truncated
        response = self._writer.create_warc_record(
            ex.url,
            "response",
            payload=io.BytesIO(ex.body),
            length=None,
            http_headers=resp_headers,
            warc_headers_dict={**warc_common, **resp_extra},
        )
        request = self._writer.create_warc_record(
            ex.url,
            "request",
            payload=io.BytesIO(b""),
            http_headers=req_headers,
            warc_headers_dict={**warc_common, "WARC-Concurrent-To": resp_id},
        )
        self._writer.write_record(response)
        self._writer.write_record(request)

    def sync(self) -> int:
        """Flush and fsync; return the file size to record in the journal."""
        self._fh.flush()
        os.fsync(self._fh.fileno())
        return self._fh.tell()

    def close(self) -> None:
        self.sync()
        self._fh.close()
