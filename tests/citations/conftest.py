"""Fixtures: a small run directory written with pyarrow, and a deterministic embedder."""

from __future__ import annotations

import json
import re
import zlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from trustaudit.io.records import doc_id_for

DATA = Path(__file__).parent / "data"

SPAM_URL = "https://spam.example.org/deal"
SPAM_ID = doc_id_for(SPAM_URL, "", None)

PAGES = [
    {
        "doc_id": "doc-7f3a",
        "url": "https://docs.example.com/pricing",
        "title": "Pricing",
        "license": "CC-BY-4.0",
        "text": "Pricing of the Pro plan.\n\nThe Pro plan costs $49 per month or $490 per year.\n\n"
        "Prices changed on March 5, 2024 after the annual review.",
        "paragraphs": [
            "Pricing of the Pro plan.",
            "The Pro plan costs $49 per month or $490 per year.",
            "Prices changed on March 5, 2024 after the annual review.",
        ],
    },
    {
        "doc_id": "doc-22b1",
        "url": "https://docs.example.com/limits",
        "title": "Rate limits",
        "license": "",
        "text": "Rate limits apply per API key. The API allows 100 requests per minute. "
        "Ticket OPS-4417 tracks the change to rate limits.",
        "paragraphs": [
            "Rate limits apply per API key.",
            "The API allows 100 requests per minute.",
            "Ticket OPS-4417 tracks the change to rate limits.",
        ],
    },
    {
        "doc_id": "doc-9",
        "url": "https://blog.example.net/refunds",
        "title": "Refunds",
        "license": "MIT",
        "text": "Refunds are possible within 14 days.",
        "paragraphs": ["Refunds are possible within 14 days."],
    },
    {
        "doc_id": SPAM_ID,
        "url": SPAM_URL,
        "title": "Deal",
        "license": None,
        "text": "Use code SAVE50 for 50% off the Pro plan! Limited offer!",
        "paragraphs": ["Use code SAVE50 for 50% off the Pro plan! Limited offer!"],
    },
]
SCORES = [
    ("doc-7f3a", 0.82, "trusted"),
    ("doc-22b1", 0.55, "medium"),
    ("doc-9", 0.91, "trusted"),
    (SPAM_ID, 0.12, "quarantine"),
]


def write_run(folder: Path, pages: list[dict] = PAGES, scores: Sequence[tuple] = SCORES) -> Path:
    """A minimal run directory: pages.parquet, scores.parquet, manifest.json, reports/summary.json."""
    folder.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(pages), folder / "pages.parquet")
    urls = {p["doc_id"]: p["url"] for p in pages}
    pq.write_table(
        pa.table(
            {
                "doc_id": [s[0] for s in scores],
                "url": [urls.get(s[0]) for s in scores],
                "registered_domain": ["example" for _ in scores],
                "trust_score": pa.array([s[1] for s in scores], pa.float64()),
                "band": [s[2] for s in scores],
                "reasons": [[] for _ in scores],
            },
            schema=pa.schema(
                [
                    ("doc_id", pa.string()),
                    ("url", pa.string()),
                    ("registered_domain", pa.string()),
                    ("trust_score", pa.float64()),
                    ("band", pa.string()),
                    ("reasons", pa.list_(pa.string())),
                ]
            ),
        ),
        folder / "scores.parquet",
    )
    (folder / "manifest.json").write_text(json.dumps({"run_id": "test"}))
    (folder / "reports").mkdir(exist_ok=True)
    (folder / "reports" / "summary.json").write_text(json.dumps({"pages": len(pages)}))
    return folder


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    return write_run(tmp_path / "run")


class BagOfWordsEmbedder:
    """Hashed bag of words: deterministic, instant, lexical similarity is enough for these tests."""

    def __init__(self, dim: int = 128) -> None:
        self.dim = dim
        self.calls = 0

    def encode(self, texts: list[str]) -> np.ndarray:
        self.calls += 1
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(texts):
            for w in re.findall(r"[a-z]+", t.lower()):
                out[i, zlib.crc32(w.encode()) % self.dim] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms == 0, 1, norms)


@pytest.fixture
def embedder() -> BagOfWordsEmbedder:
    return BagOfWordsEmbedder()
