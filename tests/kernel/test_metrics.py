"""Game-design metrics (issue 13): hand-made score trails with known answers, the skill and
match-length arithmetic, paired differences narrower than unpaired ones on the same run, the
win-chance table monotone where it must be, and the commands' files and one-line errors."""

import json
import math
import random
import textwrap
from pathlib import Path

import numpy as np
import pytest

from cribsim.cli.main import main
from cribsim.records import GameRecord, MatchRecord, unflat_trail
from cribsim.tournament.analysis import read_results
from cribsim.tournament.compare import FIGURES, CompareSums, compare, diff_rows, rows
from cribsim.tournament.comparesums import Bootstrap, VariantFold, poisson_weights
from cribsim.tournament.config import load_experiment
from cribsim.tournament.folder import schedule_of
from cribsim.tournament.manifest import VariantInfo
from cribsim.tournament.metrics import (
    CLOSE,
    Estimate,
    game_metrics,
    games_to_win,
    games_to_win_normal,
    majority_chance,
    metrics_of,
)
from cribsim.tournament.positions import monotone_violations
from cribsim.tournament.runner import run_experiment
from cribsim.tournament.stats import ratio_ci
from cribsim.tournament.study import write_compare, write_positions
from tests.kernel.matchfile import match_dicts, write_matches

T = (121.0, 121.0)


def test_a_comeback_from_30_down():
    """Side 1 trails by 30 after the third point, leads from the seventh, wins: drama 30, the
    lead changed once (0 led first), decided at 6/8 of the game."""
    trail = [(0, 0), (10, 2), (40, 10), (60, 30), (80, 60), (95, 90), (100, 101), (110, 115), (118, 121)]
    m = game_metrics(trail, 1, T, 1, per_deal=2, deals=4)
    assert m.drama == 30
    assert m.lead_changes == 1
    assert m.decided_at == pytest.approx(6 / 8)
    assert m.margin == 3  # 121 - 118
    assert m.deals == 4


def test_a_wire_to_wire_game():
    """The winner leads from the first point on: no drama, no lead change, decided at the first
    point after the (tied) start."""
    trail = [(0, 0), (5, 2), (20, 9), (44, 30), (70, 41), (99, 60), (121, 77)]
    m = game_metrics(trail, 0, T, 1, per_deal=2)
    assert (m.drama, m.lead_changes, m.margin) == (0, 0, 44)
    assert m.decided_at == pytest.approx(1 / 6)


def test_ties_keep_the_last_leader_and_a_start_position_may_already_be_decided():
    trail = [(10, 0), (12, 12), (20, 14), (30, 40), (40, 40), (121, 45)]
    m = game_metrics(trail, 0, T, 1, per_deal=2)
    assert m.lead_changes == 2  # 0 -> (tie) -> 0 -> 1 -> (tie) -> 0
    assert m.drama == 10
    assert m.decided_at == pytest.approx(5 / 5)  # the winner led alone again only at the end
    early = game_metrics([(115, 110), (118, 112), (121, 112)], 0, T, 1, per_deal=2)
    assert early.decided_at == 0 and early.drama == 0


def test_a_reversed_objective_and_own_targets():
    """Lowball (objective -1): the side furthest from the target leads and wins. Two against
    one: standings are measured against each side's own target (lone 61, team 121)."""
    low = game_metrics([(0, 0), (30, 10), (60, 50), (121, 90)], 1, T, -1, per_deal=2)
    assert low.drama == 0 and low.lead_changes == 0 and low.margin == 31
    team3 = game_metrics([(0, 0), (40, 60), (61, 100)], 0, (61.0, 121.0), 1, per_deal=2)
    # after the first point the lone side (40 of 61: 21 to go) leads the team (60 of 121: 61 to go)
    assert team3.lead_changes == 0 and team3.drama == 0 and team3.margin == 21


