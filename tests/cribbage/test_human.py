"""A person at the table (issue 23, item 4): ``cribsim play --human SEAT`` in a pseudo-terminal,
answered as a person would from what it shows (the first listed answer, a pass for a bid),
with a hint, a card it does not hold and an answer that is not a number asked along the way:
whole games of the standard rules, the auction, jokers and Fives and Threes, each saved and
replayed to the same end; ``q`` leaves the game; nothing is ever a traceback."""

import os
import pty
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROMPT = re.compile(r"Your ([a-z ]+) \([^;()]*; \? for a hint, q to leave\): $")


def play(args, answer, timeout=240.0):
    """Run ``cribsim play`` on a pseudo-terminal; ``answer(decision, screen, asked)`` gives each
    line typed. Returns (exit code, everything shown, the decisions asked)."""
    main, sub = pty.openpty()
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    p = subprocess.Popen([sys.executable, "-m", "cribsim", "play", *args], stdin=sub, stdout=sub, stderr=sub,
                         env=env, close_fds=True)
    os.close(sub)
    shown, asked, screen = "", [], ""
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([main], [], [], 1.0)
            if not ready:
                if p.poll() is not None:
                    break
                continue
            try:
                data = os.read(main, 65536).decode("utf-8", "replace")
            except OSError:  # the child closed the terminal
                break
            shown += data
            screen += data
            m = PROMPT.search(screen.replace("\r\n", "\n"))
            if m:
                asked.append(m.group(1))
                line = answer(m.group(1), screen, asked)
                screen = ""
                os.write(main, (line + "\n").encode())
        p.wait(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        os.close(main)
    return p.returncode, shown.replace("\r\n", "\n"), asked


def first_or_pass(decision, screen, asked):
    """The first listed answer; a pass for a bid; expert's (from its hint) where the answers are
    too many to list; along the way a hint, a card not held and words that are not an answer
    (each asked again)."""
    n = len(asked)
    if n == 2:
        return "?"
    if n == 3:
        return "hello there"
    if n == 4 and decision in ("play", "discard"):
        return "ks" if "KS" not in screen and "[" not in screen else "2c"
    if decision == "bid":
        return "pass"
    if " 1) " not in screen:
        hint = re.search(r"(?:expert|mc) would [a-z ]+? ((?:\[|[0-9AJQKT]|JK|pass).*)", screen)
        return hint.group(1).strip() if hint else "?"
    return "1"


@pytest.mark.parametrize("rules", ["standard", "auction", "jokers", "fives_threes"])
def test_a_whole_game_in_the_terminal_saved_and_replayed(tmp_path, rules):
    saved = tmp_path / f"{rules}.jsonl.gz"
    code, shown, asked = play(["--human", "0", "--rules", rules, "--seed", "7", "--save", str(saved)],
                              first_or_pass)
    assert code == 0, shown[-2000:]
    assert "Traceback" not in shown and "internal error" not in shown
    assert "expert would" in shown or "mc would" in shown  # the hint
    end = r"Final score: .* wins? after \d+ deals?\." if rules != "fives_threes" else \
        r"\S+ wins \d+-\d+ after \d+ hands?\."
    assert re.search(end, shown), shown[-1500:]
    assert ({"discard", "play"} if rules != "fives_threes" else {"play"}) <= set(asked)
    assert rules != "auction" or "bid" in asked
    if rules == "jokers":
        assert " as " in shown or "JK" in shown  # a joker dealt or laid as a card, by name
    final = re.search(end, shown).group(0)
    replay = subprocess.run([sys.executable, "-m", "cribsim", "replay", str(saved)], capture_output=True, text=True,
                            env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=120)
    assert replay.returncode == 0, replay.stderr
    assert final in replay.stdout
    lines = shown.splitlines()
    reasons = [lines[i + 1] for i, x in enumerate(lines[:-1]) if x.endswith("hello there")]
    assert all(r.startswith("  ") for r in reasons)


@pytest.mark.parametrize("rules,private", [("three_player_team_inspect", "keeps"),
                                           ("canadian_doubles", "to partner")])
def test_a_person_never_sees_another_seats_hidden_cards(rules, private):
    """Seat 1 (a partnership's) sees its own cards only: never another seat's deal, discard,
    the lone player's inspection of the crib or a partner's passes before they are shown."""
    code, shown, _ = play(["--human", "1", "--rules", rules, "--seed", "4"], first_or_pass)
    assert code == 0, shown[-2000:]
    names = ("Alice", "Carol", "Dave")
    leaks = [x for x in shown.splitlines() if x.strip().startswith(names) and
             ("is dealt" in x or "lays away" in x or private in x)]
    assert not leaks, leaks[:3]
    assert "Bob is dealt" in shown


def test_q_leaves_the_game_and_bad_flags_are_one_line(tmp_path):
    code, shown, asked = play(["--human", "1", "--seed", "2"], lambda d, s, a: "q")
    assert code == 0 and "You left the game." in shown and len(asked) == 1
    for args, fragment in ((["--human", "2"], "--human must be a seat 0 to 1"),
                           (["--human", "0", "--against", "nosuch"], "unknown strategy 'nosuch'"),
                           (["--human", "0", "--rules", "three_player_team", "--save", str(tmp_path / "t.gz")],
                            "a match is more than one game"),
                           (["--human", "0", "--save", str(tmp_path / "no" / "t.gz")], "not a folder this user can"),
                           (["--save", str(tmp_path / "x.gz")], "--save goes with --human")):
        r = subprocess.run([sys.executable, "-m", "cribsim", "play", *args], capture_output=True, text=True,
                           env=dict(os.environ, PYTHONPATH=str(ROOT)), stdin=subprocess.DEVNULL, timeout=60)
        assert r.returncode == 2 and fragment in r.stderr and len(r.stderr.splitlines()) == 1, r.stderr
    existing = tmp_path / "there.gz"
    existing.write_bytes(b"mine")
    r = subprocess.run([sys.executable, "-m", "cribsim", "play", "--human", "0", "--save", str(existing)],
                       capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)),
                       stdin=subprocess.DEVNULL, timeout=60)
    assert r.returncode == 2 and "the file exists" in r.stderr and existing.read_bytes() == b"mine"
