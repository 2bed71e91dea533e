"""`trustaudit calibrate RUN [--labels F] [--target-recall R | --target-precision P]`."""

from __future__ import annotations

import json
from pathlib import Path

from tests.report.fakerun import make_run, page


def _run(tmp_path: Path) -> tuple[Path, Path]:
    pages = [page(f"https://bad{i}.example/", 0.1 + 0.05 * i) for i in range(6)]
    pages += [page(f"https://good{i}.example/", 0.5 + 0.08 * i) for i in range(6)]
    run = make_run(tmp_path / "run", pages)
    labels = tmp_path / "labels.csv"
    rows = [f"https://bad{i}.example/,untrusted" for i in range(6)]
    rows += [f"https://good{i}.example/,trusted" for i in range(6)]
    labels.write_text("url,label\n" + "\n".join(rows) + "\n", encoding="utf-8")
    return run.root, labels


def test_calibrate_prints_and_writes(runner, app, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root, labels = _run(tmp_path)
    res = runner.invoke(app, ["calibrate", str(root), "--labels", str(labels)])
    assert res.exit_code == 0, res.output
    assert "ROC-AUC" in res.output and "quarantine_below = 0.36" in res.output
    for name in (
        "threshold_curve.csv",
        "threshold_curve.png",
        "pr_curve.png",
        "calibration.json",
        "report.html",
    ):
        assert (root / "reports" / name).exists(), name
    assert "Threshold curve" in (root / "reports" / "report.html").read_text()


def test_calibrate_json_and_precision_target(runner, app, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root, labels = _run(tmp_path)
    res = runner.invoke(
        app, ["calibrate", str(root), "-l", str(labels), "--target-precision", "1.0", "--json"]
    )
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["roc_auc"] == 1.0
    assert data["recommended"]["target"] == "precision" and data["recommended"]["recall"] == 1.0
    # a later command never reuses an earlier calibrate call's labels (issue #17.2): this run
    # got no labels at audit time and has no lists, so there is nothing to calibrate against
    res = runner.invoke(app, ["report", str(root)])
    assert res.exit_code == 0, res.output
    again = json.loads((root / "reports" / "calibration.json").read_text())
    assert again["status"] == "no_labels"
    res = runner.invoke(app, ["calibrate", str(root)])
    assert res.exit_code == 2 and "nothing to calibrate against" in res.output


def test_calibrate_warns_when_recommendation_quarantines_most_pages(
    runner, app, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    root, labels = _run(tmp_path)
    res = runner.invoke(app, ["calibrate", str(root), "-l", str(labels), "--target-recall", "1.0"])
    assert res.exit_code == 0 and "warning" not in res.stderr  # 6 of 12 pages: 50% is the limit
    res = runner.invoke(
        app,
        ["calibrate", str(root), "-l", str(labels), "--target-recall", "1.0"],
        env={"TRUSTAUDIT_REPORT__CALIBRATE_WARN_QUARANTINED_SHARE": "0.3"},
    )
    assert res.exit_code == 0, res.output
    assert "warning: the recommended threshold quarantines 50% of all pages" in res.stderr


def test_calibrate_usage_errors(runner, app, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root, labels = _run(tmp_path)
    both = [
        "calibrate",
        str(root),
        "-l",
        str(labels),
        "--target-recall",
        "0.9",
        "--target-precision",
        "0.9",
    ]
    assert runner.invoke(app, both).exit_code == 2
    assert runner.invoke(app, ["calibrate", str(root), "--target-recall", "1.5"]).exit_code == 2
    assert (
        runner.invoke(app, ["calibrate", str(root), "-l", str(tmp_path / "missing.csv")]).exit_code
        == 2
    )
    res = runner.invoke(app, ["calibrate", str(root)])  # no labels, no lists
    assert res.exit_code == 2 and "nothing to calibrate against" in res.output


def test_calibrate_one_class_is_usage_error(runner, app, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root, _ = _run(tmp_path)
    labels = tmp_path / "one.csv"
    labels.write_text(
        "url,label\nhttps://bad0.example/,untrusted\nhttps://nowhere.example/,trusted\n"
    )
    res = runner.invoke(app, ["calibrate", str(root), "--labels", str(labels)])
    assert (
        res.exit_code == 2
        and "needs both classes" in res.output
        and "nowhere.example" in res.output
    )
    assert "needs both classes" in (root / "reports" / "report.html").read_text()
