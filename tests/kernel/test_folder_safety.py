"""Results folders cannot be turned against their owner (cribsim/nofollow.py, folder.py):

- no command follows a symbolic link inside a results folder: a link in place of a report file,
  the lock file, matches.jsonl.gz, the game records or their folder is refused in one line naming
  it, and nothing outside the folder is written, truncated or created, also when the link is
  planted after the command's first look (every open is O_NOFOLLOW, every replacement a rename);
- lines of matches.jsonl.gz that are not matches of the run's schedule, and matches recorded twice
  with different results, are counted, reported and left out of the tables, and a resumed run
  does not play a disputed match again."""

import json
import os
import shutil
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from cribsim.cli.main import main  # noqa: E402
from cribsim.lock import FolderLock  # noqa: E402
from cribsim.nofollow import LinkRefused, find_link, open_append, open_read, open_update  # noqa: E402
from cribsim.tournament import folder as fld  # noqa: E402
from cribsim.tournament.atomic import atomic_write, save_figure  # noqa: E402
from cribsim.tournament.manifest import Manifest  # noqa: E402
from cribsim.tournament.tune import step_folder  # noqa: E402
from tests.kernel.matchfile import match_dicts, write_matches

CONFIG = "name: safe\nlineup: [random, greedy]\nmatches: 6\nseed: 5\nrecord: all\n"
PRECIOUS = b"precious: not cribsim's\n"


def cli(argv, capsys):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """A finished run (with game records), made once; each test works on a copy."""
    base = tmp_path_factory.mktemp("finished")
    cfg = base / "exp.yaml"
    cfg.write_text(CONFIG)
    assert main(["run", str(cfg), "--serial", "--quiet", "--out", str(base / "run")]) == 0
    return base


@pytest.fixture
def run(finished, tmp_path):
    shutil.copytree(finished / "run", tmp_path / "run", symlinks=True)
    shutil.copy(finished / "exp.yaml", tmp_path / "exp.yaml")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "victim").write_bytes(PRECIOUS)
    os.utime(outside / "victim", (1_000_000_000, 1_000_000_000))
    return tmp_path


def untouched(tmp):
    outside = tmp / "outside"
    victim = outside / "victim"
    return ([p.name for p in outside.iterdir()] == ["victim"] and victim.read_bytes() == PRECIOUS
            and victim.stat().st_mtime == 1_000_000_000)


def plant(tmp, name):
    """Replace ``run/name`` with a link to the outside victim (a folder: to the outside folder)."""
    path = tmp / "run" / name
    target = tmp / "outside"
    if path.is_dir():
        shutil.rmtree(path)
    else:
        path.unlink(missing_ok=True)
        target = target / "victim"
    path.symlink_to(target)
    return path


def refused(code, err, link):
    lines = err.strip().splitlines()
    assert code == 2, (code, err)
    assert len(lines) == 1 and lines[0].startswith("cribsim: ") and "Traceback" not in err, err
    assert f"{link}: a symbolic link inside a results folder" in lines[0], err


LINKED = ["summary.md", "winrates.png", "entries.csv", "forfeits.csv", ".cribsim.lock", "matches.jsonl.gz",
          "manifest.json", "run.json", "games", "games/games.jsonl.gz"]


@pytest.mark.parametrize("name", LINKED)
def test_a_link_in_a_results_folder_is_refused_by_every_command(run, capsys, name):
    link = plant(run, name)
    out = run / "run"
    for argv in (["report", out], ["run", run / "exp.yaml", "--serial", "--quiet", "--out", out],
                 ["run", run / "exp.yaml", "--serial", "--quiet", "--out", out, "--fresh"],
                 ["compare", out, "--out", out], ["games", out]):
        code, _, err = cli(argv, capsys)
        refused(code, err, link)
        assert untouched(run), argv
        assert link.is_symlink(), argv  # refused, not removed either


def test_a_link_planted_after_the_look_is_never_followed(run):
    """The second layer: the lock, appends, reads and whole-file writes never go through a link."""
    out, victim = run / "run", run / "outside" / "victim"
    (out / ".cribsim.lock").symlink_to(victim)
    with pytest.raises(LinkRefused, match=r"\.cribsim\.lock: a symbolic link"):
        FolderLock(out).acquire()
    for name in ("matches.jsonl.gz", "games.jsonl.gz"):
        (out / name).unlink(missing_ok=True)
        (out / name).symlink_to(victim)
        with pytest.raises(LinkRefused):
            open_append(out / name)
        with pytest.raises(LinkRefused):
            open_read(out / name)
    with pytest.raises(LinkRefused):
        fld.scan_records(out / "matches.jsonl.gz", fld.schedule_of(fld.read_manifest(out)))
    shutil.rmtree(out / "games")  # the records' folder swapped for a link while a run plays
    (out / "games").symlink_to(run / "outside", target_is_directory=True)
    for opener in (open_append, open_read, open_update):
        with pytest.raises(LinkRefused, match=r"games: a symbolic link"):
            opener(out / "games" / "games.jsonl.gz", levels=1)
    (out / "games").unlink()
    (out / "summary.md").unlink()
    (out / "summary.md").symlink_to(victim)
    atomic_write(out / "summary.md", "new\n")  # the link is replaced, not written through
    (out / "winrates.png").unlink()
    (out / "winrates.png").symlink_to(victim)
    fig, _ = plt.subplots()
    save_figure(fig, out / "winrates.png", 50)
    plt.close(fig)
    assert not (out / "summary.md").is_symlink() and (out / "summary.md").read_text() == "new\n"
    assert not (out / "winrates.png").is_symlink()
    assert untouched(run)


