"""Play a batch of matches: the one function both the serial and the Ray runner call.

Each match is a pure function of its MatchSpec and the experiment context, so batches can be
any size, in any order, on any worker, and replayed after a crash, with identical records."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .. import codepath, owncode
from ..book import opening
from ..errors import IllegalMove, without_addresses
from ..game import FastLane, Rules
from ..gamelog import MatchLog, MatchTape
from ..games import game_named
from ..isolation import Isolated, PluginFault, timeout_message
from ..records import Forfeit, MatchRecord
from ..ruleset import remember_rules, remembered_rules
from ..strategy import factory
from . import lanebatch
from .aggregate import Partial
from .guard import DecisionTimeout, Watchdog
from .lanebatch import LanePlayed
from .recordfile import compress, encode, line_of
from .schedule import Span, groups_for
from .summary import SprtUnits

if TYPE_CHECKING:
    from .config import Experiment
    from .schedule import MatchSpec


def make_context(exp: Experiment) -> dict[str, Any]:
    """What workers need (shipped once with ray.put): picklable, no live objects."""
    return {"seed": exp.seed, "game": exp.game, "variants": exp.variants, "lineup": exp.lineup,
            "time_limit": exp.time_limit, "hash": exp.config_hash(), "plugins": exp.plugins,
            "name": exp.name, "record": exp.record, "book": exp.book, "starts": exp.starts,
            "base": exp.plugin_dir, "limits": exp.limits,
            "extra": exp.code_modules(), "exposed": codepath.exposed(), "told_rules": remembered_rules(),
            "per_group": [groups_for(exp, v)[1] if exp.paired else 1 for v in range(len(exp.variants))],
            "rules_json": [(r.to_dict(), r.fingerprint()) for r in exp.variants] if exp.record.mode != "none" else []}


_FACTORIES: dict[str, list[Callable[[Any], Any]]] = {}  # config hash -> each entry's maker


def _factories(ctx: dict[str, Any]) -> list[Callable[[Any], Any]]:
    """Each lineup entry's maker, made once per process and experiment: a built-in (or a trusted
    plug-in) in-process, any other plug-in isolated (its player processes live as long as this
    process plays this experiment)."""
    key = ctx["hash"]
    if key not in _FACTORIES:
        release()
        for ref, rules in ctx.get("told_rules", {}).items():  # (rules a strategy's parameter names)
            remember_rules(ref, rules)
        game, plugins = ctx["game"], ctx.get("plugins") or ()
        makers: list[Callable[[Any], Any]] = []
        for i, e in enumerate(ctx["lineup"]):
            if e.isolated(game):
                caps = plugins[i] if i < len(plugins) else None
                bot = e.bot(ctx["base"], ctx["limits"], ctx["extra"], ctx.get("hidden", ()))
                makers.append(Isolated(e.strategy, e.param_dict(), game, ctx["variants"], ctx["time_limit"], caps, bot))
            else:
                makers.append(factory(e.strategy, e.param_dict(), rules=ctx["variants"], game=game))
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


def _tracked(make: Callable[[Any], Any], seat: int, rules: Rules, dog: Watchdog,
             bots: list[Any]) -> Callable[[Any], Any]:
    bind = getattr(make, "bind", None)
    if bind is not None:  # an isolated plug-in: the seat's own player process
        make = bind(seat, rules)

    def make_tracked(rng: Any) -> Any:
        made = make(rng)
        if bind is not None:
            bots.append(made)
        return dog.track(made, seat)
    return make_tracked


_LANES: dict[tuple[str, int, bool], FastLane | None] = {}  # (config hash, variant, fast) -> its fast lane


def lane_for(ctx: dict[str, Any], variant: int) -> FastLane | None:
    """The game's faster lane for a variant of the run and its lineup, made once per process
    (None: the game has none for them, or the run said ``--no-fast``)."""
    key = (ctx["hash"], variant, bool(ctx.get("fast", True)))
    if key not in _LANES:
        _LANES[key] = fast_lane(ctx, variant)
    return _LANES[key]


def fast_lane(ctx: dict[str, Any], variant: int) -> FastLane | None:
    """The lane itself (:func:`lane_for` keeps it): every entry a built-in, the game's to say."""
    if not ctx.get("fast", True):
        return None
    game, rules = ctx["game"], ctx["variants"][variant]
    entries = [("", {}) if e.isolated(game) else (e.strategy, e.param_dict()) for e in ctx["lineup"]]
    return game_named(rules.game).fast_lane(rules, entries)


