"""Full enumeration of the show over every (4-card hand, starter) pair (R-SHOW-8), vectorised
with numpy: 270,725 hands x 48 starters = 12,994,800 scores in about a second.

The rank part comes from a (hand rank pattern x starter rank) table built once with the same
``rank_points_from_counts`` the engine's table uses; flush and nobs are added by suit."""

from __future__ import annotations

from itertools import combinations
from typing import TYPE_CHECKING

import numpy as np

from .cards import JACK
from .scoring import rank_points_from_counts

if TYPE_CHECKING:
    import numpy.typing as npt

TOTAL_PAIRS = 12_994_800


def _rank_table() -> npt.NDArray[np.int16]:
    """table[r0*2197 + r1*169 + r2*13 + r3, starter_rank] for sorted hand ranks r0<=..<=r3."""
    table = np.zeros((13 ** 4, 13), dtype=np.int16)
    counts = [0] * 13
    for r0 in range(13):
        for r1 in range(r0, 13):
            for r2 in range(r1, 13):
                for r3 in range(r2, 13):
                    hand = (r0, r1, r2, r3)
                    for r in hand:
                        counts[r] += 1
                    row = ((r0 * 13 + r1) * 13 + r2) * 13 + r3
                    for s in range(13):
                        if counts[s] < 4:
                            counts[s] += 1
                            table[row, s] = rank_points_from_counts(counts)
                            counts[s] -= 1
                    for r in hand:
                        counts[r] -= 1
    return table


def all_show_scores() -> tuple[npt.NDArray[np.int16], npt.NDArray[np.int16], npt.NDArray[np.int16]]:
    """(hand_scores, crib_scores, no_flush_scores): three int16 arrays of 12,994,800 scores."""
    hands = np.array(list(combinations(range(52), 4)), dtype=np.int16)  # sorted, so ranks sorted
    ranks, suits = hands >> 2, hands & 3
    row = ((ranks[:, 0] * 13 + ranks[:, 1]) * 13 + ranks[:, 2]) * 13 + ranks[:, 3]
    same_suit = (suits == suits[:, :1]).all(axis=1)
    jack_suits = ((ranks == JACK) << suits).sum(axis=1, dtype=np.int16)  # bit s set: holds the jack of suit s

    # score every hand against all 52 cards as starter, then drop the 4 it holds
    starter = np.arange(52, dtype=np.int16)
    s_rank, s_suit = starter >> 2, starter & 3
    base = _rank_table()[row][:, s_rank]  # (hands, 52)
    nobs = ((jack_suits[:, None] >> s_suit) & 1) * (s_rank != JACK).astype(np.int16)
    flush4 = same_suit[:, None]
    flush5 = flush4 & (suits[:, :1] == s_suit)
    free = np.ones(base.shape, dtype=bool)
    free[np.arange(len(hands))[:, None], hands] = False
    no_flush = (base + nobs)[free]
    hand_scores = no_flush + (flush4.astype(np.int16) * 4 + flush5)[free]
    crib_scores = no_flush + flush5[free].astype(np.int16) * 5
    return hand_scores, crib_scores, no_flush


def distribution(scores: npt.NDArray[np.integer]) -> dict[int, int]:
    """{score: number of pairs} for the scores that occur."""
    counts = np.bincount(scores)
    return {int(s): int(n) for s, n in enumerate(counts) if n}
