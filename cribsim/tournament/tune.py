"""``cribsim tune CONFIG``: tune a strategy's numeric parameters against a fixed opponent by SPSA
(simultaneous perturbation stochastic approximation, as fishtest and OpenBench tune chess
engines), on paired deals, resumable, with a budget.

Each iteration k draws a sign for every parameter (Delta, +-1 each) and plays two experiments
of ``matches`` paired matches against the opponent, one with the parameters at
theta + c_k * Delta and one at theta - c_k * Delta, on the same deals (the same seed): common
random numbers, so the difference of the two scores is mostly the parameters' doing. The
gradient estimate is (s+ - s-) / (2 c_k Delta_i) (the values as played: an integer parameter
rounded, a parameter at a bound clipped; no move, no gradient) and the step a_k = r_k * c_k^2 (fishtest's
form, so ``r`` is in units of the perturbation), with c_k = c / (k + 1)^0.101 and
r_k = r * (A + 1)^0.602 / (A + k + 1)^0.602, A = iterations / 10 (Spall's gains). Parameters stay in
their bounds; an integer parameter is rounded when played. The budget is iterations x 2 x
matches, then ``final_matches`` paired matches of the final parameters against the opponent give
the final win rate with its 95% interval.

Every experiment is an ordinary cribsim run in ``steps/`` (Ray, forfeits, resume, locking), and
every finished iteration is appended to ``trajectory.jsonl`` with its parameters, signs, scores
and gradient. A stopped tune started again continues where it stopped: finished iterations are
read back, an unfinished experiment resumes. ``tune.md`` and ``tune.csv`` report it."""

from __future__ import annotations

import contextlib
import csv
import hashlib
import io
import json
import math
import os
import random
import tempfile
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, cast

import yaml

from cribsim.ruleset import read_yaml

from ..codepath import expose_named, find, look_in, top_name
from ..errors import ConfigError, CribsimError
from ..isolation import check as check_plugin
from ..isolation import is_plugin
from ..isolation.bots import Bot, sandbox_on
from ..isolation.sandbox import require
from ..lock import FolderLock
from ..names import check_name
from ..nofollow import LinkRefused, link_message, open_append, open_read, open_update, refuse_links
from ..params import Param, declared_params, params_from_json
from ..ruleset import find_rules_file, load_rules
from ..strategy import resolve
from ..suggest import did_you_mean
from . import folder as fld
from .atomic import atomic_write
from .config import MAX_SEED, code_part, load_experiment, with_code
from .programs import programs_part
from .raycluster import init_ray, shutdown
from .runner import run_experiment
from .stats import mean_ci, wilson

TOP_KEYS = {"name", "description", "variant", "strategy", "fixed", "params", "opponent", "iterations", "matches",
            "final_matches", "seed", "r", "time_limit", "trusted"}
PARAM_KEYS = {"start", "lo", "hi", "c"}
FORMAT = "cribsim-tune"
ALPHA, GAMMA = 0.602, 0.101


@dataclass(frozen=True)
class Tuned:
    """One tuned parameter: its start, bounds, perturbation ``c`` and kind (int or float)."""

    name: str
    start: float
    lo: float
    hi: float
    c: float
    kind: type

    def clip(self, v: float) -> float:
        return min(self.hi, max(self.lo, v))

    def played(self, v: float) -> float | int:
        return int(math.floor(v + 0.5)) if self.kind is int else round(v, 6)


@dataclass(frozen=True)
class Tune:
    name: str
    source: str
    variant: str
    strategy: str
    fixed: dict[str, Any]
    params: tuple[Tuned, ...]
    opponent: dict[str, Any]
    iterations: int
    matches: int
    final_matches: int
    seed: int
    r: float
    time_limit: float | None
    raw: str
    trusted: bool = False  # the tuned plug-in plays in the engine's process (unsafe), not sandboxed

    def config_hash(self) -> str:
        return hashlib.sha256(self.raw.encode()).hexdigest()[:16]


