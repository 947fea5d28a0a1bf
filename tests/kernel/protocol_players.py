"""Players that are not cribsim's host, as scripts the tests write out and start: plain JSON
lines on standard input and output, as a bot in any language speaks the player protocol
(docs/protocol.md). Each script is ``script(loop)``: the shared :data:`REPLY` and its own loop."""

import textwrap

REPLY = '''\
import json, os, sys, time


def reply(msg, name="first"):
    """The reply to ``msg``, with its request's id: it discards its first cards and plays its
    first legal card."""
    kind = msg["kind"]
    if kind == "hello":
        body = {"kind": "capabilities", "protocol": 3, "name": name, "decisions": ["discard", "play"],
                "understands": []}
    elif kind == "decide":
        obs = msg["obs"]
        body = {"kind": "reply", "answer": obs["hand"][:obs["discards"]] if msg["decision"] == "discard"
                else obs["legal"][0]}
    else:
        body = {"kind": "ok"}
    return {"id": msg["id"], **body}


def send(text):
    sys.stdout.write(text)
    sys.stdout.flush()


'''


def script(loop: str) -> str:
    """A player's script: :data:`REPLY`, then ``loop`` (dedented)."""
    return REPLY + textwrap.dedent(loop)


RAW_PLAYER = script("""\
    for line in sys.stdin:
        send(json.dumps(reply(json.loads(line))) + "\\n")
""")
