"""``cribsim run`` (play an experiment, supervised when it runs on Ray) and ``cribsim report``
(rebuild a results folder's summary)."""

from __future__ import annotations

import argparse
import ctypes
import os
import signal
import site
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import CribsimError, Interrupted, RunFailed
from ..names import check_name
from ..presets import experiment_names, find_experiment
from ..suggest import did_you_mean
from ..tournament.analysis import read_results
from ..tournament.config import load_experiment
from ..tournament.manifest import first_started
from ..tournament.pgn import write_pgn
from ..tournament.raycluster import RAY_LOG
from ..tournament.report import write_report
from ..tournament.runner import check_out, record_abrupt_end, run_experiment
from ..tournament.secret import SECRET_FILE, read_secret
from ..tournament.upgrade import upgrade
from .args import seed_arg

if TYPE_CHECKING:
    from ..tournament.config import Experiment

MAX_WORKERS = 4096
SUPERVISED = "CRIBSIM_SUPERVISED_FD"
SUPERVISOR = "CRIBSIM_SUPERVISOR_PID"
FINISHED_MARK = "--- cribsim: the run finished; what follows its process wrote after that ---\n"


def experiment_path(ref: str) -> str:
    """An experiment config given as a path, or by the name of an example (``quickstart``):
    ``configs/`` and ``configs/experiments/`` here, then those shipped with cribsim."""
    if os.path.exists(ref) or "/" in ref or ref.endswith((".yaml", ".yml")) or check_name(ref) is not None:
        return ref
    found = find_experiment(ref)
    if found is None:
        raise CribsimError(f"cribsim run: no experiment file or example named {ref!r}"
                           f"{did_you_mean(ref, experiment_names())} (cribsim list shows the examples)")
    return str(found)


def add_commands(sub: Any) -> None:
    r = sub.add_parser("run", help="run an experiment (matches in parallel on Ray) and report",
                       description="Play every match of an experiment config and write results/<name>/: "
                                   "manifest.json, matches.jsonl.gz (appended as results arrive), summary tables "
                                   "(Markdown, CSV) and plots. Starts an embedded local Ray unless --address "
                                   "or RAY_ADDRESS names a cluster.")
    r.add_argument("config", help="an experiment YAML file, or the name of an example (cribsim run quickstart; "
                                  "cribsim list shows them)")
    r.add_argument("--workers", type=int, help="parallel workers (default: all cores, or the cluster's CPUs)")
    r.add_argument("--address", help="join an existing Ray cluster (default: $RAY_ADDRESS, else start one)")
    r.add_argument("--serial", action="store_true", help="no Ray: play in this process (for debugging)")
    r.add_argument("--seed", type=seed_arg, help="override the config's seed (0..2**63-1)")
    r.add_argument("--out", help="results folder (default results/<name>)")
    r.add_argument("--resume", action="store_true",
                   help="continue an interrupted run in the same folder (also the default for an unchanged config)")
    r.add_argument("--fresh", action="store_true",
                   help="discard an earlier run in the folder (only the files its manifest lists)")
    r.add_argument("--quiet", action="store_true", help="no progress bar, no tables on the terminal")
    r.add_argument("--deal-secret", metavar="FOLDER",
                   help="deal with the secret kept in FOLDER (a results folder, or a folder holding a copy of "
                        "its deal-secret file), to play the same decks as that run")
    r.add_argument("--no-fast", dest="fast", action="store_false",
                   help="play every match in the Python engine, even where a faster lane (the native lane) "
                        "plays the same games")
    r.set_defaults(func=cmd_run)

    rp = sub.add_parser("report", help="rebuild every summary table and plot from a results folder")
    rp.add_argument("dir", help="a results folder, e.g. results/quickstart")
    rp.add_argument("--quiet", action="store_true", help="write the files only")
    rp.add_argument("--pgn", metavar="FILE", help="also write every match as a PGN header block (for Ordo, BayesElo)")
    rp.set_defaults(func=cmd_report)

    up = sub.add_parser("upgrade", help="convert a results folder an older cribsim wrote (matches.jsonl) to this "
                        "one's records (matches.jsonl.gz)")
    up.add_argument("dirs", nargs="+", metavar="dir", help="a results folder, e.g. results/quickstart")
    up.set_defaults(func=cmd_upgrade)


