"""Bots whose strings try to be more than data, for tests/hostile/test_injection.py: a formula
for the spreadsheet that opens forfeits.csv, table rows, images, links, HTML and headings for
summary.md, escape codes for the terminal. Python plug-ins (each fails its first decision with
its payload as the exception) and a program speaking the player protocol (:data:`PROGRAM`:
``python3 bot.py N`` answers every decision with an error carrying ``MESSAGES[N]``; with
``hello N`` its hello is refused with that message, with ``games N`` it says it plays only a
game of that name)."""

from strategies.greedy import GreedyStrategy

HYPERLINK = '=HYPERLINK("http://x","click")'
FAKE_ROW = "x | fake | row\n| 1 | 2 |"
IMAGE = "![](http://evil.example/p.png) <img src=x>"
TERMINAL = "\x1b]0;pwned\x07\x1b[2J"

# what a program bot answers; each one is some other thing where it lands, unless escaped
MESSAGES = [
    HYPERLINK,
    "-2+3+cmd|' /C calc'!A0",
    "@SUM(1+9)*cmd|' /C calc'!A0",
    "\t=1+1",
    FAKE_ROW,
    IMAGE + " [click](http://evil.example) <http://evil.example> www.evil.example",
    TERMINAL,
    "fine\n\n# Injected heading\n\n| a | b |\n| - | - |",
    "`a` | ``b`` | ` c",
    "\x9b31m\x7f\u202eevil",  # a C1 control (CSI), DEL, a right-to-left override
    "lone \ud800 surrogate",  # not UTF-8 at all (the last: a test of its own)
]
NAME = TERMINAL + " | " + IMAGE  # the capabilities' name of the program


class _Payload(GreedyStrategy):
    """Fails its first decision with ``payload`` (greedy otherwise: it never gets there)."""

    payload: Exception = RuntimeError()

    def discard(self, obs):
        raise self.payload


class Hyperlink(_Payload):
    payload = RuntimeError(HYPERLINK)


class FormulaType(_Payload):
    """The exception's class name is the formula: its message is ``Type: message``."""

    payload = type("@SUM(1+9)*cmd", (Exception,), {})("|' /C calc'!A0")


class FakeRow(_Payload):
    payload = RuntimeError(FAKE_ROW)


class Image(_Payload):
    payload = RuntimeError(IMAGE)


class Terminal(_Payload):
    payload = RuntimeError(TERMINAL)


PROGRAM = f'''\
import json, sys

MESSAGES = {MESSAGES!r}
NAME = {NAME!r}
when = sys.argv[1] if len(sys.argv) > 2 else "decide"
message = MESSAGES[int(sys.argv[-1])]
for line in sys.stdin:
    msg = json.loads(line)
    kind = msg["kind"]
    if kind == "hello" and when == "hello":
        body = {{"kind": "error", "message": message}}
    elif kind == "hello":
        body = {{"kind": "capabilities", "protocol": 3, "name": NAME, "decisions": ["discard", "play"],
                 "understands": [NAME]}}
        if when == "games":
            body["games"] = [message]
    elif kind == "decide":
        body = {{"kind": "error", "message": message}}
    else:
        body = {{"kind": "ok"}}
    sys.stdout.write(json.dumps({{"id": msg["id"], **body}}) + "\\n")
    sys.stdout.flush()
'''
