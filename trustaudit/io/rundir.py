"""The run directory: paths, manifest (the commit point resume reads), lock, and readers.

Layout (DESIGN §2): manifest.json, pages.parquet, links.parquet, errors.parquet, signals.parquet,
domains.parquet, scores.parquet, reports/, and parts/ (committed map-stage batches while ingesting).
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import polars as pl

from trustaudit.errors import RunDirError
from trustaudit.io.atomic import write_json

SCHEMA_VERSION = 1


@dataclass(frozen=True)
class RunDir:
    """Every path of a run, in one place."""

    root: Path

    @classmethod
    def at(cls, path: str | Path) -> RunDir:
        return cls(Path(path))

    manifest = property(lambda self: self.root / "manifest.json")
    pages = property(lambda self: self.root / "pages.parquet")
    links = property(lambda self: self.root / "links.parquet")
    errors = property(lambda self: self.root / "errors.parquet")
    signals = property(lambda self: self.root / "signals.parquet")
    domains = property(lambda self: self.root / "domains.parquet")
    scores = property(lambda self: self.root / "scores.parquet")
    reports = property(lambda self: self.root / "reports")
    parts = property(lambda self: self.root / "parts")
    lock_file = property(lambda self: self.root / ".lock")
    inputs = property(lambda self: self.root / "inputs")  # list and labels files the run owns

    def report(self, name: str) -> Path:
        return self.reports / name

    def read_manifest(self) -> dict[str, Any]:
        try:
            manifest = json.loads(self.manifest.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise RunDirError(
                f"{self.manifest} is corrupt: {exc}", hint="re-run with --fresh"
            ) from None
        bad = _manifest_shape(manifest)
        if bad:
            raise RunDirError(f"{self.manifest} is corrupt: {bad}", hint="re-run with --fresh")
        return manifest  # type: ignore[no-any-return]

    def write_manifest(self, manifest: dict[str, Any]) -> None:
        write_json(self.manifest, manifest)

    def require(self, *names: str) -> None:
        """Fail with a one-line hint when a run lacks the files a command needs."""
        if not self.root.is_dir():
            raise RunDirError(
                f"run directory not found: {self.root}",
                hint="run `trustaudit audit INPUT --out RUN`",
            )
        missing = [n for n in names if not (self.root / n).exists()]
        if missing:
            raise RunDirError(
                f"{self.root} is incomplete: missing {', '.join(missing)}",
                hint="re-run `trustaudit audit` with the same --out to finish it",
            )

    def read(self, name: str, columns: list[str] | None = None) -> pl.DataFrame:
        """Read one table (`pages`, `scores`, …); accepts `<name>.parquet` or `<name>/part-*.parquet`.

        A damaged or tampered table (not Parquet, a contract column missing or of another type,
        duplicated page ids) is a RunDirError naming the file (exit 2), not an internal error.
        """
        single = self.root / f"{name}.parquet"
        folder = self.root / name
        if single.exists():
            source: Path | str = single
        elif folder.is_dir():
            source = str(folder / "part-*.parquet")
        else:
            raise RunDirError(
                f"{self.root} has no {name}.parquet", hint="re-run `trustaudit audit` to produce it"
            )
        try:
            df = pl.read_parquet(source, columns=columns, glob=False)
        except pl.exceptions.ColumnNotFoundError as exc:
            raise _damaged(source, f"a column is missing ({_first_line(exc)})") from None
        except (pl.exceptions.PolarsError, OSError, ValueError) as exc:
            if isinstance(exc, OSError) and exc.errno is not None:
                raise  # permissions, disk: the guard reports the path
            raise _damaged(source, _first_line(exc)) from None
        if columns is None and (
            missing := [c for c in CONTRACT.get(name, {}) if c not in df.columns]
        ):
            raise _damaged(source, f"column(s) {', '.join(missing)} missing")
        check_contract(name, df, source)
        return df

    def scan(self, name: str) -> pl.LazyFrame:
        single = self.root / f"{name}.parquet"
        source = single if single.exists() else str(self.root / name / "part-*.parquet")
        lazy = pl.scan_parquet(source, glob=False)
        try:
            schema = lazy.collect_schema()  # reads the footer: a damaged file fails here
        except (pl.exceptions.PolarsError, OSError, ValueError) as exc:
            if isinstance(exc, OSError) and exc.errno is not None:
                raise
            raise _damaged(source, _first_line(exc)) from None
        for column, dtype in CONTRACT.get(name, {}).items():
            if column in schema and schema[column] != dtype:
                raise _damaged(source, f"column {column} is {schema[column]}, expected {dtype}")
        return lazy

    @contextmanager
    def locked(self) -> Iterator[None]:
        """Exclusive advisory lock: two processes never write the same run (cron overlap)."""
        self.root.mkdir(parents=True, exist_ok=True)
        fh: IO[str] = open(self.lock_file, "a+", encoding="utf-8")  # noqa: SIM115 - held for the lock's life
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            fh.seek(0)
            holder = fh.read().strip() or "another process"
            fh.close()
            raise RunDirError(
                f"{self.root} is being written by {holder}",
                hint="wait for it to finish, or use another --out",
            ) from None
        try:
            fh.seek(0)
            fh.truncate()
            fh.write(f"pid {os.getpid()}")
            fh.flush()
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)
            fh.close()


# ------------------------------------------------------------------ tampered tables
# What every reader of a run relies on: a column here must have this type when it is present
# (readers check presence themselves), and page ids must be unique in the page-level tables.
CONTRACT: dict[str, dict[str, Any]] = {
    "scores": {
        "doc_id": pl.String,
        "url": pl.String,
        "registered_domain": pl.String,
        "trust_score": pl.Float64,
        "band": pl.String,
        "hard_quarantine": pl.Boolean,
        "reasons": pl.List(pl.String),
    },
    "pages": {"doc_id": pl.String, "url": pl.String},
    "signals": {"doc_id": pl.String},
}
UNIQUE_IDS = ("scores", "pages", "signals")


def _manifest_shape(manifest: Any) -> str | None:
    """Why a parsed manifest cannot be a run's (a list, `stages` a string…), else None: every reader
    calls .get on these, and a tampered manifest must be exit 2, not an AttributeError."""
    if not isinstance(manifest, dict):
        return f"expected a JSON object, got {type(manifest).__name__}"
    for key, kind in (("stages", dict), ("policy", dict), ("inputs", list), ("sources", list)):
        if key in manifest and not isinstance(manifest[key], kind):
            return f"{key} is {type(manifest[key]).__name__}, expected {kind.__name__}"
    stages = manifest.get("stages") or {}
    for name, stage in stages.items():
        if not isinstance(stage, dict):
            return f"stages.{name} is {type(stage).__name__}, expected dict"
    return None


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0][:300]


def _damaged(source: Path | str, why: str) -> RunDirError:
    return RunDirError(
        f"{source} is damaged or was modified: {why}",
        hint="re-create it: `trustaudit score RUN` rewrites signals/scores/domains, "
        "`trustaudit audit ... --fresh` everything",
    )


def check_contract(name: str, df: pl.DataFrame, source: Path | str) -> None:
    """Raise RunDirError when table `name` breaks the run's contract (see CONTRACT)."""
    for column, dtype in CONTRACT.get(name, {}).items():
        if column in df.columns and df.schema[column] != dtype and df.height:
            raise _damaged(source, f"column {column} is {df.schema[column]}, expected {dtype}")
    if "trust_score" in df.columns and df.schema["trust_score"] == pl.Float64:
        nan = int(df["trust_score"].is_nan().sum())
        if nan:  # no valid policy gives a NaN score: a tampered table, or one from a broken policy
            raise _damaged(source, f"{nan} NaN trust_score value(s)")
    if name in UNIQUE_IDS and "doc_id" in df.columns and df.height:
        dupes = df.height - df["doc_id"].n_unique()
        if dupes:
            raise _damaged(source, f"{dupes} duplicated doc_id row(s)")


