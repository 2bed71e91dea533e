"""Calibration plots drawn headless (matplotlib Agg): no display, no fonts from the network.

Figures are written atomically; matplotlib is imported lazily so runs without calibration never pay
for it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from trustaudit.io.atomic import atomic_path


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def _save(fig: Any, path: Path) -> None:
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format="png", dpi=110, bbox_inches="tight", metadata={"Software": None})


def threshold_curve_png(
    path: str | Path, curve: pl.DataFrame, *, current: float, recommended: float | None
) -> None:
    """Precision, recall and F1 against the threshold, with the current and recommended marked."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7.0, 4.2))
    try:
        t = curve["threshold"].to_numpy()
        for col, style in (("precision", "-"), ("recall", "-"), ("f1", "--")):
            ax.plot(t, curve[col].cast(pl.Float64).to_numpy(), style, label=col, linewidth=1.6)
        ax.plot(
            t,
            curve["trusted_lost"].cast(pl.Float64).to_numpy(),
            ":",
            label="trusted pages lost",
            linewidth=1.2,
        )
        ax.axvline(
            current, color="0.35", linestyle="-.", linewidth=1.2, label=f"current {current:.2f}"
        )
        if recommended is not None:
            ax.axvline(
                recommended, color="tab:red", linewidth=1.4, label=f"recommended {recommended:.2f}"
            )
        ax.set_xlim(0, 1)
        ax.set_ylim(-0.02, 1.02)
        ax.set_xlabel("threshold (quarantine when trust < threshold or a hard rule fired)")
        ax.set_ylabel("rate (positive class: untrusted)")
        ax.grid(alpha=0.3)
        ax.legend(loc="lower right", fontsize=8)
        ax.set_title("trustaudit threshold curve")
        _save(fig, Path(path))
    finally:
        plt.close(fig)


def pr_curve_png(
    path: str | Path,
    recall: np.ndarray,
    precision: np.ndarray,
    *,
    ap: float | None,
    current: dict[str, Any] | None = None,
    recommended: dict[str, Any] | None = None,
) -> None:
    """Precision-recall curve of the policy decision, with the current/recommended points."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(5.2, 4.6))
    try:
        ax.step(
            np.r_[0.0, recall],
            np.r_[precision[:1] if len(precision) else [1.0], precision],
            where="post",
            linewidth=1.6,
            label=f"PR (AP {ap:.3f})" if ap is not None else "PR",
        )
        for point, color, name in (
            (current, "0.35", "current"),
            (recommended, "tab:red", "recommended"),
        ):
            if point and point.get("recall") is not None and point.get("precision") is not None:
                ax.plot(
                    [point["recall"]],
                    [point["precision"]],
                    "o",
                    color=color,
                    label=f"{name} {point['threshold']:.2f}",
                )
        ax.set_xlim(0, 1.02)
        ax.set_ylim(0, 1.02)
        ax.set_xlabel("recall of untrusted pages")
        ax.set_ylabel("precision")
        ax.grid(alpha=0.3)
        ax.legend(loc="lower left", fontsize=8)
        ax.set_title("trustaudit precision-recall")
        _save(fig, Path(path))
    finally:
        plt.close(fig)