def engine_line(ctx: dict[str, Any], tables: Sequence[Sequence[Sequence[int]]], engine: str) -> str:
    """Which lane plays the run's tables (``tables[variant]``: each table's entries by side),
    for its start line and run.json; ``engine`` is the Python engine's lane."""
    fast, names, total = 0, set(), 0
    for v, ts in enumerate(tables):
        lane = lane_for(ctx, v)
        total += len(ts)
        for table in ts:
            if lane is not None and lane.plays(table):
                fast += 1
                names.add(lane.name)
    searches = _search_note(ctx)
    if not fast:
        return engine + (" (--no-fast)" if not ctx.get("fast", True) else "") + searches
    lanes = " and ".join(sorted(names))
    if fast == total:
        return f"{lanes} lane (every table; a match with a game record or an opening: {engine}){searches}"
    return f"{lanes} lane for {fast} of {total} tables, {engine} for the rest{_slow_notes(ctx)}{searches}"


def _slow_notes(ctx: dict[str, Any]) -> str:
    """Why the faster lane plays none of a rule set's tables, for each such rule set (`` (crib3:
    the variant crib3 is not in the native lane)``): a variant may ship without a port."""
    notes = []
    for rules in ctx["variants"]:
        why = game_named(rules.game).slow_note(rules)
        if why is not None and f"{rules.name}: {why}" not in notes:
            notes.append(f"{rules.name}: {why}")
    return f" ({'; '.join(notes)})" if notes else ""


def _search_note(ctx: dict[str, Any]) -> str:
    """What the game says of the strategies that search in its faster lane (``; ...``), if any."""
    if not ctx.get("fast", True):
        return ""
    game = game_named(ctx["game"])
    names = sorted({e.strategy for e in ctx["lineup"] if not e.isolated(ctx["game"])})
    notes = {note for rules in ctx["variants"] if (note := game.search_note(rules, names))}
    return "".join(f"; {note}" for note in sorted(notes))


def _tell_result(bots: list[Any], rec: MatchRecord) -> None:
    """Each bot of the match hears how it ended (the protocol's ``result``)."""
    forfeit = None if rec.forfeit is None else {"side": rec.forfeit.side, "kind": rec.forfeit.kind}
    for bot in bots:
        bot.tell_result({"kind": "result", "winner": rec.winner, "game_points": rec.game_points, "forfeit": forfeit})


def play_one(ctx: dict[str, Any], spec: MatchSpec, dog: Watchdog) -> MatchRecord:
    """The record of one match; a strategy's fault is a forfeit charged to its side."""
    rules = ctx["variants"][spec.variant]
    makers = _factories(ctx)
    side_of = rules.side_of
    bots: list[Any] = []
    seat_makers = [_tracked(makers[spec.sides[side_of[seat]]], seat, rules, dog, bots)
                   for seat in range(rules.players)]
    rec = MatchRecord(spec.id, spec.variant, spec.table, spec.group, spec.seating, list(spec.sides), -1, None, None)
    seat: int | None  # the seat at fault (blame: None if no strategy's)
    kwargs, counters, tape = _match_options(ctx, spec, rules)
    seated = [spec.sides[side_of[seat]] for seat in range(rules.players)]
    fast = lane_for(ctx, spec.variant) if kwargs.keys() <= {"counters"} else None
    try:
        if fast is not None and fast.plays(seated):  # the same match, faster (its built-ins cannot fail)
            m = fast.play_match(ctx["seed"], spec.key, seated, counters)
        else:
            m = game_named(rules.game).play_match(rules, seat_makers, ctx["seed"], spec.key, **kwargs)
    except DecisionTimeout as e:
        seat, kind, msg = e.seat, "timeout", timeout_message(ctx["time_limit"])
    except PluginFault as e:  # an isolated plug-in: late, dead or failing
        seat, kind, msg = e.seat, e.kind, e.message
    except IllegalMove as e:
        seat, kind, msg = e.seat, "illegal", str(e)
    except Exception as e:
        seat, kind, msg = blamed(e, dog, spec.id), "error", f"{type(e).__name__}: {e}"
    else:
        rec.winner, rec.game_points = m.winner, list(m.game_points)
        rec.games = [g.record(lvl, rules) for g, lvl in zip(m.games, m.skunks)]
        if tape is not None and kept(ctx, rec):
            rec.log = match_log(ctx, spec, rec, tape, counters)
        _tell_result(bots, rec)
        return rec
    finally:
        dog.reset()
    side = side_of[seat]
    rec.winner = (1 - side) if len(rules.sides) == 2 else -1
    rec.forfeit = Forfeit(side, spec.sides[side], kind, without_addresses(msg)[:300])  # the same in every run
    if tape is not None and kept(ctx, rec):
        rec.log = match_log(ctx, spec, rec, tape, counters)
    _tell_result(bots, rec)
    return rec


