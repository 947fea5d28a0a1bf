"""One contract between the lanes (issue 41, item 1): the native lane's rules struct is declared
once (cribsim/games/cribbage/native/layout.py), its C fields are made from that declaration when
the lane is built and read by name, and every key a rule set may set, core key, point value or
variant knob, is carried by a field of it, or makes the lane refuse the rule set (it then plays
in Python), or is settled outside a game, in the Python match loop. A key planted without any
of these fails the check."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from cribsim.errors import ConfigError
from cribsim.games.cribbage import variants as registry
from cribsim.games.cribbage.native import lane, layout
from cribsim.games.cribbage.points import STANDARD
from cribsim.games.cribbage.rules import _CORE_KEYS, CORE_PARAMS
from cribsim.params import Param
from cribsim.ruleset import rules_from_mapping

needs_lane = pytest.mark.skipif(lane.module() is None, reason=f"the native lane is {lane.status()}")

CARRIED = layout.CARRIED


def every_key() -> set[str]:
    """Every key a cribbage rule set may set: the core keys, each point value, each variant knob
    and each variant (as ``variant:NAME``)."""
    keys = set(_CORE_KEYS) - {"scoring"}
    keys |= {f"scoring.{f.name}" for f in dataclasses.fields(STANDARD)}
    keys |= set(registry.PARAMS)
    keys |= {f"variant:{v.name}" for v in registry.VARIANTS.values()}
    return keys


def unported(key: str) -> bool:
    """Whether a rule set that sets ``key`` is one the lane refuses: a knob or variant of a
    variant without a port (``native`` None)."""
    by_name = {v.name: v for v in registry.VARIANTS.values()}  # (one's own are registered by module:Class)
    owner = by_name.get(key.removeprefix("variant:")) if key.startswith("variant:") else \
        registry.PARAMS.get(key, (None,))[0]
    return owner is not None and owner.native is None


def uncovered(keys: set[str]) -> list[str]:
    """The keys neither carried by the lane, nor refused by it, nor settled in Python."""
    return sorted(k for k in keys if k not in CARRIED and k not in layout.SETTLED_IN_PYTHON and not unported(k))


def test_every_key_is_carried_refused_or_settled_in_python():
    assert uncovered(every_key()) == []


def test_a_planted_key_without_a_field_fails_the_check(monkeypatch):
    """A new knob of a ported variant that the layout does not carry: the check names it (it would
    otherwise play at its default in C, with nothing to catch it)."""
    planted = Param("toss_sixes", bool, False, "every 6 held goes to the crib too")
    monkeypatch.setitem(registry.PARAMS, "toss_sixes", (registry.VARIANTS["toss_fives"], planted))
    assert uncovered(every_key()) == ["toss_sixes"]
    monkeypatch.setitem(registry.PARAMS, "scoring_bonus", (registry.VARIANTS["toss_fives"], planted))
    assert uncovered(every_key()) == ["scoring_bonus", "toss_sixes"]


def test_a_port_is_declared_where_the_variant_is():
    """A shipped variant has a lane port (``native``) exactly when its module declares its lane
    fields (``LANE_FIELDS``, read by the build), under its own name."""
    with_port = {v.name for v in registry.VARIANTS.values() if v.native is not None}
    assert set(layout.ported()) == with_port


def test_a_field_declared_twice_is_refused(monkeypatch):
    twice = {**layout.ported(), "again": ((("players", 1, (), "seats again"),), ())}
    monkeypatch.setattr(layout, "ported", lambda: twice)
    with pytest.raises(ValueError, match="declared twice.*players"):
        layout._all_fields()


def _other(p: Param, now: Any) -> Any:
    """A valid value of ``p`` other than ``now``."""
    if p.choices is not None:
        return next(c for c in p.choices if c != now and c != "")
    if p.kind is bool:
        return not now
    v = (now if now is not None else 0) + 1
    return v if p.hi is None or v <= p.hi else v - 2


# a rule set that turns each variant on, for its knobs to matter
BASES: dict[str, dict[str, Any]] = {
    "min_bid": {"variants": ["auction"]}, "max_bid": {"variants": ["auction"]},
    "lone_target": {"extends": "three_player_team"}, "team_target": {"extends": "three_player_team"},
    "first_pone_points": {"extends": "five_card"}, "play_once": {"extends": "five_card"},
    "starter_joker_named_by": {"jokers": 2}, "score_floor": {"back_ten": "both"},
}


SHIPPED = {v for k, v in registry.VARIANTS.items() if ":" not in k}  # (not one's own a test loaded)


@needs_lane
@pytest.mark.parametrize("key", sorted(k for k, (owner, _) in registry.PARAMS.items() if owner in SHIPPED) +
                         [p.name for p in CORE_PARAMS] +
                         [f"scoring.{f.name}" for f in dataclasses.fields(STANDARD)])
def test_a_carried_key_reaches_the_lane(key):
    """Setting a carried key to another value changes what the lane is given (or, for a
    combination it cannot play, makes it refuse the rule set): no field is carried on paper only."""
    base = {"extends": "standard", "name": "base", **BASES.get(key, {})}
    try:
        a = rules_from_mapping(dict(base), "a.yaml")
        if key.startswith("scoring."):
            name = key.split(".", 1)[1]
            value = getattr(STANDARD, name)
            changed: dict[str, Any] = {"scoring": {name: (value or 0) + 1 if name != "run_min" else 4}}
        else:
            p = registry.PARAMS[key][1] if key in registry.PARAMS else next(p for p in CORE_PARAMS if p.name == key)
            changed = {key: _other(p, getattr(a, key))}
        b = rules_from_mapping({**base, **changed, "name": "changed"}, "b.yaml")
    except ConfigError as e:
        pytest.fail(f"{key}: {e}")
    assert lane.refusal(b) is not None or lane.pack_rules(a) != lane.pack_rules(b), key


@needs_lane
def test_the_built_lane_has_the_declared_layout():
    assert lane.module().RULES_LAYOUT == tuple((n, w) for n, w, _, _ in layout.FIELDS)
    assert len(lane.pack_rules(rules_from_mapping({"extends": "standard"}, "s.yaml"))) == 8 * layout.width()
