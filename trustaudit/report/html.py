"""report.html: one self-contained file a person can open offline and act on.

Safety model: every string that came from a page (title, URL, reason detail, injection snippet, error
message) reaches the browser only as JSON inside `<script type="application/json">` (with `<`, `>`
and `&` escaped, so it cannot close the block) and is put into the DOM with `textContent`; only
http/https URLs become `href`s (checked in Python and again in JS). A strict Content-Security-Policy
allows exactly the inline script and style of this file (by sha256) and no network at all, so even a
missed escape could not load or run anything. Server-rendered parts hold our own numbers and codes,
escaped anyway.

Size: tables are capped (`report.html_max_rows`, lowest trust first) with a note pointing at the CSVs;
the browser paginates, sorts and filters them.
"""

from __future__ import annotations

import base64
import hashlib
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import polars as pl

from trustaudit.io.atomic import write_text
from trustaudit.io.rundir import RunDir
from trustaudit.policy import Policy
from trustaudit.report.escape import html_text, one_line, safe_href
from trustaudit.report.reason_text import label_for, reason_texts

BAND_COLORS = {"quarantine": "#c0392b", "medium": "#d68910", "trusted": "#1e8449"}

CSS = """
:root{--fg:#1b1f23;--muted:#5f6b76;--line:#d9dee3;--bg:#fff;--soft:#f5f7f9}
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);
background:var(--bg);margin:0;padding:0 24px 48px;max-width:1400px}
h1{font-size:22px;margin:20px 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid
var(--line);padding-bottom:4px}.muted{color:var(--muted)}.note{background:#fff8e1;border:1px solid
#f0d58c;padding:6px 10px;border-radius:4px;margin:8px 0}
.cards{display:flex;flex-wrap:wrap;gap:10px;margin:12px 0}.card{border:1px solid var(--line);
border-radius:6px;padding:8px 12px;min-width:120px;background:var(--soft)}.card b{display:block;
font-size:20px}.card span{color:var(--muted);font-size:12px}
.quarantine{color:#c0392b}.medium{color:#b9770e}.trusted{color:#1e8449}
table{border-collapse:collapse;width:100%;font-size:13px}th,td{border-bottom:1px solid var(--line);
padding:4px 6px;text-align:left;vertical-align:top}td{word-break:break-word}
th{background:var(--soft);position:sticky;top:0;cursor:pointer;user-select:none;white-space:nowrap}
th.asc::after{content:" \\25B2"}th.desc::after{content:" \\25BC"}
td.num,th.num{text-align:right;white-space:nowrap}td div+div{margin-top:2px}
.small td,.small th{cursor:default}
.tools{display:flex;gap:10px;align-items:center;margin:6px 0}.tools input{padding:4px 6px;
min-width:280px;border:1px solid var(--line);border-radius:4px}
.pager button{margin:0 2px}.snip{font-family:ui-monospace,Menlo,monospace;font-size:12px;
background:#fdecea;padding:1px 3px;border-radius:3px}
svg text{font:11px system-ui,sans-serif;fill:#333}
"""

