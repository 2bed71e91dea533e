"""Tiny deterministic corpora for the corpus-signal tests (no model, no network)."""

from __future__ import annotations

import random

import numpy as np

TOPICS: dict[str, list[str]] = {
    "coffee": [
        "Grind the coffee beans just before brewing so the coffee keeps its aroma and the grind stays even.",
        "Use water just off the boil, around 94 degrees, because boiling water scorches the coffee grounds.",
        "A ratio of one gram of coffee to sixteen grams of water gives a balanced cup of filter coffee.",
        "Pour the water slowly over the coffee grounds in circles and let the coffee bloom for thirty seconds.",
        "Clean the coffee grinder and the brewer every week, since old coffee oils make the cup taste bitter.",
    ],
    "volcano": [
        "A volcano erupts when magma from the mantle rises through cracks in the crust of the volcano.",
        "Volcano monitoring relies on seismometers that record the small earthquakes under the volcano.",
        "Lava from a shield volcano flows far because basalt magma is hot and runny and holds little gas.",
        "Ash clouds from an erupting volcano ground aircraft, because volcanic ash melts inside jet engines.",
        "Scientists measure the gas a volcano emits, since rising sulfur dioxide often precedes an eruption.",
    ],
    "tax": [
        "The income tax return is due in April, and late tax filers pay interest on the unpaid tax.",
        "Tax deductions for home office costs require a room used only for work, says the tax office.",
        "Keep receipts for six years, because the tax authority can audit a tax return within that period.",
        "Married couples may file a joint tax return, which often lowers the tax owed by the household.",
        "Capital gains tax applies when shares are sold at a profit, at a tax rate that depends on income.",
    ],
    "football": [
        "The football club signed a new striker, hoping his goals lift the team in the football league.",
        "Fans filled the football stadium as the home team scored twice in the second half of the match.",
        "The football coach changed the formation, moving the midfield forward to press the opponent team.",
        "Injuries kept three football players out, so the team gave young players their league debut.",
        "After the football match the captain praised the team spirit and the support of the home fans.",
    ],
}


def random_text(rng: random.Random, n_words: int = 120) -> str:
    """Unrelated filler text: words drawn from a large pseudo vocabulary."""
    return " ".join(f"w{rng.randrange(20000)}" for _ in range(n_words))


def swap_words(text: str, fraction: float, rng: random.Random) -> str:
    """Replace about `fraction` of the words (a light spin)."""
    words = text.split()
    k = max(1, round(fraction * len(words)))
    for i in rng.sample(range(len(words)), k):
        words[i] = f"x{rng.randrange(10**6)}"
    return " ".join(words)


class VectorEmbedder:
    """Returns preset vectors per text, to pin exact cosines (name chooses the policy edges)."""

    def __init__(self, table: dict[str, list[float]], name: str = "reference") -> None:
        self.table = table
        self.name = name
        self.dim = len(next(iter(table.values())))

    def encode(self, texts: list[str]) -> np.ndarray:
        v = np.array([self.table[t] for t in texts], dtype=np.float32)
        return v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-12)


def chained_paragraphs() -> list[str]:
    """Three donors, three paragraphs each; one name bridges donors 1-2 and another 2-3, so their
    words link the page into one group, yet each paragraph has one or two related neighbours."""
    t = [TOPICS[n] for n in ("coffee", "volcano", "football")]
    return [
        t[0][0],
        t[0][1] + " Lindqvist agreed.",
        "Lindqvist said: " + t[1][0],
        t[1][1] + " Wexford agreed.",
        "Wexford said: " + t[2][0],
        t[2][1],
        t[0][2],
        t[1][2],
        t[2][2],
    ]
