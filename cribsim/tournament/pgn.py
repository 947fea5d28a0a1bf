"""Export a run's results as PGN header blocks, so rating tools (Ordo, BayesElo) can rate a
cribsim run: one block per match (per pair of sides in a match of more than two sides), with the
entries as White and Black (White the first side), the result, the round (group.seating) and the
variant as the event. Reads the manifest and the records only."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

from ..errors import CribsimError
from ..records import MatchRecord
from .manifest import Manifest

SITE = "cribsim"


def _tag(name: str, value: object) -> str:
    text = str(value).replace("\\", "\\\\").replace('"', '\\"')
    return f'[{name} "{text}"]'


def pairs(rec: MatchRecord) -> Iterator[tuple[int, int, str]]:
    """(white side, black side, result) of a match: two sides as they sat; with more sides, the
    winner against each other side (no result between the others). A match without a result
    (failed, or drawn with more than two sides) gives nothing."""
    n = len(rec.sides)
    if n == 2:
        if rec.failed:
            return
        result = "1/2-1/2" if rec.winner < 0 else "1-0" if rec.winner == 0 else "0-1"
        yield 0, 1, result
        return
    if rec.winner < 0:
        return
    for other in range(n):
        if other != rec.winner:
            yield (rec.winner, other, "1-0") if rec.winner < other else (other, rec.winner, "0-1")


def blocks(manifest: Manifest, records: Sequence[MatchRecord], started: str | None = None) -> Iterator[str]:
    """PGN header blocks; ``started`` (the run log's first session, if any) dates them."""
    names = manifest.entry_names
    variants = manifest.variant_names
    date = str(started or "????-??-??")[:10].replace("-", ".")
    for rec in sorted(records, key=lambda r: (r.group, r.variant, r.table, r.seating)):
        for white, black, result in pairs(rec):
            tags = [_tag("Event", variants[rec.variant]), _tag("Site", SITE), _tag("Date", date),
                    _tag("Round", f"{rec.group + 1}.{rec.seating + 1}"), _tag("White", names[rec.sides[white]]),
                    _tag("Black", names[rec.sides[black]]), _tag("Result", result), _tag("GameId", rec.id)]
            if rec.forfeit is not None:
                tags.append(_tag("Termination", f"forfeit ({rec.forfeit.kind})"))
            yield "\n".join(tags) + f"\n\n{result}\n"


def write_pgn(manifest: Manifest, records: Sequence[MatchRecord], path: str | os.PathLike[str],
              started: str | None = None) -> int:
    """Write the PGN file (write-then-rename); refuses to replace a file that is not a PGN cribsim
    wrote. Returns the number of games written."""
    p = Path(path)
    if not str(path):
        raise CribsimError("cribsim: --pgn: give a file name")
    if p.exists():
        try:
            head = p.read_text(encoding="utf-8", errors="replace")[:2000]
        except OSError as e:
            raise CribsimError(f"cribsim: --pgn {p}: cannot read the file there ({e.strerror or e})") from None
        if not p.is_file() or (head and f'[Site "{SITE}"]' not in head):
            raise CribsimError(f"cribsim: --pgn {p}: a file is there that cribsim did not write; choose another name")
    games = list(blocks(manifest, records, started))
    tmp = None
    try:  # a scratch file of our own beside it, renamed into place
        fd, tmp = tempfile.mkstemp(prefix=".cribsim-pgn-", dir=p.parent if str(p.parent) else ".")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write("\n".join(games))
        os.replace(tmp, p)
    except OSError as e:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        raise CribsimError(f"cribsim: --pgn {p}: cannot write ({e.strerror or e})") from None
    return len(games)
