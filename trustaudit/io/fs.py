"""Paths and URIs in one place: `s3://`, `gs://`, `file://` and plain local paths.

Everything that reads an input or writes a run outside the local disk goes through pyarrow's
filesystems (`pyarrow.fs.FileSystem.from_uri`), so one set of credentials rules, one error
mapping and one listing order hold for every reader. Local paths keep using the OS directly (their
callers need FIFOs, permissions and `os.replace`), so nothing changes for a local run.

S3 options come from the standard AWS environment, read when a filesystem is first made:

- `AWS_ENDPOINT_URL_S3`, else `AWS_ENDPOINT_URL`: an S3-compatible server (MinIO, Ceph, moto,
  R2…); an `http://` endpoint switches the scheme to plain HTTP.
- `AWS_REGION`, else `AWS_DEFAULT_REGION`: the bucket's region (without it pyarrow asks the
  bucket, one extra request).
- credentials: the AWS SDK default chain — `AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`
  (`AWS_SESSION_TOKEN`), `AWS_PROFILE` and `~/.aws/`, then instance or container roles.
- query options of the URI itself win over the environment (`s3://b/k?anonymous=true`,
  `?endpoint_override=host:port&scheme=http`), as pyarrow's `from_uri` documents.

`gs://` uses Google's default credentials (`GOOGLE_APPLICATION_CREDENTIALS`, gcloud, metadata).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import io
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit

import pyarrow.fs as pafs

from trustaudit.errors import UsageError
from trustaudit.io.atomic import atomic_path

Location = str | Path

# Schemes handed to pyarrow. `file` is mapped to a local path instead (same code as a plain path).
REMOTE_SCHEMES = ("s3", "gs", "gcs", "hdfs", "viewfs", "abfs", "abfss")


def is_uri(location: Location) -> bool:
    """True for an object-store URI (`s3://…`, `gs://…`); False for local paths and `file://`."""
    if isinstance(location, Path):
        return False
    scheme, sep, _ = location.partition("://")
    return bool(sep) and scheme.lower() in REMOTE_SCHEMES


def local_path(location: Location) -> Path | None:
    """The local path of a plain path or a `file://` URI; None for an object-store URI."""
    if isinstance(location, Path):
        return location
    if location.lower().startswith("file://"):
        return Path(unquote(urlsplit(location).path))
    return None if is_uri(location) else Path(location)


def normalize(location: Location) -> str:
    """A CLI argument as the rest of trustaudit should see it: `file://` URIs become local paths,
    object-store URIs stay URIs (never through `Path`, which would fold `s3://` into `s3:/`)."""
    p = local_path(location)
    return str(p) if p is not None else str(location).rstrip("/")


def _with_env_options(uri: str) -> str:
    """`uri` with the S3 endpoint and region of the environment added as pyarrow query options."""
    parts = urlsplit(uri)
    if parts.scheme.lower() != "s3":
        return uri
    query = dict(parse_qsl(parts.query))
    endpoint = os.environ.get("AWS_ENDPOINT_URL_S3") or os.environ.get("AWS_ENDPOINT_URL")
    if endpoint and "endpoint_override" not in query:
        ep = urlsplit(endpoint if "://" in endpoint else f"https://{endpoint}")
        query["endpoint_override"] = ep.netloc
        query.setdefault("scheme", ep.scheme or "https")
    region = os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION")
    if region:
        query.setdefault("region", region)
    return parts._replace(query=urlencode(query)).geturl()


@functools.lru_cache(maxsize=32)
def _filesystem(root_uri: str) -> pafs.FileSystem:
    fs, _ = pafs.FileSystem.from_uri(root_uri)
    return fs


def resolve(location: Location) -> tuple[pafs.FileSystem, str]:
    """(pyarrow FileSystem, path inside it) for a path or URI; local paths get LocalFileSystem.

    Filesystems are cached per bucket and options (an S3 client is costly to make).
    """
    local = local_path(location)
    if local is not None:
        return pafs.LocalFileSystem(), str(local.absolute())
    uri = _with_env_options(str(location))
    parts = urlsplit(uri)
    try:
        fs = _filesystem(parts._replace(path="").geturl())
    except (OSError, ValueError) as exc:
        raise UsageError(f"cannot open {location}: {exc}") from None
    path = (parts.netloc + unquote(parts.path)).rstrip("/")
    return fs, path


def _storage_error(location: Location, exc: Exception, what: str) -> UsageError:
    """One line for a store's failure: a missing bucket or denied access is a usage error (exit 2)."""
    text = str(exc).replace("<![CDATA[", "").replace("]]>", "")
    text = text.split(" (Request ID")[0]
    hint = "check the bucket name, AWS_ENDPOINT_URL and credentials (see docs/storage.md)"
    return UsageError(f"cannot {what} {location}: {text}", hint=hint)