def test_continued_play_is_measured_to_the_first_place():
    """R-MATCH-5: the winner's game ends when it takes the first place; the others play on for
    places, and what they score after that is not a comeback against the winner."""
    g = GameRecord(winner=0, scores=[121, 130, 90], deals=3, first_dealer=0, first_dealer_won=True, skunk=0,
                   sides=[[0], [1], [2]], order=[0, 1, 2], first_scores=[121, 100, 80],
                   trail=[[0, 0, 0], [60, 50, 40], [100, 90, 70], [121, 100, 80], [121, 130, 90]])
    m = metrics_of(g, VariantInfo(sides=3, objective=1, columns=(), target=121, checkpoints=2))
    assert (m.margin, m.lead_changes, m.drama) == (21, 0, 0)
    assert m.decided_at == pytest.approx(1 / 3)


def test_metrics_of_a_record_use_the_manifest_info():
    g = GameRecord(winner=1, scores=[100, 121], deals=2, first_dealer=0, first_dealer_won=False, skunk=0,
                   sides=[[0], [1]], order=[1, 0], trail=[[0, 0], [30, 0], [40, 10], [50, 60], [100, 121]],
                   decisions=20)
    info = VariantInfo(sides=2, objective=1, columns=(), target=121, checkpoints=2)
    m = metrics_of(g, info)
    assert (m.drama, m.lead_changes, m.decisions) == (30, 1, 20)
    with pytest.raises(ValueError):
        metrics_of(GameRecord(0, [121, 0], 1, 0, True, 0, [[0], [1]], [0, 1]), info)


def test_games_to_win_a_match():
    """The exact binomial answer, checked by hand for small n, and close to the normal one."""
    assert majority_chance(0.6, 1) == pytest.approx(0.6)
    assert majority_chance(0.6, 3) == pytest.approx(0.6 ** 3 + 3 * 0.6 ** 2 * 0.4)
    n = games_to_win(0.6)
    assert majority_chance(0.6, n) >= 0.95 > majority_chance(0.6, n - 2)
    assert n == 67  # the normal approximation says 64.9
    assert abs(games_to_win_normal(0.6, 0.24) - n) / n < 0.1
    assert games_to_win(0.5) is None and games_to_win(0.3) is None and games_to_win(1.0) == 1


def _games(pairs):
    return [GameRecord(winner=w, scores=[0, 0], deals=1, first_dealer=fd, first_dealer_won=w == fd, skunk=0,
                       sides=[[0], [1]], order=[w, 1 - w], trail=[[0, 0], [121, 0] if w == 0 else [0, 121]])
            for w, fd in pairs]


def test_seat_win_rates_and_balance_of_two_seats():
    """Seat 0 is the first dealer; with two seats balance's interval follows from the first
    seat's (1 - |2r - 1|)."""
    fold = VariantFold(VariantInfo(sides=2, objective=1, columns=(), target=121, players=2), 1, [], 10)
    for i, g in enumerate(_games([(0, 0), (1, 0), (0, 1), (0, 0)] * 50)):
        fold.add(MatchRecord(f"0.0.{i}.0", 0, 0, i, 0, [0, 1], g.winner, [1 - g.winner, g.winner], None, [g]))
    assert [s.estimate().value for s in fold.seats] == [0.5, 0.5]
    b = fold.balance()
    assert b is not None and b.value == 1.0 and b.lo < 1.0 and b.hi == 1.0


def test_poisson_weights_are_a_poisson_bootstrap_and_depend_on_the_cluster_alone():
    w = np.stack([poisson_weights(t, g) for t in range(3) for g in range(300)])
    assert abs(w.mean() - 1) < 0.01 and abs(w.var() - 1) < 0.02  # Poisson(1): mean and variance 1
    assert (poisson_weights(2, 7) == w[2 * 300 + 7]).all()  # the same cluster: the same weights
    assert abs(np.corrcoef(w[:, 0], w[:, 1])[0, 1]) < 0.05  # resamples independent of each other