def test_a_hard_link_to_a_file_elsewhere_is_never_written(run, capsys):
    out, victim = run / "run", run / "outside" / "victim"
    (out / "matches.jsonl.gz").unlink()
    os.link(victim, out / "matches.jsonl.gz")
    code, _, err = cli(["run", run / "exp.yaml", "--serial", "--quiet", "--out", out], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "matches.jsonl.gz: has other hard links" in err
    assert victim.read_bytes() == PRECIOUS and victim.stat().st_mtime == 1_000_000_000


def test_a_folder_that_cannot_be_looked_through_is_refused(run, monkeypatch):
    real = os.scandir

    def scandir(path):
        if Path(path).name == "games":
            raise PermissionError(13, "Permission denied")
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)
    with pytest.raises(LinkRefused, match=r"games: cannot look through it \(Permission denied\)"):
        find_link(run / "run")


def test_a_study_step_folder_that_is_a_link_is_refused(tmp_path):
    (tmp_path / "study" / "steps").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "study" / "steps" / "000-plus").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(LinkRefused, match=r"000-plus: a symbolic link"):
        step_folder(tmp_path / "study", "000-plus")


def test_a_table_the_report_no_longer_has_is_removed(run, capsys):
    out = run / "run"
    m = json.loads((out / "manifest.json").read_text())
    m["files"] = sorted(set(m["files"]) | {"forfeits.csv"})
    (out / "manifest.json").write_text(json.dumps(m))
    (out / "forfeits.csv").write_text("variant,match,entry,kind,error\nstandard,0.0.0.0,random,error,stale\n")
    code, _, err = cli(["report", out, "--quiet"], capsys)
    assert code == 0, err
    assert not (out / "forfeits.csv").exists()


def test_the_folder_itself_may_be_a_link(run, capsys):
    (run / "elsewhere").symlink_to(run / "run")
    code, _, err = cli(["report", run / "elsewhere", "--quiet"], capsys)
    assert code == 0, err
    assert find_link(run / "run") is None


# ---- records that are not the run's -----------------------------------------------------------------

def lines(out):
    return match_dicts(out)


def test_records_of_no_scheduled_match_and_disputed_matches_are_left_out(run, capsys):
    out = run / "run"
    recs = lines(out)
    assert len(recs) == 6
    first, second = recs[0], recs[1]
    unknown = {**first, "id": "0.0.99.0", "group": 99}                     # an id the schedule has not
    wrong_sides = {**second, "sides": list(reversed(second["sides"]))}     # its id stands for other sides
    flipped = {**first, "winner": 1 - first["winner"], "game_points": list(reversed(first["game_points"]))}
    write_matches(out, [unknown, wrong_sides, flipped, recs[2]], append=True)  # and one repeated exactly
    code, _, err = cli(["report", out, "--quiet"], capsys)
    assert code == 0, err
    assert "2 records of no match of this run's schedule left out (lines 7, 8" in err
    assert f"1 match recorded twice with different results left out ({first['id']};" in err
    head = (out / "summary.md").read_text().split("\n\n")[1]
    assert head.startswith("5 matches;"), head
    assert head.endswith("2 records of no match of the schedule left out; 1 match recorded twice with different "
                         "results left out."), head
    manifest = fld.read_manifest(out)
    assert isinstance(manifest, Manifest)
    scanned = fld.scan_records(out / "matches.jsonl.gz", fld.schedule_of(manifest))
    assert (scanned.foreign, scanned.disputed, scanned.repeats) == (2, {first["id"]}, 1)
    assert sorted(r.id for r in scanned.records) == sorted(r["id"] for r in recs[1:])

    # a resumed run: the disputed match is not played again (another line would not settle it)
    before = (out / "matches.jsonl.gz").read_bytes()
    code, _, err = cli(["run", run / "exp.yaml", "--serial", "--quiet", "--out", out], capsys)
    assert code == 0, err
    assert (out / "matches.jsonl.gz").read_bytes() == before
    assert "recorded twice with different results left out" in err


def test_an_id_too_long_for_a_number_is_counted_not_a_crash(run, capsys):
    out = run / "run"
    rec = {**lines(out)[0], "id": "0.0." + "1" * 5000 + ".0"}
    write_matches(out, [rec], append=True)
    code, _, err = cli(["report", out, "--quiet"], capsys)
    assert code == 0 and "1 record of no match of this run's schedule left out (line 7" in err, err


def test_a_lost_match_is_played_again_and_its_foreign_copy_stays_left_out(run, capsys):
    out = run / "run"
    recs = lines(out)
    wrong = {**recs[-1], "sides": list(reversed(recs[-1]["sides"]))}
    write_matches(out, recs[:-1] + [wrong])
    code, _, err = cli(["run", run / "exp.yaml", "--serial", "--quiet", "--out", out], capsys)
    assert code == 0, err
    after = lines(out)
    assert len(after) == 7 and after[-1] == recs[-1]  # played again: the same record as the first time
    assert json.loads((out / "manifest.json").read_text())["played"] == 6