# ------------------------------------------------------------------ `--out` safety
def command_of(manifest: dict[str, Any]) -> str | None:
    """Which command made a run: recorded since `command` exists, else inferred (an audit has an
    ingest key; a crawl run only its crawl stage)."""
    if isinstance(manifest.get("command"), str):
        return str(manifest["command"])
    if "ingest_key" in manifest:
        return "audit"
    if "crawl" in (manifest.get("stages") or {}):
        return "crawl"
    return None


def input_paths(inputs: list[str]) -> list[str]:
    """Absolute input paths as recorded in a manifest (`-`, stdin, stays `-`)."""
    from trustaudit.io.fs import is_uri  # s3:// gs:// inputs are recorded as given

    return [p if p == "-" or is_uri(p) else str(Path(p).resolve()) for p in inputs]


def _recorded_inputs(manifest: dict[str, Any]) -> list[str] | None:
    if isinstance(manifest.get("input_paths"), list):
        return [str(p) for p in manifest["input_paths"]]
    if isinstance(manifest.get("inputs"), list):
        return input_paths([str(i.get("path")) for i in manifest["inputs"] if isinstance(i, dict)])
    return None


def check_out(out: str | Path, command: str, inputs: list[str], *, fresh: bool) -> None:
    """Refuse an `--out` that is not ours to write (issue #15.8, #17.2), before anything is touched.

    - a file, or a non-empty folder without manifest.json: never a run, refused even with --fresh;
    - a run made by another command (audit vs crawl), or of other inputs: refused unless --fresh;
    - the same command on the same inputs: resumed (or rebuilt with --fresh).
    """
    root = Path(out)
    if not root.exists():
        return
    if not root.is_dir():
        raise RunDirError(f"--out {root} is a file, not a run directory", hint="choose a folder")
    if not any(e.name != ".lock" for e in root.iterdir()):
        return
    run = RunDir.at(root)
    crawl_started = (root / "crawl").is_dir()  # a crawl interrupted before its first manifest
    if not run.manifest.is_file() and not crawl_started:
        raise RunDirError(
            f"--out {root} is a non-empty folder that is not a trustaudit run; nothing was deleted",
            hint="choose a new or empty folder for --out",
        )
    try:
        found = (
            json.loads(run.manifest.read_text(encoding="utf-8")) if run.manifest.is_file() else {}
        )
    except (OSError, ValueError):
        found = None  # damaged: ours only if the run's own folders say so
    ours = crawl_started or (
        command_of(found) is not None if isinstance(found, dict) else (root / "parts").is_dir()
    )
    if not ours:
        # a web app's or another tool's manifest.json is not ours: --fresh must not replace it
        raise RunDirError(
            f"--out {root} holds a manifest.json that is not a trustaudit run's; nothing was"
            " deleted",
            hint="choose a new or empty folder for --out",
        )
    if fresh:
        return
    manifest = run.read_manifest()
    made_by = command_of(manifest) or ("crawl" if crawl_started else None)
    if made_by is not None and made_by != command:
        raise RunDirError(
            f"--out {root} is a run made by `trustaudit {made_by}`, not `trustaudit {command}`; "
            "it was left as it is",
            hint="choose another --out, or add --fresh to replace that run",
        )
    old, new = _recorded_inputs(manifest), input_paths(inputs)
    if old is not None and "-" not in old + new and sorted(old) != sorted(new):
        shown = ", ".join(old[:3]) + (f" and {len(old) - 3} more" if len(old) > 3 else "")
        raise RunDirError(
            f"--out {root} is a run of other inputs ({shown}); it was left as it is",
            hint="choose another --out, or add --fresh to replace it (the same inputs resume)",
        )


