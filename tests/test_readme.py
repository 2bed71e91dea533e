"""The README is a front door and docs/ the manual; both stay true to the code.

The README keeps the two commands on top, the Python API second and the exit codes; the generated
command and policy references in docs/ must equal what the code renders now; every link resolves.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from trustaudit.cli.reference import (
    POLICY_END,
    POLICY_START,
    render,
    render_policy,
    section_of,
)

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
COMMANDS = (
    "audit",
    "crawl",
    "score",
    "report",
    "calibrate",
    "gate",
    "diff",
    "explain",
    "fuse",
    "citations",
    "cards",
    "policy show",
)


def _headings(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("## ")]


def test_two_commands_are_at_the_top() -> None:
    head = "\n".join(README.read_text(encoding="utf-8").splitlines()[:30])
    assert "make demo" in head and "make test" in head


def test_readme_is_a_front_door() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.encode("utf-8")) <= 15 * 1024
    headings = _headings(text)
    assert headings[:2] == ["## Two commands", "## Python API"], headings
    for section in ("## Install", "## Three ways to use it", "## Exit codes", "## Documentation"):
        assert section in headings, section
    uses = [line for line in text.splitlines() if line.startswith("### ")]
    assert len(uses) == 3 and all(
        u.startswith(f"### {i}.") for i, u in zip("123", uses, strict=True)
    )


def test_command_reference_matches_the_cli() -> None:
    section = section_of((DOCS / "cli.md").read_text(encoding="utf-8"))
    assert section is not None, "docs/cli.md lacks the cli-reference markers"
    assert section == render(), "docs/cli.md is stale: python -m trustaudit.cli.reference --write"


def test_policy_reference_matches_the_policy() -> None:
    text = (DOCS / "policy.md").read_text(encoding="utf-8")
    section = section_of(text, POLICY_START, POLICY_END)
    assert section is not None, "docs/policy.md lacks the policy-reference markers"
    assert section == render_policy(), (
        "docs/policy.md is stale: python -m trustaudit.cli.reference --write"
    )


def test_policy_reference_names_every_section_and_key() -> None:
    rendered = render_policy()
    from trustaudit.policy import Policy

    policy = Policy()
    for section in ("bands", "domain", "injection", "gate", "fusion", "citations", "crawl"):
        assert f"### `[{section}]`" in rendered
        for name in type(getattr(policy, section)).__dataclass_fields__:
            assert f"| `{name}` |" in rendered, (section, name)


def test_policy_page_lists_every_section() -> None:
    """The prose above the generated reference names each table a trustaudit.toml may hold."""
    import dataclasses

    from trustaudit.policy import Policy

    prose = (DOCS / "policy.md").read_text(encoding="utf-8").split(POLICY_START)[0]
    listed = re.search(r"^Sections: (.*?) —", prose, re.M | re.S)
    assert listed is not None, "docs/policy.md lacks its 'Sections:' line"
    names = set(re.findall(r"`(\w+)`", listed.group(1)))
    sections = {
        f.name for f in dataclasses.fields(Policy()) if dataclasses.is_dataclass(f.default_factory)
    }
    assert names == sections, (sections - names, names - sections)


def test_policy_help_cites_the_reference_not_the_notebook() -> None:
    """A key's help that names a docs page (and a section in quotes) sends the reader somewhere that
    exists and says what is true now: never the lab notebook, whose figures are of their time."""
    cited = re.findall(r"docs/([\w-]+\.md)(?: '([^']+)')?", render_policy() + render())
    assert cited, "no policy help cites a docs page (the pattern no longer matches?)"
    for page, section in cited:
        assert page != "injection-history.md", f"help cites the lab notebook ({section!r})"
        path = DOCS / page
        assert path.exists(), page
        if section:
            lines = path.read_text(encoding="utf-8").splitlines()
            titles = [h.lstrip("#").strip() for h in lines if h.startswith("#")]
            assert any(t.startswith(section) for t in titles), (page, section)


def test_injection_reference_states_the_packaged_thresholds() -> None:
    """docs/injection.md states the shipped head's threshold per kind of place once; retraining the
    head (bench/train_intent.py --write) must update it."""
    import json

    head = json.loads(
        (ROOT / "trustaudit/injection/data/intent_clf.json").read_text(encoding="utf-8")
    )
    text = (DOCS / "injection.md").read_text(encoding="utf-8")
    stated = re.findall(r"covert ([\d.]+), exposed ([\d.]+), visible ([\d.]+)", text)
    assert len(stated) == 1, stated
    covert, exposed, visible = (float(x) for x in stated[0])
    assert covert == head["threshold"]
    assert exposed == head["threshold_exposed"]
    assert visible == head["threshold_visible"]


def _prose() -> str:
    """README and every docs page, without the generated command reference."""
    texts = [README.read_text(encoding="utf-8")]
    for page in sorted(DOCS.glob("*.md")):
        text = page.read_text(encoding="utf-8")
        if page.name == "cli.md":
            text = text.split("<!-- cli-reference:start -->")[0]
        texts.append(text)
    return "\n".join(texts)


def test_every_command_is_documented_with_an_example() -> None:
    reference = (DOCS / "cli.md").read_text(encoding="utf-8")
    prose = _prose()
    for name in COMMANDS:
        assert f"### `trustaudit {name}`" in reference, name
        assert f"trustaudit {name} " in prose, name


def _links(page: Path) -> list[str]:
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    return re.findall(r"\]\(([^)\s]+)\)", text)


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lstrip("#").strip().lower())
    return text.replace(" ", "-")


@pytest.mark.parametrize(
    "page", [README, *sorted(DOCS.glob("*.md"))], ids=lambda p: p.relative_to(ROOT).as_posix()
)
def test_relative_links_resolve(page: Path) -> None:
    for link in _links(page):
        if re.match(r"[a-z]+:", link):
            continue
        target, _, anchor = link.partition("#")
        path = (page.parent / target).resolve() if target else page
        assert path.exists(), f"{page.name}: broken link {link}"
        if anchor:
            slugs = {
                _slug(h) for h in path.read_text(encoding="utf-8").splitlines() if h.startswith("#")
            }
            assert anchor in slugs, f"{page.name}: no heading for #{anchor} in {path.name}"


def test_index_links_every_docs_page() -> None:
    linked = {link.partition("#")[0] for link in _links(DOCS / "index.md")}
    pages = {p.name for p in DOCS.glob("*.md")} - {"index.md"}
    assert pages <= linked, pages - linked


def test_ci_recipe_installs_from_the_repository() -> None:
    text = (DOCS / "gate-and-ci.md").read_text(encoding="utf-8")
    installs = re.findall(r"pip install[^\n]*(?:\n\s+[^\n-][^\n]*)*", text)
    assert installs, "the CI recipe installs trustaudit"
    for cmd in installs:
        assert "git+" in cmd or re.search(r"pip install (-e )?\.", cmd), cmd


def test_ci_entry_runs_make_test_only() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "make test" in ci
