"""The resume checkpoint (issue 24): a resumed run reads only the records written after the
checkpoint, and what it finds is exactly what reading the whole file finds; a checkpoint that
does not match the file's bytes, or cannot settle what follows, is passed over for a whole
reading; and a run resumed from one writes the tables an undisturbed run writes."""

import gzip
import json
import os
import shutil
import textwrap

import pytest

from cribsim.gzmembers import Scan, members
from cribsim.records import match_from_json
from cribsim.tournament import checkpoint, resumekey
from cribsim.tournament import folder as fld
from cribsim.tournament.aggregate import Partial
from cribsim.tournament.config import load_experiment
from cribsim.tournament.runner import load_done, run_experiment
from tests.kernel.matchfile import FILE, match_dicts

CONFIG = """\
    name: ck
    variants: [standard, short_game_61]
    lineup: [{name: a, strategy: random}, {name: b, strategy: greedy}]
    format: gauntlet
    matches: 150
    seed: 8
"""


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("ck")
    cfg = tmp / "ck.yaml"
    cfg.write_text(textwrap.dedent(CONFIG))
    exp = load_experiment(cfg)
    out = tmp / "clean"
    run_experiment(exp, out, serial=True, quiet=True, batch_seconds=0.001)
    assert len(_members(out / FILE)) >= 9
    return exp, out


def _members(path):
    """The file's whole members as bytes."""
    data = path.read_bytes()
    offsets = [start for start, _ in members(path, Scan())] + [len(data)]
    return [data[a:b] for a, b in zip(offsets, offsets[1:])]


def _lines(batches):
    return sum(len(gzip.decompress(b).splitlines()) for b in batches)


def _state(earlier):
    """Everything a resumed run takes from a reading, as comparable data (the forfeits in the
    order the tables list them: a whole reading settles ids written twice at its end)."""
    r = earlier.records
    counts = {k: v for k, v in vars(r).items() if k not in ("seen", "used", "records")}
    sums = checkpoint.partial_to_json(earlier.partial)
    sums["forfeits"] = sorted(sums["forfeits"])
    return (counts, bytes(r.seen.bits), bytes(r.used.bits), sums)


def _whole(folder, manifest):
    (folder / checkpoint.NAME).unlink(missing_ok=True)
    return _state(load_done(folder / FILE, manifest))


@pytest.fixture
def parsed(monkeypatch):
    """How many lines the readings parse."""
    count = [0]
    real = fld._parse

    def counting(path, no, line):
        count[0] += 1
        return real(path, no, line)
    monkeypatch.setattr(fld, "_parse", counting)
    return count


def _failed(line: bytes) -> bytes:
    """The record of the same match as failed (its worker kept dying)."""
    d = json.loads(line)
    d.update(winner=-1, game_points=None, games=[],
             forfeit={"side": None, "entry": None, "kind": "crash", "error": "its worker process died"})
    return (json.dumps(d, separators=(",", ":")) + "\n").encode()


def _prefix_then(tmp_path, finished, k, middle=b""):
    """A folder holding the run's first ``k`` batches (and ``middle``, members written before the
    checkpoint), read once to resume (which saves a checkpoint); returns it with the rest."""
    exp, clean = finished
    batches = _members(clean / FILE)
    out = tmp_path / "out"
    shutil.copytree(clean, out)
    (out / checkpoint.NAME).unlink(missing_ok=True)
    (out / FILE).write_bytes(b"".join(batches[:k]) + middle)
    manifest = fld.read_manifest(out)
    load_done(out / FILE, manifest)
    assert (out / checkpoint.NAME).exists()
    return out, manifest, batches[k:]


def test_a_finished_run_leaves_a_checkpoint_of_its_whole_file(finished, parsed):
    exp, out = finished
    manifest = fld.read_manifest(out)
    assert (out / checkpoint.NAME).exists()
    from_checkpoint = _state(load_done(out / FILE, manifest))
    assert parsed[0] == 0  # nothing read but the bytes the digest covers
    assert from_checkpoint == _whole(out, manifest)
    assert from_checkpoint[0]["results"] == 300 and parsed[0] == 300


def test_a_resume_reads_only_what_follows_and_finds_what_the_whole_reading_finds(tmp_path, finished, parsed):
    out, manifest, rest = _prefix_then(tmp_path, finished, 4)
    with open(out / FILE, "ab") as f:
        f.write(b"".join(rest))
    parsed[0] = 0
    from_checkpoint = _state(load_done(out / FILE, manifest))
    assert parsed[0] == _lines(rest)  # the batches after the checkpoint, and no more
    assert from_checkpoint == _whole(out, manifest)