def join(location: Location, *names: str) -> str:
    """`location`/name/… for a URI or a local path (as a string)."""
    base = str(location).rstrip("/")
    return "/".join([base, *(n.strip("/") for n in names)])


def kind(location: Location) -> str:
    """'file', 'dir' or 'missing'. A missing bucket or a refused request raises UsageError."""
    fs, path = resolve(location)
    try:
        info = fs.get_file_info(path)
        if info.type == pafs.FileType.NotFound and is_uri(location):
            bucket = path.split("/", 1)[0]
            if fs.get_file_info(bucket).type == pafs.FileType.NotFound:
                raise UsageError(
                    f"bucket not found: {bucket} (for {location})",
                    hint="create it, or check AWS_ENDPOINT_URL and the region (docs/storage.md)",
                )
    except OSError as exc:
        raise _storage_error(location, exc, "read") from None
    if info.type == pafs.FileType.Directory:
        return "dir"
    return "file" if info.type == pafs.FileType.File else "missing"


def size(location: Location) -> int | None:
    """Size in bytes, or None when it does not exist."""
    fs, path = resolve(location)
    try:
        info = fs.get_file_info(path)
    except OSError as exc:
        raise _storage_error(location, exc, "read") from None
    return info.size if info.type == pafs.FileType.File else None


@dataclass(frozen=True)
class Entry:
    """One file found under a folder prefix: its full location, its path relative to the folder."""

    location: str
    rel: str
    size: int
    mtime_ns: int


def list_files(location: Location) -> list[Entry]:
    """Files under a folder (prefix), recursively, sorted by relative path; [] for a missing one.

    Object stores have no folders: `s3://b/crawl` lists every key that starts with `crawl/`.
    """
    fs, path = resolve(location)
    try:
        infos = fs.get_file_info(pafs.FileSelector(path, recursive=True, allow_not_found=True))
    except OSError as exc:
        raise _storage_error(location, exc, "list") from None
    if not infos and is_uri(location):
        kind(location)  # allow_not_found also hides a missing bucket: that one is an error
    base = str(location).rstrip("/")
    out = []
    for info in infos:
        if info.type != pafs.FileType.File:
            continue
        rel = info.path[len(path) :].lstrip("/")
        mtime = info.mtime_ns if info.mtime_ns is not None else 0
        out.append(Entry(f"{base}/{rel}", rel, int(info.size or 0), int(mtime)))
    out.sort(key=lambda e: e.rel)
    return out


def open_input(location: Location) -> BinaryIO:
    """A buffered, streaming binary reader (readline, peek): the readers' byte and line caps apply
    as they read, so a huge object is never fetched whole. Raises OSError when it cannot open."""
    local = local_path(location)
    if local is not None:
        return open(local, "rb")
    fs, path = resolve(location)
    return io.BufferedReader(fs.open_input_stream(path), buffer_size=1 << 20)  # type: ignore[arg-type]


def open_random_access(location: Location) -> BinaryIO:
    """A seekable reader (Parquet reads its footer first); ranged GETs on an object store."""
    local = local_path(location)
    if local is not None:
        return open(local, "rb")
    fs, path = resolve(location)
    return fs.open_input_file(path)  # type: ignore[return-value]


