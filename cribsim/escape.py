"""A bot's strings are data: escaped where they land, by these helpers and nowhere else.

An untrusted bot writes strings that cribsim shows: its ``error`` replies and a plug-in's
exception text (a forfeit's message), its hello's refusal and what its capabilities list. They
are kept as written in the JSON files (``matches.jsonl.gz``, the game records, the manifest:
JSON escapes them) and escaped where they are shown:

- on the terminal (:func:`terminal_text`): every character that is not printable (ESC, the
  other C0 and C1 controls, DEL, line breaks, bidirectional overrides) as a visible escape,
  ``\\x1b``, ``\\n``, ``\\u202e``;
- in a Markdown table cell (:func:`markdown_text`): as it is if it holds nothing Markdown reads,
  else as a code span, which shows it verbatim (no table row, link, image, HTML or heading can
  start there);
- in a CSV cell (:func:`csv_text`): printable, and with a ``'`` before it when it starts like a
  spreadsheet formula (OWASP's advice on CSV injection).

A table marks such a cell :class:`Foreign`; cribsim's own cells (numbers, negative ones too, and
the names in its config) are written as they are, so a run without a bot's strings writes the
same bytes as before. A string that needs no escaping is never changed."""

from __future__ import annotations

import re

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}

# what a spreadsheet reads as the start of a formula (OWASP: = + - @, tab, carriage return; and the
# full-width signs some spreadsheets take for them)
FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")

# characters Markdown reads nothing into inside a table cell (no link, image, HTML, emphasis,
# code, math, escape, entity, mention, reference or cell boundary), and the starts of the web
# addresses GitHub links by itself
_PLAIN = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 ,.;:'\"=?%+-(){}/^")
_WEB = re.compile(r"www\.|://", re.IGNORECASE)


class Foreign(str):
    """A string a bot wrote, in a table cell: each renderer escapes it (:func:`terminal_text`,
    :func:`markdown_text`, :func:`csv_text`)."""

    __slots__ = ()


def _escaped(ch: str) -> str:
    named = _NAMED.get(ch)
    if named is not None:
        return named
    n = ord(ch)
    return f"\\x{n:02x}" if n < 0x100 else f"\\u{n:04x}" if n < 0x10000 else f"\\U{n:08x}"


def terminal_text(text: str) -> str:
    """``text`` with every character that is not printable written as a visible escape (``\\x1b``,
    ``\\n``, ``\\u2028``): nothing a terminal would act on, everything else as it is."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else _escaped(ch) for ch in text)


def markdown_text(text: str) -> str:
    """``text`` for a Markdown table cell: as it is when Markdown reads nothing into it (letters,
    digits, spaces and plain punctuation, no web address); else printable, in a code span (its
    ``|`` written ``\\|``, which GitHub's tables read as a pipe inside the cell)."""
    shown = terminal_text(text)
    if _PLAIN.issuperset(shown) and not _WEB.search(shown):
        return shown
    body = shown.replace("|", "\\|")
    fence = "`" * (max((len(run) for run in re.findall("`+", body)), default=0) + 1)
    pad = " " if body[0] in "` " or body[-1] in "` " else ""
    return f"{fence}{pad}{body}{pad}{fence}"


def csv_text(text: str) -> str:
    """``text`` for a CSV cell: printable, and a ``'`` before it when it starts like a formula (``=``,
    ``+``, ``-``, ``@``), so a spreadsheet shows it as text."""
    shown = terminal_text(text)
    return "'" + shown if shown.startswith(FORMULA_START) else shown
