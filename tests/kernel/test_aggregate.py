"""The summary tables come from exact, mergeable sums (cribsim/tournament/aggregate.py): for every
summary file, sums merged from batches of any size in any order give the same cells as the
plain computation over the whole list of records (tests/kernel/reference_summary.py), to the
last digit the CSV files print."""

import random
from fractions import Fraction

import pytest

from cribsim.records import Column, Forfeit, GameRecord, MatchRecord
from cribsim.tournament import folder as fld
from cribsim.tournament.aggregate import ColumnSums, Partial, VariantShape
from cribsim.tournament.config import load_experiment
from cribsim.tournament.runner import run_experiment
from cribsim.tournament.summary import csv_cells, csv_widths, summarize, tables
from tests.kernel import reference_summary

pytestmark = pytest.mark.quick  # the quick tier: python -m pytest -m quick (docs/testing.md)

MIXED = """\
name: mixed
variants: [standard, lowball_three, auction, muggins, four_player_partners, jokers]
lineup:
  - {name: greedy, strategy: greedy}
  - {name: random, strategy: random}
  - {name: raiser, strategy: "tests.kernel.bad_strategies:Raiser", params: {p: 0.03}, trusted: true}
matches: 6
paired: true
seed: 11
"""


def cells(ts):
    """Every table as the CSV file writes it: name, then each row's fields."""
    out = []
    for t in ts:
        widths = csv_widths(t.rows, len(t.headers))
        out.append((t.name, [csv_cells(t.headers, r, widths) for r in t.rows]))
    return out


@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    """(manifest, records) of a small run over six variants, with forfeits and two failed matches."""
    tmp = tmp_path_factory.mktemp("mixed")
    (tmp / "exp.yaml").write_text(MIXED)
    run_experiment(load_experiment(tmp / "exp.yaml"), tmp / "out", serial=True, quiet=True, report=False)
    manifest = fld.read_manifest(tmp / "out")
    records = fld.scan_records(tmp / "out" / fld.RECORDS, fld.schedule_of(manifest)).records
    for r in records[3:5]:  # two matches whose worker kept dying
        r.winner, r.game_points, r.games = -1, None, []
        r.forfeit = Forfeit(None, None, "crash", "its worker process died (X), also when the match was retried")
    return manifest, records


def test_the_sums_give_the_plain_computations_tables(mixed):
    manifest, records = mixed
    assert any(r.forfeit and not r.failed for r in records)
    got = cells(summarize(manifest, records))
    assert {name for name, _ in got} >= {"matrix_standard", "entries", "variants", "paired", "forfeits"}
    assert got == cells(reference_summary.summarize(manifest, records))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_partials_merged_in_any_order_give_the_same_tables(mixed, seed):
    manifest, records = mixed
    shuffled = list(records)
    rng = random.Random(seed)
    rng.shuffle(shuffled)
    parts, i = [], 0
    while i < len(shuffled):  # batches of any size, merged in any order
        k = rng.randint(1, 40)
        parts.append(Partial.of(manifest, shuffled[i:i + k]))
        i += k
    rng.shuffle(parts)
    merged = Partial.of(manifest)
    for p in parts:
        merged.merge(p)
    assert cells(tables(manifest, merged)) == cells(summarize(manifest, records))


def game(x):
    return GameRecord(winner=0, scores=[1, 0], deals=3, first_dealer=0, first_dealer_won=True, skunk=0,
                      sides=[[0], [1]], order=[0, 1], metrics={"x": x})


def test_float_sums_are_exact_whatever_the_order():
    col = Column("x", "mean", "metrics.x")
    values = [0.1, 1e16, -1e16, 0.2, 0.3, 2.5, 1 / 3]
    cells_seen = set()
    for seed in range(5):
        order = list(values)
        random.Random(seed).shuffle(order)
        a, b = ColumnSums(), ColumnSums()
        for v in order[:3]:
            a.add(col, game(v))
        for v in order[3:]:
            b.add(col, game(v))
        b.merge(a)
        assert b.sx == sum(Fraction(v) for v in values)
        cells_seen.add(b.cell(col))
    assert len(cells_seen) == 1


def test_a_failed_match_is_counted_in_its_own_row_not_in_the_pairs():
    failed = MatchRecord("0.0.0.0", 0, 0, 0, 0, [0, 1], -1, None, Forfeit(None, None, "crash", "died"))
    p = Partial([VariantShape(sides=2, objective=1, columns=(), per_group=2, paired=True)])
    p.add(failed)
    assert p.failed == 1 and p.variants[0].pair == {} and p.variants[0].entries == {}
    assert [f.match for f in p.forfeits] == ["0.0.0.0"]

