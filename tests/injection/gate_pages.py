"""The host page the gate's tests put a passage into, and what the gate then asks the model."""

from __future__ import annotations

from trustaudit.injection import scan_html_asks
from trustaudit.policy.injection import InjectionPolicy


def page(extra: str, body: str = "") -> str:
    """A short real-looking page with `body` and then `extra` between its two paragraphs."""
    return (
        "<html><head><title>Harbour tours</title></head><body><h1>Harbour tours</h1>"
        "<p>Boat tours of the harbour resume on Saturday after the storm repairs, weather "
        f"permitting.</p>{body}{extra}<p>Tickets at the pier.</p></body></html>"
    )


def asked(extra: str, policy: InjectionPolicy | None = None, body: str = "") -> list[str]:
    """The passages the gate sends to the model for `page(extra, body)`; the lexicon alone must
    find nothing there (every payload these tests use is one it misses)."""
    found, asks = scan_html_asks(page(extra, body), policy)
    assert found.findings == []
    return [t for _, _, t in asks]
