"""A person at the table (issue 23, item 4): ``cribsim play --human SEAT`` in a pseudo-terminal,
answered as a person would from what it shows (the first listed answer, a pass for a bid),
with a hint, a card it does not hold and an answer that is not a number asked along the way:
whole games of the standard rules, the auction, jokers and Fives and Threes, each saved and
replayed to the same end; ``q`` leaves the game; nothing is ever a traceback."""

import copy
import importlib
import os
import pty
import random
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cribsim.games import game_named
from cribsim.games.cribbage.cards import WILD_BASE, card_str, cards_str
from cribsim.games.fives_threes.tiles import A, B
from cribsim.human import HumanSeat
from cribsim.ruleset import load_rules
from cribsim.strategy import factory
from strategies.pegtable import cell_index, flat
from tests.cribbage.helpers import C, c1

ROOT = Path(__file__).resolve().parents[2]
PROMPT = re.compile(r"Your ([a-z ]+) \([^;()]*; \? for a hint, q to leave\): $")


CTRL_C = object()  # an answer that is Ctrl-C (SIGINT), not a line typed


def _as_from_a_terminal() -> None:
    """In the child, before cribsim starts: Ctrl-C as a terminal's foreground job has it. A suite
    started in the background of a shell without job control inherits SIGINT ignored, and
    Python then leaves it ignored in every child (so the Ctrl-C case would wait for nothing)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def play(args, answer, timeout=240.0):
    """Run ``cribsim play`` on a pseudo-terminal; ``answer(decision, screen, asked)`` gives each
    line typed (or CTRL_C). Returns (exit code, everything shown, the decisions asked)."""
    main, sub = pty.openpty()
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    p = subprocess.Popen([sys.executable, "-m", "cribsim", "play", *args], stdin=sub, stdout=sub, stderr=sub,
                         env=env, close_fds=True, preexec_fn=_as_from_a_terminal)
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
                if line is CTRL_C:
                    p.send_signal(signal.SIGINT)
                else:
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


@pytest.mark.parametrize("leave,code,how,seat,answered", [("q", 0, "q", 1, 3), (CTRL_C, 130, "Ctrl-C", 1, 3),
                                                         ("q", 0, "q", 0, 0)])
def test_leaving_with_save_keeps_the_game_so_far_which_replay_narrates_as_unfinished(tmp_path, leave, code, how, seat,
                                                                                     answered):
    """``--save`` wrote nothing when the person left: now the game as far as it went, recorded as
    a forfeited match's last game is (no winner, a forfeit of kind ``unfinished``), which
    ``cribsim replay`` narrates to where it stops and ``cribsim games`` lists as unfinished."""
    saved = tmp_path / "left.jsonl.gz"
    code_seen, shown, asked = play(["--human", str(seat), "--seed", "3", "--save", str(saved)],
                                   lambda d, s, a: "1" if len(a) <= answered else leave)
    assert code_seen == code and len(asked) == answered + 1, shown[-1500:]
    assert "You left the game." in shown and f"Saved the unfinished game to {saved}" in shown
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    replay = subprocess.run([sys.executable, "-m", "cribsim", "replay", str(saved)], capture_output=True, text=True,
                            env=env, timeout=120)
    assert replay.returncode == 0, replay.stderr
    told = replay.stdout
    where = f"a play decision of seat {seat}" if answered else f"a discard decision of seat {seat}"
    assert f"Play stops here (the record ends here, at {where})" in told and ("Bob lays away" in told) == (answered > 0)
    when = r"after the game's first \d+ answers" if answered else "before any answer"  # (seat 0 discards first)
    assert re.search(rf"Unfinished: you left the game \({how}\) {when}; the record stops there, and nobody won the "
                     "game", told), told[-500:]
    assert "Final score" not in told and "Match: no winner (unfinished), game points 0-0." in told
    listed = subprocess.run([sys.executable, "-m", "cribsim", "games", str(saved)], capture_output=True, text=True,
                            env=env, timeout=120)
    assert "no winner (unfinished)" in listed.stdout, listed.stdout + listed.stderr


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


# ---- the seat driven in this process, at decisions taken from games ----------------------------------------

def observations(rules_name, decision, keep, seeds=range(1, 40), start=None, strategy="ev"):
    """Copies of the observations of ``decision`` in games of ``rules_name`` between ``strategy``
    players (seeds in turn, from ``start`` scores) for which ``keep(obs)`` holds."""
    rules = load_rules(rules_name)
    make = factory(strategy, rules=(rules,), game=rules.game)
    found = []

    class Watching:
        def __init__(self, inner):
            self.inner, self.rng = inner, inner.rng

        def __getattr__(self, name):
            answer = getattr(self.inner, name)

            def asked(obs):
                if name == decision and keep(obs):
                    found.append(copy.copy(obs))
                return answer(obs)
            return asked

    for seed in seeds:
        players = [Watching(make(random.Random(s))) for s in range(rules.players)]
        game_named(rules.game).play_game(rules, players, seed, (0, 0), start_scores=start)
    assert found, f"no {decision} of {rules_name} in these games"
    return rules, found


def seat_at(rules, decision, obs, typed):
    """The human seat asked ``decision`` at ``obs``, ``typed`` typed in turn: (its answer, every
    line it showed and asked). Typing past the script is a failure, naming the last lines."""
    shown, lines = [], iter(typed)

    def ask(prompt):
        shown.append(prompt)
        line = next(lines, None)
        assert line is not None, "asked again after the last line typed:\n" + "\n".join(shown[-6:])
        return line

    view = importlib.import_module(game_named(rules.game).human).view(rules)
    return HumanSeat(view, obs.seat, [], ask, shown.append).decide(decision, obs), shown


def test_a_bid_is_typed_as_its_value_and_only_p_or_pass_passes():
    """The auction's answers are numbers, so they are not listed with numbers (``1) pass 2) 1``
    made ``1`` a pass): ``1`` bids 1, ``p`` and ``pass`` pass, ``0`` is no bid; the prompt says so."""
    rules, found = observations("auction", "bid", lambda o: o.bid_standing == 0, seeds=range(1, 2))
    obs = found[0]
    answer, shown = seat_at(rules, "bid", obs, ["1"])
    assert answer == 1
    assert not any(re.match(r"\s+\d+\) ", line) for line in shown), shown
    assert any(f"bid 1 to {rules.max_bid}, or p to pass" in line for line in shown), shown
    assert shown[-1].startswith("Your bid (the bid, or p to pass; ")
    assert seat_at(rules, "bid", obs, ["p"])[0] is None
    assert seat_at(rules, "bid", obs, ["pass"])[0] is None
    answer, shown = seat_at(rules, "bid", obs, ["0", "2"])
    assert answer == 2 and "  0 is not a legal bid now" in shown


def test_a_joker_is_laid_as_a_card_named_in_any_suit_and_never_bare():
    """``jk as ah`` lays the joker as the ace of hearts (the menu names spades, and the suit never
    counts in the play); a bare ``jk`` is asked again for its name."""
    rules, found = observations("jokers", "play", lambda o: any(c >= WILD_BASE for c in o.legal), seeds=range(1, 9))
    obs = found[0]
    joker = next(c for c in obs.legal if c >= WILD_BASE)
    answer, shown = seat_at(rules, "play", obs, ["jk", "jk as ah"])
    assert answer == (joker, c1("AH"))
    assert any("name the wild card as you lay it: jk as 5h" in line for line in shown), shown


def test_the_second_joker_of_the_deck_is_typed_jk_like_the_first():
    def holds_only_the_second(obs):
        return WILD_BASE + 1 in obs.hand[1:-1] and WILD_BASE not in obs.hand

    rules, found = observations("jokers", "discard", holds_only_the_second)
    """``JK`` is whichever joker the seat holds (it was always the first, id 52, refused when the
    seat held only the second), in either order beside the other card of a discard."""
    obs = found[0]
    for other in (obs.hand[0], obs.hand[-1]):  # (a card before the joker in the hand, and one after)
        if other < WILD_BASE:
            for typed in (f"jk {card_str(other)}", f"{card_str(other)} jk"):
                answer, _ = seat_at(rules, "discard", obs, [typed])
                assert sorted(answer) == sorted([other, WILD_BASE + 1]), typed


def test_a_bare_number_is_a_menu_number_never_a_tile():
    """Fives and Threes: ``12`` was the tile [1|2] with fewer than 12 moves listed, the 12th move
    with more; it is always a number now, and a tile is typed with its pips apart."""
    def holds_a_tile_typed_as_a_number(obs):
        return any(A[t] >= 1 and 10 * A[t] + B[t] > len(obs.legal) for t, _ in obs.legal)

    rules, found = observations("fives_threes", "play", holds_a_tile_typed_as_a_number, seeds=range(1, 3),
                                 strategy="greedy")
    obs = found[0]
    t = next(t for t, _ in obs.legal if A[t] >= 1 and 10 * A[t] + B[t] > len(obs.legal))
    answer, shown = seat_at(rules, "play", obs, [f"{A[t]}{B[t]}", "1"])
    assert answer == obs.legal[0]
    assert f"  {A[t]}{B[t]} is not one of 1 to {len(obs.legal)} (a tile is typed with its pips apart: 1-4)" in shown


# ---- the hint: why expert differs from ev ------------------------------------------------------------------

def hinted(rules, decision, found):
    """(observation, expert's answer as the hint gives it, ev's own answer, the hint's why-lines)
    for each observation: one table's view, one independent ev player."""
    view = importlib.import_module(game_named(rules.game).human).view(rules)
    ev = factory("ev", rules=(rules,), game=rules.game)(random.Random(0))
    for obs in found:
        lines = view.hint(obs, decision)
        said = re.fullmatch(rf"  expert would {decision} (.*)", lines[0]).group(1)
        yield obs, C(said), getattr(ev, decision)(obs), [x for x in lines if x.startswith("  why: ")]


def far_from_the_end(obs):
    """Whether expert plays by points here: both sides more than its board_from (40) from 121."""
    return max(obs.scores) < 121 - 40


def test_the_hint_says_why_expert_keeps_other_cards_than_ev_from_the_pegging_it_weighs():
    """At every discard the hint has a why-line exactly when expert's throw is not ev's, and its
    numbers are the pegging table's difference between the two keeps and ev's expected points
    (hand and crib) between them: what expert weighed, not a fixed sentence."""
    rules, found = observations("standard", "discard", far_from_the_end, seeds=range(1, 4))
    peg_dealer, peg_pone = flat()
    ev = factory("ev", rules=(rules,), game=rules.game)(random.Random(0))
    reasons = 0
    for obs, mine, theirs, why in hinted(rules, "discard", found):
        if sorted(mine) == sorted(theirs):
            assert not why, why
            continue
        m = re.fullmatch(rf"  why: expert throws {cards_str(mine)}, not ev's {cards_str(theirs)}: it weighs the "
                         r"pegging of the cards kept, and its keep pegs (\d+\.\d\d) points more than ev's, which "
                         r"gains only (\d+\.\d\d) in hand and crib", why[0] if len(why) == 1 else "")
        assert m, why
        table = peg_dealer if obs.seat == obs.dealer else peg_pone
        kept = [[c for c in obs.hand if c not in thrown] for thrown in (mine, theirs)]
        pegs = [table[cell_index([c >> 2 for c in k])] for k in kept]
        worth = [ev.keep_value(obs, k, t) for k, t in zip(kept, (mine, theirs))]
        assert float(m.group(1)) == pytest.approx(pegs[0] - pegs[1], abs=0.006)
        assert float(m.group(2)) == pytest.approx(worth[1] - worth[0], abs=0.006)
        assert float(m.group(1)) > float(m.group(2))
        reasons += 1
    assert reasons >= 3


def test_the_hint_says_why_expert_lays_another_card_than_ev_from_its_rollouts():
    """At every play the why-line is there exactly when expert's card is of another rank than
    ev's one-ply rule's, with the rollouts' pegging of both cards (expert's the better)."""
    def a_choice(obs):
        return far_from_the_end(obs) and len({c >> 2 for c in obs.legal}) > 1

    rules, found = observations("standard", "play", a_choice, seeds=range(1, 3))
    reasons = 0
    for _, mine, theirs, why in hinted(rules, "play", found):
        mine = mine[0]
        if mine >> 2 == theirs >> 2:
            assert not why, why
            continue
        m = re.fullmatch(rf"  why: expert lays {card_str(mine)}, not ev's {card_str(theirs)}: it plays the rest of "
                         rf"the play out \(32 rollouts\), where {card_str(mine)} nets ([-+]\d+\.\d\d) points of "
                         rf"pegging \(ours less theirs\) and {card_str(theirs)} ([-+]\d+\.\d\d); ev looks only at "
                         r"this card and the next reply", why[0] if len(why) == 1 else "")
        assert m, why
        assert float(m.group(1)) >= float(m.group(2))
        reasons += 1
    assert reasons >= 3


@pytest.mark.parametrize("decision", ["discard", "play"])
def test_the_hint_says_when_expert_plays_to_the_board_near_the_end(decision):
    """Near the end (from 100-104 of 121) expert values its candidates by the chance to win: the
    why-line then gives that chance for its choice and for its best by points (never more)."""
    def choice(obs):
        return decision == "discard" or len({c >> 2 for c in obs.legal}) > 1

    rules, found = observations("standard", decision, choice, seeds=range(1, 6), start=(100, 104))
    board = 0
    for _, mine, theirs, why in hinted(rules, decision, found):
        same = sorted(mine) == sorted(theirs) if decision == "discard" else mine[0] >> 2 == theirs >> 2
        assert bool(why) != same, why
        m = re.search(r": near the end it plays to the board, and (?:throwing )?(.+) wins (\d+)% of its 32 sampled "
                      r"deals, (.+) \(its best by points\) (\d+)%$", why[0] if why else "")
        if m:
            assert m.group(1) != m.group(3) and int(m.group(2)) >= int(m.group(4)), why
            board += 1
    assert board >= 2
