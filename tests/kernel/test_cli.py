"""The cribsim command: score, peg, play. Errors are one line on stderr with exit code 2."""

import io
import json
import subprocess
import sys

import pytest

from cribsim.cli.main import main

pytestmark = pytest.mark.quick  # the quick tier: python -m pytest -m quick (docs/testing.md)


def run(argv, capsys, stdin=None, monkeypatch=None):
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_score_words_and_total(capsys):
    code, out, err = run(["score", "5H", "5C", "5S", "JD", "--starter", "5D"], capsys)
    assert code == 0 and err == ""
    assert "fifteen two" in out and "fifteen four" in out and "a pair is 2" in out
    assert "his nobs is 1" in out and out.strip().endswith("total 29")


def test_score_json(capsys):
    code, out, _ = run(["score", "2H", "4H", "6H", "8H", "--starter", "KC", "--crib", "--json"], capsys)
    res = json.loads(out)
    assert code == 0 and res["total"] == 0 and res["crib"] is True  # R-SHOW-6 crib flush needs 5
    code, out, _ = run(["score", "5h", "5c", "5s", "jd", "--starter", "5d", "--json"], capsys)
    res = json.loads(out)
    assert res["total"] == 29
    assert {"reason": "nobs", "points": 1, "cards": ["JD"]} in res["items"]


def test_score_batch_with_a_bad_line(capsys, monkeypatch):
    text = "5H 5C 5S JD 5D\n\n# comment\n2H 4H 5H 6H 3D crib\n1Z 2H 3H 4H 5H\n10D JD QD KD 5D\n"
    code, out, _ = run(["score", "--batch", "-"], capsys, stdin=text, monkeypatch=monkeypatch)
    lines = [json.loads(x) for x in out.splitlines()]
    assert [x.get("total") for x in lines] == [29, 9, None, 18]  # 8 + run 4 + flush 5 + nobs 1
    assert lines[2]["line"] == 5 and "invalid card '1Z'" in lines[2]["error"]
    assert lines[1]["crib"] is True
    assert code == 1  # a bad line makes the exit code non-zero, the others are still scored


def test_peg(capsys, monkeypatch):
    code, out, _ = run(["peg", "4C", "6D", "5H", "--json"], capsys)
    res = json.loads(out)
    assert res["total"] == 5 and res["count"] == 15  # fifteen 2 + run 3
    code, out, _ = run(["peg", "--batch", "-"], capsys, stdin="2H 3C 3D 4S\nKH QC TD AS\nKH QC TD 5S\n",
                       monkeypatch=monkeypatch)
    lines = [json.loads(x) for x in out.splitlines()]
    assert [x.get("total") for x in lines] == [0, 2, None]
    assert "over 31" in lines[2]["error"]


@pytest.mark.parametrize("argv,fragment", [
    (["score", "1Z", "--starter", "5H"], "invalid card '1Z' (expected rank A,2-10,T,J,Q,K and suit C,D,H,S)"),
    (["score", "5H", "5C"], "--starter"),
    (["score", "5H", "5C", "--starter", "5H"], "also in the hand"),
    (["score", "--bogus"], "unrecognized arguments"),
    (["peg", "KH", "QH", "JH", "5H"], "over 31"),
    (["play", "--players", "9"], "2 to 5"),
    (["play", "--players", "3", "--teams"], "--teams needs --players 4"),
    (["play", "--rules", "nope"], "no such rules file"),
    (["play", "--strategy", "nope"], "unknown strategy"),
    (["score", "--batch", "/no/such/file"], "cannot read"),
])
def test_errors_are_one_line_exit_2(capsys, argv, fragment):
    code, out, err = run(argv, capsys)
    assert code == 2
    assert fragment in err and err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize("argv,players", [(["--players", "2"], 2), (["--players", "3"], 3),
                                          (["--players", "4", "--teams"], 4), (["--players", "5"], 5)])
def test_play_narrates_a_whole_game(capsys, argv, players):
    code, out, _ = run(["play", "--seed", "7"] + argv, capsys)
    assert code == 0
    assert "== Deal 1:" in out and "Starter:" in out and "count" in out and "The show:" in out
    assert out.strip().splitlines()[-1].startswith("Final score:")
    if "--teams" in argv:
        assert "Alice & Claire" in out


def test_play_is_reproducible(capsys):
    a = run(["play", "--seed", "7"], capsys)[1]
    b = run(["play", "--seed", "7"], capsys)[1]
    assert a == b


def test_console_script_help_and_error():
    r = subprocess.run([sys.executable, "-m", "cribsim", "score", "--help"], capture_output=True, text=True)
    assert r.returncode == 0 and "--starter" in r.stdout
    r = subprocess.run([sys.executable, "-m", "cribsim", "score", "ZZ", "--starter", "5H"],
                       capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
