"""Bots from anywhere, and the sandbox: programs in C and JavaScript play tournaments over the
player protocol (serially and on Ray, the same tables) and a narrated game; a corpus of hostile
bots, as Python plug-ins and as programs, neither gains nor harms; a run with untrusted bots
deals with a secret and resumes and replays exactly from its folder."""

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cribsim.cli.main import main
from cribsim.errors import ConfigError, RunFailed
from cribsim.games.cribbage.cards import card_str
from cribsim.isolation import sandbox
from cribsim.tournament.config import load_experiment
from cribsim.tournament.runner import run_experiment
from tests.kernel.matchfile import match_dicts, match_lines, write_matches
from tests.kernel.protocol_players import script

ROOT = Path(__file__).resolve().parents[2]
BOTS = ROOT / "examples" / "bots"
HOSTILE = Path(__file__).parent / "hostile"
PLUGINS = "tests.kernel.hostile_plugins"

needs_sandbox = pytest.mark.skipif(sandbox.unavailable() is not None or not sys.platform.startswith("linux"),
                                   reason=f"no sandbox here: {sandbox.unavailable()}")
needs_cc = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler (cc) on this machine")
needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="no Node.js on this machine")


def _perl_json() -> bool:
    """Whether Perl and its core JSON::PP (Debian: perl-modules, beside the bare perl-base) are here."""
    return shutil.which("perl") is not None and subprocess.run(["perl", "-MJSON::PP", "-e", "1"],
                                                               capture_output=True).returncode == 0


needs_perl = pytest.mark.skipif(not _perl_json(), reason="no Perl with its core module JSON::PP on this machine")


def records(folder):
    return match_dicts(folder)


def tables(folder):
    return {p.name: p.read_bytes() for p in sorted(Path(folder).glob("*.csv"))}


def rate(folder, entry, against):
    """Entry's wins and matches against another entry, from the records."""
    wins = n = 0
    m = json.loads((Path(folder) / "manifest.json").read_text())
    names = [e["name"] for e in m["lineup"]]
    i, j = names.index(entry), names.index(against)
    for r in records(folder):
        if sorted(r["sides"]) == sorted([i, j]):
            n += 1
            wins += r["sides"][r["winner"]] == i if r["winner"] >= 0 else 0
    return wins, n


