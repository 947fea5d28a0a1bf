"""The games cribsim plays on the same tournament machinery, by the ``game:`` key of a config.

Each game names, lazily, its rules builder, its match function, its built-in strategies and
its per-variant summary; the runner, statistics and report are shared and know no rules."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

from ..errors import ConfigError


@dataclass(frozen=True)
class Game:
    name: str
    module: str  # exposes rules_from_mapping, play_match, BUILTIN, variant_headers, variant_row

    def __getattr__(self, attr: str) -> Any:
        return getattr(importlib.import_module(self.module), attr)


GAMES = {
    "cribbage": Game("cribbage", "cribsim.games.cribbage.game"),
    "fives_threes": Game("fives_threes", "cribsim.games.fives_threes"),
}


def game_named(name: str, source: str = "<inline>", key: str = "game") -> Game:
    if name not in GAMES:
        raise ConfigError(source, key, f"expected one of {', '.join(GAMES)}, got {name!r}")
    return GAMES[name]
