"""The manifest of a results folder, as a typed record, and the run log beside it.

``manifest.json`` says what was run and how it ended: the config's hash and seed, the rules of
every variant as data, the lineup, the tables, what the report needs to know of each variant's
game (:class:`VariantInfo`), the sequential test, the status, the matches played and every file
cribsim wrote there. It holds nothing that depends on the machine, the clock or how the run was
started, so the same config and seed write the same bytes anywhere, and a committed results
folder stays unchanged when its experiment is run again.

Everything else about a run (when each session started and ended, the machine, the Python, the
engine lane, the workers and nodes, the commit, the config's path) goes to ``run.json``, a log
of sessions appended to by every run and resume, which is never committed (see .gitignore)."""

from __future__ import annotations

import contextlib
import datetime
import json
import platform
import subprocess
import sys
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeGuard

from .. import __version__
from ..game import JSON
from ..names import check_name
from ..records import Column
from .atomic import write_json

MANIFEST = "manifest.json"
RUN_LOG = "run.json"
# what older manifests held about the machine and the clock: read and dropped
VOLATILE = ("config", "git_commit", "workers", "mode", "python", "engine", "started", "ended", "nodes", "resumed")
STATUSES = ("running", "complete", "stopped by the SPRT", "interrupted", "failed")


class ManifestError(ValueError):
    """A manifest of the wrong shape: the message says what is wrong."""


@dataclass(frozen=True)
class VariantInfo:
    """What the report needs to know of a variant's game, written by the game (``summary_info``):
    the number of sides, the objective (-1: lower scores rank higher), the target, the seats,
    the score checkpoints per deal in a game's trail, and the summary columns."""

    sides: int
    objective: int
    columns: tuple[Column, ...]
    target: float | None = None  # (manifests of older runs have none)
    players: int | None = None
    checkpoints: int = 2

    def to_json(self) -> dict[str, JSON]:
        d: dict[str, JSON] = {"sides": self.sides, "objective": self.objective,
                              "columns": [c.to_json() for c in self.columns], "checkpoints": self.checkpoints}
        if self.target is not None:
            d["target"] = self.target
        if self.players is not None:
            d["players"] = self.players
        return d

    @classmethod
    def from_json(cls, d: Mapping[str, JSON]) -> VariantInfo:
        return cls(sides=int(d["sides"]), objective=int(d.get("objective", 1)),
                   columns=tuple(Column.from_json(c) for c in d.get("columns", ())), target=d.get("target"),
                   players=d.get("players"), checkpoints=int(d.get("checkpoints", 2)))


@dataclass(frozen=True)
class Stop:
    """The sequential test (``stop: {sprt: ...}``): ``elo`` on each two-entry table, or
    ``first_dealer`` for each variant against the ``baseline`` variant; the bounds as scores."""

    test: str
    mu0: float
    mu1: float
    alpha: float
    beta: float
    baseline: int = -1
    settings: dict[str, JSON] = field(default_factory=dict)

    def to_json(self) -> dict[str, JSON]:
        return {"test": self.test, "mu0": self.mu0, "mu1": self.mu1, "alpha": self.alpha, "beta": self.beta,
                "baseline": self.baseline, "settings": dict(self.settings)}

    @classmethod
    def from_json(cls, d: Mapping[str, JSON]) -> Stop:
        return cls(str(d["test"]), float(d["mu0"]), float(d["mu1"]), float(d["alpha"]), float(d["beta"]),
                   int(d.get("baseline", -1)), dict(d.get("settings") or {}))


@dataclass(frozen=True)
class Program:
    """A program bot as run: its command, the files it is shown (relative to its folder, as the
    config gives them or as found) and the hash of their contents
    (:func:`cribsim.tournament.programs.shown_sha256`), so a results folder says which program
    made it."""

    command: list[str]
    files: list[str]
    sha256: str

    def to_json(self) -> dict[str, JSON]:
        return {"command": list(self.command), "files": list(self.files), "sha256": self.sha256}

    @classmethod
    def from_json(cls, d: JSON) -> Program | None:
        if not isinstance(d, dict):
            return None
        return cls([str(a) for a in d.get("command") or []], [str(f) for f in d.get("files") or []],
                   str(d.get("sha256", "")))