def test_balance_of_many_seats_covers_perfect_balance():
    """The range of five noisy seat rates is biased upward, so the raw bootstrap interval of a
    perfectly balanced game misses 1; the basic bootstrap interval covers it, and the same
    clusters added in another order give the same interval."""
    rng = np.random.default_rng(7)
    covered = 0
    for rep in range(20):
        winner = rng.integers(0, 5, 1000)
        boots = [Bootstrap(), Bootstrap()]
        for order, boot in zip((range(1000), reversed(range(1000))), boots):
            for i in order:
                boot.add(rep, i, [int(winner[i] == k) for k in range(5)], 1)
        rates = np.bincount(winner, minlength=5) / 1000
        value = 1 - float(rates.max() - rates.min())
        lo, hi = boots[0].interval(value)
        assert (lo, hi) == boots[1].interval(value)
        covered += hi >= 0.999
    assert covered >= 15


def write(tmp_path, text, name="exp.yaml"):
    f = tmp_path / name
    f.write_text(textwrap.dedent(text))
    return f


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("metrics")
    cfg = write(tmp, """\
    name: metrics
    variants:
      - standard
      - {name: no_crib_flush_rule, extends: standard, crib_flush_needs_starter: false}
      - short_game_61
      - three_player
    lineup: [{name: g, strategy: greedy}, {name: r, strategy: random}, {name: r2, strategy: random}]
    format: gauntlet
    matches: 300
    seed: 21
    """)
    run_experiment(load_experiment(cfg), tmp / "out", serial=True, quiet=True, progress=False, report=False)
    return tmp / "out"


def test_paired_differences_are_narrower_than_unpaired(run_dir):
    """The same deals under two variants (deal keys do not depend on the variant): a variant
    that changes little has a paired difference with a much smaller interval than the unpaired
    one on the same matches."""
    c = write_compare(str(run_dir), baseline="standard", quiet=True)
    d = {x.figure: x for x in c.diffs[1]}
    for fig in ("deals/game", "final margin (points)", "first dealer wins"):
        p, u = d[fig].paired, d[fig].unpaired
        assert p is not None and (p.hi - p.lo) < 0.5 * (u.hi - u.lo), fig
    three = {x.figure: x for x in c.diffs[3]}
    assert three["deals/game"].paired is None  # other tables: no pairing
    assert c.columns[2].figures["deals/game"].value < c.columns[0].figures["deals/game"].value  # 61 is shorter


def _fed(manifest, records, base=0):
    sums = CompareSums(manifest, [(base, v) for v in range(len(manifest.variant_names))])
    held = 0
    for r in records:
        sums.add(r)
        held = max(held, sum(len(f.open) for f in sums.variants) + len(sums.waiting))
    sums.finish()
    c = compare(sums, base)
    return (rows(c), diff_rows(c)), held


def _reference_cells(manifest, records):
    """Every figure's cell the plain way: every game's value listed, summed per cluster (a
    table's group) in order, and the float delta-method ratio interval over the clusters."""
    per: dict = {}
    for r in sorted((r for r in records if r.forfeit is None), key=lambda r: r.key):
        info = manifest.variant_info[r.variant]
        for g in r.games:
            m = metrics_of(g, info)
            for name, read in FIGURES:
                x = read(g, m, CLOSE)
                if not math.isnan(x):
                    cell = per.setdefault((r.variant, name), {}).setdefault((r.table, r.group), [0.0, 0])
                    cell[0] += x
                    cell[1] += 1
    out = {}
    for key, clusters in per.items():
        value, lo, hi = ratio_ci([c[0] for c in clusters.values()], [c[1] for c in clusters.values()])
        out[key] = Estimate(value, lo, hi, sum(c[1] for c in clusters.values())).cell()
    return out


def test_compare_from_a_stream_is_the_same_in_any_order_and_holds_only_the_groups_in_flight(run_dir):
    """compare reads the records as a stream (issue 24): fed in the file's order, shuffled or
    in the playing order, every cell and difference is the same string, each
    figure's cell is the plain list-based computation's, and in the playing order only the
    groups in flight are held (a few, however many matches the run has)."""
    manifest, records = read_results(run_dir)
    schedule = schedule_of(manifest)
    order = {place: i for i, place in enumerate(schedule.order())}
    playing = sorted(records, key=lambda r: order[schedule.place(r)])
    shuffled = list(records)
    random.Random(3).shuffle(shuffled)
    first, _ = _fed(manifest, records)
    assert _fed(manifest, shuffled)[0] == first
    again, held = _fed(manifest, playing)
    assert again == first and held <= 8, held  # (1,200 matches; held: open groups and waiting twins)
    head, body = first[0]
    reference = _reference_cells(manifest, records)
    for v in range(len(manifest.variant_names)):
        for row, (name, _) in zip(body[1:], FIGURES):  # (the games row, then the figures in order)
            assert row[v + 1] == reference.get((v, name), "-"), (v, name)


