"""A local S3-compatible server for tests: moto in server mode on 127.0.0.1, never the internet.

`s3` (a pytest fixture; tests import `s3_fixture, moto_endpoint_fixture` to use it) starts one `ThreadedMotoServer`
on a free port, points the AWS environment at it (endpoint, region, dummy credentials) and
creates an empty bucket per test.
"""

from __future__ import annotations

import logging
import socket
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pyarrow.fs as pafs
import pytest


@dataclass(frozen=True)
class S3:
    endpoint: str
    bucket: str
    fs: pafs.S3FileSystem

    def uri(self, *keys: str) -> str:
        return "/".join([f"s3://{self.bucket}", *keys])

    def put(self, key: str, data: bytes) -> None:
        with self.fs.open_output_stream(f"{self.bucket}/{key}") as out:
            out.write(data)

    def put_tree(self, folder: Path, prefix: str) -> None:
        for p in sorted(folder.rglob("*")):
            if p.is_file():
                self.put(f"{prefix}/{p.relative_to(folder).as_posix()}", p.read_bytes())

    def keys(self, prefix: str = "") -> list[str]:
        sel = pafs.FileSelector(f"{self.bucket}/{prefix}".rstrip("/"), recursive=True)
        infos = self.fs.get_file_info(sel)
        return sorted(i.path.split("/", 1)[1] for i in infos if i.type == pafs.FileType.File)

    def get(self, key: str) -> bytes:
        with self.fs.open_input_stream(f"{self.bucket}/{key}") as fh:
            return fh.read()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="session", name="moto_endpoint")
def moto_endpoint_fixture() -> Iterator[str]:
    moto_server = pytest.importorskip("moto.server")
    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # one log line per request otherwise
    port = _free_port()
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.stop()


@pytest.fixture(name="s3")
def s3_fixture(moto_endpoint: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> S3:
    """An empty bucket on the local server, with the environment trustaudit reads set to it."""
    for key in ("AWS_ENDPOINT_URL_S3", "AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_DEFAULT_REGION"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("AWS_ENDPOINT_URL", moto_endpoint)
    monkeypatch.setenv("AWS_REGION", "us-east-1")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("TRUSTAUDIT_STAGING_DIR", str(tmp_path / "staging"))
    host = moto_endpoint.removeprefix("http://")
    fs = pafs.S3FileSystem(
        endpoint_override=host,
        scheme="http",
        region="us-east-1",
        access_key="testing",
        secret_key="testing",
        allow_bucket_creation=True,
    )
    bucket = f"b-{uuid.uuid4().hex[:10]}"
    fs.create_dir(bucket)
    return S3(moto_endpoint, bucket, fs)
