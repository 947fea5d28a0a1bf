"""Results that cannot be forged (issue 38, G6, G7, G11): what someone who can write into a
results folder, but is not its owner, could do to the tables a run or a report writes.

- A resume checkpoint with changed sums (its digest of the records kept) is not used: it is not
  signed with the folder's key, which only the owner can read; nor is one whose key is missing,
  open to others or another user's. The run reads every record instead, says so in one line,
  and writes the records' own tables.
- A line past the reader's limit costs that line, not the records after it, even in a member
  holding many batches (``zcat | ... | gzip``).
- A second record of a match with another result is a conflict however it is spelled (the JSON's
  spacing, key order, escapes): every record of that match is left out and said, as for a
  conflict written as cribsim writes lines; a line whose start names one match and whose later
  ``"id"`` names another is not a record."""

import gzip
import json
import os
import shutil
import textwrap
import zlib

import pytest

from cribsim.cli.main import main
from cribsim.gamelog import MAX_LINE
from cribsim.gzmembers import Scan, members
from cribsim.tournament import folder as fld
from cribsim.tournament.config import load_experiment
from cribsim.tournament.runner import load_done, run_experiment
from tests.kernel.matchfile import FILE, match_lines

try:
    from cribsim.tournament.resumekey import KEY_FILE, sign
except ImportError:  # (before issue 38's second edition: checkpoints were not signed)
    KEY_FILE, sign = "resume.key", None

CHECKPOINT = "resume.ckpt"
CONFIG = """\
    name: forged
    variants: [standard]
    lineup: [{name: rnd, strategy: random}, {name: greedy, strategy: greedy}]
    format: gauntlet
    matches: 120
    seed: 38
"""
TABLES = ("entries.csv", "variants.csv", "matrix_standard.csv")


@pytest.fixture(scope="module")
def clean(tmp_path_factory):
    """A finished run, its records in several batches (gzip members)."""
    tmp = tmp_path_factory.mktemp("forged")
    cfg = tmp / "forged.yaml"
    cfg.write_text(textwrap.dedent(CONFIG))
    out = tmp / "clean"
    run_experiment(load_experiment(cfg), out, serial=True, quiet=True, batch_seconds=0.001)
    assert len(_batches(out)) >= 6
    return cfg, out


def _batches(folder):
    path = folder / FILE
    data = path.read_bytes()
    offsets = [start for start, _ in members(path, Scan())] + [len(data)]
    return [data[a:b] for a, b in zip(offsets, offsets[1:])]


def _copy(clean, dest):
    """A copy of the finished run (as ``cp -rp`` makes one: the key stays its owner's only)."""
    shutil.copytree(clean, dest)
    return dest


def _tables(folder):
    return {name: (folder / name).read_bytes() for name in TABLES}


# ---- G6: a forged resume checkpoint --------------------------------------------------------------

def _interrupted(clean, dest, k=3):
    """The run's folder as a session stopped after ``k`` batches leaves it: those batches, and
    a checkpoint of them (saved by a resume's reading, as a session's end saves one)."""
    out = _copy(clean, dest)
    (out / CHECKPOINT).unlink()
    (out / FILE).write_bytes(b"".join(_batches(clean)[:k]))
    for name in TABLES + ("summary.md",):
        (out / name).unlink()
    load_done(out / FILE, fld.read_manifest(out))
    assert (out / CHECKPOINT).is_file()
    return out


def _forge(out, key=None):
    """Change the checkpoint's sums (every pair's half-points turned around: random beats
    greedy), its digest of the records kept; signed again with ``key`` if the forger has one."""
    path = out / CHECKPOINT
    *head, body = gzip.decompress(path.read_bytes()).split(b"\n")
    d = json.loads(body)
    for cell in d["partial"]["variants"][0]["pair"]:
        cell[2] = 2 * cell[3] - cell[2]
    body = json.dumps(d, separators=(",", ":")).encode()
    if head and key is not None and sign is not None:
        said = json.loads(head[0])
        said["mac"] = sign(key, body)
        head = [json.dumps(said, separators=(",", ":")).encode()]
    path.write_bytes(gzip.compress(b"\n".join([*head, body]), mtime=0))


