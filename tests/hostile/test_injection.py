"""A bot's strings are data, escaped where they land (issue 38, G13): its error messages (a
program's ``error`` reply, a plug-in's exception), its refusal at hello and what its
capabilities list. In forfeits.csv no cell is a formula and each forfeit is one line; in
summary.md no bot's string makes a row, a cell, an image, a link, HTML or a heading; on the
terminal (the run's tables, ``cribsim report``, ``cribsim replay``, ``cribsim play``, the
one-line errors) no control character is written raw: each is shown as its escape (``\\x1b``).
The bots are in tests/hostile/injectors.py and run sandboxed, as a stranger's bot does; each
case plays its own small tournament (greedy against the bot, 2 matches, both forfeited)."""

import csv
import io
import re
import sys
from pathlib import Path

import markdown
import pytest

from cribsim.cli.main import main
from cribsim.isolation import sandbox
from tests.hostile.injectors import MESSAGES, NAME, PROGRAM, TERMINAL

pytestmark = pytest.mark.skipif(sandbox.unavailable() is not None or not sys.platform.startswith("linux"),
                                reason=f"no sandbox here: {sandbox.unavailable()}")

SHOWN = len(MESSAGES) - 1  # the program's messages in one run (the last, not UTF-8, has a test of its own)
FORMULA = ("=", "+", "-", "@", "\t", "\r")
RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")  # (a newline is fine)
ESCAPED = "\\x1b]0;pwned\\x07\\x1b[2J"  # TERMINAL, as it is shown


# ---- running a bot --------------------------------------------------------------------------------

def _config(folder: Path, entries: list[str]) -> Path:
    cfg = folder / "exp.yaml"
    lineup = "".join(f"  - {e}\n" for e in entries)
    cfg.write_text(f"name: injection\nlineup:\n  - greedy\n{lineup}format: gauntlet\nmatches: 2\nseed: 1\n"
                   "time_limit: 10\nrecord: all\n")
    return cfg


def _program(folder: Path) -> Path:
    """The program bot in ``folder``/bots (a folder the sandbox's user may read: pytest's own are
    its owner's only)."""
    (folder / "bots").mkdir(mode=0o755)
    bot = folder / "bots" / "bot.py"
    bot.write_text(PROGRAM)
    return bot


def _says(name: str, *args: str) -> str:
    """A lineup entry of the program bot."""
    return f"{{name: {name}, command: [python3, bot.py, {', '.join(args)}], cwd: bots}}"


def _plugin(name: str) -> str:
    return f'{{name: {name.lower()}, strategy: "tests.hostile.injectors:{name}"}}'


def _run(folder: Path, entries: list[str], capsys) -> tuple[Path, str]:
    """Run greedy against ``entries`` and report the folder again: the folder, and everything
    both commands wrote to the terminal."""
    out = folder / "out"
    code = main(["run", str(_config(folder, entries)), "--serial", "--out", str(out)])
    shown = "".join(capsys.readouterr())
    assert code == 0, shown
    code = main(["report", str(out)])
    shown += "".join(capsys.readouterr())
    assert code == 0, shown
    return out, shown


# ---- where the strings land ---------------------------------------------------------------------

def _csv(out: Path) -> list[list[str]]:
    return list(csv.reader(io.StringIO((out / "forfeits.csv").read_text(), newline="")))


def _cells(line: str) -> list[str]:
    """A Markdown table line's cells (a pipe after a backslash is inside a cell, as GitHub reads it)."""
    return [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]


def _inert(cell: str) -> bool:
    """Whether Markdown reads nothing into a cell: one code span, or text without anything that
    makes a link, an image, HTML, emphasis, an escape or a web address."""
    fence = re.match("`+", cell)
    if fence is None:
        return re.search(r"[\[\]<>!|`*_~\\&@]|://|www\.", cell, re.IGNORECASE) is None
    f = fence.group()
    inner = cell[len(f):-len(f)] if len(cell) > 2 * len(f) and cell.endswith(f) else None
    return inner is not None and f not in re.findall("`+", inner) and not inner.startswith("`") \
        and not inner.endswith("`")


def _check_csv(out: Path, forfeits: int) -> dict[str, str]:
    """forfeits.csv: one line of five cells a forfeit, none a formula or a control character.
    Returns the error cells by entry."""
    text = (out / "forfeits.csv").read_text()
    rows = _csv(out)
    assert len(rows) == 1 + forfeits == len(text.splitlines()), text
    assert all(len(r) == 5 for r in rows), text
    bad = [c for r in rows for c in r if c.startswith(FORMULA) or RAW.search(c)]
    assert bad == [], bad
    return {r[2]: r[4] for r in rows[1:]}


def _check_markdown(out: Path, forfeits: int) -> None:
    """summary.md: the forfeits table (the last) has a line of five cells a forfeit, every error
    cell is inert, and the page has no image, link, HTML, heading or table the bot made."""
    text = (out / "summary.md").read_text()
    _, _, section = text.partition("### Forfeits\n\n")
    table = section.rstrip("\n").split("\n")
    assert len(table) == 2 + forfeits, section  # the header, the rule, a line a forfeit
    assert all(line.startswith("|") and len(_cells(line)) == 5 for line in table), section
    errors = [_cells(line)[4] for line in table[2:]]
    assert all(_inert(e) for e in errors), errors
    html = markdown.markdown(text, extensions=["tables"])
    assert "<img" not in html and "<a " not in html and "<script" not in html, html
    assert html.count("<h1>") == 1 and not re.search("<h[2456]>", html), html
    assert html.count("<table>") == text.count("\n### ")  # a table a title, no more