def blamed(e: Exception, dog: Watchdog, match: str) -> int:
    """The seat whose strategy raised ``e`` (its forfeit); code of one's own that raised it
    outside a strategy's decision, or a variant's hook under one (a search's rollout): the run
    stops, naming that code; cribsim's own (a bug) is raised."""
    seat = dog.blame(e)
    place = owncode.where(e)
    if place is not None and (seat is None or place.role):
        raise owncode.OwnCodeError(f"cribsim: {place.say(e, match)}") from None
    if seat is None:
        raise e  # not a strategy's fault: a bug to report, not to hide
    return seat


def _match_options(ctx: dict[str, Any], spec: MatchSpec,
                   rules: Rules) -> tuple[dict[str, Any], list[tuple[float, float]] | None, MatchTape | None]:
    """play_match's options for one match: the seats' counting models (V-MUGGINS), the opening
    (deal book, start position) and a tape when its games are recorded."""
    kwargs: dict[str, Any] = {}
    counters = None
    if any(e.miss_rate for e in ctx["lineup"]):
        entries = [ctx["lineup"][spec.sides[rules.side_of[seat]]] for seat in range(rules.players)]
        counters = kwargs["counters"] = [(e.miss_rate, e.vigilance) for e in entries]
    book = ctx.get("book") or ()
    start = opening(book[spec.variant] if book else None, ctx.get("starts"), spec.group)
    if start is not None:
        kwargs["opening"] = start
    tape = MatchTape() if taped(ctx, spec) else None
    if tape is not None:
        kwargs["tape"] = tape
    return kwargs, counters, tape


def taped(ctx: dict[str, Any], spec: MatchSpec) -> bool:
    """Whether to record this match's games (``record:``): every match, the first ``sample`` of
    each table, or every match (kept if lost) for ``losses_of``."""
    rec = ctx.get("record")
    if rec is None or rec.mode == "none":
        return False
    if rec.mode == "sample":
        per = ctx["per_group"][spec.variant]
        return bool(spec.group * per + (spec.seating if per > 1 else 0) < rec.sample)
    if rec.mode == "losses_of":
        return rec.losses_of in spec.sides
    return True


def kept(ctx: dict[str, Any], rec: MatchRecord) -> bool:
    """Whether a recorded match is kept: for ``losses_of``, one its entry lost (a forfeit of its
    own counts); a failed match (no strategy's fault, nothing played to the end) is not."""
    mode = ctx["record"]
    if rec.failed:
        return False
    if mode.mode != "losses_of":
        return True
    entry = mode.losses_of
    if rec.forfeit is not None and rec.forfeit.entry == entry:
        return True
    return rec.winner >= 0 and rec.sides[rec.winner] != entry