def _number(source: str, key: str, v: Any, lo: float, hi: float, kind: type = float) -> Any:
    ok = isinstance(v, int) if kind is int else isinstance(v, (int, float))
    try:
        ok = ok and not isinstance(v, bool) and math.isfinite(v) and lo <= v <= hi
    except OverflowError:  # an integer too big for a float
        ok = False
    if not ok:
        what = "an integer" if kind is int else "a number"
        raise ConfigError(source, key, f"expected {what} {lo:g}..{hi:g}, got {v!r}"[:200])
    return kind(v)


def _parameters(source: str, strategy: str, variant: str, trusted: bool) -> dict[str, Param]:
    """The strategy's parameters. A built-in's, and a trusted plug-in's, are read from its class;
    an untrusted plug-in is asked in its sandbox (its host reports what it declares), never
    imported here."""
    if trusted and is_plugin(strategy):
        try:
            expose_named(strategy)
        except CribsimError as e:
            raise ConfigError(source, "strategy", str(e).removeprefix("cribsim: ")) from None
    if trusted or not is_plugin(strategy) or ":" not in strategy:
        try:
            return declared_params(resolve(strategy))
        except CribsimError as e:
            raise ConfigError(source, "strategy", str(e).removeprefix("cribsim: ")) from None
    found = find_rules_file(variant, relative_to=source)
    if found is None:
        raise ConfigError(source, "variant", f"no rules file or preset named {variant!r}")
    rules = load_rules(str(found))
    try:
        require()
        bot = Bot(spec=strategy, sandboxed=sandbox_on(False), home=find(top_name(strategy)) or "")
        caps = check_plugin(strategy, {}, (rules,), rules.game, bot)
    except CribsimError as e:
        raise ConfigError(source, "strategy", str(e).removeprefix("cribsim: ")) from None
    return params_from_json(caps.get("parameters", []))


def _tuned(source: str, spec: Param, v: Any) -> Tuned:
    key = f"params.{spec.name}"
    if spec.kind not in (int, float):
        raise ConfigError(source, key, f"only numeric parameters can be tuned ({spec.name} is {spec.kind.__name__})")
    if not isinstance(v, dict):
        raise ConfigError(source, key, "expected a mapping with start, lo, hi and c")
    bad = sorted(set(v) - PARAM_KEYS)
    if bad:
        raise ConfigError(source, key, f"unknown key {bad[0]!r} (expected {', '.join(sorted(PARAM_KEYS))})")
    for end, bound in (("lo", spec.lo), ("hi", spec.hi)):
        if bound is None and end not in v:
            raise ConfigError(source, f"{key}.{end}", f"give {end}: {spec.name} declares no bounds (its default is "
                                                      f"{spec.default!r}; declare it in the strategy's params as "
                                                      "cribsim.params.Param with lo and hi to make them the default)")
    lo_b = spec.lo if spec.lo is not None else -1e9
    hi_b = spec.hi if spec.hi is not None else 1e9
    lo = _number(source, f"{key}.lo", v.get("lo", lo_b), lo_b, hi_b)
    hi = _number(source, f"{key}.hi", v.get("hi", hi_b), lo_b, hi_b)
    if lo >= hi:
        raise ConfigError(source, key, f"lo ({lo:g}) must be below hi ({hi:g})")
    start = _number(source, f"{key}.start", v.get("start", spec.default), lo, hi)
    if "c" not in v:
        raise ConfigError(source, f"{key}.c", "give the perturbation size c (how far each side of theta to play)")
    c = _number(source, f"{key}.c", v["c"], 1e-9, hi - lo)
    return Tuned(spec.name, float(start), float(lo), float(hi), float(c), spec.kind)


