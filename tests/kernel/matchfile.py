"""Reading and writing a results folder's matches.jsonl.gz in the tests (a gzip member a batch)."""

import gzip
import json
from pathlib import Path

from cribsim.gzmembers import Scan, members

FILE = "matches.jsonl.gz"


def match_lines(folder) -> list[str]:
    """Every line of the records file's whole members (a run may be writing the next), as text."""
    path = Path(folder) / FILE if Path(folder).is_dir() else Path(folder)
    return [line.decode("utf-8", "replace") for _, lines in members(path, Scan()) for line in lines]


def match_dicts(folder) -> list[dict]:
    return [json.loads(x) for x in match_lines(folder) if x.strip()]


def write_matches(folder, lines, append=False) -> None:
    """Write ``lines`` (dicts or text) as one gzip member, replacing the file or appended to it."""
    text = "".join((json.dumps(x, separators=(",", ":")) if isinstance(x, dict) else x.rstrip("\n")) + "\n"
                   for x in lines)
    data = gzip.compress(text.encode(), mtime=0)
    path = Path(folder) / FILE
    with open(path, "ab" if append else "wb") as f:
        f.write(data)