def test_compare_of_an_unfinished_run_folds_the_groups_it_has(run_dir):
    """Matches missing from a group (an interrupted run): the group is folded with what came,
    paired with its twins where both have the game, the same in any order."""
    manifest, records = read_results(run_dir)
    kept = [r for i, r in enumerate(records) if i % 7]
    first, _ = _fed(manifest, kept)
    assert _fed(manifest, kept[::-1])[0] == first
    games = sum(len(r.games) for r in kept if r.variant == 0 and r.forfeit is None)
    assert first[0][1][0][1] == str(games)


def test_compare_writes_beside_the_run_unless_asked_then_in_it_and_lists_its_files(run_dir, capsys):
    """A run's folder is never changed unasked (docs/commands.md): the first compare goes to a
    folder of its own beside the run; --out the run's folder writes there and lists the files in
    its manifest; from then on compare refreshes them there, byte for byte."""
    before = (run_dir / "manifest.json").read_bytes()
    assert main(["compare", str(run_dir), "--close", "5"]) == 0
    out = capsys.readouterr().out
    assert "close games (margin < 5)" in out and "balance" in out and "games for a 95% match win" in out
    beside = run_dir.parent / f"{run_dir.name}-compare"
    files = ("compare.md", "compare.csv", "compare_diff.csv", "compare.png")
    assert all((beside / f).exists() for f in files) and (beside / ".cribsim-analysis.json").exists()
    assert (run_dir / "manifest.json").read_bytes() == before and not (run_dir / "compare.md").exists()
    assert str(beside / "compare.md") in out
    assert main(["compare", str(run_dir), "--close", "5", "--out", str(run_dir), "--quiet"]) == 0
    manifest = json.loads((run_dir / "manifest.json").read_text())
    for f in files:
        assert (run_dir / f).exists() and f in manifest["files"]
    assert (run_dir / "compare.csv").read_bytes() == (beside / "compare.csv").read_bytes()
    first = (run_dir / "compare.md").read_bytes()
    assert main(["compare", str(run_dir), "--close", "5", "--quiet"]) == 0  # a refresh, in place
    assert (run_dir / "compare.md").read_bytes() == first
    rows = (run_dir / "compare.csv").read_text().splitlines()
    assert rows[0].split(",")[1:] == ["standard", "no_crib_flush_rule", "short_game_61", "three_player"]
    assert (run_dir / "compare.png").stat().st_size > 10_000
    (beside / "mine.txt").write_text("a file of the user's")
    assert main(["compare", str(run_dir), "--out", str(beside)]) == 2
    assert "not cribsim's (mine.txt)" in capsys.readouterr().err


def test_win_chance_table_is_monotone_where_it_must_be(run_dir, capsys):
    t = write_positions(str(run_dir), "standard", bin=10, min_n=40, quiet=True)
    assert monotone_violations(t) == []
    raw = [c for c in t.cells if c.estimate == "raw"]
    assert len(raw) > 20
    start = t.cell_at(0, 0)
    assert start.states > 500 and 0.4 < start.p < 0.7
    near = t.cell_at(115, 60)  # the dealer's side 6 from home, the other far behind
    assert math.isnan(near.p) or near.p > 0.8
    lines = (run_dir.parent / f"{run_dir.name}-positions" / "positions_standard.csv").read_text().splitlines()
    assert lines[0].startswith("dealer_from,dealer_to,other_from,other_to,states")
    assert len(lines) == 1 + 13 * 13
    assert main(["positions", str(run_dir), "--variant", "three_player"]) == 2
    assert "has 3 sides; the table is for two" in capsys.readouterr().err