def load_tune(path: str | Path) -> Tune:
    """Read and check a tune config; every error names the file and the key."""
    if not Path(path).is_file():
        raise ConfigError(path, None, "no such tune file" if not Path(path).exists() else "not a regular file")
    data = read_yaml(path)
    source = str(path)
    bad = sorted(set(data) - TOP_KEYS)
    if bad:
        raise ConfigError(source, bad[0], f"unknown key (expected one of {', '.join(sorted(TOP_KEYS))})")
    name = data.get("name", Path(path).stem)
    if not isinstance(name, str) or check_name(name):
        raise ConfigError(source, "name", f"not a results folder name: {name!r}"[:200])
    for key in ("variant", "strategy"):
        if not isinstance(data.get(key), str):
            raise ConfigError(source, key, "expected a name" + (" (a rule set, e.g. standard)" if key == "variant"
                                                                 else " (a strategy, e.g. expert)"))
    look_in(Path(path).parent)  # a module:Class strategy beside the tune file, as for an experiment
    trusted = data.get("trusted", False)
    if not isinstance(trusted, bool):
        raise ConfigError(source, "trusted", f"expected true or false, got {trusted!r}"[:200])
    specs = _parameters(source, data["strategy"], data["variant"], trusted)
    params = data.get("params")
    if not isinstance(params, dict) or not params:
        raise ConfigError(source, "params", "expected a mapping of the parameters to tune")
    tuned = []
    for k, v in params.items():
        if k not in specs:
            raise ConfigError(source, f"params.{k}", f"{data['strategy']} has no parameter {k!r} to tune "
                                                     f"(it has: {', '.join(sorted(specs)) or 'none'}; a parameter is "
                                                     "declared in the class's params, or taken by __init__ with a "
                                                     f"number as its default){did_you_mean(k, specs)}")
        tuned.append(_tuned(source, specs[k], v))
    fixed = data.get("fixed", {})
    if not isinstance(fixed, dict) or set(fixed) & set(params):
        raise ConfigError(source, "fixed", "expected a mapping of parameters held fixed, none of them tuned")
    opp = data.get("opponent")
    if isinstance(opp, str):
        opp = {"strategy": opp}
    if not isinstance(opp, dict) or not isinstance(opp.get("strategy"), str) or set(opp) - {"strategy", "params"}:
        raise ConfigError(source, "opponent", "expected a strategy name or {strategy: NAME, params: {...}}")
    iterations = _number(source, "iterations", data.get("iterations", 20), 1, 10_000, int)
    matches = _number(source, "matches", data.get("matches", 400), 2, 10 ** 7, int)
    final = _number(source, "final_matches", data.get("final_matches", 4000), 2, 10 ** 8, int)
    for key, n in (("matches", matches), ("final_matches", final)):
        if n % 2:
            raise ConfigError(source, key, f"paired matches come in seat-swapped twos: give an even number, not {n}")
    seed = _number(source, "seed", data.get("seed", 1), 0, MAX_SEED // 2, int)
    r = _number(source, "r", data.get("r", 20.0), 1e-6, 1e6)
    tl = data.get("time_limit")
    time_limit = None if tl is None else _number(source, "time_limit", tl, 0.01, 3600)
    raw = json.dumps({k: data[k] for k in sorted(data) if k != "description"}, sort_keys=True, default=str)
    t = Tune(name, source, data["variant"], data["strategy"], dict(fixed), tuple(tuned), dict(opp), iterations,
             matches, final, seed, r, time_limit, raw, trusted)
    return replace(t, raw=with_code(raw, _check_experiment(t)))


def _check_experiment(t: Tune) -> dict[str, Any]:
    """Load the first step's experiment (every parameter at its bounds' ends and its start) as
    ``cribsim run`` would, before anything is written: the variant, the opponent and the fixed
    parameters are checked there; an error names the tune file. Returns what of the step's hash
    its config loads (:func:`config.code_part`: the tune's hash covers that code too) and the
    program bots it plays (:func:`programs.programs_part`)."""
    part: dict[str, Any] = {}
    for values in ({p.name: p.played(p.start) for p in t.params}, {p.name: p.played(p.lo) for p in t.params},
                   {p.name: p.played(p.hi) for p in t.params}):
        with tempfile.TemporaryDirectory() as d:
            cfg = Path(d) / "step.yaml"
            cfg.write_text(_experiment_yaml(t, "check", values, t.matches, step_seed(t, 0)))
            try:
                exp = load_experiment(cfg, need_matches=True)
                part = part or {**code_part(exp), **programs_part(exp)}
            except CribsimError as e:
                why = str(e).replace(f"{cfg}: ", "").removeprefix("cribsim: ")
                raise CribsimError(f"cribsim: {t.source}: the experiments it plays would be refused: {why}") \
                    from None
    return part


# ---- the iterations ----------------------------------------------------------------------------
def gains(t: Tune, k: int) -> tuple[float, float]:
    """(c_k as a fraction of each parameter's c, r_k) at iteration k (0-based)."""
    big_a = t.iterations / 10
    return 1.0 / (k + 1) ** GAMMA, t.r * (big_a + 1) ** ALPHA / (big_a + k + 1) ** ALPHA


def signs(t: Tune, k: int) -> list[int]:
    rng = random.Random(f"{t.seed}-delta-{k}")
    return [rng.choice((-1, 1)) for _ in t.params]


def step_seed(t: Tune, k: int) -> int:
    """The deals of iteration k (the same for both sides of the perturbation); -1: the final."""
    return (t.seed * 7919 + 104_729 * (k + 2)) % MAX_SEED


def _experiment_yaml(t: Tune, label: str, values: dict[str, Any], matches: int, seed: int) -> str:
    cand = {"name": "tuned", "strategy": t.strategy, "params": {**t.fixed, **values},
            **({"trusted": True} if t.trusted else {})}
    opp = {"name": "opponent", **t.opponent}
    exp: dict[str, Any] = {"name": f"{t.name}-{label}", "variants": [t.variant], "lineup": [cand, opp],
                           "matches": matches, "paired": True, "seed": seed}
    if t.time_limit is not None:
        exp["time_limit"] = t.time_limit
    return cast("str", yaml.safe_dump(exp, sort_keys=True))


@dataclass(frozen=True)
class Where:
    """Where the matches run: in this process (``serial``) or on Ray (``workers``, ``address``)."""

    serial: bool = False
    workers: int | None = None
    address: str | None = None


@contextlib.contextmanager
def study_folder(out: Path, kind: str, where: Where) -> Iterator[Where]:
    """A study's folder, created and locked (``kind``: tune, balance), with Ray started once for
    all its steps unless ``where`` is serial; yields where the steps run."""
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise CribsimError(f"cribsim: cannot create {out} ({e.strerror or e})") from None
    refuse_links(out)
    lock = FolderLock(out, kind).acquire()
    embedded = False
    try:
        if not where.serial:
            workers, embedded = init_ray(where.workers, where.address)
            where = Where(False, workers, where.address)
        yield where
    finally:
        if embedded:
            shutdown()
        lock.release()


def step_folder(out: Path, label: str) -> Path:
    """``out/steps``, made if need be, after checking (again: a study runs for hours) that no
    link has appeared in the study's folder, the step's own folder included."""
    refuse_links(out)
    steps = out / "steps"
    steps.mkdir(exist_ok=True)
    if (steps / label).is_symlink():  # (the check above saw it too, unless it appeared just now)
        raise LinkRefused(link_message(steps / label))
    return steps


def play(t: Tune, out: Path, label: str, values: dict[str, Any], matches: int, seed: int, where: Where,
         report: bool = False) -> list[Any]:
    """Run one experiment of the tuned strategy (``values``) against the opponent into
    ``out/steps/label`` (resumed if it was stopped); its match records."""
    steps = step_folder(out, label)
    cfg = steps / f"{label}.yaml"
    text = _experiment_yaml(t, label, values, matches, seed)
    if not cfg.exists() or cfg.read_text() != text:
        atomic_write(cfg, text)
    exp = load_experiment(cfg, need_matches=True)
    manifest = run_experiment(exp, steps / label, workers=where.workers, address=where.address,
                              serial=where.serial, progress=False, report=report, quiet=True)
    return fld.scan_records(steps / label / fld.RECORDS, fld.schedule_of(manifest)).records


def scores(records: Sequence[Any]) -> tuple[float, float, float, int, int]:
    """The tuned entry's (entry 0) score with its paired 95% interval (by seat-swapped pair),
    the matches and the pairs."""
    by_pair: dict[tuple[int, int, int], list[float]] = defaultdict(list)
    for m in records:
        side = m.sides.index(0)
        s = 0.5 if m.winner < 0 else 1.0 if m.winner == side else 0.0
        by_pair[(m.variant, m.table, m.group)].append(s)
    units = [sum(v) / len(v) for v in by_pair.values()]
    if not units:
        raise CribsimError("cribsim: a tune step played no matches")
    mean, lo, hi = mean_ci(units) if len(units) > 1 else (units[0], 0.0, 1.0)
    return mean, lo, hi, sum(len(v) for v in by_pair.values()), len(units)


def _append(path: Path, row: dict[str, Any]) -> None:
    with open_append(path) as f:
        f.write((json.dumps(row, sort_keys=True) + "\n").encode())
        f.flush()
        os.fsync(f.fileno())


def read_trajectory(t: Tune, path: Path) -> list[dict[str, Any]]:
    """The finished iterations of an earlier run of the same config (none for a new tune)."""
    if not path.exists():
        return []
    with open_read(path) as f:
        data = f.read()
    if data and not data.endswith(b"\n"):  # a torn last line (every line is written whole): cut it
        data = data[:data.rfind(b"\n") + 1]
        with open_update(path) as f:
            f.truncate(len(data))
    rows = []
    for n, line in enumerate(data.decode(errors="replace").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError:
            row = None
        if not isinstance(row, dict):
            raise CribsimError(f"cribsim: {path}:{n}: not a trajectory line (damaged file); move it aside or "
                               "use another --out")
        rows.append(row)
    if not rows:
        return []  # empty, or only a torn header: a new tune
    if rows[0].get("format") != FORMAT:
        raise CribsimError(f"cribsim: {path} is not a cribsim tune trajectory; use another --out")
    if rows[0].get("config_hash") != t.config_hash():
        raise CribsimError(f"cribsim: {path.parent} holds a tune of another config; use another --out "
                           "(or the config it was run with)")
    for k, row in enumerate(rows[1:]):
        nxt = row.get("next")
        if row.get("iteration") != k or not isinstance(nxt, list) or len(nxt) != len(t.params) \
                or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in nxt):
            raise CribsimError(f"cribsim: {path}:{k + 2}: not iteration {k + 1} of this tune (damaged file); "
                               "move it aside or use another --out")
    return rows[1:]


def tune(t: Tune, out: Path, where: Where = Where()) -> dict[str, Any]:
    """Run (or continue) the tune; returns the final figures. Ray, when used, is started once
    for every step."""
    with study_folder(out, "tune", where) as here:
        return _tune(t, out, here)


def _tune(t: Tune, out: Path, where: Where) -> dict[str, Any]:
    path = out / "trajectory.jsonl"
    done = read_trajectory(t, path)
    if not path.exists() or path.stat().st_size == 0:
        _append(path, {"format": FORMAT, "version": 1, "config_hash": t.config_hash(), "name": t.name})
    elif done and len(done) < t.iterations:
        print(f"cribsim: resuming {t.name} after iteration {len(done)} of {t.iterations}", flush=True)
    theta = [float(r) for r in done[-1]["next"]] if done else [p.start for p in t.params]
    for k in range(len(done), t.iterations):
        ck, rk = gains(t, k)
        delta = signs(t, k)
        plus = {p.name: p.played(p.clip(v + ck * p.c * d)) for p, v, d in zip(t.params, theta, delta)}
        minus = {p.name: p.played(p.clip(v - ck * p.c * d)) for p, v, d in zip(t.params, theta, delta)}
        seed = step_seed(t, k)
        sp = scores(play(t, out, f"{k:03d}-plus", plus, t.matches, seed, where))
        sm = scores(play(t, out, f"{k:03d}-minus", minus, t.matches, seed, where))
        grad, nxt = [], []
        for p, v in zip(t.params, theta):
            moved = plus[p.name] - minus[p.name]  # as played: rounded, and clipped at a bound
            g = (sp[0] - sm[0]) / moved if moved else 0.0
            grad.append(g)
            nxt.append(p.clip(v + rk * (ck * p.c) ** 2 * g))
        row = {"iteration": k, "theta": theta, "delta": delta, "plus": plus, "minus": minus,
               "score_plus": round(sp[0], 6), "score_minus": round(sm[0], 6), "matches": sp[3] + sm[3],
               "gradient": [round(g, 6) for g in grad], "next": nxt}
        _append(path, row)
        done.append(row)
        theta = nxt
        print(f"iteration {k + 1}/{t.iterations}: " + ", ".join(f"{p.name} {v:.4g}" for p, v in zip(t.params, nxt))
              + f"  (+ {sp[0]:.3f}, - {sm[0]:.3f})", flush=True)
    final = {p.name: p.played(v) for p, v in zip(t.params, theta)}
    fs = scores(play(t, out, "final", final, t.final_matches, step_seed(t, -1), where, report=True))
    result = {"final": final, "score": fs[0], "lo": fs[1], "hi": fs[2], "matches": fs[3], "pairs": fs[4],
              "wilson": list(wilson(fs[0] * fs[3], fs[3]))}
    write_report(t, out, done, result)
    return result


def write_report(t: Tune, out: Path, rows: Sequence[dict[str, Any]], result: dict[str, Any]) -> None:
    """tune.md (the config, every iteration and the final win rate) and tune.csv."""
    from tabulate import tabulate

    names = [p.name for p in t.params]
    table = [[r["iteration"] + 1, *(f"{v:.4g}" for v in r["theta"]), f"{r['score_plus']:.3f}",
              f"{r['score_minus']:.3f}", r["matches"]] for r in rows]
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["iteration", *names, "score_plus", "score_minus", "matches"])
    w.writerows(table)
    atomic_write(out / "tune.csv", buf.getvalue())
    total = sum(r["matches"] for r in rows) + result["matches"]
    fin = ", ".join(f"{k} = {v}" for k, v in result["final"].items())
    lines = [f"# tune: {t.name}", "",
             f"`{t.strategy}` against `{t.opponent['strategy']}` {t.opponent.get('params') or ''} on `{t.variant}`, "
             f"SPSA, {t.iterations} iterations of 2 x {t.matches} paired matches, r = {t.r:g}; seed {t.seed}; "
             f"config {t.config_hash()}; {total} matches in all.", "",
             "Parameters (start, bounds, perturbation c): " + "; ".join(
                 f"{p.name} {p.start:g} [{p.lo:g}, {p.hi:g}] c {p.c:g}" for p in t.params)
             + (f"; held fixed: {t.fixed}" if t.fixed else ""), "",
             "## Trajectory (theta at the start of each iteration, the scores at theta + and - c_k Delta)", "",
             tabulate(table, headers=["iteration", *names, "score +", "score -", "matches"], tablefmt="github"), "",
             "## Final", "",
             f"{fin}: win rate against the opponent {result['score']:.3f} "
             f"[{result['lo']:.3f}, {result['hi']:.3f}] (95%, by seat-swapped pair; {result['matches']} matches, "
             f"{result['pairs']} pairs; Wilson over matches [{result['wilson'][1]:.3f}, {result['wilson'][2]:.3f}]).",
             "The final matches are in `steps/final/` with their summary.", ""]
    atomic_write(out / "tune.md", "\n".join(lines))