def _check_terminal(shown: str, escaped: bool) -> None:
    assert RAW.search(shown) is None, repr(shown)
    if escaped:
        assert ESCAPED in shown


# ---- the cases ------------------------------------------------------------------------------------

@pytest.mark.parametrize("plugin", ["Hyperlink", "FormulaType", "FakeRow", "Image", "Terminal"])
def test_a_plugins_exception_is_data_where_it_lands(tmp_path, capsys, plugin):
    """A Python plug-in whose decision raises its payload: the forfeit's message (``Type:
    message``) is inert in forfeits.csv, summary.md and on the terminal."""
    out, shown = _run(tmp_path, [_plugin(plugin)], capsys)
    errors = _check_csv(out, 2)
    _check_markdown(out, 2)
    _check_terminal(shown, plugin == "Terminal")
    expected = {"Hyperlink": 'RuntimeError: =HYPERLINK("http://x","click")',  # (a formula only after text)
                "FormulaType": "'@SUM(1+9)*cmd: |' /C calc'!A0",  # (its exception class is named so)
                "FakeRow": "RuntimeError: x | fake | row\\n| 1 | 2 |",
                "Image": "RuntimeError: ![](http://evil.example/p.png) <img src=x>",
                "Terminal": "RuntimeError: " + ESCAPED}
    assert errors == {plugin.lower(): expected[plugin]}


def test_a_programs_messages_and_name_are_data_where_they_land(tmp_path, capsys):
    """A program that answers every decision with an error carrying one of MESSAGES (an entry
    each), and whose capabilities name escape codes, a table cell and an image."""
    _program(tmp_path)
    out, shown = _run(tmp_path, [_says(f"says{i}", f'"{i}"') for i in range(SHOWN)], capsys)
    errors = _check_csv(out, 2 * SHOWN)
    _check_markdown(out, 2 * SHOWN)
    _check_terminal(shown, True)
    assert errors["says0"] == "'" + MESSAGES[0]
    assert errors["says1"] == "'" + MESSAGES[1] and errors["says2"] == "'" + MESSAGES[2]
    assert errors["says3"] == "\\t=1+1"
    assert errors["says9"] == "\\x9b31m\\x7f\\u202eevil"  # a C1 control (CSI), DEL, a right-to-left override
    assert "\\x9b31m\\x7f\\u202eevil" in shown
    texts = [f.read_text() for f in out.iterdir() if f.suffix in (".md", ".csv")]
    assert not any(NAME in t or TERMINAL in t for t in texts)


def test_cribsim_replay_shows_a_forfeits_escapes(tmp_path, capsys):
    out, _ = _run(tmp_path, [_plugin("Terminal")], capsys)
    code = main(["replay", str(out), "--match", _csv(out)[1][1]])
    shown = "".join(capsys.readouterr())
    assert code == 0, shown
    assert "RuntimeError: " + ESCAPED in shown
    _check_terminal(shown, True)


def test_a_message_that_is_not_unicode_text_is_escaped_not_fatal(tmp_path, capsys):
    """A lone surrogate (JSON can carry one) cannot be written as UTF-8: it is shown as its
    escape, and the report is written."""
    _program(tmp_path)
    out, shown = _run(tmp_path, [_says("lone", f'"{SHOWN}"')], capsys)
    assert _check_csv(out, 2) == {"lone": "lone \\ud800 surrogate"}
    _check_markdown(out, 2)
    assert "lone \\ud800 surrogate" in (out / "summary.md").read_text()
    _check_terminal(shown, False)


# ---- the one-line errors that quote a bot ----------------------------------------------------------

@pytest.mark.parametrize("when", ["hello", "games"])
def test_a_bots_refusal_or_capabilities_are_escaped_in_the_error_line(tmp_path, capsys, when):
    """A hello refused with the bot's message, or capabilities that name a game of escape codes:
    the one line on stderr shows the codes, and writes none."""
    _program(tmp_path)
    cfg = _config(tmp_path, [_says("shouter", when, '"6"')])
    code = main(["run", str(cfg), "--serial", "--out", str(tmp_path / "out")])
    out, err = capsys.readouterr()
    assert code == 2 and "bot 'shouter'" in err, err
    _check_terminal(out + err, True)


def test_cribsim_play_names_a_bots_fault_with_escapes(tmp_path, capsys):
    bot = _program(tmp_path)
    code = main(["play", "--bot", f"python3 {bot} 6", "--seed", "1"])
    out, err = capsys.readouterr()
    assert code == 2 and "forfeits: error: " + ESCAPED in err, err
    _check_terminal(out + err, True)


# ---- the helpers ----------------------------------------------------------------------------------

def test_the_helpers_change_only_what_needs_escaping():
    """A message that needs no escaping is the same everywhere (so runs without a bot's strings
    write the same bytes); the rest is printable, a code span whose fence no backtick of the
    text closes, and no formula."""
    from cribsim.escape import csv_text, markdown_text, terminal_text

    for plain in ("RuntimeError: boom", "a decision took over 0.5 s", "KeyError: 'second'", ""):
        assert terminal_text(plain) == markdown_text(plain) == csv_text(plain) == plain
    raw = "a\x00b\x1bc\x7f\x85\u2028\ud800\U000e0001"
    assert terminal_text(raw) == "a\\x00b\\x1bc\\x7f\\x85\\u2028\\ud800\\U000e0001"
    assert markdown_text("x|y") == "`x\\|y`" and markdown_text("`a` ``b``") == "``` `a` ``b`` ```"
    assert markdown_text("see www.evil.example") == "`see www.evil.example`"
    assert [csv_text(t)[0] for t in ("=1", "+1", "-1", "@x", "\uff1d1", "\t=1")] == ["'"] * 5 + ["\\"]