@pytest.mark.parametrize("argv, says", [
    (["compare", "{d}", "--baseline", "nope"], "is not a variant of this run"),
    (["compare", "{d}", "--close", "nan"], "--close must be"),
    (["positions", "{d}", "--bin", "0"], "--bin must be"),
    (["positions", "{d}", "--variant", "nope"], "is not a variant"),
    (["compare", "{d}/missing"], "no such folder"),
])
def test_study_commands_refuse_in_one_line(run_dir, capsys, argv, says):
    capsys.readouterr()
    assert main([a.format(d=run_dir) for a in argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("cribsim") and err.count("\n") == 1 and says in err


def test_records_without_trails_are_refused(tmp_path, run_dir, capsys):
    import shutil

    old = tmp_path / "old"
    shutil.copytree(run_dir, old)
    lines = []
    for d in match_dicts(old):
        for g in d["games"]:
            g.pop("trail", None)
        lines.append(d)
    write_matches(old, lines)
    capsys.readouterr()
    assert main(["compare", str(old)]) == 2
    assert "no score trails" in capsys.readouterr().err


def test_fives_and_threes_trails_count_hands(tmp_path):
    cfg = write(tmp_path, """\
    name: ft
    game: fives_threes
    lineup: [greedy, random]
    matches: 20
    seed: 3
    """)
    run_experiment(load_experiment(cfg), tmp_path / "out", serial=True, quiet=True, progress=False, report=False)
    recs = match_dicts(tmp_path / "out")
    for r in recs:
        for g in r["games"]:
            trail = unflat_trail(g["trail"], g)  # (the file keeps each step's gains)
            assert len(trail) == g["deals"] + 1  # start, after each hand (the last ends the game)
            assert trail[-1] == g["scores"] and g["decisions"] > 0
    c = write_compare(str(tmp_path / "out"), quiet=True)
    assert c.columns[0].figures["deals/game"].n == sum(len(r["games"]) for r in recs)
    assert Path(tmp_path / "out-compare" / "compare.md").exists()


def test_positions_refuses_an_old_run_and_warns_on_a_paired_one(tmp_path, run_dir, capsys):
    import shutil

    old = tmp_path / "old"
    shutil.copytree(run_dir, old)
    m = json.loads((old / "manifest.json").read_text())
    for info in m["variant_info"]:
        info.pop("target", None)
    (old / "manifest.json").write_text(json.dumps(m))
    capsys.readouterr()
    assert main(["positions", str(old)]) == 2
    assert "made by an older cribsim" in capsys.readouterr().err
    assert main(["positions", str(run_dir), "--quiet"]) == 0  # the fixture's run is paired
    assert "this run is paired" in capsys.readouterr().err


def test_a_trail_that_does_not_end_at_the_scores_is_refused():
    from cribsim.records import GameRecord as G
    from cribsim.records import RecordError

    d = G(winner=0, scores=[121, 50], deals=1, first_dealer=0, first_dealer_won=True, skunk=0, sides=[[0], [1]],
          order=[0, 1], trail=[[0, 0], [121, 50]]).to_json()
    assert G.from_json(d).trail == [[0, 0], [121, 50]]
    for bad in ([[0, 0], [121]], [[0, 0], [120, 50]], []):
        with pytest.raises(RecordError):
            G.from_json({**d, "trail": bad})


def test_an_analysis_of_the_folder_one_stands_in_goes_beside_it_never_inside(run_dir, tmp_path, monkeypatch, capsys):
    """``cribsim positions .`` inside a run's folder writes to ``<run>-positions`` beside it (the
    folder named by its real path), and an --out inside the run's folder is refused."""
    import shutil

    run = tmp_path / "here"
    shutil.copytree(run_dir, run, ignore=shutil.ignore_patterns("positions_*"))
    monkeypatch.chdir(run)
    assert main(["positions", ".", "--quiet"]) == 0
    assert (tmp_path / "here-positions" / "positions_standard.csv").is_file()
    assert not any(p.name.endswith("-positions") for p in run.iterdir())
    assert main(["positions", ".", "--out", "sub"]) == 2
    assert "inside the run's" in capsys.readouterr().err and not (run / "sub").exists()