JS = """
(function () {
  "use strict";
  var PAGE = 100;
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined && text !== null) { e.textContent = String(text); }
    return e;
  }
  function isHttp(u) { return typeof u === "string" && /^https?:\\/\\//i.test(u); }
  function plain(v, type) {
    if (v === null || v === undefined) { return ""; }
    if (type === "url") { return String(v[0] || ""); }
    if (type === "list" || type === "snips") { return v.join(" "); }
    return String(v);
  }
  function fill(td, v, type) {
    if (v === null || v === undefined) { return; }
    if (type === "url") {
      if (isHttp(v[1])) {
        var a = el("a", null, v[0] || v[1]);
        a.setAttribute("href", v[1]);
        a.setAttribute("rel", "noopener noreferrer nofollow");
        td.appendChild(a);
      } else { td.textContent = String(v[0] || ""); }
    } else if (type === "list") {
      v.forEach(function (x) { td.appendChild(el("div", null, x)); });
    } else if (type === "snips") {
      v.forEach(function (x) { td.appendChild(el("div", "snip", x)); });
    } else if (type === "num") {
      td.textContent = (typeof v === "number" && v % 1 !== 0) ? v.toFixed(3) : String(v);
    } else { td.textContent = String(v); }
  }
  function setup(box) {
    var node = document.getElementById(box.getAttribute("data-src"));
    if (!node) { return; }
    var d = JSON.parse(node.textContent);
    var cols = d.cols, rows = d.rows, order = rows.map(function (_, i) { return i; });
    var keys = rows.map(function (r) {
      return r.map(function (v, j) { return plain(v, cols[j].type); }).join(" \\u0001 ").toLowerCase();
    });
    var view = order.slice(), page = 0, sortCol = -1, sortDir = 1;
    var tools = el("div", "tools"), input = el("input");
    input.setAttribute("type", "search");
    input.setAttribute("placeholder", "filter rows (any column)");
    var count = el("span", "muted"), pager = el("span", "pager");
    var prev = el("button", null, "\\u2039 prev"), next = el("button", null, "next \\u203a");
    var where = el("span", "muted");
    pager.appendChild(prev); pager.appendChild(where); pager.appendChild(next);
    tools.appendChild(input); tools.appendChild(count); tools.appendChild(pager);
    var table = el("table"), thead = el("thead"), htr = el("tr"), tbody = el("tbody");
    cols.forEach(function (c, j) {
      var th = el("th", c.type === "num" ? "num" : "", c.label);
      th.addEventListener("click", function () { sortBy(j); });
      htr.appendChild(th);
    });
    thead.appendChild(htr); table.appendChild(thead); table.appendChild(tbody);
    box.appendChild(tools); box.appendChild(table);
    function draw() {
      while (tbody.firstChild) { tbody.removeChild(tbody.firstChild); }
      var pages = Math.max(1, Math.ceil(view.length / PAGE));
      if (page >= pages) { page = pages - 1; }
      var start = page * PAGE, end = Math.min(view.length, start + PAGE);
      for (var k = start; k < end; k++) {
        var r = rows[view[k]], tr = el("tr");
        for (var j = 0; j < cols.length; j++) {
          var td = el("td", cols[j].type === "num" ? "num" : "");
          fill(td, r[j], cols[j].type);
          tr.appendChild(td);
        }
        tbody.appendChild(tr);
      }
      count.textContent = view.length + " of " + rows.length + " row(s)" +
        (d.total > rows.length ? " shown (" + d.total + " in the run)" : "");
      where.textContent = " page " + (page + 1) + " / " + pages + " ";
      prev.disabled = page === 0; next.disabled = page >= pages - 1;
      box.setAttribute("data-rendered", String(end - start));
    }
    function applySort() {
      if (sortCol < 0) { return; }
      var j = sortCol, num = cols[j].type === "num";
      view.sort(function (a, b) {
        var x = rows[a][j], y = rows[b][j];
        if (x === null || x === undefined) { return (y === null || y === undefined) ? a - b : 1; }
        if (y === null || y === undefined) { return -1; }
        if (!num) { x = plain(x, cols[j].type); y = plain(y, cols[j].type); }
        var c = num ? (x - y) : (x < y ? -1 : x > y ? 1 : 0);
        return c * sortDir || a - b;
      });
    }
    function sortBy(j) {
      sortDir = (sortCol === j) ? -sortDir : 1; sortCol = j;
      Array.prototype.forEach.call(htr.children, function (th, i) {
        th.classList.remove("asc", "desc");
        if (i === j) { th.classList.add(sortDir > 0 ? "asc" : "desc"); }
      });
      applySort(); page = 0; draw();
    }
    input.addEventListener("input", function () {
      var q = input.value.toLowerCase();
      view = order.filter(function (i) { return !q || keys[i].indexOf(q) !== -1; });
      applySort(); page = 0; draw();
    });
    prev.addEventListener("click", function () { page -= 1; draw(); });
    next.addEventListener("click", function () { page += 1; draw(); });
    draw();
  }
  Array.prototype.forEach.call(document.querySelectorAll("div.tbl[data-src]"), setup);
  document.body.setAttribute("data-ready", "1");
})();
"""


