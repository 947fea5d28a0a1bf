"""cribsim's standard rules against OpenSpiel's own cribbage, from the same deals with the same
decisions: every deal scored differently is explained by a rule OpenSpiel does not follow."""

from cribsim.games.cribbage.spielcheck import compare, lines


def test_every_difference_from_openspiels_cribbage_is_a_named_rule():
    result = compare(40)
    assert not result.unexplained, "\n".join(lines(result))
    counts = result.counts()
    assert counts.get("R-SHOW-6", 0) >= 1  # OpenSpiel's crib flush of four
    assert counts.get("R-SHOW-2", 0) >= 1  # OpenSpiel counts past 121
    assert result.same >= 0.9 * result.deals  # the rest agrees point for point
