"""Provenance rules: retrieved / cited / consulted, fabricated citations, doc gaps."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from trustaudit.citations.provenance import audit_turn, edit_distance, is_concrete, nearest_id
from trustaudit.citations.schema import Citation, Retrieval, Turn
from trustaudit.policy.citations import CitationsPolicy

POLICY = CitationsPolicy()


def turn(
    retrievals: list[tuple[str, str]], cited: list[str], question: str = "How much is it?"
) -> Turn:
    return Turn(
        turn_id="t",
        line=1,
        question=question,
        answer="a",
        retrievals=[Retrieval(d, k, f"tool_{k}", i) for i, (d, k) in enumerate(retrievals)],  # type: ignore[arg-type]
        citations=[Citation(c) for c in cited],
    )


def by_doc(t: Turn) -> tuple[dict, dict]:
    rows, trow = audit_turn(t, POLICY)
    return {r["doc_id"]: r for r in rows}, trow


def test_fetched_is_consulted_even_if_not_cited() -> None:
    rows, trow = by_doc(turn([("d1", "fetch")], []))
    assert rows["d1"]["consulted"] and not rows["d1"]["cited"]
    assert rows["d1"]["reasons"] == ["CONSULTED_NOT_CITED"]
    assert trow["consulted"] == ["d1"] and not trow["doc_gap"]


def test_search_result_is_consulted_only_when_cited() -> None:
    rows, trow = by_doc(turn([("d1", "search"), ("d2", "search")], ["d1"]))
    assert rows["d1"]["consulted"] and rows["d1"]["cited"] and rows["d1"]["reasons"] == []
    assert rows["d2"]["retrieved"] and not rows["d2"]["consulted"]
    assert trow["retrieved"] == ["d1", "d2"] and trow["consulted"] == ["d1"]


def test_listing_only_is_never_a_source_even_if_cited() -> None:
    rows, trow = by_doc(turn([("d9", "listing")], ["d9"]))
    assert rows["d9"]["cited"] and not rows["d9"]["consulted"]
    assert rows["d9"]["reasons"] == ["LISTING_ONLY_CITED"]
    assert trow["doc_gap"] and "NO_CONSULTED_SOURCE" in trow["reasons"]


def test_listing_plus_search_and_cited_is_a_source() -> None:
    rows, _ = by_doc(turn([("d9", "listing"), ("d9", "search")], ["d9"]))
    assert rows["d9"]["consulted"] and rows["d9"]["reasons"] == []
    assert rows["d9"]["kinds"] == ["listing", "search"]


def test_fabricated_with_one_character_typo() -> None:
    rows, trow = by_doc(turn([("doc-7f3a", "search"), ("doc-22b1", "search")], ["doc-7f3b"]))
    r = rows["doc-7f3b"]
    assert r["fabricated"] and not r["retrieved"] and not r["consulted"]
    assert (r["likely_meant"], r["likely_meant_distance"]) == ("doc-7f3a", 1)
    assert "likely meant 'doc-7f3a'" in r["reason_details"][0]
    assert trow["fabricated"] == ["doc-7f3b"]


def test_fabricated_distance_two_and_beyond() -> None:
    rows, _ = by_doc(turn([("abcdef", "search")], ["abcdxy", "zzzzzz"]))
    assert (rows["abcdxy"]["likely_meant"], rows["abcdxy"]["likely_meant_distance"]) == (
        "abcdef",
        2,
    )
    assert rows["zzzzzz"]["fabricated"] and rows["zzzzzz"]["likely_meant"] is None


def test_typo_distance_is_a_policy_knob() -> None:
    t = turn([("abcdef", "search")], ["abcdxy"])
    rows, _ = audit_turn(t, CitationsPolicy(typo_max_distance=1))
    assert rows[-1]["fabricated"] and rows[-1]["likely_meant"] is None


def test_url_ids_compare_normalised_and_through_tool_urls() -> None:
    t = turn([("https://EX.example/a#frag", "search")], ["https://ex.example/a"])
    rows, _ = audit_turn(t, POLICY)
    assert (
        len(rows) == 1 and rows[0]["cited"] and rows[0]["consulted"] and not rows[0]["fabricated"]
    )
    # a tool returned an opaque id with its url; the model cites the url: same document
    t2 = Turn(
        "t",
        1,
        "q",
        "a",
        [Retrieval("d1", "search", "s", 0, url="https://ex.example/b")],
        [Citation("https://ex.example/b")],
    )
    rows2, _ = audit_turn(t2, POLICY)
    assert (
        len(rows2) == 1 and rows2[0]["cited"] and rows2[0]["cited_as"] == ["https://ex.example/b"]
    )


def test_no_sources_for_concrete_question_is_a_doc_gap() -> None:
    _, trow = by_doc(turn([], [], question="What is the SLA uptime for enterprise?"))
    assert trow["concrete"] and trow["doc_gap"]
    assert "nothing was retrieved" in trow["reason_details"][0]
    _, trow = by_doc(
        turn([("d1", "search")], [], question="What is the SLA uptime for enterprise?")
    )
    assert trow["doc_gap"] and "no retrieved document was read" in trow["reason_details"][0]


def test_small_talk_and_explicit_override() -> None:
    assert not is_concrete("thanks!", POLICY)
    assert not is_concrete("Olá, tudo bem?", POLICY)
    assert not is_concrete("", POLICY) and not is_concrete(None, POLICY)
    assert is_concrete("price 2024?", POLICY)  # a digit makes it concrete
    assert not is_concrete("why?", POLICY)
    t = turn([], [], question="thanks!")
    t.concrete = True
    assert audit_turn(t, POLICY)[1]["doc_gap"]


def test_bad_smalltalk_regex_is_skipped() -> None:
    assert is_concrete("How much does it cost?", CitationsPolicy(smalltalk_patterns=("([",)))


def _lev(a: str, b: str) -> int:
    if not a or not b:
        return len(a) + len(b)
    return min(_lev(a[1:], b) + 1, _lev(a, b[1:]) + 1, _lev(a[1:], b[1:]) + (a[0] != b[0]))


@given(st.text("abc", max_size=6), st.text("abc", max_size=6))
def test_edit_distance_matches_reference(a: str, b: str) -> None:
    assert edit_distance(a, b) == _lev(a, b)
    assert edit_distance(a, b, 1) == min(_lev(a, b), 2)


def test_nearest_id_prefers_smaller_distance_then_order() -> None:
    assert nearest_id("doc-1", ["dxc-2", "doc-2", "doc-3"], 2) == ("doc-2", 1)
    assert nearest_id("same", ["same"], 2) is None  # distance 0 is not a typo


def test_url_and_its_trustaudit_doc_id_are_one_document() -> None:
    from trustaudit.io.records import doc_id_for

    url = "https://ex.example/review"
    rid = doc_id_for(url, "", None)
    typo = rid[:-1] + ("0" if rid[-1] != "0" else "1")
    t = turn([(url, "search"), (rid, "fetch")], [url, typo])
    rows, trow = audit_turn(t, POLICY)
    by = {r["doc_id"]: r for r in rows}
    assert set(by) == {url, typo}
    assert by[url]["kinds"] == ["search", "fetch"] and by[url]["cited"] and by[url]["consulted"]
    assert by[url]["reasons"] == []  # read in full *and* cited: no CONSULTED_NOT_CITED
    assert (by[typo]["likely_meant"], by[typo]["likely_meant_distance"]) == (url, 1)
    assert trow["retrieved"] == [url]
