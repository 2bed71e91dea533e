"""report.html: one self-contained file a person can open offline and act on.

Safety model: every string that came from a page (title, URL, reason detail, injection snippet, error
message) reaches the browser only as JSON inside `<script type="application/json">` (with `<`, `>`
and `&` escaped, so it cannot close the block) and is put into the DOM with `textContent`; only
http/https URLs become `href`s (checked in Python and again in JS). A strict Content-Security-Policy
allows exactly the inline script and style of this file (by sha256) and no network at all, so even a
missed escape could not load or run anything. Server-rendered parts hold our own numbers and codes,
escaped anyway.

Exploring: one pages table over every band (trusted pages too: false negatives hide there) with band,
reason, domain and label facets and a per-page panel (sub-scores with weights, reasons with the evidence
from report/evidence.py); domains and top reasons drill down into it; `#doc=`/`#domain=` fragments link
into it. Size: each band is capped (`report.html_max_rows`, lowest trust first) with a note pointing at
the CSVs; the browser paginates, sorts and filters.
"""

from __future__ import annotations

import base64
import hashlib
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import polars as pl

from trustaudit.errors import TrustAuditError
from trustaudit.io.atomic import write_text
from trustaudit.io.rundir import RunDir
from trustaudit.policy import Policy
from trustaudit.report.escape import html_text, one_line, safe_href
from trustaudit.report.evidence import page_evidence
from trustaudit.report.reason_text import label_for, reason_texts
from trustaudit.report.trust_layer import (
    EVAL_COLUMNS,
    EvalView,
    behaviour_status,
    find_eval,
    judge_rows,
    read_eval,
)

CSS = """
:root{--fg:#1b1f23;--muted:#5f6b76;--line:#d9dee3;--bg:#fff;--soft:#f5f7f9;--accent:#1f5fa8}
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);
background:var(--bg);margin:0;padding:0 24px 48px;max-width:1500px}
h1{font-size:22px;margin:20px 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid
var(--line);padding-bottom:4px}.muted{color:var(--muted)}.note{background:#fff8e1;border:1px solid
#f0d58c;padding:6px 10px;border-radius:4px;margin:8px 0}
.cards{display:flex;flex-wrap:wrap;gap:10px;margin:12px 0}.card{border:1px solid var(--line);
border-radius:6px;padding:8px 12px;min-width:120px;background:var(--soft)}.card b{display:block;
font-size:20px}.card span{color:var(--muted);font-size:12px}
.quarantine{color:#c0392b}.medium{color:#b9770e}.trusted{color:#1e8449}
table{border-collapse:collapse;width:100%;font-size:13px}th,td{border-bottom:1px solid var(--line);
padding:4px 6px;text-align:left;vertical-align:top}td{overflow-wrap:anywhere}
th{background:var(--soft);position:sticky;top:0;cursor:pointer;user-select:none;white-space:nowrap}
th.asc::after{content:" \\25B2"}th.desc::after{content:" \\25BC"}
td.num,th.num{text-align:right;white-space:nowrap;width:1%}td div+div{margin-top:2px}
td.url{min-width:30ch;max-width:56ch}td.url a{word-break:break-all}td.url .sub{font-size:12px}
td.list{min-width:28ch}td.band,td.open,td.tag{white-space:nowrap;width:1%}
td.domain{min-width:16ch;max-width:26ch}
.small td,.small th{cursor:default}
.tools{display:flex;flex-wrap:wrap;gap:8px 10px;align-items:center;margin:6px 0}
.tools input{padding:4px 6px;min-width:260px;border:1px solid var(--line);border-radius:4px}
.tools select{padding:3px 4px;max-width:360px}
.facet{border:1px solid var(--line);background:var(--bg);border-radius:12px;padding:2px 10px;
cursor:pointer;font:inherit}.facet.on{background:var(--accent);border-color:var(--accent);color:#fff}
.chip{background:#e8f0fb;border-radius:12px;padding:2px 4px 2px 10px}.chip[hidden]{display:none}
button.link{background:none;border:0;padding:0;color:var(--accent);cursor:pointer;font:inherit;
text-align:left;text-decoration:underline dotted;overflow-wrap:anywhere}
button.open{font:12px ui-monospace,Menlo,monospace;width:22px;padding:0;cursor:pointer}
tr.detail>td{background:#fbfcfd;padding:8px 12px 12px 34px}tr.detail[hidden]{display:none}
.panel{display:flex;flex-wrap:wrap;gap:12px 28px}.panel>div{flex:1 1 380px}
.panel table{width:auto;min-width:320px}.panel h4{margin:4px 0;font-size:13px}
.reason{margin:6px 0}.reason ul{margin:2px 0 0;padding-left:18px}.reason li{margin:2px 0}
.ev{display:inline-block;font-size:11px;border-radius:3px;padding:0 4px;margin-right:4px;
background:#e8eaed;color:#333}.ev.hidden,.ev.visible{background:#fdecea;color:#922b21}
.ev.link{background:#fef5e7;color:#9a5b00}.ev.paragraph{background:#eaf2f8;color:#1b4f72}
.quote{font-style:italic}.pager button{margin:0 2px}.snip{font-family:ui-monospace,Menlo,monospace;font-size:12px;
background:#fdecea;padding:1px 3px;border-radius:3px}
svg text{font:11px system-ui,sans-serif;fill:#333}svg text.axis{font-size:12px;fill:#111}
"""