def read_bytes(location: Location, *, max_bytes: int) -> bytes:
    """A small file's bytes; ValueError past `max_bytes` (checked while reading, not after)."""
    with open_input(location) as fh:
        data = fh.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise ValueError(f"over the {max_bytes}-byte cap")
    return data


def write_bytes(location: Location, data: bytes) -> None:
    """Write a file so that no reader sees half of it.

    Local: temp file in the same folder, fsync, `os.replace` (trustaudit.io.atomic). Object stores:
    one PUT of a whole object is atomic already (S3 and GCS never show a partial object), so the
    bytes go straight to the key; a failed upload leaves the previous object, or none.
    """
    local = local_path(location)
    if local is not None:
        with atomic_path(local) as tmp:
            tmp.write_bytes(data)
        return
    fs, path = resolve(location)
    try:
        with fs.open_output_stream(path) as out:
            out.write(data)
    except OSError as exc:
        raise _storage_error(location, exc, "write") from None


def upload_file(src: Path, location: Location) -> None:
    """Copy a local file to `location` (streamed, multipart for big files: atomic on S3/GCS)."""
    fs, path = resolve(location)
    try:
        with open(src, "rb") as fh, fs.open_output_stream(path) as out:
            for chunk in iter(lambda: fh.read(8 << 20), b""):
                out.write(chunk)
    except OSError as exc:
        raise _storage_error(location, exc, "write") from None


def download_file(location: Location, dest: Path) -> None:
    """Copy `location` to the local file `dest` atomically (temp + fsync + replace)."""
    with atomic_path(dest) as tmp, open_input(location) as src, open(tmp, "wb") as out:
        for chunk in iter(lambda: src.read(8 << 20), b""):
            out.write(chunk)


def delete_file(location: Location) -> None:
    """Remove one file or key; a missing one is not an error."""
    fs, path = resolve(location)
    with contextlib.suppress(FileNotFoundError):
        fs.delete_file(path)


def fingerprint_uri(location: str) -> dict[str, object]:
    """Identity of one object-store input for the manifest and for resume (the URI twin of the
    pipeline's `fingerprint_input`). A folder hashes its listing (key, size, mtime); a file hashes
    its key, size and modification time rather than its bytes, so resuming a run over a
    terabyte crawl does not download it twice. S3 and GCS set a new mtime on every write."""
    what = kind(location)
    h = hashlib.sha256()
    if what == "dir":
        files = list_files(location)
        for e in files:
            h.update(f"{e.rel}\0{e.size}\0{e.mtime_ns}\n".encode("utf-8", "surrogateescape"))
        return {"path": location, "kind": "folder", "files": len(files), "sha256": h.hexdigest()}
    if what == "missing":
        return {"path": location, "kind": "missing", "bytes": 0, "sha256": None}
    fs, path = resolve(location)
    info = fs.get_file_info(path)
    h.update(f"{location}\0{info.size}\0{info.mtime_ns}".encode("utf-8", "surrogateescape"))
    return {"path": location, "kind": "file", "bytes": info.size, "sha256": h.hexdigest()}


def staging_root(cache: Path | None = None) -> Path:
    """Where runs for a remote `--out` are staged: `$TRUSTAUDIT_STAGING_DIR`, else CACHE/staging
    (`--cache`), else the system temp folder."""
    env = os.environ.get("TRUSTAUDIT_STAGING_DIR")
    if env:
        return Path(env)
    if cache is not None:
        return Path(cache) / "staging"
    return Path(tempfile.gettempdir()) / "trustaudit-staging"


def staging_dir(location: str, cache: Path | None = None) -> Path:
    """The local staging folder of one remote run: stable per URI, so a crashed run resumes."""
    key = hashlib.sha256(location.rstrip("/").encode()).hexdigest()[:16]
    return staging_root(cache) / key


__all__ = [
    "Entry",
    "delete_file",
    "download_file",
    "fingerprint_uri",
    "is_uri",
    "join",
    "kind",
    "list_files",
    "local_path",
    "normalize",
    "open_input",
    "open_random_access",
    "read_bytes",
    "resolve",
    "size",
    "staging_dir",
    "upload_file",
    "write_bytes",
]
