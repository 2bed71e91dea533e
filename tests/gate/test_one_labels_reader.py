"""The gate and the calibration report read one labels CSV the same way (issue 16: one reader)."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from trustaudit.gate.labels import read_labels as gate_labels
from trustaudit.report.calibrate import match_labels
from trustaudit.report.calibrate import read_labels as calibration_labels

CSV = """url,domain,label
https://A.example.com/x/,,bad
,spam.example,spam
https://b.example.org/y,,good
,ok.example,trusted
"""


def test_gate_and_calibration_read_the_same_file_alike(tmp_path: Path) -> None:
    f = tmp_path / "labels.csv"
    f.write_text(CSV, encoding="utf-8")
    gate = gate_labels(f)
    calib = calibration_labels(f)
    # the vocabulary both accept (`bad`/`good` used to exit 2 in calibration)
    assert (
        calib["untrusted"].to_list()
        == gate["should_quarantine"].to_list()
        == [
            True,
            True,
            False,
            False,
        ]
    )
    assert calib["kind"].to_list() == ["url", "domain", "url", "domain"]
    assert gate["key_kind"].to_list() == ["doc_id", "domain", "doc_id", "domain"]
    # a URL label names the page whose doc id the pipeline gives it, in both consumers
    pages = pl.DataFrame(
        {
            "doc_id": [gate["key"][0], "other"],
            "registered_domain": ["example.com", "spam.example"],
            "host": ["a.example.com", "spam.example"],
        }
    )
    chosen, unmatched, _, _ = match_labels(calib, pages)
    assert dict(zip(chosen["doc_id"], chosen["_untrusted"], strict=True)) == {
        gate["key"][0]: True,
        "other": True,
    }
    assert unmatched == 2