def wilson(wins, n, z=1.96):
    p = wins / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * ((p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5) / d
    return c - h, c + h


@pytest.fixture
def bots(tmp_path):
    """examples/bots with the C bot built by this test."""
    folder = tmp_path / "bots"
    folder.mkdir()
    for name in ("lowcard.c", "firstcard.js"):
        shutil.copy(BOTS / name, folder / name)
    if shutil.which("cc"):
        subprocess.run(["cc", "-O2", "-o", str(folder / "lowcard"), str(folder / "lowcard.c")], check=True)
    return folder


PROGRAMS = """\
name: programs
variants: [standard, five_card]
lineup:
  - {name: lowcard, command: [./lowcard], cwd: bots}
  - {name: firstcard, command: [node, firstcard.js], cwd: bots}
  - {strategy: greedy}
matches: 6
seed: 5
time_limit: 5
"""


@needs_sandbox
@needs_cc
@needs_node
def test_a_c_bot_and_a_script_bot_play_serially_and_on_ray_with_the_same_tables(tmp_path, bots, ray_cluster):
    cfg = tmp_path / "exp.yaml"
    cfg.write_text(PROGRAMS)
    exp = load_experiment(cfg)
    assert exp.plugins[0]["name"] == "lowcard" and exp.plugins[1]["variants"] == []
    run_experiment(exp, tmp_path / "ray", workers=2, quiet=True, batch_seconds=0.05)
    run_experiment(exp, tmp_path / "serial", serial=True, quiet=True, deal_secret=tmp_path / "ray")
    assert tables(tmp_path / "ray") == tables(tmp_path / "serial")
    recs = records(tmp_path / "serial")
    assert len(recs) == 2 * 3 * 6 and not any(r["forfeit"] for r in recs)
    assert (tmp_path / "ray" / "deal-secret").stat().st_mode & 0o777 == 0o600


@needs_sandbox
@needs_cc
@needs_node
def test_programs_play_a_narrated_game(tmp_path, bots, capsys):
    code = main(["play", "--bot", str(bots / "lowcard"), "--bot", f"node {bots / 'firstcard.js'}", "--seed", "3"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "wins" in out and "Rules: standard" in out


@needs_sandbox
@needs_node
def test_a_bot_refuses_the_variants_it_does_not_know_before_anything_is_written(tmp_path, bots):
    cfg = tmp_path / "exp.yaml"
    cfg.write_text("name: x\nvariants: [standard, muggins]\nlineup:\n"
                   "  - {name: firstcard, command: [node, firstcard.js], cwd: bots}\n  - greedy\nmatches: 2\n")
    with pytest.raises(ConfigError, match=r"bot 'firstcard' cannot play muggins: it does not know the variant "
                                          r"muggins \(it knows none\)"):
        load_experiment(cfg)


PERL = """\
name: perl
variants: [standard, three_player]
lineup:
  - {name: fifteens, command: [perl, fifteens.pl], cwd: bots}
  - random
  - greedy
matches: 10
seed: 8
time_limit: 5
"""


@needs_sandbox
@needs_perl
def test_the_perl_bot_plays_a_tournament_in_its_sandbox(tmp_path):
    """examples/bots/fifteens.pl, a bot in a third language, plays every match of a run in its
    sandbox (shown /usr, where perl and JSON::PP are, and its own file) without a fault, and
    beats random."""
    (tmp_path / "bots").mkdir()
    shutil.copy(BOTS / "fifteens.pl", tmp_path / "bots")
    cfg = tmp_path / "exp.yaml"
    cfg.write_text(PERL)
    exp = load_experiment(cfg)
    assert exp.plugins[0]["name"] == "fifteens" and exp.plugins[0]["variants"] == []
    run_experiment(exp, tmp_path / "out", serial=True, quiet=True)
    recs = records(tmp_path / "out")
    assert len(recs) > 30 and not any(r["forfeit"] for r in recs)
    wins, n = rate(tmp_path / "out", "fifteens", "random")
    assert wins >= 0.75 * n, (wins, n)


@needs_sandbox
def test_the_example_exchange_in_the_bot_authors_guide_is_the_real_one(tmp_path):
    """The bot author's guide's short exchange, hello to result, is what the engine and a
    recording bot say."""
    text = (ROOT / "docs" / "guide-bot-authors.md").read_text()
    block = re.search(r"<!-- exchange -->\n```\n(.*?)```", text, re.S).group(1)
    shown = [line for line in block.splitlines() if line.startswith(("> ", "< "))]
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "record.py").write_text(RECORDER)
    cfg = tmp_path / "exp.yaml"
    cfg.write_text("name: x\nlineup:\n  - {name: recorder, command: [python3, record.py], cwd: bot, trusted: true}\n"
                   "  - greedy\nmatches: 1\nseed: 1\nmatch: {first_to: 1}\n")
    run_experiment(load_experiment(cfg), tmp_path / "out", serial=True, quiet=True)
    real = (bot / "exchange.txt").read_text().splitlines()
    short = [_shorten(line) for line in real]
    assert [_shorten(line) for line in shown] == short[:len(shown) - 2] + short[-2:]


RECORDER = script("""\
    with open("exchange.txt", "w") as log:
        for line in sys.stdin:
            msg = json.loads(line)
            text = json.dumps(reply(msg, "recorder"), separators=(",", ":"))
            log.write("> " + line.strip() + "\\n< " + text + "\\n")
            log.flush()
            send(text + "\\n")
""")


PAGE_RUN = """\
name: x
lineup:
  - {name: mybot, command: [python3, record.py], cwd: bot, trusted: true}
  - greedy
matches: 1
seed: 1
match: {first_to: 3}
"""


def _page_block(marker):
    """The code block after ``<!-- marker -->`` on the protocol page."""
    text = (ROOT / "docs" / "protocol.md").read_text()
    return re.search(rf"<!-- {marker} -->\n```\w*\n(.*?)```", text, re.S).group(1)


def test_the_whole_exchange_on_the_protocol_page_is_a_real_one(tmp_path):
    """Every line the protocol page shows, hello to result, is one the engine and a bot said in
    that order, whole: the first ten and the last two are the exchange's own, and the config the
    page gives is the one played."""
    shown = _page_block("exchange").splitlines()
    assert PAGE_RUN.split("\n", 1)[1] in (ROOT / "docs" / "protocol.md").read_text()
    (tmp_path / "bot").mkdir()
    (tmp_path / "bot" / "record.py").write_text(RECORDER.replace('reply(msg, "recorder")', 'reply(msg, "mybot")'))
    (tmp_path / "exp.yaml").write_text(PAGE_RUN)
    run_experiment(load_experiment(tmp_path / "exp.yaml"), tmp_path / "out", serial=True, quiet=True)
    real = (tmp_path / "bot" / "exchange.txt").read_text().splitlines()
    assert shown[:10] == real[:10] and shown[-2:] == real[-2:]
    lines = iter(real)
    assert all(line in lines for line in shown if line != "...")  # in order, none changed


def test_the_protocol_page_explains_every_field_and_names_its_cards_by_their_numbers():
    """Every key of every message in the page's exchange is named on the page; each field of the
    observation and of the rules has a row of its own; the cards its reading names by name and
    number are the numbering's own; its Perl bot is examples/bots/fifteens.pl."""
    text = (ROOT / "docs" / "protocol.md").read_text()
    msgs = [json.loads(line[2:]) for line in _page_block("exchange").splitlines() if line != "..."]
    rows = {name for cell in re.findall(r"^\| ([^|]+) \|", text, re.M) for name in re.findall(r"`(\w+)`", cell)}
    play = next(m["obs"] for m in msgs if m.get("decision") == "play" and m["obs"]["match_score"] != [0, 0])
    assert all(play[k] not in ([], [0, 0], None) for k in ("gos", "pile", "played", "shown", "starter"))
    assert set(play) <= rows and set(msgs[0]["rules"][0]) <= rows
    keys = {k for m in msgs for k in _keys(m)}
    assert not [k for k in keys if f"`{k}`" not in text]
    named = re.findall(r"((?:\b[A2-9TJQK][CDHS] )*[A2-9TJQK][CDHS]) \(([\d, ]+)\)", text)
    assert len(named) >= 5
    for names, numbers in named:
        assert names.split() == [card_str(int(n)) for n in numbers.split(", ")], (names, numbers)
    assert _page_block("perl-bot") == (BOTS / "fifteens.pl").read_text()


def _keys(v):
    """Every key of a JSON value, at any depth."""
    if isinstance(v, dict):
        for k, x in v.items():
            yield k
            yield from _keys(x)
    elif isinstance(v, list):
        for x in v:
            yield from _keys(x)


def _shorten(line):
    """A line with its long arrays and objects elided (the guide shows them as ...)."""
    return re.sub(r'"rules":\[.*?\]\}\]|"rules":\{.*?\}(?=,"seat")', '"rules":...', line)[:60]


# ---- hostile bots ---------------------------------------------------------------------------------

@needs_sandbox
def test_a_bot_that_re_derives_decks_from_the_seed_gains_nothing(tmp_path):
    """With the deal secret, the deck reader wins no more than an honest copy; trusted (no
    sandbox, no secret), the same reader wins far more, so the cheat is real."""
    lineup = (f"  - {{name: reader, strategy: '{PLUGINS}:DeckReader', params: {{seed: 9, groups: 200}}}}\n"
              f"  - {{name: honest, strategy: '{PLUGINS}:Honest'}}\n  - greedy\n")
    common = "matches: 400\nseed: 9\nformat: pairings\nmatch: {first_to: 1}\n"
    cfg = tmp_path / "exp.yaml"
    cfg.write_text(f"name: x\nlineup:\n{lineup}pairings: [[reader, greedy], [honest, greedy]]\n{common}")
    run_experiment(load_experiment(cfg), tmp_path / "boxed", serial=True, quiet=True)
    lo, hi = wilson(*rate(tmp_path / "boxed", "honest", "greedy"))
    reader = rate(tmp_path / "boxed", "reader", "greedy")
    assert lo <= reader[0] / reader[1] <= hi, (reader, lo, hi)
    trusted = tmp_path / "trusted.yaml"
    trusted.write_text(f"name: y\nlineup:\n  - {{name: reader, strategy: '{PLUGINS}:DeckReader', trusted: true, "
                       f"params: {{seed: 9, tables: 1, groups: 200}}}}\n  - greedy\n{common}".replace(
                           "format: pairings\n", ""))
    run_experiment(load_experiment(trusted), tmp_path / "open", serial=True, quiet=True)
    cheat = rate(tmp_path / "open", "reader", "greedy")
    assert cheat[0] / cheat[1] > hi, (cheat, lo, hi)


@pytest.fixture
def listener():
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen()
    yield srv.getsockname()[1]
    srv.close()


NOTHING = {"engine_visible": False, "engine_memory_read": False, "config_read": False, "wrote_outside": False,
           "network": False}


@needs_sandbox
def test_a_plugin_sees_reads_writes_signals_and_connects_to_nothing(tmp_path, listener):
    cfg = tmp_path / "exp.yaml"
    params = f"{{engine_pid: {os.getpid()}, folder: '{tmp_path}', port: {listener}}}"
    cfg.write_text(f"name: x\nlineup:\n  - {{name: spy, strategy: '{PLUGINS}:Spy', params: {params}}}\n"
                   "  - greedy\nmatches: 1\nmatch: {first_to: 1}\n")
    run_experiment(load_experiment(cfg), tmp_path / "out", serial=True, quiet=True)
    rec = records(tmp_path / "out")[0]
    seen = json.loads(rec["forfeit"]["error"].split("findings ", 1)[1])
    assert {k: seen[k] for k in NOTHING} == NOTHING
    assert seen["processes_visible"] <= 3  # itself and the sandbox's init
    assert not (tmp_path / "escaped.txt").exists()


@needs_sandbox
def test_a_program_sees_reads_writes_signals_and_connects_to_nothing(tmp_path, listener):
    folder = tmp_path / "bots"
    folder.mkdir()
    shutil.copy(HOSTILE / "spy.sh", folder)
    cfg = tmp_path / "exp.yaml"
    cfg.write_text(f"name: x\nlineup:\n  - {{name: spy, command: [bash, spy.sh, '{os.getpid()}', '{tmp_path}', "
                   f"'{listener}'], cwd: bots}}\n  - greedy\nmatches: 1\n")
    with pytest.raises(ConfigError, match="findings") as caught:
        load_experiment(cfg)
    found = dict(kv.split("=") for kv in str(caught.value).split("findings ", 1)[1].split())
    assert found == {"processes": found["processes"], "engine": "no", "memory": "no", "config": "no",
                     "wrote": "no", "net": "no"}
    assert int(found["processes"]) <= 6  # its own: the sandbox's init, bash and its pipeline
    assert not (tmp_path / "escaped.txt").exists()


@needs_sandbox
@pytest.mark.parametrize("killer", ["Killer", "KillAll"])
def test_a_killer_harms_no_other_bot(tmp_path, killer):
    cfg = tmp_path / "exp.yaml"
    cfg.write_text(f"name: x\nlineup:\n  - {{name: killer, strategy: '{PLUGINS}:{killer}'}}\n"
                   f"  - {{name: honest, strategy: '{PLUGINS}:Honest'}}\nformat: pairings\n"
                   "pairings: [[killer, honest]]\nmatches: 20\n")
    run_experiment(load_experiment(cfg), tmp_path / "out", serial=True, quiet=True)
    recs = records(tmp_path / "out")
    assert len(recs) == 20 and not [r for r in recs if r["forfeit"] and r["forfeit"]["entry"] == 1]


def _marked(mark):
    """Processes on this machine whose command line holds ``mark``."""
    out = []
    for p in os.listdir("/proc"):
        try:
            with open(f"/proc/{p}/cmdline", "rb") as f:
                if mark.encode() in f.read():
                    out.append(p)
        except OSError:
            pass
    return out


def _none_left():
    deadline = time.monotonic() + 5
    while (_marked("987.65") or _marked("sleep\x001000")) and time.monotonic() < deadline:
        time.sleep(0.1)
    return _marked("987.65") == [] and _marked("sleep\x001000") == []


@needs_sandbox
def test_setsid_children_and_fork_bombs_of_a_plugin_do_not_outlive_the_run(tmp_path):
    cfg = tmp_path / "exp.yaml"
    cfg.write_text(f"name: x\nlineup:\n  - {{name: spawner, strategy: '{PLUGINS}:Spawner'}}\n  - greedy\n"
                   "matches: 4\nsandbox: {processes: 32}\ntime_limit: 20\n")
    run_experiment(load_experiment(cfg), tmp_path / "out", serial=True, quiet=True)
    recs = records(tmp_path / "out")
    assert len(recs) == 4 and not [r for r in recs if r["forfeit"]]  # the bomb hit its limit; it plays on
    assert _none_left()


@needs_sandbox
@needs_node
def test_setsid_children_and_fork_bombs_of_a_program_do_not_outlive_it(tmp_path, bots):
    shutil.copy(HOSTILE / "spawner.sh", bots)
    cfg = tmp_path / "exp.yaml"
    cfg.write_text("name: x\nlineup:\n  - {name: spawner_sh, command: [sh, spawner.sh], cwd: bots}\n  - greedy\n"
                   "matches: 2\nsandbox: {processes: 32}\n")
    # its bomb usually takes the threads Node.js needs: refused at load, naming it; or, when the
    # bomb wins only at the run's own start, the run fails at once naming it; else it plays
    try:
        exp = load_experiment(cfg)
    except ConfigError as e:
        assert "spawner_sh" in str(e)
    else:
        try:
            run_experiment(exp, tmp_path / "out", serial=True, quiet=True)
        except RunFailed as e:
            assert "bot 'spawner_sh'" in str(e) and "while loading it" in str(e) and "0 matches saved" in str(e)
        else:
            assert len(records(tmp_path / "out")) == 2
    assert _none_left()


@needs_sandbox
def test_a_memory_bomb_is_a_forfeit_and_the_run_goes_on(tmp_path):
    folder = tmp_path / "bots"
    folder.mkdir()
    shutil.copy(HOSTILE / "bomb.sh", folder)
    cfg = tmp_path / "exp.yaml"
    cfg.write_text(f"name: x\nlineup:\n  - {{name: bomb, strategy: '{PLUGINS}:MemoryBomb'}}\n"
                   "  - {name: bomb_sh, command: [sh, bomb.sh], cwd: bots}\n  - greedy\nmatches: 2\n"
                   "sandbox: {memory_mb: 256}\ntime_limit: 20\n")
    run_experiment(load_experiment(cfg), tmp_path / "out", serial=True, quiet=True)
    recs = records(tmp_path / "out")
    m = json.loads((tmp_path / "out" / "manifest.json").read_text())
    charged = {m["lineup"][r["forfeit"]["entry"]]["name"]: r["forfeit"]["kind"] for r in recs if r["forfeit"]}
    assert charged == {"bomb": "error", "bomb_sh": "crash"}
    assert len(recs) == 6 and m["status"] == "complete"


@needs_sandbox
def test_a_run_with_untrusted_bots_resumes_and_replays_exactly(tmp_path):
    cfg = tmp_path / "exp.yaml"
    cfg.write_text(f"name: x\nlineup:\n  - {{name: honest, strategy: '{PLUGINS}:Honest'}}\n  - greedy\n"
                   "matches: 12\nseed: 4\nrecord: all\n")
    exp = load_experiment(cfg)
    run_experiment(exp, tmp_path / "whole", serial=True, quiet=True)
    whole = match_lines(tmp_path / "whole")
    part = tmp_path / "part"
    run_experiment(exp, part, serial=True, quiet=True, deal_secret=tmp_path / "whole")
    write_matches(part, match_lines(part)[:5])  # as if interrupted
    secret = (part / "deal-secret").read_text()
    (part / "deal-secret").write_text("00" * 32 + "\n")
    with pytest.raises(Exception, match="not the secret its matches were dealt with"):
        run_experiment(exp, part, serial=True, quiet=True, resume=True)
    (part / "deal-secret").write_text(secret)
    assert main(["run", str(cfg), "--serial", "--quiet", "--out", str(part), "--resume"]) == 0
    assert tables(part) == tables(tmp_path / "whole")
    assert sorted(match_lines(part)) == sorted(whole)
    assert main(["replay", str(tmp_path / "whole"), "--match", "0.0.0.0"]) == 0


def test_untrusted_bots_are_refused_in_one_line_where_there_is_no_sandbox(tmp_path, monkeypatch):
    monkeypatch.setattr(sandbox, "unavailable", lambda: "bubblewrap (bwrap) is not installed: " + sandbox.HOW_TO_ENABLE)
    cfg = tmp_path / "exp.yaml"
    cfg.write_text(f"name: x\nlineup:\n  - {{name: honest, strategy: '{PLUGINS}:Honest'}}\n  - greedy\nmatches: 1\n")
    with pytest.raises(ConfigError, match="cannot sandbox untrusted bots: bubblewrap .* or mark the entry trusted"):
        load_experiment(cfg)
    assert not (tmp_path / "results").exists()
