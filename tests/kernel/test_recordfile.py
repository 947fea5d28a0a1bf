"""The results file, matches.jsonl.gz: at most 100 bytes a match, readable by other tools as it
is, read as a stream in memory that does not grow with it, and an older cribsim's
matches.jsonl refused (never misread) until ``cribsim upgrade`` converts it, with the same tables."""

import gzip
import json
import math
import shutil
import tracemalloc

import duckdb
import pytest

from cribsim.cli.main import main
from cribsim.records import LEGACY_SCHEMA, Column, match_from_json, unflat_trail
from cribsim.rng import derive
from cribsim.tournament import folder as fld
from cribsim.tournament.aggregate import ColumnSums
from cribsim.tournament.config import load_experiment
from cribsim.tournament.positions import position_table, write_csv
from cribsim.tournament.runner import run_experiment
from cribsim.tournament.schedule import Pending, Schedule, Seen, Slot, specs_of
from tests.kernel.matchfile import match_dicts, match_lines, write_matches
from tests.kernel.test_aggregate import game

ONE_GAME = "name: small\nlineup: [random, greedy]\nmatches: 400\npaired: false\nseed: 8\n"


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("rf")
    (tmp / "exp.yaml").write_text(ONE_GAME)
    run_experiment(load_experiment(tmp / "exp.yaml"), tmp / "out", serial=True, quiet=True)
    return tmp


def tables(folder):
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.suffix in (".csv", ".md")}


def test_a_match_takes_at_most_100_bytes_and_any_gzip_reader_reads_it(run):
    path = run / "out" / "matches.jsonl.gz"
    assert path.stat().st_size <= 100 * 400, path.stat().st_size
    lines = gzip.open(path, "rt").read().splitlines()  # (as pandas, DuckDB or zcat read it)
    assert len(lines) == 400 and all(json.loads(x)["schema"] == 3 for x in lines)
    game = json.loads(lines[0])["games"][0]
    trail = unflat_trail(game["trail"], game)
    assert trail[0] == [0, 0] and trail[-1] == game["scores"]


def test_duckdb_reads_a_run_as_it_is(run):
    """The README's example: the records, batches of gzip'd JSON lines, are a table to DuckDB."""
    path = run / "out" / "matches.jsonl.gz"
    ((n, deals),) = duckdb.sql(f"select count(*), sum(games[1].deals) from read_json('{path}')").fetchall()
    games = [g for d in match_dicts(run / "out") for g in d["games"]]
    assert n == 400 and deals == sum(g["deals"] for g in games)
    ((wins,),) = duckdb.sql(f"select count(*) from read_json('{path}') where sides[winner + 1] = 1").fetchall()
    entries = (run / "out" / "entries.csv").read_text().splitlines()
    greedy = next(x for x in entries if ",greedy," in x).split(",")  # (no draws: one game a match)
    assert float(greedy[2]) == pytest.approx(wins / 400, abs=1e-6)


def test_reading_the_records_does_not_hold_them(run):
    path = run / "out" / "matches.jsonl.gz"
    manifest = fld.read_manifest(run / "out")
    count = []
    tracemalloc.start()
    recs = fld.read_records(path, fld.schedule_of(manifest), lambda r: count.append(1))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert recs.results == len(count) == 400
    assert peak < 1_000_000, peak  # (the file holds 400 records of about 600 bytes of JSON each, decompressed)


def test_positions_reads_the_records_as_a_stream_with_the_same_table(run, tmp_path, monkeypatch, capsys):
    """``cribsim positions`` folds each record into its cells as it is read: never a list of them
    (folder.scan_records), and the same table as one built from the list."""
    listed = fld.scan_records(run / "out" / "matches.jsonl.gz", fld.schedule_of(fld.read_manifest(run / "out")))
    expected = position_table(fld.read_manifest(run / "out"), listed.records, 0, 5, 30)

    def no_list(*args, **kwargs):
        raise AssertionError("the records were listed")
    monkeypatch.setattr(fld, "scan_records", no_list)
    assert main(["positions", str(run / "out"), "--out", str(tmp_path / "pos"), "--quiet"]) == 0, capsys.readouterr()
    got = (tmp_path / "pos" / "positions_standard.csv").read_text()
    buf = tmp_path / "expected.csv"
    write_csv(expected, buf)
    assert got == buf.read_text() and expected.states > 400