JS = """
(function () {
  "use strict";
  var PAGE = 100, tables = {};
  var EV = {hidden: "hidden text", visible: "visible text", link: "link", paragraph: "paragraph",
    fact: "signal"};
  var SPAN = {hidden: "snip", visible: "snip", paragraph: "quote"};
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined && text !== null) { e.textContent = String(text); }
    return e;
  }
  function isHttp(u) { return typeof u === "string" && /^https?:\\/\\//i.test(u); }
  function link(text, href) {
    if (!isHttp(href)) { return el("span", null, text); }
    var a = el("a", null, text || href);
    a.setAttribute("href", href);
    a.setAttribute("rel", "noopener noreferrer nofollow");
    return a;
  }
  function num(v, k) {
    return (typeof v === "number") ? (v % 1 !== 0 ? v.toFixed(k || 3) : String(v)) : "";
  }
  function plain(v, type) {
    if (v === null || v === undefined) { return ""; }
    if (type === "url") { return String(v[0] || "") + " " + String(v[2] || ""); }
    if (type === "list" || type === "snips") { return v.join(" "); }
    return String(v);
  }
  function focus(name, state) {
    var t = tables[name];
    if (t) { t.set(state); t.box.scrollIntoView(); }
  }
  function fill(td, v, type) {
    if (v === null || v === undefined) { return; }
    if (type === "url") {
      td.appendChild(link(v[0] || v[1], v[1]));
      if (v[2]) { td.appendChild(el("div", "muted sub", v[2])); }
    } else if (type === "domain") {
      if (v === "") { return; }
      var b = el("button", "link", v);
      b.setAttribute("type", "button");
      b.setAttribute("title", "show the pages of this domain");
      b.addEventListener("click", function () { focus("pages", {domain: v, band: "all", doc: ""}); });
      td.appendChild(b);
    } else if (type === "band") {
      td.appendChild(el("span", v, v));
    } else if (type === "list") {
      v.forEach(function (x) { td.appendChild(el("div", null, x)); });
    } else if (type === "snips") {
      v.forEach(function (x) { td.appendChild(el("div", "snip", x)); });
    } else if (type === "num") {
      td.textContent = num(v);
    } else { td.textContent = String(v); }
  }
  function panel(det) {
    var box = el("div", "panel"), left = el("div"), right = el("div");
    left.appendChild(el("h4", null, "Score"));
    var t = el("table", "small"), head = el("tr");
    ["", "value", "weight", "contribution"].forEach(function (h) { head.appendChild(el("th", null, h)); });
    t.appendChild(head);
    function row(cells, cls) {
      var tr = el("tr", cls || "");
      cells.forEach(function (c, i) { tr.appendChild(el("td", i ? "num" : "", c)); });
      t.appendChild(tr);
    }
    det.s.forEach(function (s) {
      row([s[0] + (s[4] ? "" : " (neutral)"), num(s[1]), num(s[2], 2), num(s[3], 4)]);
    });
    row(["weighted sum", "", "", num(det.base)]);
    det.a.forEach(function (a) { row([a[0], "", "", (a[1] > 0 ? "+" : "") + num(a[1], 4)]); });
    if (det.ref !== null && det.ref !== undefined && det.ref !== det.score) {
      row(["reference score (before the hard-rule cap)", "", "", num(det.ref)]);
    }
    row(["trust score", num(det.score), "", det.band + (det.hard ? " (hard rule)" : "")]);
    left.appendChild(t);
    if (det.t && det.t.length) {
      left.appendChild(el("h4", null, "Trust layer"));
      var tl = el("table", "small");
      det.t.forEach(function (x) {
        var tr = el("tr");
        tr.appendChild(el("td", "", x[0]));
        tr.appendChild(el("td", "num", num(x[1])));
        tr.appendChild(el("td", "", x[2]));
        tl.appendChild(tr);
      });
      left.appendChild(tl);
    }
    left.appendChild(el("div", "muted sub", "doc_id " + det.id));
    right.appendChild(el("h4", null, "Reasons and evidence"));
    if (!det.r.length) { right.appendChild(el("div", "muted", "No reason recorded.")); }
    det.r.forEach(function (r) {
      var div = el("div", "reason");
      div.appendChild(el("b", null, r.label));
      div.appendChild(el("span", "muted", " " + r.code + (r.detail ? ": " + r.detail : "")));
      if (r.ev.length) {
        var ul = el("ul");
        r.ev.forEach(function (e) {
          var li = el("li");
          li.appendChild(el("span", "ev " + e.k, EV[e.k] || e.k));
          li.appendChild(e.k === "link" ? link(e.t, e.h) : el("span", SPAN[e.k] || "", e.t));
          if (e.w) { li.appendChild(el("span", "muted", " " + e.w)); }
          ul.appendChild(li);
        });
        div.appendChild(ul);
      }
      right.appendChild(div);
    });
    box.appendChild(left); box.appendChild(right);
    return box;
  }
  function setup(box) {
    var node = document.getElementById(box.getAttribute("data-src"));
    if (!node) { return; }
    var d = JSON.parse(node.textContent);
    var cols = d.cols, rows = d.rows, meta = d.meta || null, det = d.detail || null;
    var order = rows.map(function (_, i) { return i; });
    var keys = rows.map(function (r, i) {
      return (r.map(function (v, j) { return plain(v, cols[j].type); }).join(" \\u0001 ") +
        (meta ? " " + meta[i].id : "")).toLowerCase();
    });
    var fc = d.facets || null;
    var st = {q: "", band: fc ? fc.band : "all", reason: "", domain: "", label: "", doc: ""};
    var view = order.slice(), page = 0, sortCol = -1, sortDir = 1, opened = {};
    var tools = el("div", "tools"), input = el("input");
    input.setAttribute("type", "search");
    input.setAttribute("placeholder", "filter rows (any column)");
    var count = el("span", "muted"), pager = el("span", "pager");
    var prev = el("button", null, "\\u2039 prev"), next = el("button", null, "next \\u203a");
    var where = el("span", "muted");
    pager.appendChild(prev); pager.appendChild(where); pager.appendChild(next);
    var bandButtons = {}, reasonSel = null, labelSel = null, chip = null, chipText = null;
    if (fc) {
      var facets = el("div", "tools");
      facets.appendChild(el("span", "muted", "band:"));
      fc.bands.forEach(function (b) {
        var btn = el("button", "facet", b[0] + " " + b[1] + (b[2] < b[1] ? " (first " + b[2] + ")" : ""));
        btn.setAttribute("type", "button");
        btn.addEventListener("click", function () { set({band: b[0], doc: ""}); });
        bandButtons[b[0]] = btn; facets.appendChild(btn);
      });
      reasonSel = el("select");
      reasonSel.appendChild(el("option", null, "any reason"));
      reasonSel.firstChild.value = "";
      fc.reasons.forEach(function (r) {
        var o = el("option", null, r[1] + " (" + r[0] + ") \\u00b7 " + r[2]);
        o.value = r[0]; reasonSel.appendChild(o);
      });
      reasonSel.addEventListener("change", function () { set({reason: reasonSel.value, doc: ""}); });
      facets.appendChild(el("span", "muted", "reason:")); facets.appendChild(reasonSel);
      if (fc.labels) {
        labelSel = el("select");
        fc.labels.forEach(function (l) { var o = el("option", null, l[1]); o.value = l[0]; labelSel.appendChild(o); });
        labelSel.addEventListener("change", function () { set({label: labelSel.value, doc: ""}); });
        facets.appendChild(el("span", "muted", "labels:")); facets.appendChild(labelSel);
      }
      chip = el("span", "chip"); chipText = el("span");
      var clear = el("button", "link", "\\u00d7");
      clear.setAttribute("type", "button"); clear.setAttribute("title", "clear");
      clear.addEventListener("click", function () { set({domain: "", doc: ""}); });
      chip.appendChild(chipText); chip.appendChild(clear); facets.appendChild(chip);
      box.appendChild(facets);
    }
    tools.appendChild(input); tools.appendChild(count); tools.appendChild(pager);
    var table = el("table"), thead = el("thead"), htr = el("tr"), tbody = el("tbody");
    if (det) { htr.appendChild(el("th", "open", "")); }
    cols.forEach(function (c, j) {
      var th = el("th", c.type === "num" ? "num" : "", c.label);
      th.addEventListener("click", function () { sortBy(j); });
      htr.appendChild(th);
    });
    thead.appendChild(htr); table.appendChild(thead); table.appendChild(tbody);
    box.appendChild(tools); box.appendChild(table);
    function keep(i) {
      if (st.q && keys[i].indexOf(st.q) === -1) { return false; }
      if (!meta) { return true; }
      var m = meta[i];
      if (st.doc) { return m.id === st.doc; }
      if (st.band !== "all" && m.b !== st.band) { return false; }
      if (st.reason && m.c.indexOf(st.reason) === -1) { return false; }
      if (st.domain && m.d !== st.domain) { return false; }
      if (st.label === "untrusted" || st.label === "trusted") { return m.l === st.label; }
      if (st.label === "missed") { return m.l === "untrusted" && m.b !== "quarantine"; }
      if (st.label === "lost") { return m.l === "trusted" && m.b === "quarantine"; }
      return true;
    }
    function draw() {
      while (tbody.firstChild) { tbody.removeChild(tbody.firstChild); }
      var pages = Math.max(1, Math.ceil(view.length / PAGE));
      if (page >= pages) { page = pages - 1; }
      var start = page * PAGE, end = Math.min(view.length, start + PAGE);
      for (var k = start; k < end; k++) { drawRow(view[k]); }
      count.textContent = view.length + " of " + rows.length + " row(s)" +
        (d.total > rows.length ? " shown (" + d.total + " in the run)" : "");
      where.textContent = " page " + (page + 1) + " / " + pages + " ";
      prev.disabled = page === 0; next.disabled = page >= pages - 1;
      box.setAttribute("data-rendered", String(end - start));
    }
    function drawRow(i) {
      var r = rows[i], tr = el("tr"), extra = null;
      if (det) {
        var td0 = el("td", "open"), btn = el("button", "open", opened[i] ? "\\u2212" : "+");
        btn.setAttribute("type", "button");
        btn.setAttribute("title", "sub-scores, reasons and evidence");
        td0.appendChild(btn); tr.appendChild(td0);
        extra = el("tr", "detail");
        var cell = el("td");
        cell.setAttribute("colspan", String(cols.length + 1));
        cell.appendChild(panel(det[i]));
        extra.appendChild(cell);
        if (!opened[i]) { extra.setAttribute("hidden", ""); }
        btn.addEventListener("click", function () {
          opened[i] = !opened[i];
          if (opened[i]) { extra.removeAttribute("hidden"); } else { extra.setAttribute("hidden", ""); }
          btn.textContent = opened[i] ? "\\u2212" : "+";
        });
      }
      for (var j = 0; j < cols.length; j++) {
        var td = el("td", cols[j].type);
        fill(td, r[j], cols[j].type);
        tr.appendChild(td);
      }
      tbody.appendChild(tr);
      if (extra) { tbody.appendChild(extra); }
    }
    function applySort() {
      if (sortCol < 0) { return; }
      var j = sortCol, isNum = cols[j].type === "num";
      view.sort(function (a, b) {
        var x = rows[a][j], y = rows[b][j];
        if (x === null || x === undefined) { return (y === null || y === undefined) ? a - b : 1; }
        if (y === null || y === undefined) { return -1; }
        if (!isNum) { x = plain(x, cols[j].type); y = plain(y, cols[j].type); }
        var c = isNum ? (x - y) : (x < y ? -1 : x > y ? 1 : 0);
        return c * sortDir || a - b;
      });
    }
    function refresh() {
      view = order.filter(keep);
      applySort(); page = 0;
      Object.keys(bandButtons).forEach(function (b) {
        bandButtons[b].classList.toggle("on", b === st.band && !st.doc);
      });
      if (reasonSel) { reasonSel.value = st.reason; }
      if (labelSel) { labelSel.value = st.label; }
      if (chip) {
        chip.hidden = !st.domain && !st.doc;
        chipText.textContent = st.doc ? "page " + st.doc + " " : "domain " + st.domain + " ";
      }
      draw();
    }
    function set(s) {
      Object.keys(s).forEach(function (k) { st[k] = String(s[k]); });
      if (st.doc) {
        opened = {};
        order.forEach(function (i) { if (meta && meta[i].id === st.doc) { opened[i] = true; } });
      }
      refresh();
    }
    function sortBy(j) {
      sortDir = (sortCol === j) ? -sortDir : 1; sortCol = j;
      var ths = Array.prototype.slice.call(htr.children, det ? 1 : 0);
      ths.forEach(function (th, i) {
        th.classList.remove("asc", "desc");
        if (i === j) { th.classList.add(sortDir > 0 ? "asc" : "desc"); }
      });
      applySort(); page = 0; draw();
    }
    input.addEventListener("input", function () { st.q = input.value.toLowerCase(); refresh(); });
    prev.addEventListener("click", function () { page -= 1; draw(); });
    next.addEventListener("click", function () { page += 1; draw(); });
    tables[box.getAttribute("data-name") || ""] = {set: set, box: box};
    refresh();
  }
  function fromHash() {
    var h = {}, raw = (location.hash || "").replace(/^#/, "");
    raw.split("&").forEach(function (kv) {
      var i = kv.indexOf("=");
      if (i > 0) {
        try { h[kv.slice(0, i)] = decodeURIComponent(kv.slice(i + 1)); } catch (e) { return; }
      }
    });
    var s = {}, any = false;
    ["band", "reason", "domain", "doc", "label"].forEach(function (k) {
      if (typeof h[k] === "string") { s[k] = h[k]; any = true; }
    });
    if (any) {
      if (!s.band) { s.band = "all"; }
      focus("pages", s);
    }
  }
  Array.prototype.forEach.call(document.querySelectorAll("div.tbl[data-src]"), setup);
  Array.prototype.forEach.call(document.querySelectorAll("button[data-reason]"), function (b) {
    b.addEventListener("click", function () {
      focus("pages", {reason: b.getAttribute("data-reason"), band: "all", domain: "", doc: ""});
    });
  });
  window.addEventListener("hashchange", fromHash);
  fromHash();
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
HIST_PARTS = (  # stacked bottom to top; a hard rule quarantines whatever the score says
    ("quarantine", "#c0392b", "quarantine (trust < threshold)"),
    ("hard", "#641e16", "hard-rule quarantine (blocklist, affiliate, injection)"),
    ("medium", "#d68910", "medium"),
    ("trusted", "#1e8449", "trusted"),
)


def svg_histogram(scores: pl.DataFrame, *, quarantine_below: float, trusted_from: float) -> str:
    """Stacked histogram of trust in 20 bins of 0.05, coloured by band, hard-rule quarantines apart,
    band limits marked, both axes labelled, with a legend."""
    part = (
        pl.when(pl.col("band") == "quarantine")
        .then(
            pl.when(pl.col("hard_quarantine").fill_null(False))
            .then(pl.lit("hard"))
            .otherwise(pl.lit("quarantine"))
        )
        .otherwise(pl.col("band"))
    )
    bins = (
        scores.select(
            b=(pl.col("trust_score").fill_null(0.0) * 20).floor().clip(0, 19).cast(pl.Int32),
            part=part,
        )
        .group_by("b", "part")
        .len()
    )
    counts: dict[int, dict[str, int]] = {i: {} for i in range(20)}
    for b, name, n in bins.iter_rows():
        counts[int(b)][str(name)] = int(n)
    top = max([sum(c.values()) for c in counts.values()] + [1])
    w, h, left, bottom, right = 980, 260, 56, 44, 360
    pw, ph = w - left - right, h - bottom - 26
    bw = pw / 20
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" role="img" '
        f'aria-label="trust score histogram">'
    ]
    for i in range(20):
        y = float(h - bottom)
        for name, color, label in HIST_PARTS:
            n = counts[i].get(name, 0)
            if not n:
                continue
            bh = ph * n / top
            y -= bh
            parts.append(
                f'<rect x="{left + i * bw + 1:.1f}" y="{y:.1f}" width="{bw - 2:.1f}" '
                f'height="{bh:.1f}" fill="{color}"><title>trust {i / 20:.2f}-{(i + 1) / 20:.2f}, '
                f"{html_text(label)}: {n} page(s)</title></rect>"
            )
    for thr, name in ((quarantine_below, "quarantine <"), (trusted_from, "trusted >=")):
        x = left + thr * pw
        parts.append(
            f'<line x1="{x:.1f}" x2="{x:.1f}" y1="6" y2="{h - bottom}" stroke="#333" '
            f'stroke-dasharray="4 3"/><text x="{x + 3:.1f}" y="14">{html_text(name)} {thr:.2f}</text>'
        )
    for k in range(6):
        x = left + k / 5 * pw
        parts.append(f'<text x="{x - 8:.1f}" y="{h - bottom + 16}">{k / 5:.1f}</text>')
    for v in sorted({0, top // 2, top}):
        y = h - bottom - ph * v / top
        parts.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{v}</text>')
    parts.append(
        f'<line x1="{left}" x2="{left + pw}" y1="{h - bottom}" y2="{h - bottom}" stroke="#999"/>'
        f'<line x1="{left}" x2="{left}" y1="{h - bottom - ph}" y2="{h - bottom}" stroke="#999"/>'
        f'<text class="axis" x="{left + pw / 2:.1f}" y="{h - 6}" text-anchor="middle">'
        "trust score (bins of 0.05)</text>"
        f'<text class="axis" transform="translate(14 {h - bottom - ph / 2:.1f}) rotate(-90)" '
        'text-anchor="middle">pages</text>'
    )
    for j, (_name, color, label) in enumerate(HIST_PARTS):
        y = 24 + j * 20
        parts.append(
            f'<rect x="{w - right + 20}" y="{y - 10}" width="12" height="12" fill="{color}"/>'
            f'<text x="{w - right + 38}" y="{y}">{html_text(label)}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def svg_threshold_curve(curve: pl.DataFrame, *, current: float, recommended: float | None) -> str:
    """Precision/recall/F1/trusted-lost against the threshold, current and recommended marked."""
    w, h, left, bottom = 760, 280, 52, 40
    pw, ph = w - left - 140, h - bottom - 10

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
            f'<line x1="{w - 128}" x2="{w - 108}" y1="{ly - 4}" y2="{ly - 4}" stroke="{color}" '
            f'stroke-width="2" stroke-dasharray="{dash or "none"}"/>'
            f'<text x="{w - 104}" y="{ly}">{col.replace("_", " ")}</text>'
        )
    marks = [(current, "#555", f"current {current:.2f}")]
    if recommended is not None:
        marks.append((recommended, "#c0392b", f"recommended {recommended:.2f}"))
    for j, (x, color, label) in enumerate(marks):
        parts.append(
            f'<line x1="{px(x):.1f}" x2="{px(x):.1f}" y1="10" y2="{10 + ph}" stroke="{color}" '
            f'stroke-width="1.5"/><text x="{w - 128}" y="{24 + (4 + j) * 16}" fill="{color}">'
            f"{html_text(label)}</text>"
        )
    for k in range(6):
        parts.append(f'<text x="{px(k / 5) - 8:.1f}" y="{10 + ph + 14}">{k / 5:.1f}</text>')
        parts.append(
            f'<text x="{left - 6}" y="{py(k / 5) + 4:.1f}" text-anchor="end">{k / 5:.1f}</text>'
        )
    parts.append(
        f'<text class="axis" x="{left + pw / 2:.1f}" y="{h - 4}" text-anchor="middle">threshold '
        "(quarantine when trust &lt; threshold or a hard rule fired)</text>"
        f'<text class="axis" transform="translate(12 {10 + ph / 2:.1f}) rotate(-90)" '
        'text-anchor="middle">rate (positive class: untrusted)</text></svg>'
    )
    return "".join(parts)


# ------------------------------------------------------------------ tables (JSON for the JS)
BANDS = ("quarantine", "medium", "trusted")
LABEL_FACETS = (
    ("", "any"),
    ("untrusted", "labelled untrusted"),
    ("trusted", "labelled trusted"),
    ("missed", "missed: labelled untrusted, not quarantined"),
    ("lost", "lost: labelled trusted, quarantined"),
)


def _labels(run: RunDir, policy: Policy, path: Path | None = None) -> pl.DataFrame | None:
    """doc_id -> `_untrusted` from the labels file this report's calibration used (`path`, else
    the labels the run owns; None without one).

    Weak labels (the lists) are not shown: they would mark every listed page as its own evidence.
    """
    from trustaudit.report.calibrate import labeled_pages, remembered_labels

    path = path or remembered_labels(run)
    if path is None:
        return None
    try:
        lp = labeled_pages(run, policy, path)
    except TrustAuditError:
        return None
    return lp.frame if lp is not None and lp.source == "labels" else None


def _detail(
    r: dict[str, Any], weights: dict[str, float], reasons: list[dict[str, Any]]
) -> dict[str, Any]:
    """The per-page panel: sub-scores with weight and contribution, adjustments, reasons + evidence."""
    subs = []
    for fam, weight in weights.items():
        value = r.get(f"{fam}_score")
        contribution = None if value is None else round(weight * value, 4)
        subs.append([f"{fam}_score", value, weight, contribution, value is not None])
    adjust = [[k, v] for k, v in sorted(r.items()) if k.startswith("adjust_") and v]
    return {
        "id": r["doc_id"],
        "s": subs,
        "a": adjust,
        "t": _trust_layer(r),
        "base": r.get("trust_score_base"),
        "score": r.get("trust_score"),
        # a hard rule caps the score: without the number before the cap the rows do not add up
        "ref": r.get("reference_score"),
        "band": r.get("band"),
        "hard": bool(r.get("hard_quarantine")),
        "r": [{**x, "label": label_for(x["code"])} for x in reasons],
    }


def _trust_layer(r: dict[str, Any]) -> list[list[Any]]:
    """Panel rows [what, value, note] for the behaviour sub-score and the tail judge's verdict,
    when the run has them (scores.parquet keeps them next to adjust_behaviour / adjust_judge)."""
    rows: list[list[Any]] = []
    if r.get("behaviour_score") is not None:
        rows.append(
            [
                "behaviour score",
                r["behaviour_score"],
                f"review-platform signals; adjust_behaviour {r.get('adjust_behaviour') or 0:+.4f}",
            ]
        )
    status = r.get("judge_status")
    if status is not None or r.get("judge_score") is not None:
        reason = one_line(r.get("judge_reason"), 300)
        note = f"{one_line(status, 40) or 'judged'}{': ' + reason if reason else ''}"
        if r.get("judge_score") is not None:
            note += f"; adjust_judge {r.get('adjust_judge') or 0:+.4f}"
        rows.append(["judge score", r.get("judge_score"), note])
    return rows


def page_explorer(
    run: RunDir,
    scores: pl.DataFrame,
    policy: Policy,
    cap: int,
    labels: pl.DataFrame | None = None,
) -> dict[str, Any]:
    """Every band's pages (lowest trust first, `cap` per band) with facets and per-page panels.

    Trusted pages are listed too: a page that should not have passed hides there, and the label
    facet ("missed") finds it at once when the run has a labels file.
    """
    parts, totals = [], {}
    for band in BANDS:
        sel = scores.filter(pl.col("band") == band)
        totals[band] = sel.height
        parts.append(sel.sort(["trust_score", "url"], nulls_last=True).head(cap))
    sel = pl.concat(parts, how="diagonal_relaxed")
    if run.pages.exists() and sel.height and "title" in run.scan("pages").collect_schema().names():
        ids = sel["doc_id"].implode()
        titles = run.scan("pages").select("doc_id", "title").filter(pl.col("doc_id").is_in(ids))
        sel = sel.join(titles.collect().unique("doc_id"), on="doc_id", how="left")
    if labels is not None:
        sel = sel.join(labels.select("doc_id", "_untrusted"), on="doc_id", how="left")
    evidence = page_evidence(run, sel)
    w = policy.weights
    weights = {"domain": w.domain, "affiliate": w.affiliate, "coherence": w.coherence}
    rows, meta, detail = [], [], []
    for r in sel.iter_rows(named=True):
        label = None
        if labels is not None and r.get("_untrusted") is not None:
            label = "untrusted" if r["_untrusted"] else "trusted"
        domain = one_line(r.get("registered_domain"), 100)
        row = [
            r["trust_score"],
            r["band"],
            [one_line(r["url"], 300), safe_href(r["url"]), one_line(r.get("title"), 160)],
            domain,
            "hard rule" if r.get("hard_quarantine") else "",
            reason_texts(r.get("reason_details"), 240),
        ]
        if labels is not None:
            row.append(label or "")
        rows.append(row)
        codes = [c for c in (r.get("reasons") or []) if c]
        meta.append({"id": r["doc_id"], "b": r["band"], "c": codes, "d": domain, "l": label})
        detail.append(_detail(r, weights, evidence.get(r["doc_id"], [])))
    cols = [
        {"label": "trust", "type": "num"},
        {"label": "band", "type": "band"},
        {"label": "url / title", "type": "url"},
        {"label": "domain", "type": "domain"},
        {"label": "rule", "type": "tag"},
        {"label": "reasons", "type": "list"},
    ]
    if labels is not None:
        cols.append({"label": "label", "type": "tag"})
    reason_counts = (
        scores.select(pl.col("reasons").explode())
        .drop_nulls()
        .group_by("reasons")
        .len()
        .sort(["len", "reasons"], descending=[True, False])
    )
    shown = dict(sel.group_by("band").len().iter_rows()) if sel.height else {}
    default = next((b for b in BANDS if totals[b]), "quarantine")
    return {
        "cols": cols,
        "rows": rows,
        "meta": meta,
        "detail": detail,
        "total": scores.height,
        "totals": totals,
        "facets": {
            "band": default,
            "bands": [
                ["all", scores.height, sel.height],
                *([b, totals[b], shown.get(b, 0)] for b in BANDS),
            ],
            "reasons": [[c, label_for(c), n] for c, n in reason_counts.iter_rows()],
            "labels": [list(x) for x in LABEL_FACETS] if labels is not None else None,
        },
    }


def domain_table(evidence: pl.DataFrame | None, cap: int) -> dict[str, Any]:
    """Domains with their evidence and suggestion; suggested ones first, then most quarantined."""
    cols = [
        {"label": "domain", "type": "domain"},
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


def _reasons_table(rows: list[list[Any]]) -> str:
    """Top reasons; each code is a button the script turns into the pages' reason facet."""
    body = "".join(
        f'<tr><td><button type="button" class="link" data-reason="{html_text(code, 80)}">'
        f"{html_text(code, 80)}</button></td><td>{html_text(meaning)}</td>"
        f'<td class="num">{int(cnt)}</td></tr>'
        for code, meaning, cnt in rows
    )
    return (
        '<table class="small"><thead><tr><th>code</th><th>meaning</th><th class="num">pages</th>'
        f"</tr></thead><tbody>{body}</tbody></table>"
    )