def _resume(cfg, out, capsys):
    capsys.readouterr()
    assert main(["run", str(cfg), "--serial", "--resume", "--quiet", "--out", str(out)]) == 0
    return capsys.readouterr().err


def _one_line_saying_so(err, *words):
    assert err.count("\n") == 1 and err.startswith("cribsim: ") and CHECKPOINT in err, err
    assert all(w in err for w in words), err


def test_a_checkpoint_with_forged_sums_is_not_used_and_the_tables_are_the_records(clean, tmp_path, capsys):
    cfg, done = clean
    out = _interrupted(done, tmp_path / "out")
    _forge(out)
    err = _resume(cfg, out, capsys)
    assert _tables(out) == _tables(done)
    _one_line_saying_so(err, "not signed with the folder's key", "every record is read again")
    out_again = _resume(cfg, out, capsys)  # (the checkpoint the resume saved is the folder's own)
    assert out_again == "" and _tables(out) == _tables(done)


def test_a_forged_checkpoint_without_its_key_is_not_used(clean, tmp_path, capsys):
    """The key removed (whoever can write into the folder can remove a file there): the
    checkpoint cannot be checked, so it is not used; a new key signs the checkpoints to come."""
    cfg, done = clean
    out = _interrupted(done, tmp_path / "out")
    _forge(out)
    (out / KEY_FILE).unlink(missing_ok=True)
    err = _resume(cfg, out, capsys)
    _one_line_saying_so(err, "cannot be checked", KEY_FILE, "missing")
    assert _tables(out) == _tables(done)
    assert os.stat(out / KEY_FILE).st_mode & 0o777 == 0o600


def test_a_checkpoint_signed_with_a_key_others_could_read_is_not_used(clean, tmp_path, capsys):
    """A key open to others (it may have been read, and a checkpoint signed with it) is not the
    owner's: the checkpoint is not used, and cribsim keeps none until that file is removed (it
    never replaces or removes a file it may not have written). (A link in its place is refused
    with the folder, as any link in a results folder is: test_folder_safety.py.)"""
    cfg, done = clean
    out = _interrupted(done, tmp_path / "out")
    key = bytes(range(32))
    (out / KEY_FILE).write_text(key.hex() + "\n")
    (out / KEY_FILE).chmod(0o644)
    _forge(out, key)
    err = _resume(cfg, out, capsys)
    _one_line_saying_so(err, KEY_FILE, "open to others", "neither trusts nor replaces it")
    assert _tables(out) == _tables(done)
    assert (out / KEY_FILE).read_text() == key.hex() + "\n"  # (left as it was)
    assert not (out / CHECKPOINT).exists() or "neither trusts" in _resume(cfg, out, capsys)


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user needs root")
def test_a_key_of_another_user_is_not_trusted(clean, tmp_path, capsys):
    cfg, done = clean
    out = _interrupted(done, tmp_path / "out")
    key = bytes(range(32))
    (out / KEY_FILE).unlink(missing_ok=True)
    (out / KEY_FILE).write_text(key.hex() + "\n")
    (out / KEY_FILE).chmod(0o600)
    os.chown(out / KEY_FILE, 12345, 12345)
    _forge(out, key)
    err = _resume(cfg, out, capsys)
    _one_line_saying_so(err, KEY_FILE, "another user's")
    assert _tables(out) == _tables(done)


# ---- G7: a line past the reader's limit ------------------------------------------------------------

def _long_line_member(lines_before, lines_after, length):
    """One gzip member: ``lines_before``, a line of ``length`` bytes (made as it is compressed:
    never held), ``lines_after``."""
    z = zlib.compressobj(9, zlib.DEFLATED, 31)
    parts = [z.compress("".join(x + "\n" for x in lines_before).encode())]
    piece = b"x" * (1 << 20)
    left = length
    while left > 0:
        parts.append(z.compress(piece[:min(left, len(piece))]))
        left -= len(piece)
    parts.append(z.compress(("\n" + "".join(x + "\n" for x in lines_after)).encode()))
    parts.append(z.flush())
    return b"".join(parts)