def test_failed_matches_before_the_checkpoint_are_settled_by_their_replay_after_it(tmp_path, finished, parsed):
    """A match that failed before the checkpoint and was played again after (as a resumed run
    does): the result replaces the failure, as in a whole reading; one that failed twice stays
    failed, one repeat counted."""
    exp, clean = finished
    lines = [line for _, ls in members(clean / FILE, Scan()) for line in ls]
    k = 4
    later = _lines(_members(clean / FILE)[:k + 2])  # records of the batches after the first two that follow
    failed = gzip.compress(b"".join(_failed(x) for x in lines[later:later + 10]), mtime=0)
    out, manifest, rest = _prefix_then(tmp_path, finished, k, middle=failed)
    again = gzip.compress(b"".join(_failed(x) for x in lines[later + 8:later + 10]), mtime=0)
    with open(out / FILE, "ab") as f:
        f.write(b"".join(rest[2:]) + again + rest[0] + rest[1])
    parsed[0] = 0
    from_checkpoint = _state(load_done(out / FILE, manifest))
    assert parsed[0] == _lines(rest) + 2
    whole = _whole(out, manifest)
    assert from_checkpoint == whole
    counts = whole[0]
    assert counts["failed"] == 0 and counts["results"] == 300 and counts["repeats"] == 12


def test_a_checkpoint_that_does_not_match_the_file_is_passed_over(tmp_path, finished, parsed):
    out, manifest, rest = _prefix_then(tmp_path, finished, 4)
    batches = _members(out / FILE)
    first = [json.loads(x) for x in gzip.decompress(batches[0]).splitlines()]
    first[0]["winner"] = 1 - first[0]["winner"]  # an edited record before the checkpoint's end
    edited = gzip.compress("".join(json.dumps(d, separators=(",", ":")) + "\n" for d in first).encode(), mtime=0)
    (out / FILE).write_bytes(edited + b"".join(batches[1:] + rest))
    parsed[0] = 0
    first = _state(load_done(out / FILE, manifest))
    assert parsed[0] > 0 and first == _whole(out, manifest)
    (out / checkpoint.NAME).write_bytes(b"not a checkpoint")
    assert _state(load_done(out / FILE, manifest)) == _whole(out, manifest)


def test_a_record_after_the_checkpoint_of_a_match_it_has_a_result_of_means_a_whole_reading(tmp_path, finished):
    """The checkpoint holds sums, not records: a second record of a match it counted (written
    twice, or disputed) is settled by reading the file from its start."""
    out, manifest, rest = _prefix_then(tmp_path, finished, 4)
    first = next(line for _, ls in members(out / FILE, Scan()) for line in ls)
    other = json.loads(first)
    other["winner"] = 1 - other["winner"]
    with open(out / FILE, "ab") as f:
        f.write(gzip.compress(first + b"\n" + (json.dumps(other) + "\n").encode(), mtime=0))
    from_checkpoint = _state(load_done(out / FILE, manifest))
    whole = _whole(out, manifest)
    assert from_checkpoint == whole and match_from_json(json.loads(first)).id in whole[0]["disputed"]


def test_a_run_resumed_from_a_checkpoint_writes_the_undisturbed_tables(tmp_path, finished, parsed):
    exp, clean = finished
    out, manifest, rest = _prefix_then(tmp_path, finished, 3)
    with open(out / FILE, "ab") as f:  # a session that went on, and was killed before its next checkpoint
        f.write(b"".join(rest[:3]))
    for name in ("summary.md", "entries.csv"):
        (out / name).unlink()
    parsed[0] = 0
    run_experiment(exp, out, serial=True, resume=True, quiet=True)
    assert parsed[0] == _lines(rest[:3])
    for name in ("summary.md", "entries.csv", "variants.csv", "matrix_standard.csv"):
        assert (out / name).read_bytes() == (clean / name).read_bytes(), name
    assert sorted(d["id"] for d in match_dicts(out)) == sorted(d["id"] for d in match_dicts(clean))