# ------------------------------------------------------------------ the files a run owns
LIST_FIELDS = (
    ("allowlist", "domain", "allowlist_files"),
    ("blocklist", "domain", "blocklist_files"),
    ("domain_info", "domain", "domain_info_file"),
    ("anchors", "anchors", "anchor_files"),
)


def _paths(policy: Any, section: str, name: str) -> list[str]:
    value = getattr(getattr(policy, section), name)
    return [value] if isinstance(value, str) and value else list(value or ())


def _with_paths(policy: Any, changes: dict[tuple[str, str], list[str]]) -> Any:
    import dataclasses

    sections: dict[str, dict[str, Any]] = {}
    for (section, name), paths in changes.items():
        single = isinstance(getattr(getattr(policy, section), name), str)
        sections.setdefault(section, {})[name] = (
            (paths[-1] if paths else "") if single else tuple(paths)
        )
    return dataclasses.replace(
        policy,
        **{s: dataclasses.replace(getattr(policy, s), **kw) for s, kw in sections.items()},
    )


def own_inputs(
    run: RunDir, policy: Any, labels: str | Path | None = None
) -> tuple[Any, Path | None, list[dict[str, Any]]]:
    """Copy every list file the policy names (allowlists, blocklists, domain-info, anchors) and the
    labels file into RUN/inputs/ (built aside, then swapped in), so the run reads the same lists
    from anywhere and after the originals change (issue #17.1).

    Returns the policy pointing at the copies, the labels copy, and the manifest record: one entry
    per file with `kind`, `path` (relative to the run), `source` (as given) and `sha256`.
    """
    from trustaudit.io.lists import copy_owned

    staging = run.root / f".inputs.new-{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    record: list[dict[str, Any]] = []
    changes: dict[tuple[str, str], list[str]] = {}
    seen: dict[tuple[str, str], str] = {}

    def copy(kind: str, index: int, src: str) -> str | None:
        was_ours = Path(src).resolve().parent == run.inputs.resolve()
        dest_name = Path(src).name if was_ours else f"{kind}-{index}-{Path(src).name}"
        while (staging / dest_name).exists():
            dest_name = f"{kind}-{index}-{len(record)}-{Path(src).name}"
        digest = copy_owned(src, staging / dest_name, f"{kind.replace('_', '-')} file")
        if (kind, digest) in seen:  # the same list given twice (the run's and a flag's)
            (staging / dest_name).unlink()
            return None
        seen[(kind, digest)] = dest_name
        source = _source_of(run, src) if was_ours else str(src)
        record.append(
            {"kind": kind, "path": f"inputs/{dest_name}", "source": source, "sha256": digest}
        )
        return dest_name

    try:
        for kind, section, name in LIST_FIELDS:
            names = [
                n for i, p in enumerate(_paths(policy, section, name)) if (n := copy(kind, i, p))
            ]
            changes[(section, name)] = [str(run.inputs / n) for n in names]
        label_name = copy("labels", 0, str(labels)) if labels else None
        old = run.root / f".inputs.old-{os.getpid()}"
        if run.inputs.exists():
            os.replace(run.inputs, old)
        os.replace(staging, run.inputs)
        shutil.rmtree(old, ignore_errors=True)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return _with_paths(policy, changes), (run.inputs / label_name if label_name else None), record


