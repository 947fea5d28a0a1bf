"""Plug-ins run isolated (cribsim.isolation): every fault of a plug-in is a forfeit charged to
its entry and the run finishes, serially and on Ray, with the same tables; a plug-in cannot
reach the engine; a copy of a built-in plays exactly as the built-in; the player protocol
works with a player that is not cribsim's host."""

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from cribsim.cli.main import main
from cribsim.errors import CribsimError, RunFailed, without_addresses
from cribsim.games.cribbage.match import play_match
from cribsim.isolation import Isolated, Link, PluginFault, check
from cribsim.isolation.bots import Bot
from cribsim.isolation.protocol import PROTOCOL
from cribsim.isolation.protocol import _short as protocol_short
from cribsim.ruleset import load_rules
from cribsim.tournament import executors
from cribsim.tournament.config import load_experiment
from cribsim.tournament.runner import run_experiment
from tests.kernel.matchfile import match_dicts
from tests.kernel.protocol_players import RAW_PLAYER, script

ROOT = Path(__file__).resolve().parents[2]
PLUGINS = "tests.kernel.isolation_plugins"


def write(tmp_path, text, name="exp.yaml"):
    f = tmp_path / name
    f.write_text(textwrap.dedent(text))
    return f


def tables(out):
    out = Path(out)
    return {f.name: f.read_bytes() for f in sorted(out.iterdir()) if f.suffix in (".csv", ".md")}


def csvs(out):
    """The CSV tables (summary.md also names the config's hash, which differs with the strategy)."""
    return {f.name: f.read_bytes() for f in sorted(Path(out).iterdir()) if f.suffix == ".csv"}


def records(out):
    return match_dicts(out)


def hosts_of(pid):
    """Live host processes whose parent is ``pid`` (from /proc)."""
    found = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text()
            cmd = (d / "cmdline").read_bytes()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        state = stat.rsplit(")", 1)[1].split()[0]
        if ppid == pid and b"cribsim.isolation.host" in cmd and state != "Z":
            found.append(int(d.name))
    return found


def forfeits_by_entry(exp, recs):
    kinds = {}
    for r in recs:
        f = r["forfeit"]
        if f:
            name = exp.lineup[f["entry"]].name
            kinds.setdefault(name, set()).add(f["kind"])
            assert r["sides"][r["winner"]] != f["entry"], r  # charged: the other side wins
    return kinds


# ---- the faults of the issue ----------------------------------------------------------------------

FAULTS = f"""\
    name: faults
    lineup:
      - random
      - {{name: catch_all, strategy: "{PLUGINS}:CatchAll"}}
      - {{name: c_loop, strategy: "{PLUGINS}:CLoop"}}
      - {{name: exiter, strategy: "{PLUGINS}:Exiter"}}
      - {{name: float_card, strategy: "{PLUGINS}:FloatCard"}}
      - {{name: set_discard, strategy: "{PLUGINS}:AnswersASet"}}
      - {{name: unmakeable, strategy: "{PLUGINS}:Unmakeable"}}
      - {{name: chatty, strategy: "{PLUGINS}:Chatty"}}
    format: gauntlet
    matches: 2
    seed: 5
    time_limit: 0.5
"""

EXPECTED = {"catch_all": {"timeout"}, "c_loop": {"timeout"}, "exiter": {"crash"}, "float_card": {"illegal"},
            "set_discard": {"illegal"}, "unmakeable": {"error"}}


def _check_faults(exp, out):
    recs = records(out)
    assert len(recs) == 7 * 2
    assert forfeits_by_entry(exp, recs) == EXPECTED  # chatty and random: none
    by_entry = {exp.lineup[r["forfeit"]["entry"]].name: r["forfeit"]["error"] for r in recs if r["forfeit"]}
    assert by_entry["catch_all"] == by_entry["c_loop"] == "a decision took over 0.5 s"
    assert by_entry["exiter"] == "its process ended (exit code 3)"
    assert "5.0" in by_entry["float_card"] or "." in by_entry["float_card"]
    assert "set" in by_entry["set_discard"]
    assert by_entry["unmakeable"] == "KeyError: 'second'"


def test_every_fault_is_a_forfeit_charged_to_the_plugin_serially(tmp_path, capsys):
    cfg = write(tmp_path, FAULTS)
    exp = load_experiment(cfg)
    t0 = time.monotonic()
    code = main(["run", str(cfg), "--serial", "--quiet", "--out", str(tmp_path / "serial")])
    _, err = capsys.readouterr()
    assert code == 0, err
    assert time.monotonic() - t0 < 30
    _check_faults(exp, tmp_path / "serial")
    assert hosts_of(os.getpid()) == []  # the run's player processes ended with it


