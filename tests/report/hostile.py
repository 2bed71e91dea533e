"""A run full of hostile page strings: each payload marks the DOM if it ever executes."""

from __future__ import annotations

from pathlib import Path

from tests.report.fakerun import make_run, page
from trustaudit.io.rundir import RunDir

MARK = "data-pwned"
TITLES = [
    "<script>document.body.setAttribute('data-pwned','title')</script>",
    "<img src=x onerror=\"document.body.setAttribute('data-pwned','img')\">",
    "</title><script>document.title='PWNED'</script>",
    "\"><svg onload=\"document.body.setAttribute('data-pwned','svg')\">",
]
JS_URL = "javascript:document.body.setAttribute('data-pwned','href')"
QUOTE_URL = "https://ok.example/a\"onmouseover=\"document.body.setAttribute('data-pwned','attr')"
SNIPPET = "</script><script>document.body.setAttribute('data-pwned','snippet')</script><img src=x onerror=alert(1)>"


def hostile_run(root: Path) -> RunDir:
    find = {
        "location": '<div> style="display:none"',
        "technique": "display_none",
        "snippet": SNIPPET,
        "offset": 3,
        "rule": "override",
        "score": 0.9,
    }
    pages = [
        page(
            f"https://evil{i}.example/p",
            0.2,
            title=t,
            hard=True,
            reasons=[f"AFFILIATE_DENSE_NO_DISCLOSURE: {t}"],
            findings=[find],
        )
        for i, t in enumerate(TITLES)
    ]
    pages.append(page(JS_URL, 0.1, domain=None, title="js url", reasons=["TEXT_THIN: <b>bold</b>"]))
    pages.append(page(QUOTE_URL, 0.5, domain="ok.example", title="medium <u>page</u>"))
    pages.append(page("https://fine.example/", 0.9, title="fine"))
    errors = [
        {
            "source": "x.warc",
            "offset": 1,
            "url": JS_URL,
            "stage": "read",
            "code": "BAD_URL",
            "message": "<script>document.body.setAttribute('data-pwned','error')</script>",
        }
    ]
    return make_run(root, pages, errors=errors)