def match_log(ctx: dict[str, Any], spec: MatchSpec, rec: MatchRecord, tape: MatchTape,
              counters: Sequence[tuple[float, float]] | None) -> MatchLog:
    """The game record of a match: every game the tape holds (for a forfeit, the last one up to
    the answer that ended it) and the outcome."""
    rules_json, fingerprint = ctx["rules_json"][spec.variant]
    rules = ctx["variants"][spec.variant]
    lineup = ctx["lineup"]
    return MatchLog(id=spec.id, experiment=ctx["name"], variant=rules.name, game=rules.game, rules=rules_json,
                    fingerprint=fingerprint, seed=ctx.get("schedule_seed", ctx["seed"]), match_key=spec.key,
                    entries=[lineup[e].name for e in spec.sides], strategies=[lineup[e].strategy for e in spec.sides],
                    winner=rec.winner, game_points=list(rec.game_points or ()), games=[t.log() for t in tape.games],
                    counters=[list(c) for c in counters] if counters else None,
                    forfeit=None if rec.forfeit is None else rec.forfeit.to_json(),
                    deal_secret=ctx.get("commitment"))


@dataclass
class Sealed:
    """A played batch as the driver takes it: its records already compressed (``data``, gzip
    members of matches.jsonl.gz), which matches they are, their summary sums (``partial``), the
    sequential test's view of them (``sprt``, for a run with ``stop:``), the game records kept,
    and (pid, node, seconds) for the runner's bookkeeping. The matches are the batch's
    ``span`` of the playing order, the records in its order (what the driver handed out: a few
    numbers, whatever the batch's size), or, for a batch sealed from records (a match salvaged
    one by one), each record's ``ids`` and ``places`` (-1: not known). The driver's work per batch
    does not grow with the matches in it, beyond writing the bytes."""

    data: bytes
    ids: list[str]
    places: list[int]  # each match's place in the schedule (-1: not known), as its id says
    partial: Partial
    sprt: SprtUnits | None
    logs: list[MatchLog]
    info: dict[str, Any]
    stderr: dict[int, bytes] = field(default_factory=dict)  # what each entry's bots wrote on standard error
    retired: dict[int, str] = field(default_factory=dict)  # entries whose bot was retired in this batch: why
    span: Span | None = None  # the batch's matches, in the order of its records (then no ids, no places)

    @property
    def size(self) -> int:
        """How many matches (records) the batch holds."""
        return len(self.span) if self.span is not None else len(self.ids)


def seal(ctx: dict[str, Any], records: Sequence[MatchRecord], info: dict[str, Any],
         specs: Sequence[MatchSpec] = ()) -> Sealed:
    """``records`` sealed for the driver (see :class:`Sealed`), where they were played;
    ``specs``: the specs they were played for, in the same order, whose places in the schedule
    go with them (a record that is not its spec's match carries none)."""
    logs = [r.log for r in records if r.log is not None]
    for r in records:
        r.log = None  # written on its own (games/): not in the match record
    shapes = ctx["shapes"]
    partial = Partial(shapes)
    partial.add_all(records)
    where = [s.place if s.id == r.id else -1 for s, r in zip(specs, records)] if len(specs) == len(records) \
        else [-1] * len(records)
    return Sealed(encode(records), [r.id for r in records], where, partial,
                  SprtUnits.of(records) if ctx.get("sprt") else None, logs, info)


def spec_at(ctx: dict[str, Any], place: int) -> MatchSpec:
    """The match at ``place`` in the run's schedule (``ctx["schedule"]``), its deal key from the
    experiment's seed (``ctx["schedule_seed"]``; ``ctx["seed"]`` may take the deal secret)."""
    return ctx["schedule"].spec(place, ctx["schedule_seed"])  # type: ignore[no-any-return]


