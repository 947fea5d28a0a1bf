"""R-SHOW-8 in full: every one of the 12,994,800 (4-card hand, starter) pairs, vectorised."""

import pytest

from cribsim.games.cribbage.showstats import TOTAL_PAIRS, all_show_scores, distribution

pytestmark = pytest.mark.quick  # the quick tier: python -m pytest -m quick (docs/testing.md)

R_SHOW_8 = {0: 1009008, 1: 99792, 2: 2813796, 3: 505008, 4: 2855676, 5: 697508, 6: 1800268,
            7: 751324, 8: 1137236, 9: 361224, 10: 388740, 11: 51680, 12: 317340, 13: 19656,
            14: 90100, 15: 9168, 16: 58248, 17: 11196, 18: 2708, 20: 8068, 21: 2496, 22: 444,
            23: 356, 24: 3680, 28: 76, 29: 4}


def test_r_show_8_full_enumeration():
    hand, crib, no_flush = all_show_scores()
    assert len(hand) == len(crib) == len(no_flush) == TOTAL_PAIRS
    assert distribution(hand) == R_SHOW_8  # 19, 25, 26, 27 impossible; best 29 (4 ways)
    assert round(float(hand.mean()), 6) == 4.769152
    assert round(float(crib.mean()), 6) == 4.734819
    assert int((crib == 0).sum()) == 1_022_208
    assert round(float(no_flush.mean()), 6) == 4.724915
