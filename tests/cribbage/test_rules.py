"""Rules presets and strict loading (one-line errors naming the file and the key)."""

import pytest

from cribsim.errors import ConfigError
from cribsim.games.cribbage.rules import Rules
from cribsim.ruleset import load_rules, rules_from_mapping

pytestmark = pytest.mark.quick  # the quick tier: python -m pytest -m quick (docs/testing.md)


def test_presets_follow_r_deal_2():
    """R-DEAL-2's table (cards dealt and thrown for 2 to 5 players, every hand 4), R-TEAM-1's
    facing partnerships (seats 0 and 2 against 1 and 3), R-WIN-1's target of 121."""
    r2, r3, r4, r4t, r5 = (load_rules(n) for n in
                           ("standard", "three_player", "four_player", "four_player_partners", "five_player"))
    assert (r2.players, r2.deal, r2.discard, r2.crib_from_deck) == (2, 6, 2, 0)
    assert (r3.players, r3.deal, r3.discard, r3.crib_from_deck) == (3, 5, 1, 1)
    assert (r4.deal, r4.discard) == (5, 1) and r4.sides == ((0,), (1,), (2,), (3,))
    assert r4t.sides == ((0, 2), (1, 3)) and r4t.side_of == (0, 1, 0, 1)  # R-TEAM-1
    assert (r5.deal, r5.discard, r5.dealer_deal, r5.dealer_discard) == (5, 1, 4, 0)
    for r in (r2, r3, r4, r4t, r5):
        assert r.hand_size == 4 and r.crib_size == 4  # every hand and the crib end with 4
        assert r.target == 121 and r.skunk_lines == (91, 61, 31)  # R-WIN-1, R-MATCH-1


def test_player_count_defaults_and_skunk_lines_scale_with_target():
    r = rules_from_mapping({"players": 3, "target": 61})
    assert (r.deal, r.discard, r.crib_from_deck) == (5, 1, 1)
    assert r.skunk_lines == (46, 31, 16)  # R-MATCH-1: ceil(3T/4), ceil(T/2), ceil(T/4)


def test_rules_are_immutable_and_fingerprinted():
    r = load_rules("standard")
    import dataclasses

    with pytest.raises(dataclasses.FrozenInstanceError):
        r.target = 61
    assert r.fingerprint() == Rules().fingerprint()
    assert r.fingerprint() != rules_from_mapping({"target": 61}).fingerprint()
    assert rules_from_mapping({"target": 61}).describe() == "cribbage(players=2, target=61, skunk_lines=[46, 31, 16])"
    # against the player count's own defaults (R-DEAL-2), so V-3P-SIX shows what it changes
    assert load_rules("three_player_dealer_six").describe() == \
        "cribbage(players=3, dealer_deal=6, dealer_discard=2, crib_from_deck=0)"


def test_extends_overrides(tmp_path):
    f = tmp_path / "short.yaml"
    f.write_text("extends: standard\nname: short\ntarget: 61\n")
    r = load_rules(str(f))
    assert (r.name, r.target, r.deal) == ("short", 61, 6)


@pytest.mark.parametrize("text,key,fragment", [
    ("players: 2\ntarget: 121\ncolour: red\n", "colour", "unknown key"),
    ("players: 9\n", "players", "2..5"),
    ("players: two\n", "players", "whole number"),
    ("target: -5\n", "target", "whole number"),
    ("deal: 6\ndiscard: 7\n", "discard", "at most deal"),
    ("sides: [[0, 1], [1]]\n", "sides", "exactly one side"),
    ("match: {first_to: 0}\n", "match.first_to", "whole number"),
    ("match: {game_points: {win: 1, sunk: 2}}\n", "match.game_points.sunk", "unknown key"),
    ("match: {game_points: fancy}\n", "match.game_points", "table name"),
    ("variants: [muggins_typo]\n", "variants[0]", "unknown variant"),
    ("players: 5\ndeal: 11\ndiscard: 7\ndealer_deal: 11\ndealer_discard: 7\n", "players", "need 56 cards"),
    ("extends: nowhere_at_all\n", "extends", "no rules file"),
    ("skunk_lines: [61, 91, 31]\n", "skunk_lines", "decreasing"),
])
def test_bad_rules_name_file_and_key(tmp_path, text, key, fragment):
    f = tmp_path / "bad.yaml"
    f.write_text(text)
    with pytest.raises(ConfigError) as e:
        load_rules(str(f))
    msg = str(e.value)
    assert "\n" not in msg
    assert str(f) in msg and f"key '{key}'" in msg and fragment in msg


def test_bad_yaml_and_missing_file(tmp_path):
    f = tmp_path / "broken.yaml"
    f.write_text("players: [2\n")
    with pytest.raises(ConfigError, match="invalid YAML at line"):
        load_rules(str(f))
    with pytest.raises(ConfigError, match="no such rules file"):
        load_rules(str(tmp_path / "absent.yaml"))


def test_extends_cycle(tmp_path):
    (tmp_path / "a.yaml").write_text("extends: b.yaml\n")
    (tmp_path / "b.yaml").write_text("extends: a.yaml\n")
    with pytest.raises(ConfigError, match="cycle"):
        load_rules(str(tmp_path / "a.yaml"))


def test_yaml_is_loaded_safely(tmp_path):
    f = tmp_path / "evil.yaml"
    f.write_text("players: !!python/object/apply:os.system ['echo pwned']\n")
    with pytest.raises(ConfigError, match="invalid YAML"):
        load_rules(str(f))


@pytest.mark.parametrize("text", [
    "players: 3\nsides: [[0, 2], [1]]\n",  # a partnership among three players
    "players: 4\nsides: [[0, 1], [2, 3]]\n",  # partners side by side
    "players: 4\nsides: [[0], [1, 2, 3]]\n",  # sides of unequal size
    "players: 5\nsides: [[0, 2], [1, 3], [4]]\n",
    "players: 2\nsides: [[0, 1]]\n",
])
def test_seatings_the_rules_do_not_define_are_refused(tmp_path, text):
    """R-TEAM-1: every player alone, or four as two partnerships sitting opposite; no other
    seating (outside the variants that seat their own, two against one and Canadian doubles)."""
    f = tmp_path / "seats.yaml"
    f.write_text(text)
    with pytest.raises(ConfigError) as e:
        load_rules(str(f))
    assert e.value.key == "sides" and "\n" not in str(e.value)


def test_the_defined_seatings_load():
    """R-TEAM-1: four players alone or facing partners (in either order of the sides)."""
    assert rules_from_mapping({"players": 4}).sides == ((0,), (1,), (2,), (3,))
    assert rules_from_mapping({"players": 4, "sides": [[1, 3], [0, 2]]}).sides == ((1, 3), (0, 2))
    assert load_rules("four_player_partners").sides == ((0, 2), (1, 3))