def _sha256_b64(text: str) -> str:
    return base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")


def content_security_policy() -> str:
    """Only this file's own inline script and style run; nothing is fetched (img: data: only)."""
    return (
        "default-src 'none'; "
        f"script-src 'sha256-{_sha256_b64(JS)}'; "
        f"style-src 'sha256-{_sha256_b64(CSS)}'; "
        "img-src data:; base-uri 'none'; form-action 'none'"
    )


def json_block(element_id: str, obj: Any) -> str:
    """JSON in a non-executing script element; `<`, `>`, `&` escaped so it can never close early."""
    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"), default=str)
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    text = text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return f'<script type="application/json" id="{element_id}">{text}</script>'


# ------------------------------------------------------------------ charts (our numbers only)
def svg_histogram(scores: pl.DataFrame, *, quarantine_below: float, trusted_from: float) -> str:
    """Stacked histogram of trust in 20 bins of 0.05, coloured by band, band limits marked."""
    bins = (
        scores.select(
            b=(pl.col("trust_score").fill_null(0.0) * 20).floor().clip(0, 19).cast(pl.Int32),
            band=pl.col("band"),
        )
        .group_by("b", "band")
        .len()
    )
    counts: dict[int, dict[str, int]] = {i: {} for i in range(20)}
    for b, band, n in bins.iter_rows():
        counts[int(b)][str(band)] = int(n)
    top = max([sum(c.values()) for c in counts.values()] + [1])
    w, h, left, bottom = 640, 220, 44, 28
    bw = (w - left - 10) / 20
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" role="img" '
        f'aria-label="trust score histogram">'
    ]
    for i in range(20):
        y = float(h - bottom)
        for band in ("quarantine", "medium", "trusted"):
            n = counts[i].get(band, 0)
            if not n:
                continue
            bh = (h - bottom - 10) * n / top
            y -= bh
            parts.append(
                f'<rect x="{left + i * bw + 1:.1f}" y="{y:.1f}" width="{bw - 2:.1f}" '
                f'height="{bh:.1f}" fill="{BAND_COLORS[band]}"><title>{i / 20:.2f}-{(i + 1) / 20:.2f}'
                f" {band}: {n}</title></rect>"
            )
    for t, name in ((quarantine_below, "quarantine <"), (trusted_from, "trusted >=")):
        x = left + t * (w - left - 10)
        parts.append(
            f'<line x1="{x:.1f}" x2="{x:.1f}" y1="6" y2="{h - bottom}" stroke="#333" '
            f'stroke-dasharray="4 3"/><text x="{x + 3:.1f}" y="14">{html_text(name)} {t:.2f}</text>'
        )
    for k in range(6):
        x = left + k / 5 * (w - left - 10)
        parts.append(f'<text x="{x - 8:.1f}" y="{h - 10}">{k / 5:.1f}</text>')
    parts.append(f'<text x="2" y="16">{top}</text><text x="2" y="{h - bottom}">0</text>')
    parts.append(
        f'<line x1="{left}" x2="{w - 10}" y1="{h - bottom}" y2="{h - bottom}" stroke="#999"/></svg>'
    )
    return "".join(parts)


