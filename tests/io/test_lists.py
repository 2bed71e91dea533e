"""List files and the domain-info CSV."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from trustaudit.errors import UsageError
from trustaudit.io.lists import parse_list_line, read_domain_info, read_domain_list


@pytest.mark.parametrize(
    ("line", "domain"),
    [
        ("example.org", "example.org"),
        ("  Example.ORG.  ", "example.org"),
        ("0.0.0.0 ads.example.com", "ads.example.com"),
        ("127.0.0.1 tracker.example.net # comment", "tracker.example.net"),
        ("||farm.example.info^", "farm.example.info"),
        ("||farm.example.info^$third-party", "farm.example.info"),
        ("https://www.blog.example.com/path", "www.blog.example.com"),
        ("*.wild.example", "wild.example"),
        ("# a comment", None),
        ("! adblock comment", None),
        ("", None),
        ("0.0.0.0 localhost", None),
        ("not a domain at all", None),
    ],
)
def test_list_line_formats(line: str, domain: str | None) -> None:
    assert parse_list_line(line) == domain


def test_read_list_and_missing_file(tmp_path: Path) -> None:
    f = tmp_path / "l.txt"
    f.write_text("a.example\n# c\n0.0.0.0 b.example\n||c.example^\n")
    assert read_domain_list(f) == {"a.example", "b.example", "c.example"}
    with pytest.raises(UsageError, match="cannot read list file"):
        read_domain_list(tmp_path / "missing.txt")


def test_domain_info_csv(tmp_path: Path) -> None:
    f = tmp_path / "d.csv"
    f.write_text(
        "domain,created,registrar\nOld.example,1999-05-01,x\nnew.example,2026-10-20T00:00:00Z,y\nbad.example,soon,z\n"
    )
    assert read_domain_info(f) == {
        "old.example": date(1999, 5, 1),
        "new.example": date(2026, 10, 20),
    }
    g = tmp_path / "g.csv"
    g.write_text("host,date\n")
    with pytest.raises(UsageError, match="domain,created"):
        read_domain_info(g)
