"""Play a batch of matches: the one function both the serial and the Ray runner call.

Each match is a pure function of its MatchSpec and the experiment context, so batches can be
any size, in any order, on any worker, and replayed after a crash, with identical records."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from ..errors import IllegalMove
from ..games import GAMES
from ..isolation import Isolated, PluginFault, is_plugin, timeout_message
from ..records import Forfeit, MatchRecord
from ..strategy import factory
from .guard import DecisionTimeout, Watchdog

if TYPE_CHECKING:
    from .config import Experiment
    from .schedule import MatchSpec


def make_context(exp: Experiment) -> dict[str, Any]:
    """What workers need (shipped once with ray.put): picklable, no live objects."""
    return {"seed": exp.seed, "game": exp.game, "variants": exp.variants, "lineup": exp.lineup,
            "time_limit": exp.time_limit, "hash": exp.config_hash(), "plugins": exp.plugins}


_FACTORIES: dict[str, list[Callable[[Any], Any]]] = {}  # config hash -> each entry's maker


def _factories(ctx: dict[str, Any]) -> list[Callable[[Any], Any]]:
    """Each lineup entry's maker, made once per process and experiment: a built-in (or a trusted
    plug-in) in-process, any other plug-in isolated (its player processes live as long as this
    process plays this experiment)."""
    key = ctx["hash"]
    if key not in _FACTORIES:
        release()
        game, plugins = ctx["game"], ctx.get("plugins") or ()
        makers: list[Callable[[Any], Any]] = []
        for i, e in enumerate(ctx["lineup"]):
            if is_plugin(e.strategy, game) and not getattr(e, "trusted", False):
                caps = plugins[i] if i < len(plugins) else None
                makers.append(Isolated(e.strategy, e.param_dict(), game, ctx["variants"], ctx["time_limit"], caps))
            else:
                makers.append(factory(e.strategy, e.param_dict(), game=game))
        _FACTORIES[key] = makers
    return _FACTORIES[key]


def release() -> None:
    """End the player processes of isolated plug-ins (a serial run's end; a new experiment)."""
    for makers in _FACTORIES.values():
        for make in makers:
            close = getattr(make, "close", None)
            if close is not None:
                close()
    _FACTORIES.clear()


def _tracked(make: Callable[[Any], Any], seat: int, rules: Any, dog: Watchdog) -> Callable[[Any], Any]:
    bind = getattr(make, "bind", None)
    if bind is not None:  # an isolated plug-in: the seat's own player process
        make = bind(seat, rules)

    def make_tracked(rng: Any) -> Any:
        return dog.track(make(rng), seat)
    return make_tracked


def play_one(ctx: dict[str, Any], spec: MatchSpec, dog: Watchdog) -> MatchRecord:
    """The record of one match; a strategy's fault is a forfeit charged to its side."""
    rules = ctx["variants"][spec.variant]
    makers = _factories(ctx)
    side_of = rules.side_of
    seat_makers = [_tracked(makers[spec.sides[side_of[seat]]], seat, rules, dog) for seat in range(rules.players)]
    rec = MatchRecord(spec.id, spec.variant, spec.table, spec.group, spec.seating, list(spec.sides), -1, None, None)
    seat: int | None  # the seat at fault (blame: None if no strategy's)
    try:
        counters = None
        if any(e.miss_rate for e in ctx["lineup"]):  # V-MUGGINS counting models, per seat
            entries = [ctx["lineup"][spec.sides[side_of[seat]]] for seat in range(rules.players)]
            counters = [(e.miss_rate, e.vigilance) for e in entries]
        kwargs = {"counters": counters} if counters else {}
        m = GAMES[rules.game].play_match(rules, seat_makers, ctx["seed"], spec.key, **kwargs)
    except DecisionTimeout as e:
        seat, kind, msg = e.seat, "timeout", timeout_message(ctx["time_limit"])
    except PluginFault as e:  # an isolated plug-in: late, dead or failing
        seat, kind, msg = e.seat, e.kind, e.message
    except IllegalMove as e:
        seat, kind, msg = e.seat, "illegal", str(e)
    except Exception as e:
        seat = dog.blame(e)
        if seat is None:
            raise  # not a strategy's fault: a bug to report, not to hide
        kind, msg = "error", f"{type(e).__name__}: {e}"
    else:
        rec.winner, rec.game_points = m.winner, list(m.game_points)
        rec.games = [g.record(lvl, rules) for g, lvl in zip(m.games, m.skunks)]
        return rec
    finally:
        dog.reset()
    side = side_of[seat]
    rec.winner = (1 - side) if len(rules.sides) == 2 else -1
    rec.forfeit = Forfeit(side, spec.sides[side], kind, msg[:300])
    return rec


def play_batch(ctx: dict[str, Any], specs: Iterable[MatchSpec]) -> tuple[list[MatchRecord], dict[str, Any]]:
    """Records for the given specs, plus (pid, node, seconds) for the runner's bookkeeping."""
    t0 = time.perf_counter()
    out = []
    with Watchdog(ctx["time_limit"]) as dog:
        for spec in specs:
            out.append(play_one(ctx, spec, dog))
    return out, {"pid": os.getpid(), "node": os.environ.get("CRIBSIM_NODE", ""), "seconds": time.perf_counter() - t0}