def svg_threshold_curve(curve: pl.DataFrame, *, current: float, recommended: float | None) -> str:
    """Precision/recall/F1/trusted-lost against the threshold, current and recommended marked."""
    w, h, left, bottom = 640, 260, 40, 28
    pw, ph = w - left - 120, h - bottom - 10

    def px(t: float) -> float:
        return left + t * pw

    def py(v: float) -> float:
        return 10 + (1 - v) * ph

    series = (
        ("precision", "#1f77b4", ""),
        ("recall", "#ff7f0e", ""),
        ("f1", "#2ca02c", "5 3"),
        ("trusted_lost", "#9467bd", "2 3"),
    )
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" role="img" '
        f'aria-label="threshold curve">',
        f'<rect x="{left}" y="10" width="{pw}" height="{ph}" fill="none" stroke="#bbb"/>',
    ]
    t = curve["threshold"].to_list()
    for i, (col, color, dash) in enumerate(series):
        vals = curve[col].to_list() if col in curve.columns else []
        seg: list[str] = []
        segs: list[list[str]] = []
        for x, v in zip(t, vals, strict=False):
            if v is None:
                if seg:
                    segs.append(seg)
                seg = []
                continue
            seg.append(f"{px(float(x)):.1f},{py(float(v)):.1f}")
        if seg:
            segs.append(seg)
        for s in segs:
            parts.append(
                f'<polyline fill="none" stroke="{color}" stroke-width="1.6" '
                f'stroke-dasharray="{dash or "none"}" points="{" ".join(s)}"/>'
            )
        ly = 24 + i * 16
        parts.append(
            f'<line x1="{w - 112}" x2="{w - 92}" y1="{ly - 4}" y2="{ly - 4}" stroke="{color}" '
            f'stroke-width="2" stroke-dasharray="{dash or "none"}"/>'
            f'<text x="{w - 88}" y="{ly}">{col.replace("_", " ")}</text>'
        )
    marks = [(current, "#555", f"current {current:.2f}")]
    if recommended is not None:
        marks.append((recommended, "#c0392b", f"recommended {recommended:.2f}"))
    for j, (x, color, label) in enumerate(marks):
        parts.append(
            f'<line x1="{px(x):.1f}" x2="{px(x):.1f}" y1="10" y2="{10 + ph}" stroke="{color}" '
            f'stroke-width="1.5"/><text x="{w - 112}" y="{24 + (4 + j) * 16}" fill="{color}">'
            f"{html_text(label)}</text>"
        )
    for k in range(6):
        parts.append(f'<text x="{px(k / 5) - 8:.1f}" y="{h - 10}">{k / 5:.1f}</text>')
        parts.append(f'<text x="8" y="{py(k / 5) + 4:.1f}">{k / 5:.1f}</text>')
    parts.append("</svg>")
    return "".join(parts)


# ------------------------------------------------------------------ tables (JSON for the JS)
def _findings_text(findings: list[dict[str, Any]] | None, limit: int = 3) -> list[str]:
    out = []
    for f in (findings or [])[:limit]:
        where = one_line(f.get("location"), 60)
        tech = one_line(f.get("technique"), 40)
        out.append(f"[{tech} @ {where}] {one_line(f.get('snippet'), 220)}")
    if findings and len(findings) > limit:
        out.append(f"… {len(findings) - limit} more finding(s)")
    return out


def page_table(run: RunDir, scores: pl.DataFrame, band: str, cap: int) -> dict[str, Any]:
    """Rows of one band, lowest trust first, capped; titles and findings joined for those rows only."""
    sel = scores.filter(pl.col("band") == band).sort(["trust_score", "url"], nulls_last=True)
    total = sel.height
    sel = sel.head(cap)
    if run.pages.exists() and sel.height:
        names = run.scan("pages").collect_schema().names()
        cols = [c for c in ("doc_id", "title", "injection_findings") if c in names]
        ids = sel["doc_id"].implode()
        pages = run.scan("pages").select(cols).filter(pl.col("doc_id").is_in(ids)).collect()
        sel = sel.join(pages.unique("doc_id"), on="doc_id", how="left")
    rows = []
    for r in sel.iter_rows(named=True):
        rows.append(
            [
                r["trust_score"],
                [one_line(r["url"], 200), safe_href(r["url"])],
                one_line(r.get("registered_domain"), 100),
                one_line(r.get("title"), 160),
                "hard rule" if r.get("hard_quarantine") else "",
                reason_texts(r.get("reason_details"), 240),
                _findings_text(r.get("injection_findings")),
            ]
        )
    return {
        "cols": [
            {"label": "trust", "type": "num"},
            {"label": "url", "type": "url"},
            {"label": "domain", "type": "text"},
            {"label": "title", "type": "text"},
            {"label": "rule", "type": "text"},
            {"label": "reasons", "type": "list"},
            {"label": "injection findings", "type": "snips"},
        ],
        "rows": rows,
        "total": total,
    }


