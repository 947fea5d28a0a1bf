"""Addressed randomness: decks depend only on their address, and are uniform."""

import pytest

from cribsim.rng import addressed_draw, derive

pytestmark = pytest.mark.quick  # the quick tier: python -m pytest -m quick (docs/testing.md)


def test_same_address_same_deck_and_neighbours_differ():
    a = addressed_draw(52, 13, 7, 1, 2, 3, 0)
    assert a == addressed_draw(52, 13, 7, 1, 2, 3, 0)
    assert len(set(a)) == 13 and all(0 <= c < 52 for c in a)
    assert a != addressed_draw(52, 13, 7, 1, 2, 4, 0)
    assert a != addressed_draw(52, 13, 8, 1, 2, 3, 0)
    assert derive(1, 2) != derive(2, 1)


def test_deals_longer_than_one_hash_block_and_jokers():
    cards = addressed_draw(54, 54, 3, 9)  # seven blocks of eight words
    assert sorted(cards) == list(range(54))


def test_positions_are_uniform():
    """Chi-square of the card at the first and last dealt positions over 30,000 decks: far
    inside the 0.1% tail (the 99.9th percentile of chi-square on 51 df is 87.97)."""
    n = 30000
    first, last = [0] * 52, [0] * 52
    for d in range(n):
        cards = addressed_draw(52, 13, 11, d)
        first[cards[0]] += 1
        last[cards[12]] += 1
    exp = n / 52
    for counts in (first, last):
        assert sum((c - exp) ** 2 / exp for c in counts) < 87.97