def test_every_fault_is_a_forfeit_on_ray_with_the_same_tables(tmp_path, ray_cluster):
    cfg = write(tmp_path, FAULTS)
    exp = load_experiment(cfg)
    run_experiment(exp, tmp_path / "ray", workers=2, quiet=True, batch_seconds=0.05)
    _check_faults(exp, tmp_path / "ray")
    # untrusted bots: the decks take the run's secret; the same secret plays the same decks
    run_experiment(exp, tmp_path / "serial", serial=True, quiet=True, deal_secret=tmp_path / "ray")
    assert tables(tmp_path / "ray") == tables(tmp_path / "serial")  # forfeits.csv included, byte for byte


def test_a_sore_loser_is_charged_with_its_losses(tmp_path):
    # in-process, os._exit when behind erased the losses (0.602 against greedy instead of 0.500):
    # isolated, each exit is a crash forfeit, a loss that counts in its win rate
    cfg = write(tmp_path, f"""\
        name: sore
        lineup: [random, {{name: sore, strategy: "{PLUGINS}:SoreLoser"}}]
        matches: 8
        seed: 2
    """)
    exp = load_experiment(cfg)
    (tmp_path / "secret").mkdir()  # untrusted: a fixed deal secret, so the same decks every run
    (tmp_path / "secret" / "deal-secret").write_text("5a" * 32 + "\n")
    run_experiment(exp, tmp_path / "out", serial=True, quiet=True, deal_secret=tmp_path / "secret")
    recs = records(tmp_path / "out")
    assert len(recs) == 8
    assert forfeits_by_entry(exp, recs) == {"sore": {"crash"}}
    crashes = sum(r["forfeit"] is not None for r in recs)
    wins = sum(r["winner"] == r["sides"].index(1) for r in recs)
    assert crashes >= 1 and wins <= 8 - crashes  # (1 with this secret)
    row = next(ln for ln in (tmp_path / "out" / "entries.csv").read_text().splitlines() if ",sore," in ln).split(",")
    assert row[5] == "8" and row[-1] == str(crashes)  # every match counted, the crashes as its forfeits
    assert float(row[2]) == wins / 8


def test_the_peeker_finds_nothing_of_the_engine(tmp_path):
    marker = tmp_path / "found"
    cfg = write(tmp_path, f"""\
        name: peek
        lineup: [greedy, {{name: peeker, strategy: "{PLUGINS}:Peeker", params: {{marker: "{marker}"}}}}]
        matches: 10
        seed: 3
    """)
    exp = load_experiment(cfg)
    run_experiment(exp, tmp_path / "isolated", serial=True, quiet=True)
    assert not marker.exists()  # neither the frames nor the garbage collector hold a GameState
    recs = records(tmp_path / "isolated")
    assert all(r["forfeit"] is None for r in recs)
    isolated = sum(r["winner"] == r["sides"].index(1) for r in recs) / len(recs)
    # the same class trusted (in-process) reaches the deck and the scores: it wins every match
    trusted = write(tmp_path, f"""\
        name: peek
        lineup: [greedy, {{name: peeker, strategy: "{PLUGINS}:Peeker", params: {{marker: "{marker}"}}, trusted: true}}]
        matches: 10
        seed: 3
    """, "trusted.yaml")
    run_experiment(load_experiment(trusted), tmp_path / "trusted", serial=True, quiet=True)
    assert marker.exists() and set(marker.read_text().split()) == {"frames"}
    recs = records(tmp_path / "trusted")
    assert sum(r["winner"] == r["sides"].index(1) for r in recs) == len(recs)
    assert isolated < 0.9


def test_a_duck_typed_plugin_without_its_generator_plays(tmp_path):
    # it takes the generator and drops it: the engine seeds one it is given all the same
    for trusted in ("false", "true"):
        cfg = write(tmp_path, f"""\
            name: duck
            lineup: [random, {{name: duck, strategy: "{PLUGINS}:NoRng", trusted: {trusted}}}]
            matches: 4
        """, f"duck_{trusted}.yaml")
        run_experiment(load_experiment(cfg), tmp_path / trusted, serial=True, quiet=True)
        assert all(r["forfeit"] is None for r in records(tmp_path / trusted))