@dataclass(frozen=True)
class LineupEntry:
    """A lineup entry as run: its name, strategy, parameters, counting model (if not perfect)
    and, for a program bot, the program (:class:`Program`)."""

    name: str
    strategy: str
    params: dict[str, JSON] = field(default_factory=dict)
    miss_rate: float | None = None
    vigilance: float | None = None
    program: Program | None = None

    def to_json(self) -> dict[str, JSON]:
        d: dict[str, JSON] = {"name": self.name, "strategy": self.strategy, "params": dict(self.params)}
        if self.miss_rate is not None:
            d["miss_rate"], d["vigilance"] = self.miss_rate, self.vigilance
        if self.program is not None:
            d["program"] = self.program.to_json()
        return d

    @classmethod
    def from_json(cls, d: Mapping[str, JSON]) -> LineupEntry:
        return cls(str(d["name"]), str(d.get("strategy", "")), dict(d.get("params") or {}), d.get("miss_rate"),
                   d.get("vigilance"), Program.from_json(d.get("program")))


@dataclass(frozen=True)
class SweepRecord:
    """One sweep of ``sweep:``: the knobs moved, and each point's variant, base, values and
    whether it is its base's own rules (the baseline of ``cribsim compare``)."""

    knobs: list[str]
    points: list[dict[str, JSON]]  # {"variant", "base", "values", "is_base"}, in the variants' order

    def to_json(self) -> dict[str, JSON]:
        return {"knobs": self.knobs, "points": self.points}

    @classmethod
    def from_json(cls, d: Mapping[str, JSON]) -> SweepRecord:
        knobs, points = d["knobs"], d["points"]
        if not (isinstance(knobs, list) and all(isinstance(k, str) for k in knobs) and isinstance(points, list)
                and all(isinstance(p, dict) and isinstance(p.get("values"), list) and len(p["values"]) == len(knobs)
                        for p in points)):
            raise ValueError("sweep is not a list of points with a value for each knob")
        return cls(list(knobs), list(points))


@dataclass
class Manifest:
    """One run's manifest (see the module doc). ``variants`` are the rules as data (each with its
    ``name``); ``tables[v]`` lists the tables of variant ``v``, each the lineup entries at its
    sides; ``per_group[v]`` is the matches of a paired group."""

    name: str
    config_hash: str
    seed: int
    variants: list[dict[str, JSON]]
    lineup: list[LineupEntry]
    tables: list[list[list[int]]]
    matches: int
    paired: bool
    per_group: list[int]
    time_limit: float
    variant_info: list[VariantInfo]
    stop: Stop | None = None
    files: list[str] = field(default_factory=list)
    status: str = "running"
    played: int = 0
    error: str | None = None
    record: JSON = None  # record: as configured (None: no game records)
    deals: str | None = None  # the deal book, as the config names it
    start: list[dict[str, JSON]] | None = None  # start positions
    sweeps: list[SweepRecord] = field(default_factory=list)  # the sweeps (``sweep:``) and their points
    # what built-in strategies say of how they play a variant ({variant: {entry: [notes]}}): the
    # tables they built for its scoring or left out
    notes: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    # where a variant changes what a built-in strategy values without its knowing ({variant:
    # {entry: [lines]}}: cribsim.strategy.unmodelled): its table describes misinformed play
    unmodelled: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    deal_secret: str | None = None  # a run with untrusted bots: the commitment of its deal secret
    cribsim_version: str = __version__
    record_schema: int = 2
    legacy: dict[str, JSON] = field(default_factory=dict, compare=False)  # an older manifest's machine fields

    @property
    def variant_names(self) -> list[str]:
        return [str(v["name"]) for v in self.variants]

    @property
    def entry_names(self) -> list[str]:
        return [e.name for e in self.lineup]

    def to_json(self) -> dict[str, JSON]:
        d: dict[str, JSON] = {
            "name": self.name, "cribsim_version": self.cribsim_version, "config_hash": self.config_hash,
            "seed": self.seed, "variants": self.variants, "lineup": [e.to_json() for e in self.lineup],
            "tables": self.tables, "matches": self.matches, "paired": self.paired, "per_group": self.per_group,
            "time_limit": self.time_limit, "record_schema": self.record_schema,
            "variant_info": [i.to_json() for i in self.variant_info],
            "stop": None if self.stop is None else self.stop.to_json(),
            "status": self.status, "played": self.played, "files": sorted(self.files)}
        for key in ("error", "record", "deals", "start", "deal_secret"):
            if getattr(self, key) is not None:
                d[key] = getattr(self, key)
        if self.sweeps:
            d["sweep"] = [s.to_json() for s in self.sweeps]
        if self.notes:
            d["strategy_notes"] = self.notes
        if self.unmodelled:
            d["unmodelled"] = self.unmodelled
        return d

    @classmethod
    def from_json(cls, m: Mapping[str, JSON]) -> Manifest:
        """A manifest from its JSON, checked (ManifestError says what is wrong); the machine
        fields of older manifests are dropped."""
        problem = _problem(m)
        if problem:
            raise ManifestError(problem)
        try:
            return cls(name=m["name"], config_hash=m["config_hash"], seed=m["seed"], variants=list(m["variants"]),
                       lineup=[LineupEntry.from_json(e) for e in m["lineup"]], tables=m["tables"],
                       matches=int(m.get("matches", 0)), paired=m["paired"], per_group=m["per_group"],
                       time_limit=float(m.get("time_limit", 10)),
                       variant_info=[VariantInfo.from_json(i) for i in m["variant_info"]],
                       stop=None if m.get("stop") is None else Stop.from_json(m["stop"]),
                       files=list(m.get("files", [])), status=str(m.get("status", "running")),
                       played=int(m.get("played", 0)), error=m.get("error"), record=m.get("record"),
                       deals=m.get("deals"), start=m.get("start"),
                       sweeps=[SweepRecord.from_json(s) for s in m.get("sweep") or []],
                       notes=dict(m.get("strategy_notes") or {}),
                       unmodelled=dict(m.get("unmodelled") or {}),
                       deal_secret=_text_or_none(m.get("deal_secret")),
                       cribsim_version=str(m.get("cribsim_version", __version__)),
                       record_schema=int(m.get("record_schema", 2)),
                       legacy={k: m[k] for k in VOLATILE if k in m})
        except (KeyError, TypeError, ValueError) as e:
            raise ManifestError(f"a field is missing or of the wrong type ({e})") from None

    def write(self, folder: Path) -> None:
        write_json(folder / MANIFEST, self.to_json())


