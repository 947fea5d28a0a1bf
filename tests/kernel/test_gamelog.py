"""Game records, deal books and start positions (issue 12): every rules file round-trips
record -> replay; replay narrates exactly as ``cribsim play`` does; recording never changes a
game; damaged records, bad deal books and start positions past the target are one line, exit 2,
naming the file and line."""

import gzip
import json
import textwrap
from pathlib import Path

import pytest

from cribsim.book import read_book
from cribsim.cli.main import main
from cribsim.gamelog import GameLog, MatchLog, MatchTape, read_logs
from cribsim.games import game_named
from cribsim.games.cribbage.book import deal_positions
from cribsim.games.cribbage.engine import play_game
from cribsim.games.cribbage.narrate import narrate
from cribsim.matchplay import make_strategies
from cribsim.replay import replay_match
from cribsim.ruleset import load_rules
from cribsim.strategy import factory
from cribsim.tournament.config import load_experiment
from cribsim.tournament.runner import run_experiment
from tests.kernel.matchfile import match_dicts, match_lines, write_matches

ROOT = Path(__file__).resolve().parents[2]
RULES = sorted((ROOT / "configs" / "rules").glob("*.yaml"))


def write(tmp_path, text, name="exp.yaml"):
    f = tmp_path / name
    f.write_text(textwrap.dedent(text))
    return f


def records(out):
    return {r["id"]: r for r in match_dicts(out)}


def logs(out):
    return {m.id: m for _, m in read_logs(Path(out) / "games" / "games.jsonl.gz")}


def run(cfg, out, **kw):
    kw.setdefault("serial", True)
    return run_experiment(load_experiment(cfg), out, quiet=True, progress=False, report=False, **kw)


@pytest.mark.parametrize("path", RULES, ids=[p.stem for p in RULES])
def test_every_rules_file_round_trips_record_to_replay(tmp_path, path):
    """Recorded matches of every rules file (cribbage and Fives and Threes) replay from the
    record alone to the recorded scores and winners, game by game (a test of the whole path:
    workers record, the sink writes gzip, the reader parses, the engine replays)."""
    rules = load_rules(path)
    game = rules.game
    strategies = ["greedy", "random"] if game == "cribbage" else ["greedy", "random"]
    lineup = [{"name": f"e{i}", "strategy": strategies[i % 2]} for i in range(len(rules.sides))]
    miss = ", miss_rate: 0.2, vigilance: 0.5" if "muggins" in path.stem else ""
    entries = "\n".join(f"      - {{name: {e['name']}, strategy: {e['strategy']}{miss}}}" for e in lineup)
    cfg = write(tmp_path, f"""\
    name: rt
    game: {game}
    variants: [{path}]
    lineup:
{entries}
    matches: 3
    seed: 12
    record: all
    """)
    run(cfg, tmp_path / "out")
    recs, got = records(tmp_path / "out"), logs(tmp_path / "out")
    assert set(got) == set(recs) and got
    for mid, log in got.items():
        replayed = replay_match(log, mid)
        assert [list(r.scores) for r in replayed] == [g["scores"] for g in recs[mid]["games"]]
        assert [r.winner for r in replayed] == [g["winner"] for g in recs[mid]["games"]]
        assert log.winner == recs[mid]["winner"] and log.game_points == recs[mid]["game_points"]
    if miss:
        assert any(g.chance for m in got.values() for g in m.games), "the counting model's draws are recorded"


def test_recording_changes_no_game_and_ray_records_the_same(tmp_path, ray_cluster):
    """record: all plays exactly the games of record: none (same matches.jsonl), and two Ray
    workers write the same records as one process (R-DEAL-1 cut included)."""
    base = """\
    name: same
    variants: [standard, muggins, match_acc]
    lineup: [{name: g, strategy: greedy, miss_rate: 0.1}, {name: r, strategy: random}, {name: e, strategy: ev}]
    format: pairings
    pairings: [[g, r], [g, e]]
    matches: 4
    seed: 3
    """
    cfg_none = write(tmp_path, base, "none.yaml")
    cfg_all = write(tmp_path, base.rstrip(" ") + "    record: all\n", "all.yaml")
    run(cfg_none, tmp_path / "none")
    run(cfg_all, tmp_path / "all")
    assert match_lines(tmp_path / "none") == match_lines(tmp_path / "all")
    assert not (tmp_path / "none" / "games").exists()
    run(cfg_all, tmp_path / "ray", serial=False, workers=2, batch_seconds=0.02)
    serial, ray = logs(tmp_path / "all"), logs(tmp_path / "ray")
    assert {k: v.to_json() for k, v in serial.items()} == {k: v.to_json() for k, v in ray.items()}


