"""Shared test helpers: tiny corpora written on the fly, a CLI runner, offline environment."""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import pytest
from helpers import article_html

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


@pytest.fixture
def html_folder(tmp_path: Path) -> Path:
    """Three HTML pages (one gzipped), a urls.csv sidecar, one empty file and one binary file."""
    d = tmp_path / "pages"
    d.mkdir()
    (d / "a.html").write_text(
        article_html("Alpha", url="https://alpha.example.com/a"), encoding="utf-8"
    )
    (d / "b.html").write_text(article_html("Beta", url=None), encoding="utf-8")
    (d / "c.html.gz").write_bytes(gzip.compress(article_html("Gamma", url=None).encode(), mtime=0))
    (d / "empty.html").write_bytes(b"")
    (d / "binary.html").write_bytes(bytes(range(256)) * 8)
    (d / "urls.csv").write_text("file,url\nb.html,https://beta.example.net/b\n", encoding="utf-8")
    return d


@pytest.fixture
def runner():  # type: ignore[no-untyped-def]
    from typer.testing import CliRunner

    return CliRunner()


@pytest.fixture
def app():  # type: ignore[no-untyped-def]
    from trustaudit.cli.main import app as _app

    return _app
