"""Helpers for reason columns: list[str] of "CODE: human detail with numbers"."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl


def reason_list(items: Sequence[pl.Expr]) -> pl.Expr:
    """Each item is a `when(...).then(str)` expression (null when it does not apply)."""
    if not items:
        return pl.lit([], dtype=pl.List(pl.String))
    return pl.concat_list(items).list.drop_nulls()


def codes_of(details: pl.Expr) -> pl.Expr:
    """list["CODE: detail"] -> list["CODE"]."""
    return details.list.eval(pl.element().str.split(":").list.first())