def test_replay_narrates_exactly_as_play(tmp_path):
    """`cribsim replay` prints the narration `cribsim play` prints for the same game (the cut,
    every deal, the play and the show), for a standard and a muggins game."""
    for preset, counters in (("standard", None), ("muggins", [(0.3, 0.7)] * 2)):
        rules = load_rules(preset)
        makers = [factory("greedy", rules=(rules,)) for _ in range(2)]
        tape = MatchTape()
        played = play_game(rules, make_strategies(makers), 9, (4, 0), log=True, counters=counters,
                           tape=tape.game())
        t = tape.games[0]
        points = [0, 0]
        _, winner = game_named("cribbage").after_game(rules, played, points, 1)
        log = MatchLog("0.0.0.0", "x", rules.name, "cribbage", rules.to_dict(), rules.fingerprint(), 9, 4,
                       ["a", "b"], ["greedy", "greedy"], winner, points,
                       [GameLog(played.first_dealer, t.decks, [list(a) if isinstance(a, tuple) else a
                                                                for a in t.actions],
                                played.winner, list(played.scores), played.deals, t.cuts, t.chance, None, [0, 0])],
                       [list(c) for c in counters] if counters else None)
        log = MatchLog.from_json(json.loads(json.dumps(log.to_json())))
        again = replay_match(log, "test")[0]
        assert narrate(rules, again) == narrate(rules, played)


def test_cli_games_lists_filters_and_replay_prints(tmp_path, capsys):
    cfg = write(tmp_path, """\
    name: cli
    variants: [standard, fives_threes_partners]
    game: cribbage
    lineup: [{name: g, strategy: greedy}, {name: r, strategy: random}]
    matches: 6
    seed: 4
    record: {losses_of: r}
    """.replace("fives_threes_partners", "lowball"))
    run(cfg, tmp_path / "out")
    recs = records(tmp_path / "out")
    lost = {i for i, r in recs.items() if r["winner"] >= 0 and r["sides"][r["winner"]] != 1}
    assert set(logs(tmp_path / "out")) == lost and lost, "losses_of keeps exactly the matches r lost"
    capsys.readouterr()
    assert main(["games", str(tmp_path / "out"), "--entry", "r", "--lost", "--variant", "lowball"]) == 0
    out = capsys.readouterr().out
    listed = [ln.split()[0] for ln in out.splitlines()[2:] if ln.count(".") >= 3 and ln[:1].isdigit()]
    assert listed and set(listed) == {i for i in lost if i.startswith("1.")}
    assert all("g won" in ln for ln in out.splitlines()[2:] if ln.split()[:1] and ln.split()[0] in listed)
    assert main(["replay", str(tmp_path / "out"), "--match", listed[0], "--game", "1"]) == 0
    text = capsys.readouterr().out
    assert f"Match {listed[0]}" in text and "== Deal 1:" in text and "The show:" in text and "Final score:" in text
    assert main(["games", str(tmp_path / "out")]) == 0
    first = capsys.readouterr().out.splitlines()[2].split()[0]
    assert main(["replay", str(tmp_path / "out"), "--match", "1"]) == 0  # the first listed
    assert capsys.readouterr().out.startswith(f"Match {first} ")
    _one_line_error(capsys, ["replay", str(tmp_path / "out"), "--match", "999"], "holds")