def domain_table(evidence: pl.DataFrame | None, cap: int) -> dict[str, Any]:
    """Domains with their evidence and suggestion; suggested ones first, then most quarantined."""
    cols = [
        {"label": "domain", "type": "text"},
        {"label": "pages", "type": "num"},
        {"label": "mean trust", "type": "num"},
        {"label": "min trust", "type": "num"},
        {"label": "quarantined", "type": "num"},
        {"label": "q. share low", "type": "num"},
        {"label": "q. share high", "type": "num"},
        {"label": "injection pages", "type": "num"},
        {"label": "listed", "type": "text"},
        {"label": "suggestion", "type": "text"},
        {"label": "evidence", "type": "text"},
    ]
    if evidence is None or evidence.height == 0:
        return {"cols": cols, "rows": [], "total": 0}
    ev = evidence.with_columns(_s=(pl.col("suggestion") != "").cast(pl.Int8)).sort(
        ["_s", "quarantined_share_low", "pages", "registered_domain"],
        descending=[True, True, True, False],
    )
    rows = []
    for r in ev.head(cap).iter_rows(named=True):
        listed = "allow" if r["on_allowlist"] else "block" if r["on_blocklist"] else ""
        rows.append(
            [
                one_line(r["registered_domain"], 100),
                r["pages"],
                r["mean_trust"],
                r["min_trust"],
                r["quarantined"],
                r["quarantined_share_low"],
                r["quarantined_share_high"],
                r["injection_pages"],
                listed,
                r["suggestion"],
                one_line(r["suggestion_evidence"], 300),
            ]
        )
    return {"cols": cols, "rows": rows, "total": evidence.height}


def error_table(errors: pl.DataFrame, cap: int) -> dict[str, Any]:
    cols = [
        {"label": "code", "type": "text"},
        {"label": "stage", "type": "text"},
        {"label": "url / source", "type": "url"},
        {"label": "message", "type": "text"},
    ]
    rows = []
    for r in errors.head(cap).iter_rows(named=True):
        where = r.get("url") or f"{r.get('source')}#{r.get('offset')}"
        rows.append(
            [
                one_line(r.get("code"), 60),
                one_line(r.get("stage"), 40),
                [one_line(where, 200), safe_href(r.get("url"))],
                one_line(r.get("message"), 300),
            ]
        )
    return {"cols": cols, "rows": rows, "total": errors.height}


# ------------------------------------------------------------------ the page
def _card(value: Any, label: str, cls: str = "") -> str:
    return (
        f'<div class="card"><b class="{cls}">{html_text(str(value))}</b>'
        f"<span>{html_text(label)}</span></div>"
    )


