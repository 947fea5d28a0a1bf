"""The match results file, ``matches.jsonl.gz``: JSON lines (schema 3, :mod:`cribsim.records`),
one gzip member per batch, appended and flushed as batches arrive.

Why gzip'd JSON lines: measured on one-game random matches (``benchmarks/bench_scale.py``), a
match is about 590 bytes as plain JSON and 60 to 85 bytes in members of 20 to 500 matches
(schema 3's trail of score gains is what brings it under 100; schema 2's running scores
compressed to 100 to 140). Every tool reads it as it is (``pandas.read_json(path, lines=True)``,
DuckDB's ``read_json``, ``zcat``), an append is one write of whole members (a torn one is cut
off on resume, as a torn line was), and it needs no new dependency; Parquet would need pyarrow,
and files of its own per batch to append. Members are compressed where the batch was played
(:func:`encode`), so the driver only writes bytes."""

from __future__ import annotations

import gzip
import json
import os
import re
from collections.abc import Sequence
from pathlib import Path

from ..nofollow import open_append
from ..records import MatchRecord, match_from_json

FILE = "matches.jsonl.gz"
LEGACY = "matches.jsonl"  # schema 2, plain lines: cribsim upgrade converts it
LEVEL = 3  # gzip level, measured on one-game random matches: 6 writes 17% fewer bytes for 3x the time (17 us a match)
ID_AT_START = re.compile(rb'^\{"schema":3,"id":"([^"\\]{1,100})"')


def encode(records: Sequence[MatchRecord]) -> bytes:
    """``records`` as one gzip member of schema 3 lines (empty for no records)."""
    if not records:
        return b""
    text = "".join(json.dumps(r.to_json(), separators=(",", ":")) + "\n" for r in records)
    return compress(text.encode())


def line_of(record: MatchRecord) -> bytes:
    """A record's line, as :func:`encode` writes it."""
    return (json.dumps(record.to_json(), separators=(",", ":")) + "\n").encode()


def compress(text: bytes) -> bytes:
    """Lines as one gzip member (empty for none)."""
    return gzip.compress(text, compresslevel=LEVEL, mtime=0) if text else b""


def decode(data: bytes) -> list[MatchRecord]:
    """The records of members :func:`encode` made."""
    return [match_from_json(json.loads(line)) for line in gzip.decompress(data).splitlines() if line.strip()]


def append(path: Path, data: bytes) -> None:
    """Append whole members, flushed to disk (never through a link: cribsim.nofollow)."""
    if not data:
        return
    with open_append(path) as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def line_id(line: bytes) -> str | None:
    """The match id at the start of a line as cribsim writes it (None: not such a line)."""
    m = ID_AT_START.match(line)
    return m.group(1).decode("utf-8", "replace") if m else None