def test_the_run_keeps_its_checkpoint_as_a_reading_would_find_it(tmp_path, finished, parsed):
    """The driver's checkpoint (kept batch by batch as the run appends them): a session after
    one whose matches failed plays them again, some failing again; what the checkpoint then
    says is what reading the whole file finds."""
    exp, clean = finished
    lines = [line for _, ls in members(clean / FILE, Scan()) for line in ls]
    later = _lines(_members(clean / FILE)[:6])
    failing = set(range(later, later + 10))
    out, manifest, rest = _prefix_then(tmp_path, finished, 4,
                                       middle=gzip.compress(b"".join(_failed(lines[i]) for i in failing), mtime=0))
    earlier = load_done(out / FILE, manifest)
    tracker = checkpoint.Tracker(out, manifest, earlier.records, earlier.digest, 0.0, earlier.key)
    partial = earlier.partial
    schedule = fld.schedule_of(manifest)
    first = _lines(_members(clean / FILE)[:4])
    for batch in rest:
        n = len(gzip.decompress(batch).splitlines())
        recs = [lines[i] if i < later + 8 or i >= later + 10 else _failed(lines[i]).rstrip()  # two fail again
                for i in range(first, first + n)]
        first += n
        data = gzip.compress(b"".join(x + b"\n" for x in recs), mtime=0)
        with open(out / FILE, "ab") as f:
            f.write(data)
        records = [match_from_json(json.loads(x)) for x in recs]
        tracker.add(data, [schedule.place(r) for r in records], {schedule.place(r) for r in records if r.failed})
        partial.merge(Partial.of(manifest, records))
    tracker.save(partial, 1.0)
    parsed[0] = 0
    kept = _state(load_done(out / FILE, manifest))
    assert parsed[0] == 0
    whole = _whole(out, manifest)
    assert kept == whole and whole[0]["failed"] == 2 and whole[0]["repeats"] == 10


def test_damage_after_the_last_batch_is_read_whole_and_never_checkpointed(tmp_path, finished, parsed):
    """Bytes after the last whole batch that are not a batch (a crash's zeros) stay in the file:
    no checkpoint ends where they start, and a checkpoint before them is read on past them as
    a whole reading does."""
    out, manifest, rest = _prefix_then(tmp_path, finished, 4)
    with open(out / FILE, "ab") as f:
        f.write(b"".join(rest) + bytes(300))
    for _ in range(2):  # (a second resume too)
        assert _state(load_done(out / FILE, manifest)) == _whole(out, manifest)
    ck = checkpoint.start_from(out / FILE, manifest).ck
    assert ck is None or ck.records.good_end < (out / FILE).stat().st_size - 300


def test_a_disputed_match_in_the_checkpoint_seen_again_means_a_whole_reading(tmp_path, finished):
    out, manifest, rest = _prefix_then(tmp_path, finished, 4)
    first = next(line for _, ls in members(out / FILE, Scan()) for line in ls)
    other = json.loads(first)
    other["winner"] = 1 - other["winner"]
    with open(out / FILE, "ab") as f:
        f.write(gzip.compress((json.dumps(other) + "\n").encode(), mtime=0))
    load_done(out / FILE, manifest)  # (disputed now, in the checkpoint)
    with open(out / FILE, "ab") as f:
        f.write(gzip.compress(first + b"\n", mtime=0))
    assert _state(load_done(out / FILE, manifest)) == _whole(out, manifest)


def test_a_checkpoint_from_someone_else_is_never_trusted_blindly(tmp_path, finished):
    """A pipe in its place is not waited on; one whose counts contradict each other (every
    match marked done, signed with the folder's key all the same) or that decompresses past
    what the schedule allows is passed over."""
    out, manifest, rest = _prefix_then(tmp_path, finished, 4)
    schedule = fld.schedule_of(manifest)
    key = resumekey.read_key(out)
    ck = checkpoint.load(out, manifest, schedule, key)
    ck.records.seen.bits[:] = b"\xff" * len(ck.records.seen.bits)
    checkpoint.save(out, manifest, ck, key)
    with pytest.raises(checkpoint.Refused, match="contradicts itself"):
        checkpoint.load(out, manifest, schedule, key)
    (out / checkpoint.NAME).write_bytes(gzip.compress(b" " * (1 << 27), mtime=0))  # 128 MB of nothing
    with pytest.raises(checkpoint.Refused, match="cannot be read"):
        checkpoint.load(out, manifest, schedule, key)
    (out / checkpoint.NAME).unlink()
    os.mkfifo(out / checkpoint.NAME)
    with pytest.raises(checkpoint.Refused, match="cannot be read"):
        checkpoint.load(out, manifest, schedule, key)
    assert _state(load_done(out / FILE, manifest)) == _whole(out, manifest)