def test_a_line_past_the_limit_costs_only_itself(clean, tmp_path, capsys):
    """Two batches, then the rest of the records gzip'd again as one member (as ``zcat | ... |
    gzip`` makes one) with a line past the limit among them: every record before and after
    that line is read and counted, and the line is said as one left out."""
    cfg, done = clean
    lines = match_lines(done)
    batches = _batches(done)
    first = sum(len(gzip.decompress(b).splitlines()) for b in batches[:2])
    out = _copy(done, tmp_path / "out")
    length = MAX_LINE + (1 << 18)  # (past the limit by more than a reader's chunk)
    data = b"".join(batches[:2]) + _long_line_member(lines[first:first + 20], lines[first + 20:], length)
    assert len(data) < 1 << 20
    (out / FILE).write_bytes(data)
    recs = fld.read_records(out / FILE, fld.schedule_of(fld.read_manifest(out)))
    assert (recs.results, recs.unreadable, recs.damaged) == (len(lines), 1, [])
    capsys.readouterr()
    assert main(["report", str(out), "--quiet"]) == 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "1 unreadable line skipped" in err and "damaged" not in err, err
    assert _tables(out) == _tables(done)


# ---- G11: a conflicting record in another spelling ----------------------------------------------

def _append(out, text):
    with open(out / FILE, "ab") as f:
        f.write(gzip.compress(text.encode(), mtime=0))


def _report(out, capsys):
    capsys.readouterr()
    assert main(["report", str(out), "--quiet"]) == 0
    return capsys.readouterr().err


@pytest.mark.parametrize("spelling", ["json.dumps' spacing", "indented keys reordered", "an escaped id"])
def test_a_conflicting_record_in_another_spelling_is_a_conflict(clean, tmp_path, capsys, spelling):
    """The same match with the other side winning, written otherwise than cribsim writes a
    line: reported and left out as a conflict written cribsim's way is."""
    cfg, done = clean
    out = _copy(done, tmp_path / "out")
    d = json.loads(match_lines(done)[7])
    forged = dict(d, winner=1 - d["winner"])
    if spelling == "json.dumps' spacing":
        text = json.dumps(forged)
    elif spelling == "indented keys reordered":
        text = json.dumps(dict(reversed(list(forged.items()))), indent=1).replace("\n", "")
    else:
        text = json.dumps(forged, separators=(",", ":")).replace(d["id"], d["id"].replace(".", "\\u002e"), 1)
    assert not text.startswith('{"schema":3,"id":"' + d["id"] + '"')
    _append(out, text + "\n")
    recs = fld.read_records(out / FILE, fld.schedule_of(fld.read_manifest(out)))
    assert recs.disputed == {d["id"]} and recs.repeats == 0
    err = _report(out, capsys)
    assert "1 match recorded twice with different results left out" in err and d["id"] in err, err
    assert "1 match recorded twice with different results left out" in (out / "summary.md").read_text()


def test_the_same_record_in_another_spelling_is_used_once(clean, tmp_path):
    cfg, done = clean
    out = _copy(done, tmp_path / "out")
    d = json.loads(match_lines(done)[7])
    _append(out, json.dumps(d, indent=2).replace("\n", "") + "\n")
    recs = fld.read_records(out / FILE, fld.schedule_of(fld.read_manifest(out)))
    assert (recs.disputed, recs.repeats, recs.results) == (set(), 1, len(match_lines(done)))


def test_a_line_naming_two_matches_is_not_a_record(clean, tmp_path, capsys):
    """A line that starts as cribsim writes match A's record and names match B in a later "id"
    (JSON keeps the last): neither taken for B's record nor missed as a second one of it."""
    cfg, done = clean
    out = _copy(done, tmp_path / "out")
    lines = match_lines(done)
    a, b = json.loads(lines[3]), json.loads(lines[9])
    forged = json.dumps(dict(b, winner=1 - b["winner"]), separators=(",", ":"))
    text = '{"schema":3,"id":"' + a["id"] + '",' + forged[1:]
    _append(out, text + "\n")
    recs = fld.read_records(out / FILE, fld.schedule_of(fld.read_manifest(out)))
    assert recs.unreadable == 1 and recs.results == len(lines) and not recs.disputed
    err = _report(out, capsys)
    assert "1 unreadable line skipped" in err, err
    assert _tables(out) == _tables(done)