def test_record_sample_per_table_and_fresh_removes_the_records(tmp_path):
    cfg = write(tmp_path, """\
    name: sample
    variants: [standard, three_player]
    lineup: [{name: a, strategy: greedy}, {name: b, strategy: random}, {name: c, strategy: random}]
    matches: 5
    seed: 8
    record: {sample: 3}
    """)
    run(cfg, tmp_path / "out")
    got = logs(tmp_path / "out")
    per_table: dict[str, list[str]] = {}
    for i in got:
        v, t, g, s = i.split(".")
        per_table.setdefault(f"{v}.{t}", []).append(i)
    assert sorted(per_table) == ["0.0", "0.1", "0.2", "1.0"] and all(len(x) == 3 for x in per_table.values())
    assert sorted(per_table["0.0"]) == ["0.0.0.0", "0.0.0.1", "0.0.1.0"]  # the first three in schedule order
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert "games/games.jsonl.gz" in manifest["files"] and manifest["record"] == {"sample": 3}
    other = write(tmp_path, "name: other\nlineup: [greedy, random]\nmatches: 2\n", "other.yaml")
    run(other, tmp_path / "out", fresh=True)
    assert not (tmp_path / "out" / "games").exists()


def test_an_interrupted_run_resumes_with_every_match_recorded_once(tmp_path):
    cfg = write(tmp_path, """\
    name: resume
    lineup: [{name: a, strategy: greedy}, {name: b, strategy: random}]
    matches: 12
    seed: 2
    record: all
    """)
    run(cfg, tmp_path / "full")
    run(cfg, tmp_path / "cut")
    games = tmp_path / "cut" / "games" / "games.jsonl.gz"
    # the run died: its last 5 results never reached matches.jsonl, a record batch was torn
    write_matches(tmp_path / "cut", match_lines(tmp_path / "cut")[:-5])
    whole = gzip.compress(b'{"format": "cribsim-game-record"', mtime=0)
    with open(games, "ab") as f:
        f.write(whole[: len(whole) // 2])
    m = json.loads((tmp_path / "cut" / "manifest.json").read_text())
    m["status"] = "interrupted"
    (tmp_path / "cut" / "manifest.json").write_text(json.dumps(m))
    run(cfg, tmp_path / "cut", resume=True)
    assert records(tmp_path / "cut") == records(tmp_path / "full")
    ids = [m.id for _, m in read_logs(games)]
    assert sorted(ids) == sorted(logs(tmp_path / "full")) and len(ids) == 12


def _recorded(tmp_path):
    cfg = write(tmp_path, """\
    name: dmg
    lineup: [{name: a, strategy: greedy}, {name: b, strategy: random}]
    matches: 2
    seed: 2
    record: all
    """)
    run(cfg, tmp_path / "out")
    return tmp_path / "out" / "games" / "games.jsonl.gz"


def _one_line_error(capsys, argv, *parts):
    capsys.readouterr()
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("cribsim: ") and err.count("\n") == 1 and "Traceback" not in err, err
    for p in parts:
        assert p in err, err
    return err


def test_damaged_records_are_one_line_errors_naming_file_and_line(tmp_path, capsys):
    games = _recorded(tmp_path)
    lines = gzip.decompress(games.read_bytes()).decode().splitlines()
    bad = tmp_path / "bad.jsonl"
    # malformed JSON on line 2
    bad.write_text(lines[0] + "\n" + lines[1][:50] + "\n")
    _one_line_error(capsys, ["replay", str(bad), "--match", "0.0.0.1"], "bad.jsonl, line 2", "not a game record")
    # truncated gzip
    cut = tmp_path / "cut.jsonl.gz"
    data = games.read_bytes()
    cut.write_bytes(data[: len(data) - 40])
    _one_line_error(capsys, ["replay", str(cut)], "cut.jsonl.gz, line 1", "truncated")  # (only whole batches are read)
    capsys.readouterr()
    assert main(["games", str(cut)]) == 0  # a run still writing: the whole batches are listed
    assert "last batch of records is unfinished" in capsys.readouterr().err
    # an answer the rules refuse (a discard of a card not held)
    d = json.loads(lines[0])
    d["games"][0]["actions"][0] = [0, 1] if d["games"][0]["actions"][0] != [0, 1] else [2, 3]
    bad.write_text(json.dumps(d) + "\n")
    _one_line_error(capsys, ["replay", str(bad)], "bad.jsonl, line 1, game 1", "refused by the rules")
    # scores that do not match the replay
    d = json.loads(lines[0])
    d["games"][0]["scores"][0] += 1
    bad.write_text(json.dumps(d) + "\n")
    _one_line_error(capsys, ["replay", str(bad)], "line 1, game 1", "the record says")
    # the record ends early
    d = json.loads(lines[0])
    del d["games"][0]["actions"][-3:]
    bad.write_text(json.dumps(d) + "\n")
    _one_line_error(capsys, ["replay", str(bad)], "line 1", "ends before the game")
    # edited rules
    d = json.loads(lines[0])
    d["rules"]["crib_flush_needs_starter"] = False
    bad.write_text(json.dumps(d) + "\n")
    _one_line_error(capsys, ["replay", str(bad)], "line 1", "fingerprint")
    # a missing field, a wrong version, a missing deck
    for edit, says in ((lambda d: d.pop("seed"), "'seed' is missing"), (lambda d: d.update(version=9), "version 9"),
                       (lambda d: d["games"][0]["decks"].pop(), "no deck given")):
        d = json.loads(lines[0])
        edit(d)
        bad.write_text(json.dumps(d) + "\n")
        _one_line_error(capsys, ["replay", str(bad)], "bad.jsonl, line 1", says)
    _one_line_error(capsys, ["replay", str(games), "--match", "9.9.9.9"], "no recorded match")
    _one_line_error(capsys, ["replay", str(tmp_path / "nope.jsonl.gz")], "no such file")
    _one_line_error(capsys, ["games", str(tmp_path)], "no game records")


BOOK_CFG = """\
    name: booked
    lineup: [{name: a, strategy: greedy}, {name: b, strategy: random}]
    matches: 6
    seed: 2
    deals: book.jsonl
    record: all
"""


def test_deal_book_opens_every_game_and_paired_seats_share_the_line(tmp_path, capsys):
    capsys.readouterr()
    assert main(["deals", "--sample", "2", "--seed", "7"]) == 0
    (tmp_path / "book.jsonl").write_text(capsys.readouterr().out)
    book = [json.loads(x) for x in (tmp_path / "book.jsonl").read_text().splitlines()]
    cfg = write(tmp_path, BOOK_CFG)
    exp = load_experiment(cfg)
    run(cfg, tmp_path / "out")
    rules = exp.variants[0]
    for mid, log in logs(tmp_path / "out").items():
        group = int(mid.split(".")[2])
        line = book[group % 2]
        g = log.games[0]
        assert g.first_dealer == line["dealer"] and g.cuts == []  # the book's dealer, no cut
        seats, crib, starter = deal_positions(rules, line["dealer"])
        dealt = [[g.decks[0][i] for i in s] for s in seats]
        from cribsim.games.cribbage.cards import parse_cards

        assert dealt == [parse_cards(h) for h in line["hands"]]
        assert g.decks[0][starter] == parse_cards([line["starter"]])[0]
        assert len(g.decks) > 1 and g.decks[1] != g.decks[0]  # later deals are drawn as usual


def test_deal_book_by_address_and_for_fives_and_threes(tmp_path):
    (tmp_path / "book.jsonl").write_text('{"dealer": 1, "address": [5, 6, 7, 8]}\n')
    cfg = write(tmp_path, BOOK_CFG)
    run(cfg, tmp_path / "out")
    from cribsim.rng import DECK, addressed_draw

    for log in logs(tmp_path / "out").values():
        assert log.games[0].decks[0] == addressed_draw(52, 13, 5, 6, 7, 8, DECK)
    (tmp_path / "ft.jsonl").write_text(json.dumps({"dealer": 2, "hands": [
        ["0-0", "0-1", "0-2", "0-3", "0-4"], ["0-5", "0-6", "1-1", "1-2", "1-3"], ["1-4", "1-5", "1-6", "2-2", "2-3"]]})
        + "\n")
    cfg = write(tmp_path, """\
    name: ft
    game: fives_threes
    variants: [fives_threes_three]
    lineup: [{name: a, strategy: greedy}, {name: b, strategy: random}, {name: c, strategy: random}]
    matches: 2
    seed: 2
    deals: ft.jsonl
    record: all
    """, "ft.yaml")
    run(cfg, tmp_path / "ft")
    for log in logs(tmp_path / "ft").values():
        assert log.games[0].first_dealer == 2 and log.games[0].decks[0] == list(range(15))


@pytest.mark.parametrize("line, says", [
    ('{"dealer": 0, "hands": [["5H", "5C", "JD", "4S", "6S", "KH"], ["5H", "2C", "3D", "4D", "6D", "KD"]], '
     '"starter": "7C"}', "'5H' appears twice"),
    ('{"dealer": 0, "hands": [["5H", "5C", "JD", "4S", "6S"], ["AH", "2C", "3D", "4D", "6D", "KD"]], '
     '"starter": "7C"}', "seat 0 is dealt 6 cards"),
    ('{"dealer": 0, "hands": [["5H", "5C", "JD", "4S", "6S", "KH"]], "starter": "7C"}', "each of the 2 seats"),
    ('{"dealer": 2, "hands": [["5H", "5C", "JD", "4S", "6S", "KH"], ["AH", "2C", "3D", "4D", "6D", "KD"]], '
     '"starter": "7C"}', "dealer must be a seat 0..1"),
    ('{"dealer": 0, "hands": [["5H", "5C", "JD", "4S", "6S", "KH"], ["AH", "2C", "3D", "4D", "6D", "KD"]], '
     '"starter": "JK"}', "not in these rules' 52-card deck"),
    ('{"dealer": 0, "hands": [["5H", "5C", "JD", "4S", "6S", "KH"], ["AH", "2C", "3D", "4D", "6D", "XX"]], '
     '"starter": "7C"}', "invalid card 'XX'"),
    ('{"dealer": 0, "address": [1, 2, 3]}', "four whole numbers"),
    ('{"dealer": 0, "hands": [], "colour": 1}', "unknown field 'colour'"),
    ('{"dealer": 0, "hands": [', "not JSON"),
])
def test_a_bad_deal_book_is_one_line_naming_file_and_line(tmp_path, capsys, line, says):
    good = '{"dealer": 1, "address": [1, 2, 3, 4]}'
    (tmp_path / "book.jsonl").write_text(good + "\n\n" + line + "\n")
    cfg = write(tmp_path, BOOK_CFG)
    _one_line_error(capsys, ["run", str(cfg), "--serial", "--out", str(tmp_path / "out")], "book.jsonl, line 3", says)
    assert not (tmp_path / "out").exists(), "nothing is written for a bad deal book"


START_CFG = """\
    name: endgame
    variants: [standard, lowball, three_player_team]
    lineup: [{name: a, strategy: greedy}, {name: b, strategy: random}, {name: c, strategy: random}]
    format: pairings
    pairings: PAIRS
    matches: 4
    seed: 2
    start: START
    record: all
"""


def test_start_positions_rotate_and_mean_scores_per_side(tmp_path):
    cfg = write(tmp_path, START_CFG.replace("PAIRS", "[[a, b]]").replace("three_player_team", "short_game_61")
                .replace("START", "[{scores: [55, 50], dealer: 1}, {scores: [50, 55]}]")
                .replace("standard, lowball, ", ""))
    run(cfg, tmp_path / "out")
    for mid, log in logs(tmp_path / "out").items():
        group = int(mid.split(".")[2])
        g = log.games[0]
        assert g.start_scores == ([55, 50] if group % 2 == 0 else [50, 55])
        if group % 2 == 0:
            assert g.first_dealer == 1 and g.cuts == []
        else:
            assert g.cuts, "no dealer given: cut for it (R-DEAL-1)"
        assert max(g.scores) >= 61 and all(s >= st for s, st in zip(g.scores, g.start_scores))
    assert replay_match(next(iter(logs(tmp_path / "out").values())), "x")


@pytest.mark.parametrize("start, says", [
    ("{scores: [121, 100]}", "side 0 starts at 121, at or past its target 121"),
    ("[{scores: [10, 10]}, {scores: [100, 130], dealer: 0}]", "side 1 starts at 130"),
    ("{scores: [10, 10, 10]}", "gives 3 scores; 'standard' has 2 sides"),
    ("{scores: [10, 10], dealer: 2}", "expected a seat 0..1"),
    ("{scores: [10, -1]}", "whole numbers 0..100,000"),
    ("{scores: [10, 10], who: 1}", "dealer optional"),
])
def test_a_start_position_at_or_past_the_target_is_one_line(tmp_path, capsys, start, says):
    cfg = write(tmp_path, START_CFG.replace("PAIRS", "[[a, b]]").replace("START", start)
                .replace("lowball, three_player_team", "lowball"))
    err = _one_line_error(capsys, ["run", str(cfg), "--serial", "--out", str(tmp_path / "out")], says)
    assert "exp.yaml, line 8" in err  # the file and the line of start:
    assert not (tmp_path / "out").exists()


def test_two_against_one_start_scores_are_by_role(tmp_path, capsys):
    """V-TEAM3-1: a game has two sides, always in the order (the lone player, target 61; the
    partnership, 121), whoever is alone: a position gives those two scores, checked against
    their own targets, and means the same in every game."""
    cfg = write(tmp_path, START_CFG.replace("PAIRS", "[[a, b, c]]").replace("START", "{scores: [61, 100]}")
                .replace("standard, lowball, ", ""))
    _one_line_error(capsys, ["run", str(cfg), "--serial", "--out", str(tmp_path / "out")],
                    "side 0 starts at 61, at or past its target 61")
    cfg = write(tmp_path, START_CFG.replace("PAIRS", "[[a, b, c]]").replace("START", "{scores: [40, 100]}")
                .replace("standard, lowball, ", ""))
    run(cfg, tmp_path / "out")
    recs = records(tmp_path / "out")
    for mid, log in logs(tmp_path / "out").items():
        assert all(g.start_scores == [40, 100] for g in log.games) and replay_match(log, "x")
        for k, g in enumerate(recs[mid]["games"]):
            assert g["sides"][0] == [k % 3] and len(g["sides"][1]) == 2  # the lone player first
            assert g["trail"][:2] == [40, 100]  # (the file keeps the start, then each step's gains)


def test_pgn_export_is_read_by_a_pgn_parser(tmp_path, capsys):
    cfg = write(tmp_path, """\
    name: pgn
    variants: [standard, three_player]
    lineup: [{name: a, strategy: greedy}, {name: b, strategy: random}, {name: c, strategy: "random"}]
    matches: 4
    seed: 2
    """)
    run(cfg, tmp_path / "out")
    assert main(["report", str(tmp_path / "out"), "--quiet", "--pgn", str(tmp_path / "run.pgn")]) == 0
    games = parse_pgn((tmp_path / "run.pgn").read_text())
    recs = records(tmp_path / "out")
    two = [r for r in recs.values() if len(r["sides"]) == 2]
    three = [r for r in recs.values() if len(r["sides"]) == 3]
    assert len(games) == len(two) + 2 * len(three)  # a three-sided match: the winner against each other side
    names = ["a", "b", "c"]
    for g in games:
        assert set(g["tags"]) >= {"Event", "Site", "Date", "Round", "White", "Black", "Result"}
        assert g["tags"]["Result"] == g["result"] in ("1-0", "0-1", "1/2-1/2")
        r = recs[g["tags"]["GameId"]]
        if len(r["sides"]) == 2:
            winner = names[r["sides"][r["winner"]]]
            assert (g["tags"]["White"] if g["result"] == "1-0" else g["tags"]["Black"]) == winner
    (tmp_path / "mine.pgn").write_text("my own notes\n")
    _one_line_error(capsys, ["report", str(tmp_path / "out"), "--quiet", "--pgn", str(tmp_path / "mine.pgn")],
                    "cribsim did not write")
    assert (tmp_path / "mine.pgn").read_text() == "my own notes\n"


def parse_pgn(text):
    """A strict reader of PGN's export format (tag pairs, a blank line, movetext ending in the
    result), as Ordo and BayesElo read it."""
    import re

    games, tags = [], {}
    lines = iter(text.splitlines())
    for line in lines:
        if not line.strip():
            continue
        m = re.fullmatch(r'\[([A-Za-z0-9_]+) "((?:[^"\\]|\\.)*)"\]', line)
        if m:
            tags[m.group(1)] = m.group(2)
            continue
        assert tags, f"movetext without tags: {line!r}"
        result = line.split()[-1]
        assert result in ("1-0", "0-1", "1/2-1/2", "*"), line
        games.append({"tags": tags, "result": result})
        tags = {}
    assert not tags, "tags without a game"
    return games


def test_book_is_checked_against_every_variant(tmp_path):
    (tmp_path / "book.jsonl").write_text(json.dumps({"dealer": 0, "hands": [
        ["5H", "5C", "JD", "4S", "6S", "KH"], ["AH", "2C", "3D", "4D", "6D", "KD"]], "starter": "7C"}) + "\n")
    five = load_rules("five_card")
    with pytest.raises(Exception) as e:
        read_book(tmp_path / "book.jsonl", [load_rules("standard"), five])
    assert "line 1" in str(e.value) and "five_card" in str(e.value)


def test_random_strategy_answers_are_recorded_as_given(tmp_path):
    """A record keeps the answers themselves: an (illegal-free) random game replays with the
    same number of answers as decisions asked."""
    rules = load_rules("auction")
    makers = [factory("random", rules=(rules,)) for _ in range(2)]
    tape = MatchTape()
    m = game_named("cribbage").play_match(rules, makers, 1, 2, tape=tape)
    assert sum(len(t.actions) for t in tape.games) > 0 and m.winner in (0, 1)
    assert all(isinstance(a, (int, tuple, list, type(None))) for t in tape.games for a in t.actions)


def test_a_variant_that_deals_its_own_way_takes_a_book(tmp_path):
    """V-CANADIAN: ten cards each to the dealer and the player on the dealer's left; the book
    is placed by the variant's own deal phase (deal_positions), not a copy of it."""
    from cribsim.games.cribbage.cards import parse_cards

    left = ["5H", "5C", "JD", "4S", "6S", "KH", "AC", "2C", "3C", "4C"]
    dealer = ["AH", "2H", "3D", "4D", "6D", "KD", "7D", "8D", "9D", "TD"]
    (tmp_path / "can.jsonl").write_text(json.dumps({"dealer": 1, "hands": [[], dealer, left, []],
                                                    "starter": "7C"}) + "\n")
    cfg = write(tmp_path, """\
    name: can
    variants: [canadian_doubles]
    lineup: [greedy, random]
    matches: 2
    deals: can.jsonl
    record: all
    """)
    run(cfg, tmp_path / "out")
    rules = load_experiment(cfg).variants[0]
    for log in logs(tmp_path / "out").values():
        g = log.games[0]
        seats, _, starter = deal_positions(rules, 1)
        assert [[g.decks[0][i] for i in s] for s in seats] == [[], parse_cards(dealer), parse_cards(left), []]
        assert g.decks[0][starter] == parse_cards(["7C"])[0] and replay_match(log, "x")


def test_a_strategy_that_reuses_its_answer_list_is_recorded_as_it_answered():
    """The record keeps a copy of each answer: a strategy may hand back one list and change it
    later (the rules saw the first contents)."""
    from cribsim.gamelog import GameTape

    buf = [1, 2]
    tape = GameTape()
    ask = tape.wrap(lambda obs: buf)
    assert ask(None) is buf
    buf[:] = [3, 4]
    ask(None)
    assert tape.actions == [(1, 2), (3, 4)]
    assert tape.wrap(lambda obs: {7, 3})(None) == {7, 3} and tape.actions[-1] == (3, 7)


def test_a_forfeited_match_is_recorded_up_to_the_answer_that_ended_it(tmp_path, capsys):
    cfg = write(tmp_path, """\
    name: forfeit
    lineup: [{name: bad, strategy: "tests.kernel.bad_strategies:Illegal", trusted: true, params: {p: 0.2}}, random]
    matches: 6
    seed: 2
    record: {losses_of: bad}
    """)
    run(cfg, tmp_path / "out")
    recs = records(tmp_path / "out")
    forfeits = {i for i, r in recs.items() if r["forfeit"]}
    got = logs(tmp_path / "out")
    assert forfeits and forfeits <= set(got)
    mid = sorted(forfeits)[0]
    assert got[mid].forfeit["kind"] == "illegal" and got[mid].games[-1].winner == -1
    capsys.readouterr()
    assert main(["replay", str(tmp_path / "out"), "--match", mid]) == 0
    out = capsys.readouterr().out
    assert "Play stops here (answer" in out and "refused by the rules" in out
    assert "Forfeit (illegal) charged to bad" in out


@pytest.mark.parametrize("edit, says", [
    (lambda d: d.update(entries=[]), "do not agree"),
    (lambda d: d.update(winner=99), "do not agree"),
    (lambda d: d["games"][0].update(cuts=[[1]]), "[seat, card] pairs"),
    (lambda d: d["games"][0].update(cuts=[[99, 5]]), "not a seat and a card"),
    (lambda d: d.update(counters=[[1]]), "counters"),
    (lambda d: d["games"][0].update(chance=[10 ** 400]), "draws in [0, 1)"),
    (lambda d: d["rules"].update(variants=[{}]), "rules are not valid"),
    (lambda d: d["rules"].update(game=["x"]), "rules are not valid"),
    (lambda d: d["games"][0].update(first_dealer=10 ** 30), "not a seat"),
    (lambda d: d.update(game_points=[0, 4]), "game points"),
    (lambda d: d["games"][0].update(deals=42), "42 deals"),
    (lambda d: d["games"][0]["decks"].append(list(range(12))), "never used"),
])
def test_every_field_of_a_record_is_checked(tmp_path, capsys, edit, says):
    games = _recorded(tmp_path)
    d = json.loads(gzip.decompress(games.read_bytes()).decode().splitlines()[0])
    edit(d)
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(d) + "\n")
    _one_line_error(capsys, ["replay", str(bad)], "bad.jsonl, line 1", says)


def test_damage_inside_the_records_file_is_refused_not_cut(tmp_path, capsys):
    """A batch in the middle that does not decompress: a resumed run stops, one line, and the
    file is left as it is (cutting there would lose the whole batches after it)."""
    games = _recorded(tmp_path)
    one = games.read_bytes()
    data = bytearray(one + one + one)
    data[len(one) + len(one) // 2] ^= 0xFF
    games.write_bytes(bytes(data))
    cfg = tmp_path / "exp.yaml"
    cfg.write_text(cfg.read_text().replace("matches: 2", "matches: 4"))
    capsys.readouterr()
    assert main(["run", str(cfg), "--serial", "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "different config" in err  # (the hash changed with matches: refused before anything)
    m = json.loads((tmp_path / "out" / "manifest.json").read_text())
    m["status"] = "interrupted"
    (tmp_path / "out" / "manifest.json").write_text(json.dumps(m))
    write_matches(tmp_path / "out", match_lines(tmp_path / "out")[:1])
    cfg.write_text(cfg.read_text().replace("matches: 4", "matches: 2"))
    assert main(["run", str(cfg), "--serial", "--quiet", "--out", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert "damaged at byte" in err and err.count("\n") == 1
    assert games.read_bytes() == bytes(data)


def test_pgn_never_replaces_a_file_it_did_not_write(tmp_path, capsys):
    _recorded(tmp_path)
    (tmp_path / "run.pgn.tmp").write_text("my notes\n")
    assert main(["report", str(tmp_path / "out"), "--quiet", "--pgn", str(tmp_path / "run.pgn")]) == 0
    assert (tmp_path / "run.pgn.tmp").read_text() == "my notes\n"
    assert (tmp_path / "run.pgn").read_text().startswith("[Event ")
    _one_line_error(capsys, ["report", str(tmp_path / "out"), "--quiet", "--pgn", ""], "give a file name")
