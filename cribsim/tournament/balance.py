"""``cribsim balance CONFIG``: search one rules knob for the value that brings one metric to a
target (the first dealer's win rate to 0.50 by a pone bonus, the lone player's to 0.50 by its
target), spending games where the answer is uncertain, then confirm the value on fresh games.

The method is a bracketing search with a confidence rule, for a metric that moves one way along
the knob. Games are played in looks of ``look`` matches (one game each, unless the rules' match
says otherwise; unpaired, so that every game is an independent draw), look j of every value on
the same deals (common random numbers). A value is *above* or *below* the target once the
Wilson interval of its win rate at ``confidence`` (99%: every look is another peek at the same
value, so a search decides at a stricter level than the 95% it reports) leaves the target out,
and *at* the target once that interval is narrower than ``precision`` on each side; until then
it gets another look. First both ends of ``range`` are placed (they must lie on either side of
the target), then the bracket is halved at its middle value until it closes: for a whole-number
knob, two neighbours (the answer is the one whose estimate is nearer the target) or a value at
the target; for a real knob, a bracket narrower than ``tolerance`` (the answer is its middle).
The answer is played again on ``confirm`` fresh matches (other deals), whose 95% interval is the
result.

Every look is an ordinary cribsim run in ``steps/`` (Ray, forfeits, resume, locking) and is
appended to ``trajectory.jsonl``; a stopped balance started again reads its looks back and
continues, like ``cribsim tune``. ``balance.md`` and ``balance.csv`` report every value looked at,
the answer, the confirmation and the games spent."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from statistics import NormalDist
from typing import Any, cast

import yaml

from ..codepath import look_in
from ..errors import ConfigError, CribsimError
from ..names import check_name
from ..nofollow import open_read, open_update
from ..records import GameRecord
from ..rng import derive
from ..ruleset import find_rules_file, is_rules_path, read_yaml
from . import folder as fld
from .atomic import atomic_write
from .config import MAX_SEED, code_part, load_experiment, with_code
from .programs import programs_part
from .runner import run_experiment
from .stats import wilson
from .sweep import Sweep, parse_sweep
from .tune import Where, _append, step_folder, study_folder

TOP_KEYS = {"name", "description", "rules", "knob", "range", "tolerance", "metric", "side", "target", "lineup",
            "look", "max_looks", "max_matches", "precision", "confidence", "confirm", "seed", "time_limit"}
METRICS = ("first_dealer_wins", "side_wins")
FORMAT = "cribsim-balance"


@dataclass(frozen=True)
class Balance:
    name: str
    source: str
    rules: Any  # the base rules (a file's absolute path, or a mapping whose extends is one)
    shown: str  # the rules as the config names them, for the report (no machine's paths)
    knob: str
    lo: float
    hi: float
    whole: bool  # a whole-number knob (both ends whole numbers)
    tolerance: float
    metric: str
    side: int
    target: float
    lineup: tuple[dict[str, Any], ...]
    look: int
    max_looks: int
    max_matches: int
    precision: float
    z: float  # the search's decisions: the normal quantile of ``confidence``
    confirm: int
    seed: int
    time_limit: float | None
    raw: str

    def config_hash(self) -> str:
        return hashlib.sha256(self.raw.encode()).hexdigest()[:16]

    def played(self, v: float) -> float | int:
        return int(round(v)) if self.whole else round(v, 6)


def _number(source: str, key: str, v: Any, lo: float, hi: float, whole: bool = False) -> Any:
    ok = isinstance(v, (int, float)) and not isinstance(v, bool) and (isinstance(v, int) or not whole)
    if not ok or not lo <= v <= hi:
        raise ConfigError(source, key, f"expected {'a whole number' if whole else 'a number'} {lo:g}..{hi:g}, "
                                       f"got {v!r}"[:200])
    return v


def load_balance(path: str | Path) -> Balance:
    """Read and check a balance config; every error names the file and the key, before anything
    is written (the experiments it would play are loaded at both ends of the range)."""
    if not Path(path).is_file():
        raise ConfigError(path, None, "no such balance file" if not Path(path).exists() else "not a regular file")
    data = read_yaml(path)
    source = str(path)
    bad = sorted(set(data) - TOP_KEYS)
    if bad:
        raise ConfigError(source, bad[0], f"unknown key (expected one of {', '.join(sorted(TOP_KEYS))})")
    name = data.get("name", Path(path).stem)
    if not isinstance(name, str) or check_name(name):
        raise ConfigError(source, "name", f"not a results folder name: {name!r}"[:200])
    look_in(Path(path).parent)  # module:Class strategies beside the balance file (the steps' configs are elsewhere)
    rules = data.get("rules", "standard")
    if isinstance(rules, str):
        found = find_rules_file(rules, relative_to=source)
        if found is None:
            raise ConfigError(source, "rules", f"no rules file or preset named {rules!r}")
        rules = str(found) if is_rules_path(rules) else rules  # a preset's name is found from anywhere
    elif not isinstance(rules, dict):
        raise ConfigError(source, "rules", "expected a rules name, file or mapping")
    elif isinstance(rules.get("extends"), str):  # the steps' configs live elsewhere: a path beside this file
        found = find_rules_file(rules["extends"], relative_to=source)
        if found is None:
            raise ConfigError(source, "rules.extends", f"no rules file or preset named {rules['extends']!r}")
        if is_rules_path(rules["extends"]):
            rules = {**rules, "extends": str(found)}
    knob = data.get("knob")
    if not isinstance(knob, str):
        raise ConfigError(source, "knob", f"expected a rules knob's name or dotted path (first_pone_points, "
                                          f"scoring.pair), got {knob!r}"[:200])
    parse_sweep(source, {knob: [0]})  # the same knob paths as a sweep
    rng = data.get("range")
    if not (isinstance(rng, list) and len(rng) == 2):
        raise ConfigError(source, "range", "expected [low, high], the values to search between")
    lo, hi = (_number(source, f"range[{i}]", v, -1e6, 1e6) for i, v in enumerate(rng))
    if not lo < hi:
        raise ConfigError(source, "range", f"expected low < high, got {rng}")
    whole = all(isinstance(v, int) for v in rng)
    tol = _number(source, "tolerance", data.get("tolerance", (hi - lo) / 64), 1e-9, hi - lo)
    metric = data.get("metric", "first_dealer_wins")
    if metric not in METRICS:
        raise ConfigError(source, "metric", f"expected one of {', '.join(METRICS)}, got {metric!r}")
    side = _number(source, "side", data.get("side", 0), 0, 4, whole=True)
    target = _number(source, "target", data.get("target", 0.5), 0.001, 0.999)
    lineup = data.get("lineup", [{"name": "ev", "strategy": "ev"}])
    if not isinstance(lineup, list) or not lineup or not all(isinstance(e, (dict, str)) for e in lineup):
        raise ConfigError(source, "lineup", "expected a list of entries such as {name: ev, strategy: ev}")
    lineup = [e if isinstance(e, dict) else {"name": e, "strategy": e} for e in lineup]
    look = _number(source, "look", data.get("look", 1000), 2, 10 ** 7, whole=True)
    max_looks = _number(source, "max_looks", data.get("max_looks", 40), 1, 10_000, whole=True)
    max_matches = _number(source, "max_matches", data.get("max_matches", 400_000), look, 10 ** 8, whole=True)
    precision = _number(source, "precision", data.get("precision", 0.01), 1e-4, 0.5)
    confidence = _number(source, "confidence", data.get("confidence", 0.99), 0.5, 0.999999)
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    confirm = _number(source, "confirm", data.get("confirm", 20_000), 2, 10 ** 8, whole=True)
    seed = _number(source, "seed", data.get("seed", 1), 0, MAX_SEED // 2, whole=True)
    tl = data.get("time_limit")
    time_limit = None if tl is None else _number(source, "time_limit", tl, 0.01, 3600)
    raw = json.dumps({k: data[k] for k in sorted(data) if k != "description"}, sort_keys=True, default=str)
    shown = json.dumps(data.get("rules", "standard"), sort_keys=True)
    b = Balance(name, source, rules, shown, knob, lo, hi, whole, tol, metric, side, target, tuple(lineup), look,
                max_looks, max_matches, precision, z, confirm, seed, time_limit, raw)
    part: dict[str, Any] = {}
    for v in (lo, hi):
        part = _check(b, b.played(v)) or part
    return replace(b, raw=with_code(raw, part))


def _experiment_yaml(b: Balance, value: float | int, matches: int, seed: int, sides: int, folder: Path) -> str:
    """A look's experiment, written in ``folder``: the base rules are extended by a path relative
    to it, so that the file reads the same on every machine that has the project."""
    over = Sweep((b.knob,), ((value,),)).overrides((value,))
    base: dict[str, Any] = {"extends": b.rules} if isinstance(b.rules, str) else dict(b.rules)
    if isinstance(base.get("extends"), str) and os.path.isabs(base["extends"]):
        base["extends"] = os.path.relpath(base["extends"], folder)
    rules = {**base, **over, "name": f"{b.name}-{b.knob.rsplit('.', 1)[-1]}"}
    if isinstance(b.rules, dict):  # nested knobs (scoring.pair) merge into the mapping's own block
        for k, v in over.items():
            if isinstance(v, dict) and isinstance(base.get(k), dict):
                rules[k] = {**base[k], **v}
    entries = [dict(e) for e in b.lineup]
    while len(entries) < sides:  # self-play: the entries again, renamed
        e = dict(b.lineup[len(entries) % len(b.lineup)])
        e["name"] = f"{e.get('name', e['strategy'])}-{len(entries) + 1}"
        entries.append(e)
    exp: dict[str, Any] = {"name": f"{b.name}-step", "variants": [rules], "lineup": entries[:sides],
                           "format": "pairings", "pairings": [[e["name"] for e in entries[:sides]]],
                           "matches": matches, "paired": False, "seed": seed}
    if b.time_limit is not None:
        exp["time_limit"] = b.time_limit
    return cast("str", yaml.safe_dump(exp, sort_keys=True))


def _sides(b: Balance, value: float | int) -> int:
    with tempfile.TemporaryDirectory() as d:
        cfg = Path(d) / "probe.yaml"
        cfg.write_text(_experiment_yaml(b, value, 2, 1, len(b.lineup) if len(b.lineup) > 1 else 2, Path(d)))
        exp = load_experiment(cfg, need_matches=True)
        return len(exp.variants[0].sides)


def _check(b: Balance, value: float | int) -> dict[str, Any]:
    """The experiment at ``value`` loads as ``cribsim run`` would load it (an error names the file);
    returns what of its hash its config loads (:func:`config.code_part`) and the program bots it
    plays (:func:`programs.programs_part`)."""
    try:
        sides = _sides(b, value)
        with tempfile.TemporaryDirectory() as d:
            cfg = Path(d) / "step.yaml"
            cfg.write_text(_experiment_yaml(b, value, b.look, 1, sides, Path(d)))
            exp = load_experiment(cfg, need_matches=True)
            part = {**code_part(exp), **programs_part(exp)}
    except CribsimError as e:
        why = str(e).removeprefix("cribsim: ")
        why = why.split(": ", 1)[1] if why.startswith(("/", tempfile.gettempdir())) else why
        raise CribsimError(f"cribsim: {b.source}: the experiment at {b.knob} = {value} would be refused: {why}") \
            from None
    if b.metric == "side_wins" and b.side >= sides:
        raise ConfigError(b.source, "side", f"these rules have {sides} sides; give a side 0..{sides - 1}")
    return part


# ---- the looks ---------------------------------------------------------------------------------

def _won(b: Balance, g: GameRecord) -> bool:
    """Whether the game counts for the metric: the first dealer's side won, or the given side
    (the game's own sides where it has them: two against one's lone player is side 0)."""
    winners = set(g.shared) if g.shared else {g.winner}
    if b.metric == "first_dealer_wins":
        side = next(i for i, s in enumerate(g.sides) if g.first_dealer in s)
        return side in winners
    return b.side in winners


class Search:
    """The looks played so far (read back from the trajectory) and the ones it plays."""

    def __init__(self, b: Balance, out: Path, where: Where, done: list[dict[str, Any]]) -> None:
        self.b, self.out, self.where = b, out, where
        self.looks: dict[str, list[tuple[int, int]]] = {}  # value (as text) -> [(wins, games)] per look
        for row in done:
            self.looks.setdefault(json.dumps(row["value"]), []).append((int(row["wins"]), int(row["games"])))
        self.replayed = len(done)
        self.sides = 0

    @property
    def spent(self) -> int:
        return sum(g for looks in self.looks.values() for _, g in looks)

    def tally(self, v: float | int) -> tuple[int, int]:
        looks = self.looks.get(json.dumps(v), [])
        return sum(w for w, _ in looks), sum(g for _, g in looks)

    def place(self, v: float | int) -> int | None:
        """-1 below the target, +1 above, 0 at it; None when the budget ends first."""
        b = self.b
        while True:
            wins, games = self.tally(v)
            if games:
                _, lo, hi = wilson(wins, games, b.z)
                if hi < b.target:
                    return -1
                if lo > b.target:
                    return 1
                if hi - b.target < b.precision and b.target - lo < b.precision:
                    return 0
            if len(self.looks.get(json.dumps(v), [])) >= b.max_looks or self.spent + b.look > b.max_matches:
                return None
            self._look(v)

    def _look(self, v: float | int) -> None:
        b = self.b
        j = len(self.looks.get(json.dumps(v), []))
        if not self.sides:
            self.sides = _sides(b, v)
        label = f"{b.knob.rsplit('.', 1)[-1]}={v}-look{j:02d}"
        wins, games = play(b, self.out, label, v, b.look, derive(b.seed, j) % MAX_SEED, self.where, self.sides)
        self.looks.setdefault(json.dumps(v), []).append((wins, games))
        _append(self.out / "trajectory.jsonl", {"value": v, "look": j, "wins": wins, "games": games})
        est = wins / games if games else float("nan")
        print(f"{b.knob} = {v}: look {j + 1}, {wins}/{games} = {est:.3f} over this look", flush=True)


def play(b: Balance, out: Path, label: str, value: float | int, matches: int, seed: int, where: Where,
         sides: int, report: bool = False) -> tuple[int, int]:
    """One look: an experiment at ``value`` into ``out/steps/label`` (resumed if stopped); the
    games that count for the metric, and the games played."""
    steps = step_folder(out, label)
    cfg = steps / f"{label}.yaml"
    text = _experiment_yaml(b, value, matches, seed, sides, steps.resolve())
    if not cfg.exists() or cfg.read_text() != text:
        atomic_write(cfg, text)
    exp = load_experiment(cfg, need_matches=True)
    manifest = run_experiment(exp, steps / label, workers=where.workers, address=where.address,
                              serial=where.serial, progress=False, report=report, quiet=True)
    records = fld.scan_records(steps / label / fld.RECORDS, fld.schedule_of(manifest)).records
    games = [g for r in records if r.forfeit is None for g in r.games]
    return sum(1 for g in games if _won(b, g)), len(games)


def _search(s: Search) -> tuple[float | int, str]:
    """The answer and how it was reached."""
    b = s.b
    lo, hi = b.played(b.lo), b.played(b.hi)
    at_lo, at_hi = s.place(lo), s.place(hi)
    if at_lo is None or at_hi is None:
        raise CribsimError(f"cribsim: {b.name}: the budget (max_looks {b.max_looks}, max_matches {b.max_matches:,}) "
                           f"ended before both ends of the range were placed: raise it or widen precision; the looks "
                           f"are kept in trajectory.jsonl")
    if at_lo == 0:
        return lo, "the low end is at the target"
    if at_hi == 0:
        return hi, "the high end is at the target"
    if at_lo == at_hi:
        wl, gl = s.tally(lo)
        wh, gh = s.tally(hi)
        raise CribsimError(f"cribsim: {b.name}: the metric is {'above' if at_lo > 0 else 'below'} {b.target} at both "
                           f"ends of the range ({wl / gl:.3f} at {lo}, {wh / gh:.3f} at {hi}): widen range; the looks "
                           f"are kept in trajectory.jsonl")
    a, z = lo, hi  # a's side is at_lo, z's the other
    while True:
        if b.whole and z - a <= 1 or not b.whole and z - a <= b.tolerance:
            break
        m = b.played((a + z) / 2)
        if m in (a, z):
            break
        side = s.place(m)
        if side is None:
            return _nearest(s, [a, z] + ([m] if s.tally(m)[1] else [])), \
                f"undecided: the budget ended in the bracket [{a}, {z}]; the nearest estimate"
        if side == 0:
            return m, "a value at the target (its interval within the precision)"
        if side == at_lo:
            a = m
        else:
            z = m
    if not b.whole:
        return b.played((a + z) / 2), f"the bracket [{a}, {z}] closed to within the tolerance"
    near = _nearest(s, [a, z])
    return near, f"the neighbours {a} and {z} straddle the target; {near} is nearer"


def _nearest(s: Search, values: list[float | int]) -> float | int:
    """Of values with games, the one whose estimate is nearest the target (the first on a tie)."""
    def gap(v: float | int) -> float:
        wins, games = s.tally(v)
        return abs(wins / games - s.b.target)
    return min((v for v in values if s.tally(v)[1]), key=gap)


def balance(b: Balance, out: Path, where: Where | None = None) -> dict[str, Any]:
    """Run (or continue) the search and the confirmation; returns the result."""
    with study_folder(out, "balance", where or Where()) as here:
        return _balance(b, out, here)


def _read(b: Balance, path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    with open_read(path) as f:
        data = f.read()
    if data and not data.endswith(b"\n"):  # a torn last line: cut it
        data = data[:data.rfind(b"\n") + 1]
        with open_update(path) as f:
            f.truncate(len(data))
    rows = []
    for n, line in enumerate(data.decode(errors="replace").splitlines(), 1):
        try:
            row = json.loads(line)
        except ValueError:
            row = None
        if not isinstance(row, dict):
            raise CribsimError(f"cribsim: {path}:{n}: not a trajectory line (damaged file); move it aside")
        rows.append(row)
    if not rows:
        return []
    if rows[0].get("format") != FORMAT:
        raise CribsimError(f"cribsim: {path} is not a cribsim balance trajectory; use another --out")
    if rows[0].get("config_hash") != b.config_hash():
        raise CribsimError(f"cribsim: {path.parent} holds a balance of another config; use another --out")
    for n, row in enumerate(rows[1:], 2):
        if not (isinstance(row.get("wins"), int) and isinstance(row.get("games"), int) and "value" in row):
            raise CribsimError(f"cribsim: {path}:{n}: not a look of this balance (damaged file); move it aside")
    return rows[1:]


def _balance(b: Balance, out: Path, where: Where) -> dict[str, Any]:
    path = out / "trajectory.jsonl"
    done = _read(b, path)
    if not path.exists() or path.stat().st_size == 0:
        _append(path, {"format": FORMAT, "version": 1, "config_hash": b.config_hash(), "name": b.name})
    elif done:
        print(f"cribsim: resuming {b.name} after {len(done)} looks", flush=True)
    s = Search(b, out, where, done)
    answer, how = _search(s)
    sides = s.sides or _sides(b, answer)
    wins, games = play(b, out, "confirm", answer, b.confirm, derive(b.seed, 1_000_003) % MAX_SEED, where, sides,
                       report=True)
    est, lo, hi = wilson(wins, games)
    result = {"knob": b.knob, "value": answer, "how": how, "metric": b.metric, "target": b.target,
              "estimate": est, "lo": lo, "hi": hi, "games": games, "search_games": s.spent,
              "values": {k: list(s.tally(json.loads(k))) for k in s.looks}}
    write_report(b, out, s, result)
    return result


def write_report(b: Balance, out: Path, s: Search, result: dict[str, Any]) -> None:
    """balance.md (the config, every value looked at, the answer and its confirmation) and balance.csv."""
    from tabulate import tabulate

    rows = []
    for key in sorted(s.looks, key=lambda k: json.loads(k)):
        wins, games = s.tally(json.loads(key))
        est, lo, hi = wilson(wins, games)
        rows.append([json.loads(key), len(s.looks[key]), games, f"{est:.4f}", f"{lo:.4f}", f"{hi:.4f}"])
    head = [b.knob, "looks", "games", "estimate", "lo", "hi"]
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(head)
    w.writerows(rows)
    atomic_write(out / "balance.csv", buf.getvalue())
    what = "the first dealer's win rate" if b.metric == "first_dealer_wins" else f"side {b.side}'s win rate"
    lines = [f"# balance: {b.name}", "",
             f"{what} brought to {b.target} by `{b.knob}` in [{b.lo:g}, {b.hi:g}]; rules {b.shown}; lineup "
             f"{', '.join(str(e.get('strategy')) for e in b.lineup)}; looks of {b.look} matches on the same deals "
             f"for every value, precision {b.precision:g}; seed {b.seed}; config {b.config_hash()}.", "",
             "## Values looked at (95% Wilson intervals over games)", "",
             tabulate(rows, headers=head, tablefmt="github"), "",
             "## Answer", "",
             f"`{b.knob}` = **{result['value']}** ({result['how']}). Confirmed on {result['games']:,} fresh games: "
             f"{what} {result['estimate']:.4f} [{result['lo']:.4f}, {result['hi']:.4f}] (95% Wilson). Games spent: "
             f"{result['search_games']:,} searching, {result['games']:,} confirming.",
             "", "Every look is a results folder in `steps/`; the confirmation's summary is in `steps/confirm/`.", ""]
    atomic_write(out / "balance.md", "\n".join(lines))