def _trust_layer_section(manifest: dict[str, Any]) -> str:
    """The behaviour family's status and the tail judge's counts, when either took part."""
    rows = judge_rows(manifest)
    status = behaviour_status(manifest)
    if not rows and status != "computed":
        return ""
    parts = ['<h2 id="trust-layer">Trust layer</h2>']
    if status == "computed":
        parts.append(
            "<p>Behavioural review signals: computed (a page's panel shows its behaviour score "
            "and BEHAVIOUR_* reasons).</p>"
        )
    elif status:
        parts.append(f'<p class="muted">Behavioural review signals: {html_text(status)}</p>')
    if rows:
        judge = (manifest.get("stages") or {}).get("score", {}).get("judge") or {}
        parts.append(
            "<p>LLM judge on the tail (prompt "
            f"{html_text(str(judge.get('prompt_version', '?')), 60)}): a page's panel shows its "
            "judge score and reason.</p>" + _small_table(["count", "meaning", "pages"], rows)
        )
    return "".join(parts)


def _pct(v: Any) -> str:
    if v is None:
        return "–"
    if isinstance(v, float):
        return f"{v:.1%}"
    return str(v)


def _eval_section(view: EvalView | None) -> tuple[str, str]:
    """(HTML, JSON data block) of the planted-source eval; empty strings without one."""
    if view is None:
        return "", ""
    notes = "".join(f'<p class="note">{html_text(n, 400)}</p>' for n in view.notes)
    if not view.summary:
        return (
            f'<h2 id="planted-eval">Planted-source eval</h2>{notes}'
            f'<p class="muted">No eval summary in {html_text(str(view.path), 300)}.</p>',
            "",
        )
    kinds = _small_table(
        [label for _, label in EVAL_COLUMNS],
        [[_pct(r.get(c)) for c, _ in EVAL_COLUMNS] for r in view.summary],
    )
    gate = _small_table(
        ["rule", "status", "message"],
        [[r.get("name", ""), r.get("status", ""), r.get("message", "")] for r in view.gate],
    )
    head = (
        f'<h2 id="planted-eval">Planted-source eval</h2>{notes}'
        f"<p>{html_text(str(view.queries if view.queries is not None else '?'))} queries, "
        f"{html_text(str(view.results if view.results is not None else '?'))} results "
        f"({html_text(str(view.path), 300)}). Outcome = what <code>fuse</code> does with each "
        "result: filtered out of the context, kept with the medium-trust tag, or kept untagged."
        f"</p>{kinds}{gate if view.gate else ''}"
    )
    if view.leaks is None:
        return head, ""
    t = view.leaks
    cap_note = (
        f'<p class="note">Showing the first {len(t["rows"])} of {t["total"]} planted results that '
        "reached the context; all are in eval.parquet.</p>"
        if t["total"] > len(t["rows"])
        else ""
    )
    body = f"{head}<h3>Planted results that reached the context</h3>" + (
        f'{cap_note}<div class="tbl" data-src="data-eval"></div>'
        if t["rows"]
        else '<p class="muted">None: fuse filtered every planted result.</p>'
    )
    return body, json_block("data-eval", t) if t["rows"] else ""


