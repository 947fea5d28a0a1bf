import pytest

pytestmark = pytest.mark.quick  # the quick tier: python -m pytest -m quick (docs/testing.md)
"""The flow variants narrated by cribsim play: muggins calls, bids, passes, joker names."""


def test_narrated_muggins_calls(capsys):
    from cribsim.cli.main import main

    assert main(["play", "--rules", "muggins", "--seed", "3", "--strategy", "ev", "--miss-rate", "0.2",
                 "--vigilance", "0.7"]) == 0
    out = capsys.readouterr().out
    assert "overlooks" in out and "(muggins)" in out
    assert main(["play", "--rules", "auction", "--seed", "3", "--strategy", "ev"]) == 0
    assert "for the crib" in capsys.readouterr().out
    assert main(["play", "--rules", "canadian_doubles", "--seed", "3", "--strategy", "ev"]) == 0
    assert "from their partner" in capsys.readouterr().out
    assert main(["play", "--rules", "jokers", "--seed", "11", "--strategy", "ev"]) == 0
    assert "JK named" in capsys.readouterr().out