def test_a_plugin_that_will_not_start_again_forfeits_and_the_run_goes_on(tmp_path, monkeypatch):
    # it played here, then died; loading it again fails: its fault, not the worker's. (It leaves
    # a file behind to know it ran, which a sandbox forbids: this test runs it unsandboxed.)
    monkeypatch.setattr("cribsim.tournament.config.sandbox_on", lambda trusted: False)
    monkeypatch.setattr("cribsim.isolation.plugin.sandbox_on", lambda trusted: False)
    marker = tmp_path / "ran"
    (tmp_path / "phoenix_zz.py").write_text(textwrap.dedent(f"""\
        import os
        from strategies.random_play import RandomStrategy
        if os.path.exists({str(marker)!r}):
            os._exit(9)


        class Bot(RandomStrategy):
            def play(self, obs):
                open({str(marker)!r}, "w").close()
                os._exit(3)
    """))
    cfg = write(tmp_path, "name: phoenix\nlineup: [random, {name: p, strategy: 'phoenix_zz:Bot'}]\nmatches: 4\n")
    exp = load_experiment(cfg)
    run_experiment(exp, tmp_path / "out", serial=True, quiet=True)
    errors = sorted(r["forfeit"]["error"] for r in records(tmp_path / "out"))
    again = ("it could not be started again: strategy 'phoenix_zz:Bot': its process ended (exit code 9) "
             "while loading it")
    assert errors == [again] * 3 + ["its process ended (exit code 3)"]


# ---- the same results as in-process -----------------------------------------------------------------

def test_a_copy_of_random_plays_exactly_as_the_builtin(tmp_path):
    # every decision kind goes through the protocol: discards, plays, bids (auction), jokers
    # named, passes (Canadian doubles), the inspection (two against one), toss fives, lowball
    variants = "[standard, auction, jokers, canadian_doubles, three_player_team_inspect, toss_fives, lowball]"
    common = f"variants: {variants}\nmatches: 2\nseed: 11\nformat: round_robin\n"
    builtin = write(tmp_path, f"name: b\nlineup: [greedy, random, hoyle]\n{common}", "builtin.yaml")
    copy = write(tmp_path, f"name: c\nlineup: [greedy, {{name: random, strategy: '{PLUGINS}:RandomCopy'}}, hoyle]\n"
                           f"{common}", "copy.yaml")
    exp = load_experiment(copy)
    assert exp.plugins[1]["decisions"] == ["bid", "discard", "inspect", "pass_cards", "play"]
    run_experiment(exp, tmp_path / "copy", serial=True, quiet=True)
    # the copy is untrusted, so its run dealt with a secret: the built-ins play the same decks
    # with the same secret
    run_experiment(load_experiment(builtin), tmp_path / "builtin", serial=True, quiet=True,
                   deal_secret=tmp_path / "copy")
    assert csvs(tmp_path / "builtin") == csvs(tmp_path / "copy")
    assert records(tmp_path / "builtin") == records(tmp_path / "copy")  # every game's every figure


def test_a_copy_of_random_tiles_plays_exactly_as_the_builtin(tmp_path):
    common = "game: fives_threes\nvariants: [fives_threes, fives_threes_partners]\nmatches: 4\nseed: 3\n"
    builtin = write(tmp_path, f"name: b\nlineup: [greedy, random]\n{common}", "builtin.yaml")
    copy = write(tmp_path, f"name: c\nlineup: [greedy, {{name: random, strategy: '{PLUGINS}:RandomTilesCopy'}}]\n"
                           f"{common}", "copy.yaml")
    run_experiment(load_experiment(copy), tmp_path / "copy", serial=True, quiet=True)
    run_experiment(load_experiment(builtin), tmp_path / "builtin", serial=True, quiet=True,
                   deal_secret=tmp_path / "copy")
    assert csvs(tmp_path / "builtin") == csvs(tmp_path / "copy")
    assert records(tmp_path / "builtin") == records(tmp_path / "copy")


def test_a_plugin_is_checked_without_importing_it_here(tmp_path):
    mod = "never_imported_here_zz"
    (tmp_path / f"{mod}.py").write_text("from strategies.random_play import RandomStrategy\n"
                                        "class Bot(RandomStrategy):\n    pass\n")
    cfg = write(tmp_path, f"name: x\nlineup: [random, {{name: b, strategy: '{mod}:Bot'}}]\nmatches: 2\n")
    exp = load_experiment(cfg)
    assert mod not in sys.modules
    assert exp.plugins == (None, {"name": "random", "decisions": ["bid", "discard", "inspect", "pass_cards", "play"],
                                  "understands": ["discard_rule", "objective"], "parameters": []})


