"""Files of appended gzip members (one member per batch of JSON lines), read as a stream: the
game records (``games/games.jsonl.gz``) and the match results (``matches.jsonl.gz``).

A writer appends a whole member at a time, flushed to disk, so a reader finds whole members and
at most one unfinished member at the end (an interrupted append). Memory stays bounded: the file
is read in chunks, and at most one member's lines are held."""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from .nofollow import open_read

CHUNK = 1 << 16  # bytes read (and at most decompressed) at a time
# How cribsim's members begin (gzip.compress with mtime=0: ID1 ID2, deflate, no flags, mtime 0):
# after damage, reading resumes at the next such header.
HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00"
# What stands for a line longer than the limit when such lines are skipped (not JSON, so a reader
# of records counts it as an unreadable line; its bytes are never held).
LONG_LINE = b"\x00(a line longer than the limit)"


class NotGzip(ValueError):
    """A file that does not start as a gzip file."""


@dataclass
class Scan:
    """What reading a file of members found: the end of its last whole member (``end``),
    whether a member is unfinished at the end (``torn``, starting at ``torn_at``), and the
    offsets where damage starts (``damaged``: a member that does not decompress, or holds a
    line past the limit unless such lines are skipped; with ``resync`` the reading goes on at
    the next member)."""

    end: int = 0
    torn: bool = False
    torn_at: int = 0  # where the unfinished last member starts (after damage, past the end of the last whole one)
    damaged: list[int] = field(default_factory=list)

    @property
    def damaged_at(self) -> int | None:
        return self.damaged[0] if self.damaged else None


def members(path: Path, scan: Scan, levels: int = 0, resync: bool = False,
            max_line: int = 50_000_000, start: int = 0, skip_long: bool = False) -> Iterator[tuple[int, list[bytes]]]:
    """(offset, lines) for every whole member of ``path`` from the offset ``start`` (a member's
    start, or the end of the file): its offset in the file and its lines that are not blank. A
    member that does not decompress ends the reading (or, with ``resync``, is skipped up to the
    next member's header); an unfinished last member is not yielded (``scan.torn``). A line
    longer than ``max_line`` is damage too, or, with ``skip_long``, stands in its member's lines
    as :data:`LONG_LINE` (its bytes held up to the limit, then dropped as they come) and the
    member reads on: it costs that line, not its member nor the lines after it in the member."""
    with open_read(path, levels) as f:
        f.seek(start)
        data = f.read(CHUNK)
        if data and data[:2] != b"\x1f\x8b":
            raise NotGzip(f"{path}: not a gzip file")
        reader = _Reader(scan, max_line, skip_long)
        pos = reader.start = scan.end = start
        damaged_to_end = False
        while data:
            pos += len(data)
            yield from reader.feed(data, pos)
            if reader.lost and not resync:
                return
            if reader.lost:
                data = reader.skip_to_header(f)
                pos = reader.start
                damaged_to_end = not data
                continue
            data = f.read(CHUNK)
        if pos > reader.start and not reader.lost and not damaged_to_end:
            scan.torn, scan.torn_at = True, reader.start


class _Reader:
    """Decompresses members as chunks arrive, holding the current member's lines (the line being
    read grows in a bytearray: a long line costs its length, not its length squared)."""

    def __init__(self, scan: Scan, max_line: int, skip_long: bool = False) -> None:
        self.scan, self.max_line, self.skip_long = scan, max_line, skip_long
        self.d = zlib.decompressobj(wbits=31)
        self.start = 0  # the current member's offset
        self.buf = bytearray()  # the line being read
        self.long = False  # it passed max_line (skip_long): its bytes are dropped up to its end
        self.lines: list[bytes] = []
        self.lost = False  # the current member is damaged

    def feed(self, data: bytes, pos: int) -> Iterator[tuple[int, list[bytes]]]:
        while data:
            try:
                out = self.d.decompress(data, CHUNK)
            except zlib.error:
                self._damage()
                return
            if not self._take(out):
                self._damage()
                return
            if self.d.eof:  # a member ended: the next starts in its unused data
                rest = self.d.unused_data
                self._end_line()
                yield self.start, self.lines
                self.start = self.scan.end = pos - len(rest)
                self._next()
                data = rest
            elif self.d.unconsumed_tail:
                data = self.d.unconsumed_tail
            else:
                data = b""

    def _take(self, out: bytes) -> bool:
        """Add decompressed bytes to the member's lines (False: a line too long, and not skipped)."""
        *whole, rest = out.split(b"\n")
        if whole:
            first, *middle = whole
            if not self._grow(first):
                return False
            self._end_line()
            for line in middle:
                if len(line) > self.max_line:
                    if not self.skip_long:
                        return False
                    self.lines.append(LONG_LINE)
                elif line.strip():
                    self.lines.append(line)
        return self._grow(rest)

    def _grow(self, piece: bytes) -> bool:
        if self.long:
            return True
        self.buf += piece
        if len(self.buf) <= self.max_line:
            return True
        if not self.skip_long:
            return False
        self.long, self.buf = True, bytearray()
        return True

    def _end_line(self) -> None:
        if self.long:
            self.lines.append(LONG_LINE)
        elif self.buf.strip():
            self.lines.append(bytes(self.buf))
        self.buf, self.long = bytearray(), False

    def _next(self) -> None:
        self.d = zlib.decompressobj(wbits=31)
        self.buf, self.long, self.lines = bytearray(), False, []

    def _damage(self) -> None:
        self.scan.damaged.append(self.start)
        self.lost = True

    def skip_to_header(self, f: BinaryIO) -> bytes:
        """After damage: the data from the next member header after the damaged member's start
        (empty at the end of the file); ``start`` is set to its offset."""
        at = self.start + 1
        f.seek(at)
        tail = b""
        while True:
            chunk = f.read(CHUNK)
            if not chunk:
                self.start, self.lost = at, False
                return b""
            window = tail + chunk
            i = window.find(HEADER)
            if i >= 0:
                self.start = at - len(tail) + i
                self.lost = False
                self._next()
                f.seek(self.start)
                return f.read(CHUNK)
            tail = window[-(len(HEADER) - 1):]
            at += len(chunk)