def _small_table(header: list[str], rows: list[list[Any]]) -> str:
    head = "".join(f"<th>{html_text(h)}</th>" for h in header)
    body = "".join(
        "<tr>" + "".join(f"<td>{html_text(str(c))}</td>" for c in row) + "</tr>" for row in rows
    )
    return f'<table class="small"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def _read_calibration(run: RunDir) -> tuple[dict[str, Any] | None, pl.DataFrame | None]:
    try:
        cal = json.loads(run.report("calibration.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None, None
    curve = None
    if run.report("threshold_curve.csv").exists():
        try:
            curve = pl.read_csv(run.report("threshold_curve.csv"))
        except (pl.exceptions.ComputeError, OSError):
            curve = None
    return cal, curve


def build_html(
    run: RunDir,
    policy: Policy,
    manifest: dict[str, Any],
    *,
    evidence: pl.DataFrame | None = None,
) -> str:
    """The whole report.html as a string (see module docstring for the safety model)."""
    cap = max(1, int(policy.report.html_max_rows))
    score_cols = ["doc_id", "url", "registered_domain", "trust_score", "band", "hard_quarantine"]
    scores = run.read("scores", columns=[*score_cols, "reasons", "reason_details"])
    errors = run.read("errors") if run.errors.exists() else pl.DataFrame()
    b = policy.bands
    n = scores.height
    bands = dict(scores.group_by("band").len().iter_rows())
    acc = manifest.get("stages", {}).get("ingest", {}).get("accounting", {})
    run_id = str(manifest.get("run_id") or run.root.name)
    inj_pages = 0
    if evidence is not None and "injection_pages" in evidence.columns:
        inj_pages = int(evidence["injection_pages"].sum())

    def share(k: int) -> str:
        return f"{100 * k / n:.1f}%" if n else "-"

    cards = [
        _card(n, "pages scored"),
        _card(acc.get("inputs", "-"), "input records"),
        _card(errors.height, "errors"),
        _card(
            f"{bands.get('trusted', 0)} ({share(bands.get('trusted', 0))})", "trusted", "trusted"
        ),
        _card(f"{bands.get('medium', 0)} ({share(bands.get('medium', 0))})", "medium", "medium"),
        _card(
            f"{bands.get('quarantine', 0)} ({share(bands.get('quarantine', 0))})",
            "quarantined",
            "quarantine",
        ),
        _card(f"{_num(scores['trust_score'].mean() or 0)}", "mean trust"),
        _card(int(scores["hard_quarantine"].sum()), "hard-rule quarantines"),
        _card(inj_pages, "pages with injection findings"),
        _card(f"{b.quarantine_below:.2f} / {b.trusted_from:.2f}", "quarantine < / trusted >="),
    ]
    reasons = (
        scores.select(pl.col("reasons").explode())
        .drop_nulls()
        .group_by("reasons")
        .len()
        .sort(["len", "reasons"], descending=[True, False])
        .head(20)
    )
    reason_rows = [[code, label_for(code), cnt] for code, cnt in reasons.iter_rows()]
    err_rows = (
        [
            list(r)
            for r in errors.group_by("code")
            .len()
            .sort(["len", "code"], descending=[True, False])
            .iter_rows()
        ]
        if errors.height
        else []
    )
    cal, curve = _read_calibration(run)
    cal_html = ""
    if cal and cal.get("status") == "done" and curve is not None:
        rec = cal.get("recommended", {})
        note = f'<p class="note">{html_text(cal.get("note"), 400)}</p>' if cal.get("note") else ""
        cal_html = (
            f"{note}<p>ROC-AUC <b>{_num(cal.get('roc_auc'))}</b>, PR-AUC <b>{_num(cal.get('pr_auc'))}"
            f"</b> on {html_text(str(cal.get('pages_labeled')))} labeled pages "
            f"({html_text(str(cal.get('untrusted')))} untrusted). Recommended threshold "
            f"<b>{_num(rec.get('threshold'), 2)}</b> for {html_text(str(rec.get('target')))} "
            f"&ge; {_num(rec.get('target_value'), 2)}: precision {_num(rec.get('precision'))}, recall "
            f"{_num(rec.get('recall'))}.</p>"
            + svg_threshold_curve(
                curve,
                current=float(cal.get("current_threshold", b.quarantine_below)),
                recommended=rec.get("threshold"),
            )
            + "<p>Paste into trustaudit.toml:</p><pre>"
            + "\n".join(html_text(x, 300) for x in str(cal.get("snippet", "")).splitlines())
            + "</pre>"
        )
    else:
        why = (cal or {}).get("note") or "No calibration yet."
        cal_html = (
            f'<p class="muted">{html_text(why, 300)} Run <code>trustaudit calibrate RUN --labels '
            "labels.csv</code> (or audit with --labels) for the curve and a recommended "
            "threshold.</p>"
        )
    q_table = page_table(run, scores, "quarantine", cap)
    m_table = page_table(run, scores, "medium", cap)
    d_table = domain_table(evidence, cap)
    e_table = error_table(errors, min(cap, 2000)) if errors.height else None

    def capped(t: dict[str, Any], csv: str) -> str:
        if t["total"] > len(t["rows"]):
            return (
                f'<p class="note">Showing the first {len(t["rows"])} of {t["total"]} rows '
                f"(lowest trust first); the full list is in {html_text(csv)}.</p>"
            )
        return ""

    gen = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    sugg = ""
    if evidence is not None and evidence.height:
        counts = dict(evidence.group_by("suggestion").len().iter_rows())
        sugg = (
            f"<p>{counts.get('block', 0)} domain(s) suggested for the blocklist, "
            f"{counts.get('allow', 0)} for the allowlist, {counts.get('review', 0)} listed domain(s) to "
            "review (see allowlist.suggested.txt / blocklist.suggested.txt).</p>"
        )
    body = f"""
<h1>trustaudit report</h1>
<p class="muted">run {html_text(run_id)} &middot; policy {html_text(str(manifest.get("policy_hash", "")))}
&middot; trustaudit {html_text(str(manifest.get("trustaudit_version", "")))} &middot; generated {gen}</p>
<noscript><p class="note">The tables need JavaScript (inline, no network). The same data is in
quarantine.csv, domains.csv and the Parquet files of the run.</p></noscript>
<h2>Summary</h2><div class="cards">{"".join(cards)}</div>
<h2>Trust score distribution</h2>
{svg_histogram(scores, quarantine_below=b.quarantine_below, trusted_from=b.trusted_from)}
<h2>Threshold curve</h2>{cal_html}
<h2>Top reasons</h2>{_small_table(["code", "meaning", "pages"], reason_rows)}
<h2 id="quarantined">Quarantined pages</h2>{capped(q_table, "quarantine.csv")}
<div class="tbl" data-src="data-quarantine"></div>
<h2 id="medium">Medium-trust pages</h2>
<p class="muted">Medium pages carry the tag {html_text(policy.bands.medium_tag)} when used in prompts.</p>
{capped(m_table, "scores.parquet")}<div class="tbl" data-src="data-medium"></div>
<h2 id="domains">Domains and list suggestions</h2>{sugg}{capped(d_table, "domains.csv")}
<div class="tbl" data-src="data-domains"></div>
{_agent_audits(run)}
<h2 id="errors">Errors by code</h2>
{_small_table(["code", "records"], err_rows) if err_rows else '<p class="muted">No errors.</p>'}
{'<div class="tbl" data-src="data-errors"></div>' if e_table else ""}
"""
    data = (
        json_block("data-quarantine", q_table)
        + json_block("data-medium", m_table)
        + json_block("data-domains", d_table)
        + (json_block("data-errors", e_table) if e_table else "")
    )
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{content_security_policy()}">\n'
        '<meta name="referrer" content="no-referrer">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>trustaudit report — {html_text(run_id, 80)}</title>\n"
        f"<style>{CSS}</style></head>\n<body>{body}{data}<script>{JS}</script></body></html>\n"
    )


def _agent_audits(run: RunDir) -> str:
    """Counts from `trustaudit citations` / `trustaudit cards` when they ran on this run."""
    if not any(
        (run.root / n).exists()
        for n in ("citations.parquet", "citations", "cards.parquet", "cards")
    ):
        return ""  # neither ran: skip importing the citations package (a tenth of a re-run)
    try:
        from trustaudit.citations import card_results_summary, citation_results_summary
    except ImportError:  # pragma: no cover - citations are part of every build
        return ""
    cit, cards = citation_results_summary(run.root), card_results_summary(run.root)
    rows: list[list[Any]] = []
    if cit.get("present"):
        for key in (
            "citations",
            "fabricated_citations",
            "listing_only_citations",
            "quarantined_sources_cited",
            "medium_sources_cited",
            "turns_without_sources",
        ):
            rows.append([f"citations: {key.replace('_', ' ')}", cit.get(key, 0)])
    if cards.get("present"):
        for key in ("cards", "passed", "failing", "borderline"):
            rows.append([f"KB cards: {key}", cards.get(key, 0)])
    if not rows:
        return ""
    return '<h2 id="agents">Agent audits</h2>' + _small_table(["what", "count"], rows)


def _num(x: Any, digits: int = 3) -> str:
    try:
        return f"{float(x):.{digits}f}"
    except (TypeError, ValueError):
        return "n/a"


def write_html_report(
    run: RunDir,
    policy: Policy,
    manifest: dict[str, Any],
    *,
    evidence: pl.DataFrame | None = None,
) -> Path:
    """Write reports/report.html atomically and return its path."""
    if evidence is None:
        from trustaudit.report.suggest import domain_evidence

        evidence = domain_evidence(run, policy)
    path = run.report("report.html")
    write_text(path, build_html(run, policy, manifest, evidence=evidence))
    return path