def legacy_line(d):
    """A schema 3 record as an older cribsim wrote it (schema 2: the trail as running scores)."""
    d = dict(d, schema=LEGACY_SCHEMA)
    d["games"] = [dict(g, trail=unflat_trail(g["trail"], g)) for g in d["games"]]
    return json.dumps(d) + "\n"


def test_an_older_folder_is_refused_until_upgraded_then_gives_the_same_tables(run, tmp_path, capsys):
    out = tmp_path / "old"
    out.mkdir()
    for p in (run / "out").iterdir():
        if p.is_file() and p.name != "matches.jsonl.gz":
            shutil.copy2(p, out / p.name)  # (as a copy of a folder keeps resume.key its owner's only)
    lines = [legacy_line(d) for d in match_dicts(run / "out")]
    (out / "matches.jsonl").write_text("".join(lines))
    assert match_from_json(json.loads(lines[0]), LEGACY_SCHEMA).games[0].trail is not None
    before = tables(out)
    for argv in (["report", str(out)], ["run", str(run / "exp.yaml"), "--serial", "--out", str(out)]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"'cribsim upgrade {out}' converts them" in err, err
    assert main(["upgrade", str(out)]) == 0
    assert "400 records converted from matches.jsonl to matches.jsonl.gz" in capsys.readouterr().out
    assert not (out / "matches.jsonl").exists()
    assert "matches.jsonl.gz" in json.loads((out / "manifest.json").read_text())["files"]
    assert main(["report", str(out), "--quiet"]) == 0
    assert tables(out) == before == tables(run / "out")
    assert main(["run", str(run / "exp.yaml"), "--serial", "--quiet", "--out", str(out)]) == 0  # resumes


def test_an_upgrade_keeps_an_old_file_with_lines_it_cannot_convert(run, tmp_path, capsys):
    out = tmp_path / "old"
    out.mkdir()
    (out / "manifest.json").write_bytes((run / "out" / "manifest.json").read_bytes())
    good = legacy_line(match_dicts(run / "out")[0])
    (out / "matches.jsonl").write_text(good + "not json\n")
    assert main(["upgrade", str(out)]) == 0
    said = capsys.readouterr().out
    assert "1 record converted" in said and "1 line that is not a record left out" in said
    assert (out / "matches.jsonl").exists() and (out / "matches.jsonl.gz").exists()
    assert main(["upgrade", str(out)]) == 2  # both: which one is meant cannot be told
    assert "move matches.jsonl aside" in capsys.readouterr().err


def copy_run(run, dest):
    dest.mkdir()
    for p in (run / "out").iterdir():
        if p.is_file():
            shutil.copy2(p, dest / p.name)  # (as a copy of a folder keeps resume.key its owner's only)
    return dest


def failed(d, why):
    return dict(d, winner=-1, game_points=None, games=[], forfeit={"side": None, "entry": None, "kind": "crash",
                                                                    "error": why})


def test_a_failure_replayed_and_failed_again_is_the_one_reported(run, tmp_path):
    """A resumed run replays a failed match; if it fails again, the later failure is the one its
    sums hold, and the one a report re-reading the file keeps."""
    out = copy_run(run, tmp_path / "f")
    recs = match_dicts(out)
    write_matches(out, recs[1:] + [failed(recs[0], "first"), failed(recs[0], "second")])
    manifest = fld.read_manifest(out)
    scanned = fld.scan_records(out / "matches.jsonl.gz", fld.schedule_of(manifest))
    kept = next(r for r in scanned.records if r.id == recs[0]["id"])
    assert kept.failed and kept.forfeit.error == "second"
    assert not scanned.seen.has_id(recs[0]["id"])  # (a resumed run plays it again)


def test_a_record_written_twice_in_another_hand_is_used_once(run, tmp_path):
    out = copy_run(run, tmp_path / "d")
    recs = match_dicts(out)
    with gzip.open(out / "matches.jsonl.gz", "ab") as f:  # json.dumps' own spacing: not as cribsim writes
        f.write((json.dumps(recs[5]) + "\n").encode())
    manifest = fld.read_manifest(out)
    scanned = fld.read_records(out / "matches.jsonl.gz", fld.schedule_of(manifest))
    assert (scanned.results, scanned.repeats) == (400, 1)


def test_a_damaged_batch_before_a_torn_one_stays_when_the_run_resumes(run, tmp_path, capsys):
    out = copy_run(run, tmp_path / "t")
    lines = match_lines(out)
    whole = gzip.compress(("\n".join(lines[:200]) + "\n").encode(), mtime=0)
    damaged = bytearray(gzip.compress(("\n".join(lines[200:300]) + "\n").encode(), mtime=0))
    damaged[30:50] = b"\0" * 20
    torn = gzip.compress(("\n".join(lines[300:]) + "\n").encode(), mtime=0)
    (out / "matches.jsonl.gz").write_bytes(whole + bytes(damaged) + torn[:len(torn) // 2])
    assert main(["run", str(run / "exp.yaml"), "--serial", "--quiet", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "cut an unfinished last batch" in err and "1 damaged batch" in err, err
    data = (out / "matches.jsonl.gz").read_bytes()
    assert data.startswith(whole + bytes(damaged))  # the damaged batch stays where it was
    manifest = fld.read_manifest(out)
    assert fld.read_records(out / "matches.jsonl.gz", fld.schedule_of(manifest)).results == 400
    csvs = {k: v for k, v in tables(out).items() if k.endswith(".csv")}
    assert csvs == {k: v for k, v in tables(run / "out").items() if k.endswith(".csv")}
    assert "1 damaged batch of matches.jsonl.gz skipped" in (out / "summary.md").read_text()


def test_a_record_that_contradicts_itself_is_one_line(run, tmp_path, capsys):
    out = copy_run(run, tmp_path / "w")
    recs = match_dicts(out)
    write_matches(out, recs[:-1] + [dict(recs[-1], winner=7)])
    for argv in (["report", str(out)], ["run", str(run / "exp.yaml"), "--serial", "--out", str(out)]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "wrong shape" in err and "do not match its sides" in err, err


def test_a_metric_that_is_not_a_number_blanks_its_cell_and_breaks_nothing():
    col = Column("x", "mean", "metrics.x")
    a, b = ColumnSums(), ColumnSums()
    a.add(col, game(1.5))
    b.add(col, game(float("nan")))
    a.merge(b)
    assert all(math.isnan(x) for x in a.cell(col)) and a.n == 2


def test_an_upgrade_names_the_first_schema(run, tmp_path, capsys):
    out = tmp_path / "s1"
    out.mkdir()
    (out / "manifest.json").write_bytes((run / "out" / "manifest.json").read_bytes())
    (out / "matches.jsonl").write_text('{"id": "0.0.0.0", "v": 0, "t": 0}\n')
    assert main(["upgrade", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "schema 1, too old to convert" in err
    assert sorted(p.name for p in out.iterdir()) == ["manifest.json", "matches.jsonl"]


SHAPES = [([[[0, 1], [0, 2], [1, 2]], [[0, 1, 2]], [[0, 1, 2, 3, 4]]], 7),
          ([[[0, 1]], [], [[1, 0], [2, 1]]], 5),  # a variant with no table
          ([[[0, 1, 2, 3]], [[0, 1]]], 30)]  # groups per table that differ by variant (paired)


def playing_order(schedule):
    """The playing order as the schedule defines it, written out slot by slot: by group, then
    variant, table and seating (every seating of a group when paired, else the group's turn)."""
    for g in range(max(schedule.groups, default=0)):
        for v, tables in enumerate(schedule.tables):
            if g < schedule.groups[v]:
                seats = schedule.seats[v]
                for t, table in enumerate(tables):
                    for s in (range(len(seats)) if schedule.paired else [g % len(seats)]):
                        yield Slot(v, t, g, s, tuple(table[i] for i in seats[s]))


@pytest.mark.parametrize("tables,matches", SHAPES)
@pytest.mark.parametrize("paired", [True, False])
def test_a_place_in_the_schedule_is_the_match_its_id_says(tables, matches, paired):
    """The driver hands out places (bare numbers) in the playing order and a worker makes each
    spec from its place: the order is the playing order, a place makes the spec of its slot (id,
    sides, deal key), and the place the worker hands back is the one its id says."""
    schedule = Schedule(tables, matches, paired)
    slots = list(playing_order(schedule))
    assert list(schedule.order()) == [schedule.index(slot) for slot in slots]
    assert sorted(schedule.order()) == list(range(schedule.size)) and len(slots) == schedule.size
    specs = list(specs_of(schedule, 5))
    for slot, spec in zip(slots, specs, strict=True):
        assert schedule.at(spec.place) == slot == schedule.slot(spec.id)
        assert (spec.id, spec.sides, spec.key) == (f"{slot.variant}.{slot.table}.{slot.group}.{slot.seating}",
                                                   slot.sides, derive(5, slot.table, slot.group) >> 1)
    assert [s.place for s in specs] == [schedule.index(schedule.slot(s.id)) for s in specs]


@pytest.mark.parametrize("tables,matches", SHAPES)
@pytest.mark.parametrize("paired", [True, False])
def test_a_span_of_the_playing_order_is_its_places_as_arrays(tables, matches, paired):
    """The driver hands out spans of the playing order; a worker (and the sink) turn them into
    the places :meth:`Schedule.order` lists, as arrays."""
    import numpy as np

    schedule = Schedule(tables, matches, paired)
    order = list(schedule.order())
    assert schedule.places_at(np.arange(len(order))).tolist() == order
    picked = np.array(sorted({(7 * i) % max(len(order), 1) for i in range(len(order))}), dtype=np.int64)
    assert schedule.places_at(picked).tolist() == [order[i] for i in picked.tolist()]
    pending = Pending(schedule, Seen(schedule))
    spans = []
    while pending:
        spans.append(pending.take(5))
    assert all(len(s.runs) == 1 for s in spans)
    assert [p for s in spans for p in schedule.places_at(s.positions()).tolist()] == order


@pytest.mark.parametrize("tables,matches", SHAPES)
def test_a_resumed_runs_spans_skip_what_is_on_disk_and_what_is_not_wanted(tables, matches):
    """With matches on disk, a span is made of runs around them; ``wanted`` (a stream the
    sequential test decided) passes matches over as taken."""
    schedule = Schedule(tables, matches, True)
    order = list(schedule.order())
    seen = Seen(schedule)
    for i in order[1::3] + order[2::7]:
        seen.add(i)
    Pending.CHUNK, chunk = 4, Pending.CHUNK  # (chunks smaller than a batch, and than the gaps)
    try:
        pending = Pending(schedule, seen)
        got = []
        while pending:
            span = pending.take(4, wanted=lambda place: place % 5 != 0)
            assert len(span) <= 4 and all(c > 0 for _, c in span.runs)
            got += schedule.places_at(span.positions()).tolist()
    finally:
        Pending.CHUNK = chunk
    assert got == [i for i in order if not seen.has(i) and i % 5 != 0]


def test_pending_hands_out_the_places_not_on_disk_in_the_playing_order():
    schedule = Schedule(SHAPES[0][0], 7, True)
    seen = Seen(schedule)
    done = set(list(schedule.order())[::3])
    for i in done:
        seen.add(i)
    pending = Pending(schedule, seen, keep=lambda slot: slot.variant != 1)
    got = []
    while pending:
        got.append(pending.popleft())
    assert got == [i for i in schedule.order() if i not in done and schedule.at(i).variant != 1]


def test_a_line_for_every_match_that_is_not_all_results_is_said_and_played_here(run, tmp_path, capsys):
    """The quick look before Ray starts reads only the start of each line: a record whose sides
    are not its id's looks like a result. The full read under the lock finds it is not; the match
    is played (here, serially, as the quick look chose) and the run says why."""
    out = copy_run(run, tmp_path / "q")
    recs = match_dicts(out)
    wrong = dict(recs[-1], sides=list(reversed(recs[-1]["sides"])))
    write_matches(out, recs[:-1] + [wrong])
    assert main(["run", str(run / "exp.yaml"), "--quiet", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "every match has a line, but 1 is not a result of this run" in err, err
    assert json.loads((out / "run.json").read_text())["sessions"][-1]["mode"] == "serial"
    csvs = {k: v for k, v in tables(out).items() if k.endswith(".csv")}
    assert csvs == {k: v for k, v in tables(run / "out").items() if k.endswith(".csv")}