def _source_of(run: RunDir, path: str) -> str:
    """The original path of a file already owned by the run (kept across re-scoring)."""
    rel = f"inputs/{Path(path).name}"
    for entry in run.read_manifest().get("owned_inputs") or []:
        if isinstance(entry, dict) and entry.get("path") == rel:
            return str(entry.get("source") or rel)
    return rel


def recorded_policy(run: RunDir, policy: Any) -> dict[str, Any]:
    """The policy as the manifest records it: files inside the run as paths relative to the run,
    so a moved or copied run still finds them."""
    plain: dict[str, Any] = policy.to_dict()
    root = run.root.resolve()
    for _, section, name in LIST_FIELDS:
        value = plain[section][name]
        plain[section][name] = (
            _relative(value, root)
            if isinstance(value, str)
            else [_relative(v, root) for v in value]
        )
    return plain


def _relative(path: str, root: Path) -> str:
    if not path:
        return path
    try:
        return Path(path).resolve().relative_to(root).as_posix()
    except ValueError:
        return path


def recorded_labels(run: RunDir) -> Path | None:
    """The labels file the run owns (given to `audit --labels`), or None."""
    for entry in run.read_manifest().get("owned_inputs") or []:
        if isinstance(entry, dict) and entry.get("kind") == "labels":
            p = run.root / str(entry.get("path"))
            return p if p.is_file() else None
    return None