def test_lineup_errors_still_name_the_file_and_key(tmp_path):
    (tmp_path / "plain_only.py").write_text("class Plain:\n    def discard(self, obs):\n        return []\n"
                                            "    def play(self, obs):\n        return obs.legal[0]\n")
    for trusted in ("false", "true"):  # the same line, whether the class is checked here or in its host
        cfg = write(tmp_path, "name: x\nvariants: [lowball]\n"
                              f"lineup: [random, {{strategy: 'plain_only:Plain', trusted: {trusted}}}]\nmatches: 2\n")
        with pytest.raises(CribsimError, match=r"exp.yaml: key 'lineup\[1\].strategy': strategy 'plain_only:Plain' "
                                               r"cannot play lowball: it lacks 'objective' "
                                               r"\(declare it in understands\)"):
            load_experiment(cfg)
    cfg = write(tmp_path, "name: x\nlineup: [{strategy: random, trusted: true}, greedy]\nmatches: 2\n", "t.yaml")
    with pytest.raises(CribsimError, match=r"key 'lineup\[0\].trusted'"):
        load_experiment(cfg)


# ---- processes ------------------------------------------------------------------------------------

def test_a_player_dies_with_its_parent(tmp_path):
    script = textwrap.dedent(f"""\
        import os, sys
        sys.path.insert(0, {str(ROOT)!r})
        from cribsim.isolation import Link
        from cribsim.isolation.protocol import PROTOCOL
        link = Link()
        link.request({{"kind": "hello", "protocol": PROTOCOL, "game": "cribbage",
                       "strategy": "strategies.random_play:RandomStrategy", "params": {{}}, "rules": []}}, 60)
        print(link.proc.pid, flush=True)
        os._exit(0)  # no cleanup at all
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True)
    pid = int(out.stdout.split()[0])
    for _ in range(100):
        if not Path(f"/proc/{pid}").exists() or "Z" in Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1][:3]:
            break
        time.sleep(0.05)
    else:
        pytest.fail("the player outlived its parent")




def test_a_plugin_that_decides_any_decision_answers_a_variants_through_the_sandbox():
    """``decides_any``: its capabilities list every decision of the game, and its ``decide``,
    in its own process, answers the auction's bids (the default would never bid)."""
    rules = load_rules("auction")
    spec = f"{PLUGINS}:AnyDecision"
    caps = check(spec, {}, [rules], "cribbage")
    assert {"bid", "pass_cards", "inspect", "discard", "play"} <= set(caps["decisions"])
    iso = Isolated(spec, {}, "cribbage", [rules], 5.0, caps)
    try:
        m = play_match(rules, [iso.bind(0, rules), iso.bind(1, rules)], 3, 0)
    finally:
        iso.close()
    assert sum(g.metrics.get("crib_bought", 0) for g in m.games) > 0


def test_the_protocol_with_a_player_of_another_kind(tmp_path):
    player = tmp_path / "player.py"
    player.write_text(RAW_PLAYER)
    rules = load_rules("standard")
    caps = {"name": "first", "decisions": ["discard", "play"], "understands": []}
    iso = Isolated("any:Thing", {}, "cribbage", [rules], 5.0, caps)
    iso.links = {seat: Link([sys.executable, str(player)]) for seat in (0, 1)}
    try:
        m = play_match(rules, [iso.bind(0, rules), iso.bind(1, rules)], 1, 0)
    finally:
        iso.close()
    assert m.winner in (0, 1) and max(m.games[0].scores) >= 121
    assert PROTOCOL == 3


def test_a_garbled_reply_is_an_error_forfeit(tmp_path):
    player = tmp_path / "garbled.py"
    player.write_text(script("""\
        for line in sys.stdin:
            msg = json.loads(line)
            send("not json\\n" if msg["kind"] == "decide" else json.dumps(reply(msg)) + "\\n")
    """))
    rules = load_rules("standard")
    caps = {"name": "first", "decisions": ["discard", "play"], "understands": []}
    iso = Isolated("any:Thing", {}, "cribbage", [rules], 5.0, caps)
    iso.links = {seat: Link([sys.executable, str(player)]) for seat in (0, 1)}
    try:
        with pytest.raises(PluginFault) as e:
            play_match(rules, [iso.bind(0, rules), iso.bind(1, rules)], 1, 0)
    finally:
        iso.close()
    assert e.value.kind == "error" and "not JSON" in e.value.message


NOISY = script("""\
    for line in sys.stdin:
        msg = json.loads(line)
        if msg["kind"] == "decide" and msg["obs"]["deal_no"] == 1:
            sys.stdout.buffer.write(b"\\x1b[2J\\xff<Spam object at 0x%x> " % id(msg) + b"spam " * 100 + b"\\n")
            sys.stdout.flush()
        else:
            send(json.dumps(reply(msg)) + "\\n")
""")


def test_a_reply_that_is_not_json_is_quoted_escaped_and_cut_the_same_in_every_run(tmp_path):
    """The forfeit quotes the reply (its first 200 characters, every character that is not
    printable escaped, a byte that is not UTF-8 as \\xff, a memory address left out), and two
    runs write the same forfeits."""
    (tmp_path / "noisy.py").write_text(NOISY)
    cfg = tmp_path / "x.yaml"
    cfg.write_text(f"name: x\nlineup:\n  - {{name: noisy, command: [{sys.executable}, noisy.py], trusted: true}}\n"
                   "  - greedy\nmatches: 2\nseed: 4\n")
    for out in ("a", "b"):
        run_experiment(load_experiment(cfg), tmp_path / out, serial=True, quiet=True)
    quote = ("\\x1b[2J\\xff<Spam object> " + "spam " * 100)[:197] + "..."
    message = f"its reply is not JSON: '{quote}' (the player protocol)"
    assert [m["forfeit"]["error"] for m in match_dicts(tmp_path / "a")] == [message] * 2
    assert (tmp_path / "a" / "forfeits.csv").read_bytes() == (tmp_path / "b" / "forfeits.csv").read_bytes()
    assert quote in (tmp_path / "a" / "forfeits.csv").read_text()



DOUBLER = script("""\
    # answers its third decision (or, with argv[2] "result", every result) twice, in the way
    # argv[1] says: in one write, in two writes with a pause between, the second only once the
    # next request has come, or both and then it exits
    how, decided, owed = sys.argv[1], 0, None
    twice = sys.argv[2] if len(sys.argv) > 2 else "decide"
    for line in sys.stdin:
        msg = json.loads(line)
        if owed is not None:
            send(owed)
            owed = None
        kind = msg["kind"]
        decided += kind == "decide"
        text = json.dumps(reply(msg)) + "\\n"
        if (twice == "decide" and kind == "decide" and decided == 3) or (twice == "result" and kind == "result"):
            if how == "together":
                send(text + text)
            elif how == "exit":
                send(text + text)
                time.sleep(0.2)
                os._exit(0)
            elif how == "apart":
                send(text)
                time.sleep(0.05)
                send(text)
            else:
                send(text)
                owed = text
        else:
            send(text)
""")


def _doubled(tmp_path, how):
    player, raw = tmp_path / "doubler.py", tmp_path / "raw.py"
    player.write_text(DOUBLER)
    raw.write_text(RAW_PLAYER)
    rules = load_rules("standard")
    caps = {"name": "first", "decisions": ["discard", "play"], "understands": []}
    iso = Isolated("any:Thing", {}, "cribbage", [rules], 5.0, caps)
    iso.links = {0: Link([sys.executable, str(player), how]), 1: Link([sys.executable, str(raw)])}
    try:
        with pytest.raises(PluginFault) as e:
            play_match(rules, [iso.bind(0, rules), iso.bind(1, rules)], 1, 0)
    finally:
        iso.close()
    return e.value.seat, e.value.kind, e.value.message


def test_a_bot_that_writes_twice_gets_one_fault_however_the_lines_arrive(tmp_path):
    """The second reply is found at the next request whenever it was written: the same fault
    at the same decision, so forfeits.csv is the same in every run."""
    faults = {how: _doubled(tmp_path, how) for how in ("together", "apart", "later", "exit")}
    assert set(faults.values()) == {(0, "error", "it wrote a second reply to an earlier request (the player protocol)")}



def test_forfeits_csv_is_the_same_however_a_double_reply_arrives(tmp_path):
    """Three runs of a tournament whose bot answers a decision twice, the lines arriving
    together, apart, or only after the next request: the same forfeits.csv, byte for byte."""
    (tmp_path / "doubler.py").write_text(DOUBLER)
    got = {}
    for how in ("together", "apart", "later", "exit"):
        cfg = write(tmp_path, f"""\
            name: doubled
            lineup:
              - {{name: doubler, command: [{sys.executable}, doubler.py, {how}], trusted: true}}
              - greedy
            matches: 2
            seed: 3
        """, f"{how}.yaml")
        run_experiment(load_experiment(cfg), tmp_path / how, serial=True, quiet=True)
        got[how] = (tmp_path / how / "forfeits.csv").read_bytes()
    assert got["together"] == got["apart"] == got["later"] == got["exit"]
    assert got["together"].count(b"it wrote a second reply to an earlier request") == 2, got["together"]


def test_a_second_reply_to_a_decided_match_costs_no_later_match(tmp_path):
    """A bot that answers every result twice: the second reply comes where the next match's
    first reply is due; that match is not charged (the player is started again), so no match
    pays for another one, whichever a process happens to play next."""
    (tmp_path / "doubler.py").write_text(DOUBLER)
    for how in ("together", "later"):
        cfg = write(tmp_path, f"""\
            name: doubled
            lineup:
              - {{name: doubler, command: [{sys.executable}, doubler.py, {how}, result], trusted: true}}
              - greedy
            matches: 4
            seed: 3
        """, f"{how}.yaml")
        run_experiment(load_experiment(cfg), tmp_path / how, serial=True, quiet=True)
        assert not (tmp_path / how / "forfeits.csv").exists()
        assert len(records(tmp_path / how)) == 4

def test_a_reply_without_its_requests_id_is_an_error(tmp_path):
    player = tmp_path / "no_id.py"
    player.write_text(script("""\
        for line in sys.stdin:
            msg = json.loads(line)
            send(json.dumps({k: v for k, v in reply(msg).items() if k != "id"}) + "\\n")
    """))
    bot = Bot(command=(sys.executable, str(player)), cwd=str(tmp_path), sandboxed=False)
    with pytest.raises(CribsimError, match="its reply does not carry its request's id"):
        check("program:no_id", {}, [load_rules("standard")], "cribbage", bot)


def test_forfeit_messages_carry_no_memory_address():
    assert without_addresses("TypeError: a <Foo object at 0x7f3a2b1c9d00> is not JSON") == \
        "TypeError: a <Foo object> is not JSON"
    assert "0x" not in protocol_short(object())

# ---- a hang no time limit can interrupt: the driver's deadline ---------------------------------------

def test_a_hung_ray_batch_is_cancelled_and_its_matches_recorded_failed(tmp_path, ray_cluster, monkeypatch):
    # trusted: the C loop runs in the worker itself, where no signal can interrupt it
    monkeypatch.setattr(executors, "DEADLINE_FLOOR", 2.0)
    monkeypatch.setattr(executors, "DECISIONS_PER_MATCH", 0)
    cfg = write(tmp_path, f"""\
        name: hung
        lineup: [random, {{name: c_loop, strategy: "{PLUGINS}:CLoop", trusted: true}}]
        matches: 2
        seed: 1
        time_limit: 0.2
    """)
    exp = load_experiment(cfg)
    t0 = time.monotonic()
    with pytest.raises(RunFailed, match=r"every match of random vs c_loop in standard failed \(2; 2 of 2 in all; "
                                        r"the first, match 0\.0\.0\.0: it did not finish within 2 s"):
        run_experiment(exp, tmp_path / "out", workers=2, quiet=True, batch_seconds=0.05)  # no result: the run failed
    assert time.monotonic() - t0 < 60
    recs = records(tmp_path / "out")
    assert len(recs) == 2
    assert all(r["forfeit"] == {"side": None, "entry": None, "kind": "crash",
                                "error": "it did not finish within 2 s, so its worker was stopped"}
               for r in recs), recs


def test_a_failed_rows_message_names_no_pid():
    import ray

    e = ray.exceptions.WorkerCrashedError()
    assert executors._worker_died(e) == "its worker process died (WorkerCrashedError), also when the match was retried"


def test_check_reports_a_plugin_that_dies_while_loading(tmp_path, monkeypatch):
    (tmp_path / "dies_zz.py").write_text("import os\nos._exit(7)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(CribsimError, match=r"its process ended \(exit code 7\) while loading it"):
        check("dies_zz:Bot", {}, [load_rules("standard")], "cribbage")