def _text_or_none(v: JSON) -> str | None:
    if v is not None and not isinstance(v, str):
        raise ValueError("deal_secret is not text")
    return v


def _problem(m: Mapping[str, JSON]) -> str | None:
    """What is wrong with a manifest's shape (None if nothing): the parts the runner and the
    report rely on, and every name that becomes a file name."""
    def ints(x: JSON) -> TypeGuard[list[int]]:
        return isinstance(x, list) and all(isinstance(i, int) and not isinstance(i, bool) for i in x)

    if check_name(m.get("name")):
        return f"name: {check_name(m.get('name'))}"
    if not isinstance(m.get("config_hash"), str):
        return "config_hash is not text"
    if not isinstance(m.get("seed"), int) or isinstance(m.get("seed"), bool):
        return "seed is not a whole number"
    if not isinstance(m.get("paired"), bool):
        return "paired is not true or false"
    variants, lineup, tables = m.get("variants"), m.get("lineup"), m.get("tables")
    if not isinstance(variants, list) or not variants or not all(isinstance(v, dict) for v in variants):
        return "variants is not a list of rules"
    for i, v in enumerate(variants):
        if check_name(v.get("name"), variant=True):
            return f"variants[{i}].name: {check_name(v.get('name'), variant=True)}"
        sides = v.get("sides")
        if not isinstance(sides, list) or len(sides) < 2 or not all(ints(s) and s for s in sides):
            return f"variants[{i}].sides is not a list of seat lists"
    if not isinstance(lineup, list) or not lineup or not all(isinstance(e, dict) and isinstance(e.get("name"), str)
                                                             for e in lineup):
        return "lineup is not a list of named entries"
    if not isinstance(tables, list) or len(tables) != len(variants):
        return "tables does not match the variants"
    for i, ts in enumerate(tables):
        if not isinstance(ts, list) or not all(ints(t) and all(0 <= x < len(lineup) for x in t) for t in ts):
            return f"tables[{i}] is not a list of tables of lineup entries"
    per = m.get("per_group")
    if not ints(per) or len(per) != len(variants) or any(p < 1 for p in per):
        return "per_group does not match the variants"
    info = m.get("variant_info")
    if not isinstance(info, list) or len(info) != len(variants) or not all(
            isinstance(i, dict) and isinstance(i.get("sides"), int) and isinstance(i.get("columns", []), list)
            for i in info):
        return "variant_info does not match the variants"
    stop = m.get("stop")
    if stop is not None and (not isinstance(stop, dict) or stop.get("test") not in ("elo", "first_dealer")):
        return "stop is not an SPRT setting"
    files = m.get("files", [])
    if not isinstance(files, list) or not all(isinstance(f, str) for f in files):
        return "files is not a list of file names"
    return None


# ---- the run log ---------------------------------------------------------------------------------