def run_policy(
    run: RunDir,
    policy_path: str | Path | None = None,
    *,
    overrides: dict[str, Any] | None = None,
    replace_lists: bool = False,
) -> Any:
    """The policy a derived command (score, report, calibrate, explain, gate) starts from.

    Without `policy_path`: the run's recorded policy, then TRUSTAUDIT_* environment, then flags.
    With it: that file's settings replace the recorded ones (defaults < file < env < flags), but
    list files *add*: the run's allow/blocklists and anchors stay, the file's and the flags' lists
    join them (`replace_lists` drops the run's). A domain-info file given replaces the run's.
    """
    from trustaudit.policy import PolicyError, build_policy, load_policy

    recorded = run.read_manifest().get("policy")
    try:
        base = build_policy(recorded) if isinstance(recorded, dict) else None
    except PolicyError as exc:
        raise RunDirError(
            f"{run.manifest}: the recorded policy does not load: {exc}",
            hint="pass --policy FILE, or re-run `trustaudit audit` with --fresh",
        ) from None
    if base is not None:
        base = _with_paths(
            base,
            {
                (section, name): [_under(run, p) for p in _paths(base, section, name)]
                for _, section, name in LIST_FIELDS
            },
        )
    flags = dict(overrides or {})
    lists: dict[str, dict[str, Any]] = {}
    for _, section, name in LIST_FIELDS:
        if name in (flags.get(section) or {}):
            rest = dict(flags[section])
            lists.setdefault(section, {})[name] = rest.pop(name)
            flags[section] = rest
    if policy_path is None and base is not None:
        policy = load_policy(base=base, overrides=flags)
    else:
        policy = load_policy(policy_path, overrides=flags)
    changes: dict[tuple[str, str], list[str]] = {}
    for _, section, name in LIST_FIELDS:
        run_side = [] if (replace_lists or base is None) else _paths(base, section, name)
        given = (lists.get(section) or {}).get(name)
        flag_side = [given] if isinstance(given, str) else list(given or [])
        file_side = _paths(policy, section, name) if policy_path is not None else []
        if name == "domain_info_file":  # one file: the newest layer wins
            chosen = flag_side or file_side or run_side
            changes[(section, name)] = chosen[-1:]
        else:
            merged = list(dict.fromkeys([*run_side, *file_side, *flag_side]))
            changes[(section, name)] = merged
    return _with_paths(policy, changes)


def _under(run: RunDir, path: str) -> str:
    """A recorded list path: relative ones are inside the run (since runs own their lists)."""
    if not path or Path(path).is_absolute():
        return path
    inside = run.root / path
    return str(inside) if inside.exists() or path.startswith("inputs/") else path


# ------------------------------------------------------------------ re-scoring without half-written runs
RESCORED_TABLES = (
    "signals.parquet",
    "links.parquet",
    "domains.parquet",
    "scores.parquet",
    "judge.parquet",  # the tail judge's verdicts (docs/judge.md)
)
# folders a re-score may create for the first time (the judge's verdict cache): kept, not dropped
RESCORED_FOLDERS = ("cache",)


@contextmanager
def staged_tables(run: RunDir) -> Iterator[RunDir]:
    """A stand-in run whose derived tables are written aside: everything else of the run is linked
    in, the stages write signals/links/domains/scores there, and only when the block succeeds are
    they moved into the run. A failure (or a kill) mid-way leaves the run's tables as they were.
    """
    stage = RunDir.at(run.root / f".rescore-{os.getpid()}")
    shutil.rmtree(stage.root, ignore_errors=True)
    stage.root.mkdir()
    try:
        for entry in run.root.iterdir():
            if entry.name.startswith(".") or entry.name in ("reports", "inputs"):
                continue
            (stage.root / entry.name).symlink_to(entry.resolve())
        yield stage
        for name in RESCORED_TABLES:
            new = stage.root / name
            if new.is_file() and not new.is_symlink():
                os.replace(new, run.root / name)
        for name in RESCORED_FOLDERS:
            new = stage.root / name
            if new.is_dir() and not new.is_symlink() and not (run.root / name).exists():
                os.replace(new, run.root / name)
    finally:
        shutil.rmtree(stage.root, ignore_errors=True)


def recorded_hash(run: RunDir, policy: Any) -> str:
    """The policy hash as the manifest records it: over run-relative list paths, so two runs
    with the same settings and lists have the same hash wherever they live."""
    from trustaudit.policy import build_policy, policy_hash

    return policy_hash(build_policy(recorded_policy(run, policy)))
