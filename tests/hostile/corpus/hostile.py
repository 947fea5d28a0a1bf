"""hostile.py: the Python program bots of the hostile corpus (tests/hostile), the same as
hostile.c's in Python (the system's python3, standard library only). It plays as lowcard does
and, by its first argument, tries one thing a stranger's bot might:

  spy PATH... TOKEN   at its first decision: what it could reach (see :func:`findings`), as an
                      error reply "findings k=v ...", so the match's forfeit carries them
  background          at hello, starts a child that computes without end; at its 20th decision it
                      reports the processor time the child has had, and the wall time since it
                      started it (findings cpu=S wall=S): the child computed only in the bot's
                      turns if the first is a small part of the second
  slow SECONDS        sleeps SECONDS at every decision (an honest but slow opponent)
  sleepy_hello S      sleeps S seconds before its hello reply, at every start

It is also imported by the Python plug-ins of tests/hostile/plugins.py, which look the same way."""

import ctypes
import json
import os
import sys
import time

CLONE_NEWUSER = 0x10000000


def _readable(path):
    try:
        with open(path, "rb") as f:
            f.read(1)
        return True
    except OSError:
        return False


def _holds(path, needle, most=1 << 20):
    try:
        with open(path, "rb") as f:
            return needle in f.read(most)
    except OSError:
        return False


def _memory(pid, needle):
    """None if pid's memory cannot be read, else whether ``needle`` is in its first 8 MiB read."""
    try:
        maps = open(f"/proc/{pid}/maps").read().splitlines()
        mem = os.open(f"/proc/{pid}/mem", os.O_RDONLY)
    except OSError:
        return None
    got, total = None, 0
    try:
        for line in maps:
            span, perms = line.split()[:2]
            if not perms.startswith("r"):
                continue
            lo, hi = (int(x, 16) for x in span.split("-"))
            try:
                data = os.pread(mem, min(hi - lo, 1 << 20), lo)
            except OSError:
                continue
            got = bool(got)
            total += len(data)
            if needle and needle in data:
                return True
            if total > 8 << 20:
                break
    finally:
        os.close(mem)
    return got


def findings(paths, token):
    """What a bot can reach from where it runs: ``paths`` it can read, the processes it sees and
    whose environment or memory it can read, the organiser's token (its variable's name in any
    environment, or its value ``token`` in any memory), a user namespace or a session of its own."""
    me = os.getpid()
    pids = [int(p) for p in os.listdir("/proc") if p.isdigit()]
    env = mem = 0
    found = False
    for pid in pids:
        if pid == me:
            continue
        env += _readable(f"/proc/{pid}/environ")
        found = found or _holds(f"/proc/{pid}/environ", b"ORGANISER_TOKEN=")
        m = _memory(pid, token.encode())
        mem += m is not None
        found = found or bool(m)
    libc = ctypes.CDLL(None, use_errno=True)
    userns = libc.unshare(CLONE_NEWUSER) == 0
    try:
        os.setsid()
        sid = True
    except OSError:
        sid = False
    read = sum(_readable(p) for p in paths)
    yes = {True: "yes", False: "no"}
    return (f"findings read={read} procs={len(pids)} env={env} mem={mem} token={yes[found]} userns={yes[userns]} "
            f"setsid={yes[sid]}")


def answer(msg):
    obs = msg["obs"]
    if msg["decision"] == "discard":
        return sorted(obs["hand"], reverse=True)[:obs["discards"]]
    return min(obs["legal"])


def _spinner():
    """A child that computes without end; returns its pid."""
    pid = os.fork()
    if pid == 0:
        n = 0
        while True:
            n += 1
    return pid


def _cpu(pid):
    """The processor time process ``pid`` has had, in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main(argv):
    mode = argv[1] if len(argv) > 1 else ""
    decided = 0
    child, born = None, 0.0
    for line in sys.stdin:
        msg = json.loads(line)
        body = {"kind": "ok"}
        if msg["kind"] == "hello":
            if mode == "sleepy_hello":
                time.sleep(float(argv[2]))
            if mode == "background":
                child, born = _spinner(), time.monotonic()
            body = {"kind": "capabilities", "protocol": 3, "name": "hostile", "decisions": ["discard", "play"],
                    "understands": []}
        elif msg["kind"] == "decide":
            decided += 1
            if mode == "spy" and decided == 1:
                body = {"kind": "error", "message": findings(argv[2:-1], argv[-1])}
            elif mode == "background" and decided == 20:
                wall = time.monotonic() - born
                body = {"kind": "error", "message": f"findings cpu={_cpu(child):.3f} wall={wall:.3f}"}
            else:
                if mode == "slow":
                    time.sleep(float(argv[2]))
                body = {"kind": "reply", "answer": answer(msg)}
        sys.stdout.write(json.dumps({"id": msg["id"], **body}) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv)