def cmd_run(args: argparse.Namespace) -> int:
    if args.fresh and args.resume:
        raise CribsimError("cribsim run: --fresh discards an earlier run and --resume continues it; give one of them")
    if args.serial and (args.workers is not None or args.address):
        raise CribsimError(f"cribsim run: --serial plays in this process; it takes no "
                           f"{'--workers' if args.workers is not None else '--address'}")
    if args.workers is not None and not 1 <= args.workers <= MAX_WORKERS:
        raise CribsimError(f"cribsim run: --workers must be 1..{MAX_WORKERS}, got {args.workers}")
    if args.out is not None and (not args.out or "\0" in args.out):
        raise CribsimError("cribsim run: --out needs a folder name")
    args.config = experiment_path(args.config)
    exp = load_experiment(args.config, seed=args.seed, need_matches=True)  # validates everything before writing
    if args.deal_secret is not None:
        read_secret_arg(args.deal_secret)
    if not args.serial and SUPERVISED not in os.environ:
        return _supervise(args, exp)
    if SUPERVISOR in os.environ:
        _tie_to_supervisor(os.environ.pop(SUPERVISOR))
    run_experiment(exp, out_dir=args.out, workers=args.workers, address=args.address, serial=args.serial,
                   resume=args.resume, fresh=args.fresh, quiet=args.quiet, deal_secret=args.deal_secret,
                   fast=args.fast)
    return 0


def read_secret_arg(folder: str) -> None:
    """``--deal-secret FOLDER`` checked before anything is written."""
    if not Path(folder).is_dir():
        raise CribsimError(f"cribsim run: --deal-secret: {folder} is not a folder")
    if read_secret(Path(folder)) is None:
        raise CribsimError(f"cribsim run: --deal-secret: {folder} holds no {SECRET_FILE} file")



def _supervise(args: argparse.Namespace, exp: Experiment) -> int:
    """Ray's core ends the driver process at once (no Python cleanup, its own messages, exit 1)
    when a raylet dies. So a Ray run plays in a child process and this one waits: when the
    child ends without saying it finished (a byte on a pipe, written by :func:`main`), the
    manifest is marked failed and the reason is one line here."""
    out = Path(args.out) if args.out else Path("results") / exp.name
    check_out(exp, out, args.resume, args.fresh)  # refuse a folder here, before a child starts
    cmd = [sys.executable, "-m", "cribsim", "run", str(args.config)]
    for flag, value in (("--workers", args.workers), ("--address", args.address), ("--seed", args.seed),
                        ("--out", args.out), ("--deal-secret", args.deal_secret)):
        if value is not None:
            cmd += [flag, str(value)]
    cmd += [flag for flag, on in (("--resume", args.resume), ("--fresh", args.fresh), ("--quiet", args.quiet),
                                  ("--no-fast", not args.fast)) if on]
    read_end, write_end = os.pipe()
    root = str(Path(__file__).resolve().parents[2])
    log_fd, log = tempfile.mkstemp(prefix="cribsim-ray-", suffix=".log")
    os.close(log_fd)
    env = dict(os.environ, **{SUPERVISED: str(write_end), RAY_LOG: log, SUPERVISOR: str(os.getpid())})
    if not any(os.path.samefile(root, p) for p in _site_dirs()):  # a checkout: the child imports this copy
        env["PYTHONPATH"] = os.pathsep.join(p for p in [root, env.get("PYTHONPATH", "")] if p)
    streams: dict[str, Any] = {}
    for name, fd in (("stdout", 1), ("stderr", 2)):
        try:
            own = getattr(sys, name).fileno() == fd
        except (AttributeError, OSError, ValueError):
            own = False
        streams[name] = None if own else subprocess.PIPE  # captured (a test): relayed below
    old = {sig: signal.signal(sig, signal.SIG_IGN) for sig in (signal.SIGINT,)}  # Ctrl-C is the child's
    try:
        child = subprocess.Popen(cmd, env=env, pass_fds=(write_end,), **streams)
        os.close(write_end)
        forward = {sig: signal.signal(sig, lambda n, f: child.send_signal(n))
                   for sig in (signal.SIGTERM, signal.SIGHUP)}
        try:
            got_out, got_err = child.communicate()
        finally:
            for sig, handler in forward.items():
                signal.signal(sig, handler)
        said = os.read(read_end, 1)
    finally:
        os.close(read_end)
        for sig, handler in old.items():
            signal.signal(sig, handler)
    for name, data in (("stdout", got_out), ("stderr", got_err)):
        if data and getattr(sys, name) is not None:  # (None: started with that descriptor closed)
            getattr(sys, name).write(data.decode("utf-8", "replace"))
    if said:
        return _finished_code(said[0], child.returncode, log)
    code = child.returncode
    how = f"was killed by signal {-code}" if code < 0 else f"ended abruptly (exit code {code})"
    reason = (f"the run's process {how}; Ray ends its driver this way when a raylet (a node) dies or the "
              "cluster goes away")
    played = record_abrupt_end(out, reason)
    saved = f"; {played:,} matches saved in {out} (continue with --resume)" if played is not None else ""
    if _nonempty(log):
        saved += f" (Ray's own messages: {log})"
    else:
        _remove(log)
    raise RunFailed(f"cribsim: run failed: {reason}{saved}")


