"""Fives and Threes rules (docs/rules.md, Part 3) as a frozen, fingerprinted dataclass built from YAML.

Every F-VAR knob is a field: target, exact finish, domino point, hand size, whether the lead may
score the winning points, and scoring by fives only ("All Fives")."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from cribsim.errors import ConfigError
from cribsim.ruleset import (
    OPPOSITE,
    MatchFormat,
    RulesBase,
    bool_key,
    everyone_alone,
    int_key,
    match_format,
    opposite_partnerships,
    sides_key,
    unknown_keys,
)

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

    def with_match(self, match: MatchFormat, source: str = "<inline>") -> DominoRules:
        """These rules with another match format (an experiment's ``match:``), checked again."""
        return dataclasses.replace(self, match=fives_threes_match(source, "match", match))

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
    default_sides = [list(s) for s in OPPOSITE] if players == 4 else None  # F-SET-1: four play as partners
    sides = sides_key(source, data.get("sides", default_sides), players)
    if not (everyone_alone(sides) if players < 4 else opposite_partnerships(sides)):
        raise ConfigError(source, "sides", "F-SET-1 defines two or three players alone and four as two partnerships "
                                           "sitting opposite ([[0, 2], [1, 3]]), no other seating")
    target = int_key(source, "target", data.get("target", 61), 1)
    lead_may_win = bool_key(source, "lead_may_win", data.get("lead_may_win", True))
    if hand == 1 and not lead_may_win and everyone_alone(sides):
        raise ConfigError(source, "lead_may_win", "with one tile each and every player alone, every placement is a "
                                                  "lead, so no game could end when the lead may not win (F-VAR)")
    return DominoRules(
        name=name, players=players, hand_size=hand, sides=sides, target=target,
        exact_finish=bool_key(source, "exact_finish", data.get("exact_finish", True)),
        domino_point=bool_key(source, "domino_point", data.get("domino_point", True)),
        lead_may_win=lead_may_win,
        score_threes=bool_key(source, "score_threes", data.get("score_threes", True)),
        match=fives_threes_match(source, "match", match_format(source, data.get("match"))))


def fives_threes_match(source: str, key: str, match: MatchFormat) -> MatchFormat:
    """F-MATCH-1: first to N games or a fixed number, 1 game point a game; skunks, winner takes
    all and continued play are cribbage's (R-MATCH) and are refused."""
    if match.scoring != "table":
        raise ConfigError(source, f"{key}.scoring", f"{match.scoring} is cribbage's (R-MATCH); a Fives and Threes "
                                                    "match is first to N games or a number of games (F-MATCH-1)")
    if match.game_points != MatchFormat().game_points or match.triple_skunk_wins_match:
        what = "triple_skunk_wins_match" if match.triple_skunk_wins_match else "game_points"
        raise ConfigError(source, f"{key}.{what}", "a Fives and Threes game won is 1 game point, with no skunks "
                                                   "(F-MATCH-1)")
    return match
