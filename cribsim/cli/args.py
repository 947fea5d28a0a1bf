"""Argument types and readers shared by the commands: seeds, probabilities, --rules, --batch files."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from ..errors import CribsimError, describe
from ..ruleset import is_rules_path, load_rules, preset_names

MAX_SEED = 2 ** 63 - 1
MAX_LINE = 10_000  # bytes in one line of a --batch file


def seed_arg(text: str) -> int:
    """--seed: a whole number 0..2**63-1 (the deal addresses are 64-bit)."""
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number 0..2**63-1, got {text[:40]!r}") from None
    if not 0 <= v <= MAX_SEED:
        raise argparse.ArgumentTypeError(f"expected a whole number 0..2**63-1, got {text[:40]}")
    return v


def probability_arg(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a probability between 0 and 1, got {text[:40]!r}") from None
    if not 0 <= v <= 1:  # (nan fails too)
        raise argparse.ArgumentTypeError(f"expected a probability between 0 and 1, got {text[:40]}")
    return v


def load_rules_arg(ref: str) -> Any:
    """--rules: a preset name or a file; a path that does not exist is an error, never the
    preset of the same name."""
    if is_rules_path(ref) and not os.path.isfile(ref):
        stem = Path(ref).stem
        hint = f" (the preset is --rules {stem})" if stem in preset_names() else ""
        raise CribsimError(f"cribsim: --rules {ref}: no such rules file{hint}")
    try:
        return load_rules(ref)
    except CribsimError:
        raise
    except (TypeError, ValueError, KeyError, AttributeError, IndexError) as e:  # a check the rules did not expect
        raise CribsimError(f"cribsim: --rules {ref}: invalid rules ({describe(e, 200)})") from None


def batch_lines(path: str) -> Iterator[tuple[int, list[str] | str]]:
    """(line number, words or an error message) for each non-blank line of a --batch file;
    a line that is not UTF-8 or longer than MAX_LINE bytes is an error for that line only."""
    f: IO[bytes] | None
    try:
        f = sys.stdin.buffer if path == "-" else open(path, "rb")
    except OSError as e:
        raise CribsimError(f"cribsim: cannot read {path}: {e.strerror}") from None
    except AttributeError:  # a stdin without bytes (a test's StringIO)
        f = None
    if f is None:
        for no, line in enumerate(sys.stdin, 1):
            words = line.split("#", 1)[0].split()
            if words:
                yield no, words
        return
    try:
        no = 0
        while True:
            try:
                line = f.readline(MAX_LINE + 1)
            except OSError as e:
                raise CribsimError(f"cribsim: cannot read {path}: {e.strerror or e}") from None
            if not line:
                break
            no += 1
            if len(line) > MAX_LINE and not line.endswith(b"\n"):
                while line and not line.endswith(b"\n"):  # skip the rest of the long line
                    line = f.readline(1 << 16)
                yield no, f"cribsim: line longer than {MAX_LINE:,} bytes"
                continue
            try:
                text = line.decode("utf-8")
            except UnicodeDecodeError:
                yield no, "cribsim: not UTF-8 text"
                continue
            words = text.split("#", 1)[0].split()
            if words:
                yield no, words
    finally:
        if f is not sys.stdin.buffer:
            f.close()