def _finished_code(own: int, ended: int, log: str) -> int:
    """The exit code of a run whose process said it finished with ``own`` (its one line, if
    any, said) and ended with ``ended``: its own. What the process wrote after it finished
    (after :data:`FINISHED_MARK` in the log: Ray's core ending it when the cluster went away as
    the run finished, an exit handler's traceback) is named in one note, the log kept. Else the
    log is kept only where a failed run's message points at it."""
    during, _, after = _read(log).partition(FINISHED_MARK)
    how = f"was killed by signal {-ended}" if ended < 0 else f"ended with exit code {ended}"
    if ended != own or after.strip():
        print(f"cribsim: note: the run finished, and its process then {how}"
              f"{' (Ray ends its driver so when the cluster goes away)' if ended != own else ''}; what it wrote "
              f"after finishing: {log}", file=sys.stderr, flush=True)
    elif own != 1 or not during.strip():
        _remove(log)
    return own


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def _tie_to_supervisor(pid: str) -> None:
    """In the run's process: when the supervising ``cribsim run`` dies, however (a SIGKILL, a
    closed terminal), this run stops as on Ctrl-C (Linux: ``PR_SET_PDEATHSIG`` sends SIGINT):
    the results in hand are written, the manifest says interrupted, Ray shuts down and the
    folder's lock is freed, so ``--resume`` can follow at once."""
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGINT, 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if str(os.getppid()) != pid:  # it died before the tie was made
        raise Interrupted("cribsim: interrupted (the supervising cribsim run ended); nothing was written")


def _site_dirs() -> list[str]:
    dirs = list(getattr(site, "getsitepackages", lambda: [])()) + [site.getusersitepackages()]
    return [d for d in dirs if os.path.isdir(d)]


def _nonempty(path: str) -> bool:
    try:
        return os.path.getsize(path) > 0
    except OSError:
        return False


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def cmd_upgrade(args: argparse.Namespace) -> int:
    for d in args.dirs:
        print(upgrade(d))
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    write_report(args.dir, quiet=args.quiet)
    if args.pgn is not None:
        manifest, records = read_results(args.dir)
        n = write_pgn(manifest, records, args.pgn, first_started(Path(args.dir)))
        print(f"wrote {n:,} games to {args.pgn}", file=sys.stderr)
    return 0