def _read_calibration(run: RunDir) -> tuple[dict[str, Any] | None, pl.DataFrame | None]:
    try:
        cal = json.loads(run.report("calibration.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None, None
    curve = None
    if run.report("threshold_curve.csv").exists():
        try:
            curve = pl.read_csv(run.report("threshold_curve.csv"), glob=False)
        except (pl.exceptions.ComputeError, OSError):
            curve = None
    return cal, curve


def build_html(
    run: RunDir,
    policy: Policy,
    manifest: dict[str, Any],
    *,
    evidence: pl.DataFrame | None = None,
    eval_dir: str | Path | None = None,
    labels: Path | None = None,
) -> str:
    """The whole report.html as a string (see module docstring for the safety model).

    The planted-source eval is shown from `eval_dir`, else from RUN/eval when it holds one."""
    cap = max(1, int(policy.report.html_max_rows))
    scores = run.read("scores")  # every column: the per-page panel shows sub-scores and adjustments
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
    where = find_eval(run, eval_dir)
    eval_html, eval_data = _eval_section(
        read_eval(run, where, manifest, cap) if where is not None else None
    )
    p_table = page_explorer(run, scores, policy, cap, _labels(run, policy, labels))
    d_table = domain_table(evidence, cap)
    e_table = error_table(errors, min(cap, 2000)) if errors.height else None

    def capped(t: dict[str, Any], csv: str) -> str:
        if t["total"] > len(t["rows"]):
            return (
                f'<p class="note">Showing the first {len(t["rows"])} of {t["total"]} rows '
                f"(lowest trust first); the full list is in {html_text(csv)}.</p>"
            )
        return ""

    def capped_bands(t: dict[str, Any]) -> str:
        notes = [
            f"{html_text(band)}: the first {shown} of {total} (lowest trust first)"
            for band, total, shown in t["facets"]["bands"][1:]
            if total > shown
        ]
        if not notes:
            return ""
        return (
            f'<p class="note">Showing {"; ".join(notes)}. Full lists: quarantine.csv and '
            "scores.parquet.</p>"
        )

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
<h2>Top reasons</h2>
<p class="muted">Click a code to list its pages.</p>{_reasons_table(reason_rows)}
<h2 id="pages">Pages</h2>
<p class="muted">Every band, lowest trust first: quarantined pages to check for false positives,
trusted ones for what slipped through. Filter by band, reason or domain (click a domain anywhere);
<b>+</b> opens a page's sub-scores, weights, reasons and the evidence behind them. Medium pages carry
the tag {html_text(policy.bands.medium_tag)} when used in prompts. Link to a page with
<code>report.html#doc=DOC_ID</code>, to a domain with <code>#domain=NAME</code>.</p>
{capped_bands(p_table)}<div class="tbl" data-name="pages" data-src="data-pages"></div>
<h2 id="domains">Domains and list suggestions</h2>{sugg}{capped(d_table, "domains.csv")}
<div class="tbl" data-src="data-domains"></div>
{_trust_layer_section(manifest)}
{eval_html}
{_agent_audits(run)}
<h2 id="errors">Errors by code</h2>
{_small_table(["code", "records"], err_rows) if err_rows else '<p class="muted">No errors.</p>'}
{'<div class="tbl" data-src="data-errors"></div>' if e_table else ""}
"""
    data = (
        json_block("data-pages", p_table)
        + json_block("data-domains", d_table)
        + (json_block("data-errors", e_table) if e_table else "")
        + eval_data
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
    eval_dir: str | Path | None = None,
    labels: Path | None = None,
) -> Path:
    """Write reports/report.html atomically and return its path."""
    if evidence is None:
        from trustaudit.report.suggest import domain_evidence

        evidence = domain_evidence(run, policy)
    path = run.report("report.html")
    write_text(
        path,
        build_html(run, policy, manifest, evidence=evidence, eval_dir=eval_dir, labels=labels),
    )
    return path