def now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def _git_commit() -> str | None:
    root = Path(__file__).resolve().parents[2]
    try:
        r = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5)
        return r.stdout.strip() or None if r.returncode == 0 else None
    except (OSError, subprocess.SubprocessError):
        return None


@dataclass
class Session:
    """One invocation that played into a folder (a run, or a resume): for ``run.json`` only."""

    config: str
    mode: str
    id: str = field(default_factory=lambda: uuid.uuid4().hex[:12])  # which entry of the log is this session's
    started: str = field(default_factory=now)
    ended: str | None = None
    status: str = "running"
    workers: int | None = None
    nodes: list[str] = field(default_factory=list)
    cluster: dict[str, JSON] | None = None  # a Ray cluster joined: its address, how asked, nodes, CPUs
    # how the matches went out: batches written, their sizes (smallest, median, largest), the
    # batches in flight per worker (timing decides the sizes, so this is the log's, not the manifest's)
    batches: dict[str, int] | None = None
    peak_rss_mb: float | None = None  # the driver's peak resident memory while it played (before its report)
    ray_start_s: float | None = None  # seconds Ray took to start (or to be joined), a run on Ray
    driver_busy: float | None = None  # the driver's share of the run's time not spent waiting on its workers
    chosen: str | None = None  # why the run played serially though no --serial was given
    played: int = 0
    host: str = field(default_factory=platform.node)
    python: str = field(default_factory=lambda: sys.version.split()[0])
    engine: str = "pure Python"  # the Python engine's lane; the runner adds the native lane's share
    git_commit: str | None = field(default_factory=_git_commit)
    cribsim_version: str = __version__

    def to_json(self) -> dict[str, JSON]:
        return dict(self.__dict__)


LOG_FORMAT = "cribsim-run-log"


def read_sessions(folder: Path) -> list[dict[str, JSON]] | None:
    """The sessions of the folder's run log ([] if it has none yet); None if ``run.json`` is
    there but is not cribsim's (a link, or a file of someone else's): it is never written."""
    path = folder / RUN_LOG
    if path.is_symlink() or (path.exists() and not path.is_file()):
        return None
    if not path.exists():
        return []
    try:
        log = json.loads(path.read_text())
    except (OSError, ValueError):
        return []  # damaged (a torn write of ours): started again
    if not isinstance(log, dict) or log.get("format") != LOG_FORMAT:
        return None
    sessions = log.get("sessions")
    return [s for s in sessions if isinstance(s, dict)] if isinstance(sessions, list) else []


def log_session(folder: Path, session: Session | dict[str, JSON]) -> None:
    """Add (or, for the session already last in the log, update) ``session`` in ``run.json``.
    The log is cribsim's own bookkeeping, never what a run depends on: a damaged one is started
    again, one that is not cribsim's is left alone, and one that cannot be written (a full
    disk) is left as it was."""
    sessions = read_sessions(folder)
    if sessions is None:
        return
    entry = session.to_json() if isinstance(session, Session) else dict(session)
    if sessions and sessions[-1].get("id") == entry.get("id"):
        sessions[-1] = entry
    else:
        sessions.append(entry)
    with contextlib.suppress(OSError):
        write_json(folder / RUN_LOG, {"format": LOG_FORMAT, "sessions": sessions[-1000:]})


def end_running_session(folder: Path, status: str, played: int) -> None:
    """The last session, left running by a process that died: ended now, with ``status``."""
    sessions = read_sessions(folder)
    if sessions and sessions[-1].get("status") == "running":
        log_session(folder, {**sessions[-1], "status": status, "ended": now(), "played": played})


def legacy_session(manifest: Manifest) -> dict[str, JSON] | None:
    """The session an older manifest recorded in itself (its start and end, machine, workers),
    for the run log of a folder that has none."""
    old = manifest.legacy
    if not old:
        return None
    return {"id": "legacy", "config": old.get("config"), "mode": old.get("mode"), "started": old.get("started"),
            "ended": old.get("ended"), "status": manifest.status, "workers": old.get("workers"),
            "nodes": old.get("nodes", []), "played": manifest.played, "python": old.get("python"),
            "engine": old.get("engine"), "git_commit": old.get("git_commit"),
            "cribsim_version": manifest.cribsim_version}


def first_started(folder: Path) -> str | None:
    """When the folder's first logged session started (None: no log)."""
    try:
        log = json.loads((folder / RUN_LOG).read_text())
        return str(log["sessions"][0]["started"])
    except (OSError, ValueError, KeyError, IndexError, TypeError):
        return None
