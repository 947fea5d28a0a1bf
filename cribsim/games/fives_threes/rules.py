"""Fives and Threes rules (docs/rules.md, Part 3) as a frozen, fingerprinted dataclass built from YAML.

Every F-VAR knob is a field: target, exact finish, domino point, hand size, whether the lead may
score the winning points, and scoring by fives only ("All Fives")."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from cribsim.errors import ConfigError
from cribsim.ruleset import MatchFormat, RulesBase, bool_key, int_key, match_format, sides_key, unknown_keys

from .tiles import N_TILES

HAND_DEFAULTS = {2: 7, 3: 5, 4: 5}  # F-DEAL-1
TOP_KEYS = {"name", "game", "description", "players", "hand_size", "sides", "target", "exact_finish",
            "domino_point", "lead_may_win", "score_threes", "match"}


@dataclass(frozen=True)
class DominoRules(RulesBase):
    name: str = "fives_threes"
    game: str = "fives_threes"
    players: int = 2
    hand_size: int = 7
    sides: tuple[tuple[int, ...], ...] = ((0,), (1,))
    target: int = 61
    exact_finish: bool = True  # F-WIN-1: an event passing the target is cancelled whole
    domino_point: bool = True  # F-END-1: 1 for going out
    lead_may_win: bool = True  # F-VAR: may the lead of a hand score the winning points?
    score_threes: bool = True  # False: "All Fives", multiples of 5 only
    match: MatchFormat = field(default_factory=MatchFormat)

    def points(self, total: int) -> int:
        """F-SCORE-1: points for an end count (table: 3:1 5:1 6:2 9:3 10:2 12:4 15:8 18:6 20:4)."""
        if total <= 0:
            return 0
        pts = total // 5 if total % 5 == 0 else 0
        if self.score_threes and total % 3 == 0:
            pts += total // 3
        return pts

    @cached_property
    def points_table(self) -> tuple[int, ...]:
        """Points for every reachable end count 0..24, as a tuple (the engine's lookup)."""
        return tuple(self.points(t) for t in range(25))


def build_rules(data: dict[str, Any], source: str = "<inline>") -> DominoRules:
    """Strict: unknown keys and impossible values are one-line errors naming file and key."""
    unknown_keys(source, "", data, TOP_KEYS)
    name = data.get("name", "fives_threes" if source == "<inline>" else source.rsplit("/", 1)[-1].rsplit(".", 1)[0])
    if not isinstance(name, str):
        raise ConfigError(source, "name", f"expected a string, got {name!r}")
    players = int_key(source, "players", data.get("players", 2), 2, 4)
    hand = int_key(source, "hand_size", data.get("hand_size", HAND_DEFAULTS[players]), 1)
    if hand * players > N_TILES:
        raise ConfigError(source, "hand_size", f"{players} hands of {hand} need {hand * players} tiles "
                                               f"but a double-six set has {N_TILES}")
    default_sides = [[0, 2], [1, 3]] if players == 4 else None  # F-SET-1: four play as partners
    sides = sides_key(source, data.get("sides", default_sides), players)
    target = int_key(source, "target", data.get("target", 61), 1)
    return DominoRules(
        name=name, players=players, hand_size=hand, sides=sides, target=target,
        exact_finish=bool_key(source, "exact_finish", data.get("exact_finish", True)),
        domino_point=bool_key(source, "domino_point", data.get("domino_point", True)),
        lead_may_win=bool_key(source, "lead_may_win", data.get("lead_may_win", True)),
        score_threes=bool_key(source, "score_threes", data.get("score_threes", True)),
        match=match_format(source, data.get("match")))
