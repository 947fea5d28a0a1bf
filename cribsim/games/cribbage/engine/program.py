"""Assemble a rule set's program: the deal's phases in their slots, the hooks, the decisions and
the observation class, from the standard game and the active variants.

Combinations are checked here, once, when the rules load: a variant that needs another, two
variants declared incompatible, two variants filling the same slot or the same single hook are
one-line config errors naming both. The order in which variants are listed never matters: they
are assembled in the registry's canonical order."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cribsim.errors import ConfigError

from ..observation import Observation, observation_class
from .phases import DISCARD, PLAY, STANDARD
from .variant import SLOTS, Decision, Feature, Hooks, Phase, Variant

if TYPE_CHECKING:
    from ..rules import Rules


class Program:
    """What the engine runs for one rule set (built once per rule set, see ``Rules.program``)."""

    phases: tuple[Phase, ...]
    hooks: Hooks
    decisions: dict[str, Decision]
    observation: type[Observation]
    objective: int
    needs: tuple[str, ...]
    features: tuple[Feature, ...]

    def __init__(self, rules: Rules, source: str = "<rules>") -> None:
        self.rules = rules
        mods = rules.modules
        _check_pairs(mods, source)
        self.phases = _phases(mods, source)
        # (run, decision, keep, slot): keep the scores for the game's trail after the step: 1 after the
        # play and the show; 2 after the opening of the first deal (points given as the game starts)
        self.steps = tuple((p.run, p.decision, 1 if p.slot in ("play", "show") else 2 if p.slot == "opening" else 0,
                            p.slot) for p in self.phases)
        self.hooks = _hooks(rules, mods, source)
        self.decisions = {"discard": DISCARD, "play": PLAY}
        owner = {"discard": "the standard game", "play": "the standard game"}
        extra: dict[str, Any] = {}
        for v in mods:
            for d in v.decisions:
                if d.name in self.decisions:
                    raise ConfigError(source, "variants", f"{v.name} and {owner[d.name]} both define "
                                                          f"the decision {d.name!r}")
                self.decisions[d.name] = d
                owner[d.name] = v.name
            extra.update(v.observation)
        self.decision_owner = owner
        self.observation = observation_class(extra)
        self.objective = 1
        for v in mods:
            self.objective *= v.objective
        self.features = tuple(f for v in mods for f in v.features)
        self.needs = tuple(sorted({n for v in mods for n in v.needs}))
        self.columns = tuple(c for v in mods for c in v.columns)
        rules.__dict__["program"] = self  # the checks below may read rules.objective
        for v in mods:
            check = getattr(v, "check", None)
            if check is not None:
                check(rules, source)
        for v in mods:  # after the variants' own checks, which say more (team3, canadian)
            if v.players and rules.players not in v.players:
                raise ConfigError(source, "players", f"{v.name} ({v.rule}) is for {_counts(v.players)} players, "
                                                     f"not {rules.players}")

    def phases_before(self, slot: str) -> tuple[Phase, ...] | None:
        """The phases that run before ``slot``'s in every deal, in order (None: no phase fills it)."""
        slots = [p.slot for p in self.phases]
        return self.phases[:slots.index(slot)] if slot in slots else None

    def layout(self, game_no: int) -> tuple[tuple[tuple[int, ...], ...], tuple[float, ...]]:
        """(sides, targets) of game ``game_no`` of a match: the rules' own unless a variant
        gives each game its own (the very ``rules.sides`` object when unchanged)."""
        if self.hooks.layout is not None:
            own: tuple[tuple[tuple[int, ...], ...], tuple[float, ...]] = self.hooks.layout(self.rules, game_no)
            return own
        return self.rules.sides, self._targets

    @property
    def _targets(self) -> tuple[float, ...]:
        t = self.__dict__.get("_t")
        if t is None:
            t = self.__dict__["_t"] = (self.rules.target,) * len(self.rules.sides)
        return t

    def rank_sides(self, side: int, scores: list[int]) -> tuple[tuple[int, ...], tuple[int, ...] | None]:
        """(every side ranked best first, the sides sharing the win or None) when ``side`` has
        just reached its target: by default it wins and the others follow by score."""
        if self.hooks.rank_sides is not None:
            ranked: tuple[tuple[int, ...], tuple[int, ...] | None] = self.hooks.rank_sides(self.rules, side, scores)
            return ranked
        k = len(scores)
        others = sorted(((side + i) % k for i in range(1, k)), key=lambda s: -scores[s])
        return (side, *others), None


def _check_pairs(mods: tuple[type[Variant], ...], source: str) -> None:
    names = {v.name for v in mods}
    for v in mods:
        for need in v.requires:
            if need not in names:
                raise ConfigError(source, "variants", f"{v.name} ({v.rule}) needs {need}")
        for other in v.conflicts:
            if other in names:
                raise ConfigError(source, "variants", f"{v.name} and {other} cannot be combined "
                                                      f"({v.rule}; the rule book does not define them together)")
    counted = [v for v in mods if v.players]
    for i, a in enumerate(counted):
        for b in counted[i + 1:]:
            if not set(a.players) & set(b.players):
                raise ConfigError(source, "variants",
                                  f"{a.name} and {b.name} cannot be combined: {a.name} is for "
                                  f"{_counts(a.players)} players, {b.name} for {_counts(b.players)}")


def _counts(players: tuple[int, ...]) -> str:
    return " or ".join(map(str, players))


def _phases(mods: tuple[type[Variant], ...], source: str) -> tuple[Phase, ...]:
    slot: dict[str, Phase] = {p.slot: p for p in STANDARD}
    by: dict[str, str] = {}
    for v in mods:
        for p in v.phases:
            if p.slot not in SLOTS:
                raise ValueError(f"variant {v.name}: unknown slot {p.slot!r} (slots: {', '.join(SLOTS)})")
            if p.slot in by:
                raise ConfigError(source, "variants", f"{by[p.slot]} and {v.name} both fill the {p.slot} slot "
                                                      "of the deal: they cannot be combined")
            slot[p.slot] = p
            by[p.slot] = v.name
    return tuple(slot[s] for s in SLOTS if s in slot)


def _hooks(rules: Rules, mods: tuple[type[Variant], ...], source: str) -> Hooks:
    found: dict[str, Any] = {}
    by: dict[str, str] = {}
    lists: dict[str, list[Any]] = {"after_count": [], "metrics": []}
    extra_cards, stops = 0, False
    for v in mods:
        for name in Variant.HOOKS:
            fn = getattr(v, name, None)
            if fn is None or name == "check":
                continue
            if name == "extra_cards":
                extra_cards += fn(rules)
            elif name == "stops_at_reset":
                stops = stops or fn(rules)
            elif name in lists:
                lists[name].append(fn)
            else:
                if name in found:
                    what = name.replace("_", " ")
                    raise ConfigError(source, "variants",
                                      f"{by[name]} and {v.name} both change {what}: they cannot be combined")
                found[name] = fn
                by[name] = v.name
    return Hooks(extra_cards=extra_cards, stops_at_reset=stops, after_count=tuple(lists["after_count"]),
                 metrics=tuple(lists["metrics"]), **found)