def play_places(ctx: dict[str, Any], batch: Sequence[int] | Span, node: str = "") -> Sealed:
    """The matches at places ``batch`` in the run's schedule (or a :class:`~.schedule.Span` of its
    playing order, as the driver hands them out), played and sealed where they are played: the
    driver sends bare numbers, and the specs (deal keys, ids) are made here. The matches a
    faster lane plays whole go to it a batch at a time (:mod:`.lanebatch`), the rest one by one.
    A span comes back as the span (no id or place a match)."""
    t0 = time.perf_counter()
    span = batch if isinstance(batch, Span) else None
    places: Sequence[int] = ctx["schedule"].places_at(batch.positions()) if isinstance(batch, Span) else batch
    parts = lanebatch.split(ctx, places, lane_for)
    specs = [spec_at(ctx, int(places[i])) for i in parts.rest]
    if parts.parts:
        partial = Partial(ctx["shapes"])
        played = [lanebatch.play(ctx, part, lane, partial) for part in parts.parts
                  if (lane := lane_for(ctx, part.variant)) is not None]
        records, info = play_batch(ctx, specs) if specs else ([], _info(t0))
        sealed = _seal_with(ctx, places, parts.rest, played, partial, records, info, span is None)
        info["seconds"] = time.perf_counter() - t0
    else:
        records, info = play_batch(ctx, specs)
        sealed = seal(ctx, records, info, specs)
    if span is not None and (parts.parts or all(p >= 0 for p in sealed.places)):
        sealed.span, sealed.ids, sealed.places = span, [], []  # (every record its spec's match: the span says which)
    if node:
        info["node"] = node
    sealed.stderr = bots_errors(ctx)
    sealed.retired = {i: news for i, make in enumerate(_FACTORIES.get(ctx["hash"], []))
                      if isinstance(make, Isolated) and (news := make.retired_news())}
    return sealed


def _seal_with(ctx: dict[str, Any], places: Sequence[int], rest: Sequence[int], played: Sequence[LanePlayed],
               partial: Partial, records: Sequence[MatchRecord], info: dict[str, Any], with_ids: bool) -> Sealed:
    """A batch sealed whose matches a lane played whole (``played``, their sums in ``partial``)
    but for those at the positions ``rest`` (``records``, played one by one): the lines in the
    order of ``places``, as :func:`seal` writes them; each match's id and place too if
    ``with_ids`` (else the batch's span says which they are)."""
    logs = [r.log for r in records if r.log is not None]
    for r in records:
        r.log = None
    partial.add_all(records)
    if not rest and len(played) == 1:  # (the whole batch one rule set's: its lines in order)
        lines = [played[0].text]
    else:
        lines = [b""] * len(places)
        for p in played:
            for pos, line in zip(p.part.positions, p.lines):
                lines[pos] = line
        for pos, r in zip(rest, records):
            lines[pos] = line_of(r)
    ids: list[str] = []
    if with_ids:
        ids = [""] * len(places)
        for p in played:
            for pos, match_id in zip(p.part.positions, lanebatch.ids_of(p.part)):
                ids[pos] = match_id
        for pos, r in zip(rest, records):
            ids[pos] = r.id
    return Sealed(compress(b"".join(lines)), ids, [int(p) for p in places] if with_ids else [], partial, None, logs,
                  info)


def _info(t0: float) -> dict[str, Any]:
    """A batch's (pid, node, seconds since ``t0``) for the runner's bookkeeping."""
    return {"pid": os.getpid(), "node": os.environ.get("CRIBSIM_NODE", ""), "seconds": time.perf_counter() - t0}


def bots_errors(ctx: dict[str, Any]) -> dict[int, bytes]:
    """What each isolated entry's player processes in this process wrote on their standard error
    since the last batch (by entry index; entries that wrote nothing left out)."""
    makers = _FACTORIES.get(ctx["hash"], [])
    out = {}
    for i, make in enumerate(makers):
        if isinstance(make, Isolated):
            data = make.take_errors()
            if data:
                out[i] = data
    return out


def play_batch(ctx: dict[str, Any], specs: Iterable[MatchSpec]) -> tuple[list[MatchRecord], dict[str, Any]]:
    """Records for the given specs, plus (pid, node, seconds) for the runner's bookkeeping."""
    t0 = time.perf_counter()
    out = []
    game = game_named(ctx["game"])
    before = game.allow_fast(bool(ctx.get("fast", True)))  # --no-fast: the strategies' searches too
    try:
        with Watchdog(ctx["time_limit"], game.decisions()) as dog:
            for spec in specs:
                out.append(play_one(ctx, spec, dog))
    finally:
        game.allow_fast(before)
    return out, _info(t0)
